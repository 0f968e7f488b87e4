// `capture` for Crush (docs/formats/crush.md §2–§3): one session of a project's crush.db →
// session.start, then each message row in the client's order with its `parts` items:
//   user:      text → one message.user (binary images as image blocks, other binaries and image URLs
//              as file/image blocks); shell_command (a `!command` the user ran) → command.run;
//   assistant: reasoning → message.thinking (Anthropic signature kept), text → message.assistant,
//              tool_call → tool.call (its JSON `input` parsed), finish → meta crush.part.finish;
//   tool:      tool_result → tool.result (is_error, name, metadata as structured);
//   system messages, and part types a later client adds → meta with the item. A row whose parts
//   are not JSON is meta `unparseable` (its text) with one `file:line` diagnostic. After the
//   messages: the session's todos column (meta crush.todos) and its kept file versions (meta
//   crush.files: path and version, not the content). `origin.native_seq` numbers the message rows
//   from 1; `origin.native_uuid` is the row id.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { tableProblems } from '../../lib/capture/sqlite.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { canonicalSessionId, type Actor, type SpEvent } from '../../lib/core/event.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { AGENT } from './discover.js';
import { parseLocator } from './paths.js';
import { listFiles, listMessages, listSessions, seconds, withDb, type FileRow, type MessageRow, type SessionRow } from './store.js';

const ASSISTANT: Actor = `agent:${AGENT}`;
const HEAD = 4096;

interface Loaded {
  session: SessionRow;
  messages: MessageRow[];
  files: FileRow[];
}

function parseJson(text: unknown): { value?: unknown; reason?: string } {
  if (typeof text !== 'string') return { reason: 'not text' };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { reason: `invalid JSON (${(err as Error).message})` };
  }
}

/** A user item as a content block; undefined for items that are not content. */
function userBlock(type: string, data: Json): Json | undefined {
  if (type === 'text' && typeof data.text === 'string') return { type: 'text', text: data.text };
  if (type === 'binary') {
    const media = str(data.MIMEType) ?? 'application/octet-stream';
    if (media.startsWith('image/') && typeof data.Data === 'string') return { type: 'image', media_type: media, data: data.Data, ...(str(data.Path) ? { path: data.Path } : {}) };
    return { type: 'file', media_type: media, ...(str(data.Path) ? { path: data.Path } : {}), ...(typeof data.Data === 'string' ? { data: data.Data } : {}) };
  }
  if (type === 'image_url' && typeof data.url === 'string') {
    const m = /^data:([^;,]+)[;,]/.exec(data.url);
    return { type: 'image', media_type: m ? m[1] : 'image/*', url: data.url };
  }
  return undefined;
}

class SessionCapture {
  private readonly emitter: SessionEmitter;
  private lastTs: number;

  constructor(
    private readonly loaded: Loaded,
    private readonly ref: SessionRef,
    private readonly diagnose: CaptureOptions['onDiagnostic'],
  ) {
    this.emitter = new SessionEmitter(AGENT, ref.native_id);
    this.lastTs = seconds(loaded.session.created_at) ?? seconds(loaded.messages[0]?.created_at) ?? Date.now() / 1000;
  }

  private emit(type: string, payload: Json, ts: number | undefined, actor: Actor, seq: number, uuid?: string): SpEvent {
    if (ts !== undefined) this.lastTs = ts;
    const origin: Json = { native_seq: seq };
    if (uuid) origin.native_uuid = uuid;
    return this.emitter.emit(type, payload, this.lastTs, { actor, level: type === 'meta' ? 2 : type === 'session.start' || type === 'message.thinking' ? 1 : 0, origin });
  }

  *events(): Generator<SpEvent> {
    const { session, messages, files } = this.loaded;
    const start: Json = { native_id: this.ref.native_id };
    if (this.ref.cwd) start.cwd = this.ref.cwd;
    if (session.title) start.title = session.title;
    if (session.parent_session_id) {
      start.parent_session = canonicalSessionId(AGENT, session.parent_session_id);
      start.parent_native_id = session.parent_session_id;
    }
    const lastModel = [...messages].reverse().find((m) => m.role === 'assistant' && m.model);
    if (lastModel?.model) start.model = lastModel.model;
    if (lastModel?.provider) start.provider = lastModel.provider;
    const extra: Json = {};
    for (const key of ['message_count', 'prompt_tokens', 'completion_tokens', 'cost', 'summary_message_id'] as const) if (session[key] !== undefined && session[key] !== null) extra[key] = session[key];
    if (Object.keys(extra).length > 0) start.extra = extra;
    yield this.emit('session.start', start, undefined, 'system', 0);
    for (const [i, row] of messages.entries()) yield* this.message(row, i + 1);
    const end = messages.length + 1;
    const todos = parseJson(session.todos).value;
    if (Array.isArray(todos) && todos.length > 0) yield this.emit('meta', { key: 'crush.todos', value: todos }, undefined, 'system', end);
    if (files.length > 0) yield this.emit('meta', { key: 'crush.files', value: files.map((f) => ({ path: f.path, version: f.version, id: f.id })) }, undefined, 'system', end);
  }

  private *message(row: MessageRow, seq: number): Generator<SpEvent> {
    const ts = seconds(row.created_at);
    const parsed = parseJson(row.parts);
    if (!Array.isArray(parsed.value)) {
      const reason = parsed.reason ?? 'parts is not a JSON array';
      const text = String(row.parts);
      this.diagnose?.(`${this.ref.path}:${seq}`, `message ${row.id}: ${reason}: ${text.slice(0, 200)}; kept as meta`);
      yield this.emit('meta', { key: 'unparseable', text, reason, record: 'message', id: row.id, role: row.role }, ts, 'system', seq, row.id);
      return;
    }
    const items = parsed.value.map((item) => (isObject(item) && typeof item.type === 'string' && isObject(item.data) ? { type: item.type, data: item.data } : { type: 'malformed', data: { item } as Json }));
    const fields: Json = { message_id: row.id };
    if (row.is_summary_message) fields.summary = true;
    if (row.role === 'user') yield* this.userMessage(row, items, fields, ts, seq);
    else if (row.role === 'assistant') yield* this.assistantMessage(row, items, fields, ts, seq);
    else if (row.role === 'tool') yield* this.toolMessage(row, items, ts, seq);
    else yield this.emit('meta', { key: `crush.message.${row.role || 'untyped'}`, raw: { ...row, parts: parsed.value } }, ts, 'system', seq, row.id);
  }

  private *userMessage(row: MessageRow, items: Array<{ type: string; data: Json }>, fields: Json, ts: number | undefined, seq: number): Generator<SpEvent> {
    const content: Json[] = [];
    const rest: Array<{ type: string; data: Json }> = [];
    for (const item of items) {
      const block = userBlock(item.type, item.data);
      if (block) content.push(block);
      else rest.push(item);
    }
    if (content.length > 0) yield this.emit('message.user', { content, ...fields }, ts, 'user', seq, row.id);
    for (const item of rest) {
      if (item.type === 'shell_command' && typeof item.data.command === 'string') {
        const p: Json = { cmd: item.data.command, message_id: row.id };
        if (typeof item.data.exit_code === 'number') p.exit_code = item.data.exit_code;
        if (typeof item.data.output === 'string') p.stdout_head = item.data.output.slice(0, HEAD);
        yield this.emit('command.run', p, ts, 'user', seq, row.id);
      } else yield this.part(item, ts, seq, row.id);
    }
  }

  private *assistantMessage(row: MessageRow, items: Array<{ type: string; data: Json }>, fields: Json, ts: number | undefined, seq: number): Generator<SpEvent> {
    const model = row.model ? { model: row.model } : {};
    const finish = items.find((i) => i.type === 'finish')?.data;
    for (const { type, data } of items) {
      if (type === 'text' && typeof data.text === 'string') {
        const p: Json = { content: [{ type: 'text', text: data.text }], ...fields, ...model };
        if (row.provider) p.provider = row.provider;
        if (str(finish?.reason)) p.stop_reason = finish!.reason;
        yield this.emit('message.assistant', p, ts, ASSISTANT, seq, row.id);
      } else if (type === 'reasoning' && typeof data.thinking === 'string') {
        const p: Json = { text: data.thinking, ...fields };
        if (str(data.signature)) p.signature = data.signature;
        if (row.provider) p.provider = row.provider;
        yield this.emit('message.thinking', p, ts, ASSISTANT, seq, row.id);
      } else if (type === 'tool_call' && str(data.id) && str(data.name)) {
        const input = parseJson(data.input);
        const p: Json = { call_id: data.id, name: data.name, input: input.value !== undefined ? input.value : data.input ?? {}, ...fields };
        if (data.provider_executed === true) p.provider_executed = true;
        if (data.finished === false) p.unfinished = true;
        yield this.emit('tool.call', p, ts, ASSISTANT, seq, row.id);
      } else yield this.part({ type, data }, ts, seq, row.id);
    }
  }

  private *toolMessage(row: MessageRow, items: Array<{ type: string; data: Json }>, ts: number | undefined, seq: number): Generator<SpEvent> {
    for (const { type, data } of items) {
      if (type === 'tool_result' && str(data.tool_call_id)) {
        const p: Json = { call_id: data.tool_call_id, content: typeof data.content === 'string' ? data.content : '', message_id: row.id };
        if (data.is_error === true) p.is_error = true;
        if (str(data.name)) p.name = data.name;
        const structured: Json = {};
        if (str(data.metadata)) structured.metadata = parseJson(data.metadata).value ?? data.metadata;
        if (str(data.mime_type)) structured.mime_type = data.mime_type;
        if (str(data.data)) structured.data = data.data;
        if (Object.keys(structured).length > 0) p.structured = structured;
        yield this.emit('tool.result', p, ts, 'tool', seq, row.id);
      } else yield this.part({ type, data }, ts, seq, row.id);
    }
  }

  private part(item: { type: string; data: Json }, ts: number | undefined, seq: number, uuid: string): SpEvent {
    return this.emit('meta', { key: `crush.part.${item.type}`, raw: item.data }, ts, 'system', seq, uuid);
  }
}

async function load(ref: SessionRef, diagnose: CaptureOptions['onDiagnostic']): Promise<Loaded> {
  const { db, session } = parseLocator(ref.path);
  const id = session ?? ref.native_id;
  return withDb(db, (handle) => {
    const problems = tableProblems(handle, ['sessions', 'messages', 'files']);
    // The rows that can be read are still captured; the damage is named so it never passes silently.
    for (const problem of problems.slice(0, 5)) diagnose?.(db, `damaged database: ${problem}`);
    if (problems.length > 5) diagnose?.(db, `damaged database: ${problems.length - 5} more problems`);
    const row = listSessions(handle).find((s) => s.id === id);
    if (!row) throw new UserError(`no session ${id} in this database`, db);
    return { session: row, messages: listMessages(handle, id), files: listFiles(handle, id) };
  });
}

/** The events of one Crush session, read whole (a database session has no append-only file to follow). */
export async function* captureCrush(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const loaded = await load(ref, options.onDiagnostic);
  yield* new SessionCapture(loaded, ref, options.onDiagnostic).events();
}
