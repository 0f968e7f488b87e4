// `capture` for VS Code chat sessions (docs/formats/vscode-copilot.md §3–§5): the file is read whole
// (a `.jsonl` log is replayed to the session it describes), within a size limit and never written.
// Then session.start, the log's notes (bad lines, unknown entries) in line order, and per request
// the user's message, the answer and the result's note. A request's events carry its index + 1 as
// `origin.native_seq`.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import { toEpochSeconds, type SpEvent } from '../../lib/core/event.js';
import { MAX_JSON_DEPTH, isObject, nestedDeeperThan, rest, str, type Json } from '../../lib/core/json.js';
import { ASSISTANT, fromParts, fromRounds, resultNote, roundsOf, userMessage, type Pending } from './parts.js';
import { AGENT } from './paths.js';
import { readSessionFile } from './read.js';
import { workspaceOf } from './workspace.js';
import { fidelity } from './fidelity.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);

/** The model of the last request that names one. */
function lastModel(requests: Json[]): string | undefined {
  for (let i = requests.length - 1; i >= 0; i -= 1) if (str(requests[i].modelId)) return requests[i].modelId as string;
  return undefined;
}

function startPayload(ref: SessionRef, session: Json | undefined, requests: Json[], format: string): Json {
  const payload: Json = { native_id: ref.native_id, source_path: ref.path, format };
  const place = workspaceOf(ref.path);
  if (place.cwd) payload.cwd = place.cwd;
  if (place.workspace) payload.workspace = place.workspace;
  payload.storage = place.storage;
  if (session) {
    if (str(session.customTitle)) payload.title = session.customTitle;
    const model = lastModel(requests);
    if (model) payload.model = model;
    if (typeof session.version === 'number') payload.format_version = session.version;
    if (str(session.sessionId) && session.sessionId !== ref.native_id) payload.recorded_session_id = session.sessionId;
    const extra = rest(session, ['requests', 'sessionId', 'customTitle', 'version']);
    if (extra) payload.extra = extra;
  }
  return payload;
}

/** The events of one request (a request too deep for the canonical walks is kept as a note without its body). */
function requestEvents(request: unknown, where: string, options: CaptureOptions): Pending[] {
  if (!isObject(request)) return [{ type: 'meta', payload: { key: `${AGENT}.request`, raw: request }, actor: 'system' }];
  if (nestedDeeperThan(request, MAX_JSON_DEPTH)) {
    options.onDiagnostic?.(where, `nested deeper than ${MAX_JSON_DEPTH} levels: kept as meta without its body`);
    return [{ type: 'meta', payload: { key: `${AGENT}.too-deep`, dropped: 'the request, nested too deep' }, actor: 'system' }];
  }
  const rounds = roundsOf(request);
  const out: Pending[] = [userMessage(request)];
  if (rounds) {
    out.push(...fromRounds(request, rounds));
    if (request.response !== undefined) out.push({ type: 'meta', payload: { key: `${AGENT}.response`, raw: request.response }, actor: ASSISTANT });
  } else out.push(...fromParts(request));
  const note = resultNote(request, rounds !== undefined);
  if (note) out.push(note);
  return out;
}

export async function* captureVscodeCopilot(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const file = readSessionFile(ref.path, options.onDiagnostic);
  const session = file.session;
  const requests = session && Array.isArray(session.requests) ? session.requests : [];
  const emitter = new SessionEmitter(AGENT, ref.native_id);
  let lastTs = toEpochSeconds(session?.creationDate) ?? (ref.mtime as number | undefined) ?? Date.now() / 1000;
  const emit = (pending: Pending, origin: Json): SpEvent => emitter.emit(pending.type, pending.payload, lastTs, { actor: pending.actor, level: levelOf(pending.type), origin });

  yield emitter.emit('session.start', startPayload(ref, session, requests.filter(isObject), file.format), lastTs, { actor: 'system', level: 1, origin: { path: ref.path } });
  for (const note of file.notes) {
    yield emit({ type: 'meta', payload: { key: `${AGENT}.${note.key}`, line: note.line, ...note.payload }, actor: 'system' }, { path: ref.path, native_seq: note.line });
  }
  if (session && session.requests !== undefined && !Array.isArray(session.requests)) {
    options.onDiagnostic?.(`${ref.path}:1`, 'requests is not a list: no request is read');
    yield emit({ type: 'meta', payload: { key: `${AGENT}.requests`, raw: session.requests }, actor: 'system' }, { path: ref.path });
  }
  for (let i = 0; i < requests.length; i += 1) {
    const request = requests[i];
    const ts = isObject(request) ? toEpochSeconds(request.timestamp) : undefined;
    if (ts !== undefined) lastTs = ts;
    const origin: Json = { path: ref.path, native_seq: i + 1 };
    if (isObject(request) && str(request.requestId)) origin.native_uuid = request.requestId;
    if (options.raw) origin.raw = [JSON.stringify(request)];
    const pending = requestEvents(request, `${ref.path}:request ${i + 1}`, options);
    for (let j = 0; j < pending.length; j += 1) {
      const o = j === 0 ? origin : { ...origin, raw: undefined };
      if (o.raw === undefined) delete o.raw;
      yield emit(pending[j], o);
    }
  }
}
