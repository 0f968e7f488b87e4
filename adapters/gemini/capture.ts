// `capture` for Gemini CLI: one session file → session.start (from the metadata line), then every
// line in file order through the record mapper (records.ts). With a cursor, capture continues after
// the last consumed line, a last line without its newline waits, and the mapper's state comes back
// from the cursor. A legacy `.json` session (one object, rewritten whole by the client) is read whole;
// with a cursor it is mapped again from the stored state, which emits only what changed.
import { readFileSync, statSync } from 'node:fs';
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError, readError } from '../../lib/cli/diagnostics.js';
import { toEpochSeconds, type SpEvent } from '../../lib/core/event.js';
import { cursorFor, emitterFor, rawFinalNewline, sha256Hex, storeNextSeq } from '../../lib/capture/read-position.js';
import { lineFile, readLineFile, type Opening } from '../../lib/formats/line-file.js';
import { isObject, jsonObject, type Json } from '../../lib/core/json.js';
import type { Line } from '../../lib/core/lines.js';
import { summarize } from './discover.js';
import { AGENT, GeminiMapper, isMetadata, newGeminiState, type GeminiState } from './records.js';

const METADATA_KEYS = new Set(['sessionId', 'projectHash', 'startTime', 'lastUpdated', 'kind', 'summary', 'messages']);

function startPayload(ref: SessionRef, metadata: Json | undefined, head: SessionRef): Json {
  const payload: Json = { native_id: ref.native_id, source_path: ref.path };
  const cwd = typeof ref.cwd === 'string' ? ref.cwd : undefined;
  if (cwd !== undefined) payload.cwd = cwd;
  if (metadata) {
    if (typeof metadata.projectHash === 'string') payload.project_hash = metadata.projectHash;
    if (typeof metadata.startTime === 'string') payload.created = metadata.startTime;
    if (typeof metadata.kind === 'string') payload.kind = metadata.kind;
    const extra: Json = {};
    for (const [key, value] of Object.entries(metadata)) if (!METADATA_KEYS.has(key)) extra[key] = value;
    if (Object.keys(extra).length > 0) payload.metadata_extra = extra;
  } else {
    payload.metadata = false;
  }
  if (typeof head.title === 'string') payload.title = head.title;
  if (typeof head.model === 'string') payload.model = head.model;
  payload.format = ref.format === 'json' ? 'json' : 'jsonl';
  return payload;
}

/** The first model a session names (one cheap pass). */
function firstModel(text: string): string | undefined {
  const m = /"type"\s*:\s*"gemini"[^\n]*?"model"\s*:\s*"([^"]+)"/.exec(text);
  return m?.[1];
}

export async function* captureGemini(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  if (ref.format === 'json' || ref.path.endsWith('.json')) {
    yield* captureLegacy(ref, options);
    return;
  }
  const file = lineFile(AGENT, ref, options, 'Gemini CLI session file', newGeminiState);
  const { path, incremental, size, state, emitter } = file;
  const mapper = new GeminiMapper({ emitter, path, state, raw: options.raw, onDiagnostic: options.onDiagnostic });

  const start = async (line: Line | undefined, metadata: Json | undefined): Promise<SpEvent> => {
    const head = await summarize({ ...ref }).catch(() => ref);
    let model: string | undefined;
    try {
      model = firstModel(readFileSync(path, 'utf8').slice(0, 1 << 20));
    } catch {
      model = undefined;
    }
    const payload = startPayload(ref, metadata, { ...head, model });
    if (options.raw) payload.raw_final_newline = rawFinalNewline(path, size, incremental);
    const ts = toEpochSeconds(metadata?.startTime) ?? head.first_ts ?? statSync(path).mtimeMs / 1000;
    return mapper.start(payload, ts, line);
  };

  const open = async (line: Line | undefined): Promise<Opening> => {
    const value = line ? jsonObject(line.text) : undefined;
    if (line && value && isMetadata(value)) return { start: await start(line, value), header: true };
    if (line) options.onDiagnostic?.(`${path}:${line.number}`, 'no metadata line {"sessionId","projectHash",…} first: the client would not load this file; read anyway');
    return { start: await start(undefined, undefined), header: false };
  };
  yield* readLineFile(file, options, open, (line) => mapper.line(line));
}

/** A legacy single-object session `{sessionId, projectHash, startTime, lastUpdated, messages}`. */
async function* captureLegacy(ref: SessionRef, options: CaptureOptions): AsyncGenerator<SpEvent> {
  const cursor = cursorFor(AGENT, ref, options.cursor);
  const path = ref.path;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw readError(err, path);
  }
  const digest = sha256Hex(text);
  const before = cursor.sources[path];
  if (before && before.last_line_sha256 === digest) {
    options.onCursor?.(cursor);
    return;
  }
  let document: Json;
  try {
    const value: unknown = JSON.parse(text);
    if (!isObject(value)) throw new Error('not a JSON object');
    document = value;
  } catch (err) {
    throw new UserError(`not a Gemini CLI session (legacy .json must be one JSON object: ${(err as Error).message})`, path);
  }
  const state: GeminiState = (cursor.state as GeminiState | undefined) ?? newGeminiState();
  cursor.state = state;
  const emitter = emitterFor(cursor, AGENT, ref.native_id);
  const mapper = new GeminiMapper({ emitter, path, state, raw: options.raw, onDiagnostic: options.onDiagnostic });
  if (!state.started) {
    const head = await summarize({ ...ref }).catch(() => ref);
    const payload = startPayload(ref, document, { ...head, model: firstModel(text.replace(/\s*\n\s*/g, '')) });
    const start = mapper.start(payload, toEpochSeconds(document.startTime) ?? statSync(path).mtimeMs / 1000);
    if (options.raw) start.origin = { ...start.origin!, raw: [text] };
    yield start;
  }
  const messages = Array.isArray(document.messages) ? document.messages : [];
  for (let i = 0; i < messages.length; i += 1) for (const event of mapper.legacyMessage(messages[i], i)) yield event;
  cursor.sources[path] = { offset: Buffer.byteLength(text), line: 1, last_line_sha256: digest };
  storeNextSeq(cursor, emitter);
  options.onCursor?.(cursor);
}
