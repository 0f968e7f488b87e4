// `capture` for OpenCode's format (OpenCode, Kilo Code CLI; events carry the owner's agent id): one
// session of a store (database, JSON storage, export file) →
// session.start, then per message in the client's order (docs/formats/opencode.md §3) its parts:
//   user:      one message.user (text parts as text blocks, synthetic ones marked; images from
//              file parts with a data: URL as image blocks, other file parts as file blocks);
//   assistant: text → message.assistant, reasoning → message.thinking (Anthropic signature from
//              metadata.anthropic.signature), tool → tool.call + tool.result (completed: output;
//              error: the error; pending/running: what the client sends, "[Tool execution was
//              interrupted]") + derived command.run / file.read / file.edit;
//   step-start, step-finish, patch, compaction, snapshot, subtask, agent, retry and any type a later
//   client adds → meta {key: <agent>.part.<type>, raw: the part}; `todo` rows → meta <agent>.todos.
// Message fields beyond the mapped ones ride along in `extra` of the message's first event. A row
// that is not JSON becomes meta with one diagnostic. `origin.native_seq` numbers the records
// (messages and parts) in this order from 1; `origin.native_uuid` is the record's own id (a user
// message gathers its parts: their ids are in `payload.parts`).
import { createHash } from 'node:crypto';
import type { CaptureOptions, SessionRef } from '../../adapter/interface.js';
import { cursorFor } from '../../capture/read-position.js';
import { UserError } from '../../cli/diagnostics.js';
import { canonicalSessionId, type Actor, type SpEvent } from '../../core/event.js';
import { SessionEmitter } from '../../core/emitter.js';
import { isObject, rest, str, type Json } from '../../core/json.js';
import { loadSession } from './discover.js';
import type { DataDirOwner } from './locator.js';
import type { StoredSession } from './store.js';

export const INTERRUPTED = '[Tool execution was interrupted]';
const HEAD = 4096;

const seconds = (ms: unknown): number | undefined => (typeof ms === 'number' && Number.isFinite(ms) ? ms / 1000 : undefined);

function timeOf(info: Json | undefined): number | undefined {
  return isObject(info?.time) ? seconds(info.time.created) : undefined;
}

/** The session info in export shape, whichever store it came from (SQLite columns are snake_case). */
export function sessionFields(info: Json): { id: string; directory?: string; title?: string; version?: string; projectID?: string; parentID?: string; slug?: string; created?: number; updated?: number; model?: Json } {
  const time = isObject(info.time) ? info.time : {};
  return {
    id: String(info.id),
    directory: str(info.directory),
    title: str(info.title),
    version: str(info.version),
    projectID: str(info.projectID) ?? str(info.project_id),
    parentID: str(info.parentID) ?? str(info.parent_id),
    slug: str(info.slug),
    created: typeof time.created === 'number' ? time.created : typeof info.time_created === 'number' ? info.time_created : undefined,
    updated: typeof time.updated === 'number' ? time.updated : typeof info.time_updated === 'number' ? info.time_updated : undefined,
    model: isObject(info.model) ? info.model : undefined,
  };
}

const SESSION_KEYS = ['id', 'directory', 'title', 'version', 'projectID', 'project_id', 'parentID', 'parent_id', 'slug', 'time', 'time_created', 'time_updated', 'model'];

/** A unified diff that creates `path` with `content` (what a write did, when no diff was recorded). */
export function creationDiff(path: string, content: string): string {
  const lines = content === '' ? [] : content.replace(/\n$/, '').split('\n');
  return [`--- /dev/null`, `+++ ${path}`, `@@ -0,0 +1,${lines.length} @@`, ...lines.map((l) => `+${l}`), ''].join('\n');
}

type StoredMessage = StoredSession['messages'][number];
type StoredPart = StoredMessage['parts'][number];
type PayloadStep = (p: Json) => Json;

export function* sessionEvents(agent: string, stored: StoredSession, nativeId: string, options: CaptureOptions = {}): Generator<SpEvent> {
  yield* new SessionCapture(agent, stored, nativeId, options.onDiagnostic).events();
}

/**
 * Marks the first event of a message with the message's own fields (those beyond the mapped ones,
 * its times, its record number); the message's later events pass through unchanged.
 */
function firstEventOfMessage(info: Json, messageSeq: number): PayloadStep {
  const messageExtra = rest(info, ['id', 'sessionID', 'role', 'time', 'modelID', 'providerID', 'finish']);
  let first = true;
  return (p) => {
    if (first) {
      first = false;
      if (messageExtra) p.message_extra = messageExtra;
      if (isObject(info.time)) p.message_time = info.time;
      p.message_seq = messageSeq;
    }
    return p;
  };
}

/** A tool part's result: completed (output, or the marker of a compacted one), error, or interrupted. */
function toolResultPayload(callId: string, name: string, state: Json): Json {
  const status = str(state.status);
  const result: Json = { call_id: callId, name, status };
  if (status === 'completed') {
    const compacted = isObject(state.time) && state.time.compacted !== undefined;
    result.content = compacted ? '[Old tool result content cleared]' : typeof state.output === 'string' ? state.output : JSON.stringify(state.output ?? '');
    result.is_error = false;
    if (compacted) result.original_output = state.output;
  } else if (status === 'error') {
    result.content = typeof state.error === 'string' ? state.error : JSON.stringify(state.error ?? '');
    result.is_error = true;
  } else {
    result.content = INTERRUPTED;
    result.is_error = true;
    result.interrupted = true;
  }
  const structured = rest(state, ['status', 'input', 'output', 'error']);
  if (structured) result.structured = structured;
  return result;
}

/**
 * One pass over a stored session. Every step shares the emitter, the time of the last event (the
 * time of a record that has none) and the record number (`origin.native_seq`), so they live here.
 */
class SessionCapture {
  private readonly emitter: SessionEmitter;
  private lastTs: number;
  private seq = 0;

  private readonly assistant: Actor;

  constructor(
    private readonly agent: string,
    private readonly stored: StoredSession,
    private readonly nativeId: string,
    private readonly diagnose: CaptureOptions['onDiagnostic'],
  ) {
    this.emitter = new SessionEmitter(agent, nativeId);
    this.assistant = `agent:${agent}`;
    this.lastTs = seconds(sessionFields(stored.info).created) ?? timeOf(stored.messages[0]?.info) ?? Date.now() / 1000;
  }

  *events(): Generator<SpEvent> {
    yield this.emit('session.start', this.startPayload(), this.lastTs, 'system', 0, undefined);
    for (const message of this.stored.messages) yield* this.message(message);
    if (this.stored.todos && this.stored.todos.length > 0) {
      yield this.emit('meta', { key: `${this.agent}.todos`, value: this.stored.todos }, this.lastTs, 'system', this.seq + 1, undefined);
    }
  }

  private emit(type: string, payload: Json, ts: number, actor: Actor, seq: number, uuid: string | undefined, extra: { derived_from?: number } = {}): SpEvent {
    this.lastTs = ts;
    const origin: Json = { native_seq: seq };
    if (uuid) origin.native_uuid = uuid;
    return this.emitter.emit(type, payload, ts, { actor, level: type === 'meta' ? 2 : type === 'session.start' || type === 'message.thinking' ? 1 : 0, origin, derived_from: extra.derived_from });
  }

  private startPayload(): Json {
    const { stored } = this;
    const f = sessionFields(stored.info);
    const start: Json = { native_id: this.nativeId };
    if (f.directory) start.cwd = f.directory;
    if (f.title) start.title = f.title;
    if (f.version) start.version = f.version;
    if (f.projectID) start.project_id = f.projectID;
    if (f.slug) start.slug = f.slug;
    if (f.parentID) start.parent_session = canonicalSessionId(this.agent, f.parentID);
    if (f.parentID) start.parent_native_id = f.parentID;
    // The model the client continues with: the last user message's, else the session's.
    const lastUser = [...stored.messages].reverse().find((m) => m.info?.role === 'user' && isObject(m.info.model));
    const model = lastUser ? (lastUser.info!.model as Json) : f.model;
    if (model) {
      const id = str(model.modelID) ?? str(model.id);
      if (id) start.model = id;
      if (str(model.providerID)) start.provider = model.providerID;
    }
    const extra = rest(stored.info, SESSION_KEYS);
    if (extra) start.extra = extra;
    return start;
  }

  private *message(message: StoredMessage): Generator<SpEvent> {
    this.seq += 1;
    const messageSeq = this.seq;
    if (!message.info) {
      yield* this.unparseableMessage(message, messageSeq);
      return;
    }
    const info = message.info;
    const ts = timeOf(info) ?? this.lastTs;
    const role = str(info.role);
    const withExtra = firstEventOfMessage(info, messageSeq);
    if (message.parts.length === 0) {
      yield this.emit('meta', { key: `${this.agent}.message.empty`, raw: info }, ts, 'system', messageSeq, message.id);
    } else if (role === 'user') {
      yield* this.userMessage(message, ts, withExtra);
    } else if (role === 'assistant') {
      yield* this.assistantMessage(message, info, ts, withExtra);
    } else {
      yield this.emit('meta', { key: `${this.agent}.message.${role ?? 'untyped'}`, raw: info, parts: message.parts.map((p) => p.data ?? p.bad) }, ts, 'system', messageSeq, message.id);
      this.seq += message.parts.length;
    }
  }

  /** A message row that is not JSON: meta with one diagnostic, its parts as orphans. */
  private *unparseableMessage(message: StoredMessage, messageSeq: number): Generator<SpEvent> {
    this.diagnose?.(`${this.stored.where}:${messageSeq}`, `message ${message.id}: ${message.bad!.reason}: ${message.bad!.text.slice(0, 200)}; kept as meta (the client would fail on it)`);
    yield this.emit('meta', { key: 'unparseable', text: message.bad!.text, reason: message.bad!.reason, record: 'message', id: message.id }, this.lastTs, 'system', messageSeq, message.id);
    for (const part of message.parts) {
      this.seq += 1;
      yield this.emit('meta', { key: `${this.agent}.part.orphan`, raw: part.data ?? part.bad }, this.lastTs, 'system', this.seq, part.id);
    }
  }

  /** One message.user gathering the text and file parts; the other parts follow as meta. */
  private *userMessage(message: StoredMessage, ts: number, withExtra: PayloadStep): Generator<SpEvent> {
    const content: Json[] = [];
    const partsMeta: Json[] = [];
    let userSeq = 0;
    const others: Array<{ seq: number; part: StoredPart }> = [];
    for (const part of message.parts) {
      this.seq += 1;
      const data = part.data;
      if (data && data.type === 'text' && typeof data.text === 'string' && data.ignored !== true) {
        const block: Json = { type: 'text', text: data.text };
        if (data.synthetic === true) block.synthetic = true;
        content.push(block);
        partsMeta.push({ id: part.id, ...rest(data, ['id', 'sessionID', 'messageID', 'text']) });
        userSeq ||= this.seq;
      } else if (data && data.type === 'file' && typeof data.url === 'string') {
        const m = /^data:([^;,]+);base64,(.*)$/s.exec(data.url);
        if (m && m[1].startsWith('image/')) content.push({ type: 'image', media_type: m[1], data: m[2] });
        else content.push({ type: 'file', mime: data.mime, filename: data.filename, url: data.url, ...(data.source !== undefined ? { source: data.source } : {}) });
        partsMeta.push({ id: part.id, ...rest(data, ['id', 'sessionID', 'messageID', 'url']) });
        userSeq ||= this.seq;
      } else others.push({ seq: this.seq, part });
    }
    if (content.length > 0) {
      const p: Json = withExtra({ content, message_id: message.id, parts: partsMeta });
      yield this.emit('message.user', p, ts, 'user', userSeq, message.id);
    }
    for (const { seq: at, part } of others) yield* this.otherPart(part, at, ts);
  }

  private *assistantMessage(message: StoredMessage, info: Json, ts: number, withExtra: PayloadStep): Generator<SpEvent> {
    const modelID = str(info.modelID);
    const providerID = str(info.providerID);
    // Every event of the message names its model: a writer keeps provider metadata (signatures)
    // only for the model that made it, as the client does.
    const common: PayloadStep = (p) => {
      p.message_id = message.id;
      if (modelID) p.model = modelID;
      if (providerID) p.provider_id = providerID;
      return p;
    };
    // Results (and what derives from them) follow all the message's parts, as on the wire: the
    // calls of one model response come first, then their results. Each is a generator not yet run.
    const results: Array<Generator<SpEvent>> = [];
    for (const part of message.parts) {
      this.seq += 1;
      const data = part.data;
      const pts = data && isObject(data.time) ? seconds(data.time.start) ?? ts : ts;
      if (!data) {
        yield* this.otherPart(part, this.seq, pts);
        continue;
      }
      const partExtra = rest(data, ['id', 'sessionID', 'messageID', 'type', 'text', 'tool', 'callID', 'state']);
      if (data.type === 'text' && typeof data.text === 'string') {
        const p: Json = common({ content: data.text === '' ? [] : [{ type: 'text', text: data.text }] });
        if (modelID) p.model = modelID;
        if (providerID) p.provider = providerID;
        if (str(info.finish)) p.stop_reason = info.finish;
        if (partExtra) p.part = partExtra;
        yield this.emit('message.assistant', withExtra(p), pts, this.assistant, this.seq, part.id);
      } else if (data.type === 'reasoning' && typeof data.text === 'string') {
        const p: Json = common({ text: data.text, visibility: 'visible' });
        const metadata = isObject(data.metadata) ? data.metadata : undefined;
        const anthropic = metadata && isObject(metadata.anthropic) ? metadata.anthropic : undefined;
        if (anthropic && str(anthropic.signature)) {
          p.signature = anthropic.signature;
          p.provider = 'anthropic';
        } else if (providerID) p.provider = providerID;
        if (modelID) p.model = modelID;
        if (partExtra) p.part = partExtra;
        yield this.emit('message.thinking', withExtra(p), pts, this.assistant, this.seq, part.id);
      } else if (data.type === 'tool' && isObject(data.state)) {
        results.push(yield* this.toolCall(part, data, data.state, partExtra, pts, (p) => withExtra(common(p))));
      } else {
        yield* this.otherPart(part, this.seq, pts);
      }
    }
    for (const result of results) yield* result;
  }

  /** Yields the tool.call of a tool part; returns its result (and derived events), to run after the message's parts. */
  private *toolCall(part: StoredPart, data: Json, state: Json, partExtra: Json | undefined, pts: number, callPayload: PayloadStep): Generator<SpEvent, Generator<SpEvent>> {
    const name = str(data.tool) ?? '';
    const callId = str(data.callID) ?? part.id;
    const input = state.input ?? {};
    const call = this.emit('tool.call', callPayload({ call_id: callId, name, input, ...(partExtra ? { part: partExtra } : {}) }), pts, this.assistant, this.seq, part.id);
    yield call;
    const end = isObject(state.time) ? seconds(state.time.end) ?? pts : pts;
    const result = toolResultPayload(callId, name, state);
    return this.toolResult(result, end, name, input, state, call, pts, this.seq, part.id);
  }

  private *toolResult(result: Json, end: number, name: string, input: unknown, state: Json, call: SpEvent, pts: number, at: number, uuid: string): Generator<SpEvent> {
    yield this.emit('tool.result', result, end, 'tool', at, uuid);
    yield* this.derived(name, input, state, call, pts, at, uuid);
  }

  private *otherPart(part: StoredPart, at: number, ts: number): Generator<SpEvent> {
    if (!part.data) {
      this.diagnose?.(`${this.stored.where}:${at}`, `part ${part.id}: ${part.bad!.reason}: ${part.bad!.text.slice(0, 200)}; kept as meta`);
      yield this.emit('meta', { key: 'unparseable', text: part.bad!.text, reason: part.bad!.reason, record: 'part', id: part.id }, ts, 'system', at, part.id);
      return;
    }
    yield this.emit('meta', { key: `${this.agent}.part.${str(part.data.type) ?? 'untyped'}`, raw: part.data }, ts, 'system', at, part.id);
  }

  /** command.run / file.read / file.edit from a bash, read, edit or write call. */
  private *derived(name: string, input: unknown, state: Json, call: SpEvent, ts: number, at: number, uuid: string): Generator<SpEvent> {
    if (!isObject(input)) return;
    const metadata = isObject(state.metadata) ? state.metadata : {};
    const ok = state.status === 'completed';
    if (name === 'bash' && typeof input.command === 'string') {
      const p: Json = { cmd: input.command };
      if (typeof metadata.exit === 'number') p.exit_code = metadata.exit;
      if (typeof input.workdir === 'string') p.cwd = input.workdir;
      const out = typeof state.output === 'string' ? state.output : typeof metadata.output === 'string' ? metadata.output : undefined;
      if (out !== undefined) p.stdout_head = out.slice(0, HEAD);
      if (!ok) p.interrupted = state.status !== 'error';
      yield this.emit('command.run', p, ts, this.assistant, at, uuid, { derived_from: call.seq });
    } else if (name === 'read' && typeof input.filePath === 'string' && ok) {
      const p: Json = { path: input.filePath };
      if (typeof input.offset === 'number' || typeof input.limit === 'number') p.range = { ...(typeof input.offset === 'number' ? { start: input.offset } : {}), ...(typeof input.limit === 'number' ? { lines: input.limit } : {}) };
      yield this.emit('file.read', p, ts, this.assistant, at, uuid, { derived_from: call.seq });
    } else if ((name === 'edit' || name === 'write') && typeof input.filePath === 'string' && ok) {
      const filediff = isObject(metadata.filediff) ? metadata.filediff : undefined;
      const diff = str(metadata.diff) ?? str(filediff?.patch) ?? (name === 'write' && typeof input.content === 'string' ? creationDiff(input.filePath, input.content) : undefined);
      if (diff === undefined) return;
      const p: Json = { path: input.filePath, diff, kind: name === 'write' && metadata.exists !== true ? 'create' : 'modify' };
      if (typeof filediff?.additions === 'number') p.added = filediff.additions;
      if (typeof filediff?.deletions === 'number') p.removed = filediff.deletions;
      yield this.emit('file.edit', p, ts, this.assistant, at, uuid, { derived_from: call.seq });
    }
  }
}

/** A message the client is still writing: an assistant turn not completed, or a tool still pending/running. */
function inProgress(message: StoredSession['messages'][number]): boolean {
  const info = message.info;
  if (!info) return false;
  if (message.parts.some((p) => p.data?.type === 'tool' && isObject(p.data.state) && (p.data.state.status === 'pending' || p.data.state.status === 'running'))) return true;
  return info.role === 'assistant' && info.error === undefined && !(isObject(info.time) && info.time.completed !== undefined);
}

interface StoreCursorState {
  /** Events emitted so far, and the SHA-256 of what they said (times and checksums aside). */
  done: number;
  fingerprint: string;
}

/**
 * What the consumed events said, times and checksums aside, and the session.start aside: the client
 * updates the session row in place after turns (the generated title, the change summary, the model it
 * continues with), which is metadata, not history the cursor already passed on.
 */
function fingerprint(events: SpEvent[]): string {
  const hash = createHash('sha256');
  for (const { ts: _ts, checksum: _checksum, ...rest } of events) if (rest.type !== 'session.start') hash.update(JSON.stringify(rest)).update('\n');
  return hash.digest('hex');
}

/**
 * The events of one session, unchained. With a cursor (incremental), the session is read
 * again and only the events after those the cursor consumed come out; a message the client is still
 * writing waits for the next run, and the todo rows (session state, not history) are left to full
 * captures. Rows the cursor consumed that changed or vanished are reported, not mis-read.
 */
export async function* captureStore(owner: DataDirOwner, ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const stored = await loadSession(owner, ref);
  if (!options.cursor) {
    yield* sessionEvents(owner.agent, stored, ref.native_id, options);
    return;
  }
  const cursor = cursorFor(owner.agent, ref, options.cursor);
  const state: StoreCursorState = (cursor.state as StoreCursorState | undefined) ?? { done: 0, fingerprint: fingerprint([]) };
  const complete = stored.messages.findIndex(inProgress);
  const messages = complete === -1 ? stored.messages : stored.messages.slice(0, complete);
  const diagnostics: Array<[string, string]> = [];
  const events = [...sessionEvents(owner.agent, { ...stored, messages, todos: undefined }, ref.native_id, { onDiagnostic: (where, what) => diagnostics.push([where, what]) })];
  if (events.length < state.done || fingerprint(events.slice(0, state.done)) !== state.fingerprint) {
    throw new UserError(
      `${events.length < state.done ? 'lost rows' : 'has rows that changed'} since the cursor was stored; not continuing, so nothing is mis-read (capture it again without the cursor)`,
      ref.path,
    );
  }
  const consumed = events.slice(0, state.done).reduce((max, e) => Math.max(max, e.origin?.native_seq ?? 0), 0);
  for (const [where, what] of diagnostics) if (Number(where.slice(where.lastIndexOf(':') + 1)) > consumed) options.onDiagnostic?.(where, what);
  yield* events.slice(state.done);
  const last = events.reduce((max, e) => Math.max(max, e.origin?.native_seq ?? 0), 0);
  cursor.sources[ref.path] = { offset: events.length, line: last };
  cursor.state = { done: events.length, fingerprint: fingerprint(events) } satisfies StoreCursorState;
  cursor.sessions[canonicalSessionId(owner.agent, ref.native_id)] = { next_seq: events.length };
  options.onCursor?.(cursor);
}
