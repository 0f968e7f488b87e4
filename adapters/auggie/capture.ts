// `capture` for Augment Auggie (docs/formats/auggie.md §3): one `sessions/<uuid>.json` →
// session.start (the document's header: times, agentState, the root task list it names), then the
// events of each `chatHistory` entry in order (adapters/auggie/exchange.ts). The client rewrites the
// whole file after every step, so a record here is an exchange: its number (1-based) is
// `origin.native_seq`, and an entry that is not an object is `file:N` plus a meta event. With a
// cursor, capture continues after the exchanges it consumed, and refuses (exit 2) a file whose
// consumed exchanges changed or went away. The file is only ever read.
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { CaptureOptions, Diagnose, SessionRef } from '../../lib/adapter/interface.js';
import { itemListEvents, readJsonDocument, type ItemListState } from '../../lib/capture/json-document.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SessionEmitter } from '../../lib/core/emitter.js';
import { toEpochSeconds, type SpEvent } from '../../lib/core/event.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';
import { cwdOf, exchangeEvents, type Pending } from './exchange.js';
import { AGENT, taskPath } from './paths.js';
import { fidelity } from './fidelity.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

/** What a cursor carries from run to run. */
type AuggieState = ItemListState;

/** Task files are small; a bigger one is not read (its id is kept). */
const MAX_TASK_BYTES = 1 << 20;

/** The session document parsed; a file that is not one JSON object, or whose history is not a list, is unreadable input (exit 2). */
export function readSessionFile(path: string, onDiagnostic?: Diagnose): { document: Json; history: unknown[] } {
  const { document } = readJsonDocument(path, 'an Auggie session file', onDiagnostic);
  const history = document.chatHistory === undefined ? [] : document.chatHistory;
  if (!Array.isArray(history)) throw new UserError('not an Auggie session file: "chatHistory" is not a list', path);
  return { document, history };
}

/**
 * The task list `rootTaskUuid` names, from `<home>/task-storage/tasks/<uuid>` beside the sessions
 * folder; only for a UUID (an id from the file never chooses a path), only a JSON object.
 */
export function readRootTask(sessionFile: string, taskId: unknown): Json | undefined {
  const folder = dirname(sessionFile);
  if (basename(folder) !== 'sessions') return undefined;
  const path = taskPath(dirname(folder), taskId);
  if (!path) return undefined;
  try {
    // A plain file only: a symlink could hand another file's contents into the session.
    const stat = lstatSync(path);
    if (!stat.isFile() || stat.size > MAX_TASK_BYTES) return undefined;
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}


function startPayload(ref: SessionRef, document: Json, history: unknown[]): Json {
  const payload: Json = { native_id: ref.native_id, source_path: ref.path };
  const cwd = cwdOf(history);
  if (cwd) payload.cwd = cwd;
  const state = isObject(document.agentState) ? document.agentState : undefined;
  if (str(state?.modelId)) payload.model = state!.modelId;
  if (str(document.created)) payload.created = document.created;
  if (str(document.modified)) payload.modified = document.modified;
  const header = rest(document, ['chatHistory']);
  if (header) payload.header = header;
  if (str(document.rootTaskUuid)) {
    payload.root_task_uuid = document.rootTaskUuid;
    const task = readRootTask(ref.path, document.rootTaskUuid);
    if (task) payload.root_task = task;
  }
  if (str(document.sessionId) && document.sessionId !== ref.native_id) payload.recorded_session_id = document.sessionId;
  return payload;
}

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);

class AuggieMapper {
  constructor(
    private readonly emitter: SessionEmitter,
    private readonly path: string,
    private readonly state: AuggieState,
    private readonly raw: boolean,
    private readonly onDiagnostic?: Diagnose,
  ) {}

  start(payload: Json, ts: number): SpEvent {
    this.state.started = true;
    this.state.last_ts = ts;
    return this.emitter.emit('session.start', payload, ts, { actor: 'system', level: 1, origin: {} });
  }

  /** Events of entry `index` (0-based); never throws on bad input (a bad entry becomes meta). */
  entry(value: unknown, index: number): SpEvent[] {
    const number = index + 1;
    let pending: Pending[];
    let entry: Json | undefined;
    if (!isObject(value)) {
      const shown = JSON.stringify(value) ?? String(value);
      this.onDiagnostic?.(`${this.path}:${number}`, `exchange ${number} is not an object: ${shown.slice(0, 120)}`);
      pending = [{ type: 'meta', payload: { key: 'auggie.unparseable', error: 'not an object', text: shown.slice(0, 4096) }, actor: 'system' }];
    } else {
      entry = value;
      pending = exchangeEvents(value);
    }
    const finished = entry ? toEpochSeconds(entry.finishedAt) : undefined;
    const requestId = entry && isObject(entry.exchange) ? str(entry.exchange.request_id) : undefined;
    return pending.map((p, i) => {
      // Node times first, then the exchange's end; never earlier than the event before.
      const own = p.ts ?? (p.type === 'message.user' ? undefined : finished);
      const at = Math.max(own ?? this.state.last_ts ?? finished ?? Date.now() / 1000, this.state.last_ts ?? 0);
      this.state.last_ts = at;
      const origin: Json = { native_seq: number };
      if (requestId) origin.native_uuid = requestId;
      if (i === 0 && this.raw) origin.raw = [JSON.stringify(value)];
      return this.emitter.emit(p.type, p.payload, at, { actor: p.actor, level: levelOf(p.type), origin });
    });
  }
}

export async function* captureAuggie(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const { path } = ref;
  const { document, history } = readSessionFile(path, options.onDiagnostic);
  yield* itemListEvents<AuggieState>(ref, options, {
    agent: AGENT,
    noun: 'exchange',
    items: history,
    mapper: (emitter, state) => {
      const mapper = new AuggieMapper(emitter, path, state, options.raw === true, options.onDiagnostic);
      return {
        start: () => mapper.start(startPayload(ref, document, history), toEpochSeconds(document.created) ?? statSync(path).mtimeMs / 1000),
        item: (value, index) => mapper.entry(value, index),
      };
    },
  });
}
