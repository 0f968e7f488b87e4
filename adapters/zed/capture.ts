// `capture` for Zed agent threads (docs/formats/zed.md §3): the thread JSON of one row →
// session.start, then each message in order (`origin.native_seq` = its index + 1):
//   {"User": {id, content}}: Text → text block, Image {source (base64 PNG), size} → image block,
//     Mention {uri, content} → a text block with the mentioned content (the uri in `mention`);
//   {"Agent": {content, tool_results}}: Text → message.assistant, Thinking {text, signature} →
//     message.thinking, RedactedThinking → message.thinking (redacted, opaque), ToolUse {id, name,
//     input, raw_input} → tool.call; each tool_results entry → tool.result (is_error, output);
//   "Resume" → meta zed.resume; a message kind a later client adds → meta zed.message with the item;
//   an item that is no message at all → meta `unparseable` with one `file:<message number>` diagnostic.
// Legacy agent-1 threads (no `version` 0.3.0: `messages` with role, segments, tool_uses, tool_results)
// are read the same way. A row that cannot be decompressed or parsed is meta `unparseable` with one
// diagnostic. Thread fields beyond the mapped ones (model, profile, token usage …) go in extra.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { canonicalSessionId, type Actor, type SpEvent } from '../../lib/core/event.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { AGENT } from './discover.js';
import { parseLocator } from './paths.js';
import { firstFolder, listThreads, readThread, withDb, type ThreadRow } from './store.js';

const ASSISTANT: Actor = `agent:${AGENT}`;
const MAPPED = new Set(['title', 'summary', 'messages', 'updated_at', 'version', 'model']);

/** A one-key object `{"Variant": value}` (serde's external tagging) as [variant, value]. */
function variant(item: unknown): [string, unknown] | undefined {
  if (typeof item === 'string') return [item, undefined];
  if (!isObject(item)) return undefined;
  const keys = Object.keys(item);
  return keys.length === 1 ? [keys[0], item[keys[0]]] : undefined;
}

function toolResultContent(content: unknown): string | Json[] {
  if (typeof content === 'string') return content;
  const v = variant(content);
  if (v && v[0] === 'Text' && typeof v[1] === 'string') return v[1];
  if (v && v[0] === 'Image' && isObject(v[1]) && typeof v[1].source === 'string') return [{ type: 'image', media_type: 'image/png', data: v[1].source }];
  if (Array.isArray(content)) return content.map((c) => (typeof c === 'string' ? c : JSON.stringify(c))).join('\n');
  return JSON.stringify(content ?? '');
}

class ThreadCapture {
  private readonly emitter: SessionEmitter;

  constructor(
    private readonly ref: SessionRef,
    private readonly row: ThreadRow,
    private readonly ts: number,
    private readonly diagnose: CaptureOptions['onDiagnostic'],
  ) {
    this.emitter = new SessionEmitter(AGENT, ref.native_id);
  }

  emit(type: string, payload: Json, actor: Actor, seq: number): SpEvent {
    return this.emitter.emit(type, payload, this.ts, { actor, level: type === 'meta' ? 2 : type === 'session.start' || type === 'message.thinking' ? 1 : 0, origin: { native_seq: seq } });
  }

  start(thread: Json | undefined): SpEvent {
    const p: Json = { native_id: this.ref.native_id };
    const cwd = firstFolder(this.row);
    if (cwd) p.cwd = cwd;
    const title = str(thread?.title) ?? str(thread?.summary) ?? this.row.summary;
    if (title) p.title = title;
    if (str(thread?.version)) p.version = thread!.version;
    if (this.row.parent_id) {
      p.parent_session = canonicalSessionId(AGENT, this.row.parent_id);
      p.parent_native_id = this.row.parent_id;
    }
    const model = isObject(thread?.model) ? thread!.model : undefined;
    if (model && str(model.model)) p.model = model.model;
    if (model && str(model.provider)) p.provider = model.provider;
    if (thread) {
      const extra = Object.fromEntries(Object.entries(thread).filter(([k]) => !MAPPED.has(k)));
      if (Object.keys(extra).length > 0) p.extra = extra;
    }
    return this.emit('session.start', p, 'system', 0);
  }

  *message(item: unknown, seq: number): Generator<SpEvent> {
    const v = variant(item);
    if (v && v[0] === 'User' && isObject(v[1])) return yield* this.user(v[1], seq);
    if (v && v[0] === 'Agent' && isObject(v[1])) return yield* this.agent(v[1], seq);
    if (v && v[0] === 'Resume') return yield this.emit('meta', { key: 'zed.resume' }, 'system', seq);
    if (isObject(item) && typeof item.role === 'string' && Array.isArray(item.segments)) return yield* this.legacy(item, seq);
    if (v && !['User', 'Agent', 'Resume'].includes(v[0]) && (v[1] === undefined || isObject(v[1]))) {
      // A message kind a later client adds: kept whole.
      return yield this.emit('meta', { key: 'zed.message', raw: item as Json }, 'system', seq);
    }
    const text = JSON.stringify(item) ?? String(item);
    this.diagnose?.(`${this.ref.path}:${seq}`, `message ${seq} is not a Zed message: ${text.slice(0, 200)}; kept as meta`);
    yield this.emit('meta', { key: 'unparseable', text, reason: 'not a Zed message', record: 'message' }, 'system', seq);
  }

  private *user(message: Json, seq: number): Generator<SpEvent> {
    const content: Json[] = [];
    const unknown: unknown[] = [];
    for (const part of Array.isArray(message.content) ? message.content : []) {
      const v = variant(part);
      if (v && v[0] === 'Text' && typeof v[1] === 'string') content.push({ type: 'text', text: v[1] });
      else if (v && v[0] === 'Image' && isObject(v[1]) && typeof v[1].source === 'string') content.push({ type: 'image', media_type: 'image/png', data: v[1].source });
      else if (v && v[0] === 'Mention' && isObject(v[1])) content.push({ type: 'text', text: String(v[1].content ?? ''), mention: v[1].uri ?? null });
      else unknown.push(part);
    }
    if (content.length > 0) yield this.emit('message.user', { content, ...(str(message.id) ? { message_id: message.id } : {}) }, 'user', seq);
    for (const part of unknown) yield this.emit('meta', { key: 'zed.user.part', raw: part as Json }, 'system', seq);
  }

  private *agent(message: Json, seq: number): Generator<SpEvent> {
    for (const part of Array.isArray(message.content) ? message.content : []) {
      const v = variant(part);
      const value = v?.[1];
      if (v?.[0] === 'Text' && typeof value === 'string') yield this.emit('message.assistant', { content: [{ type: 'text', text: value }] }, ASSISTANT, seq);
      else if (v?.[0] === 'Thinking' && isObject(value) && typeof value.text === 'string') yield this.emit('message.thinking', { text: value.text, ...(str(value.signature) ? { signature: value.signature } : {}) }, ASSISTANT, seq);
      else if (v?.[0] === 'RedactedThinking' && typeof value === 'string') yield this.emit('message.thinking', { text: '', visibility: 'redacted', opaque: value }, ASSISTANT, seq);
      else if (v?.[0] === 'ToolUse' && isObject(value) && str(value.id) && str(value.name)) {
        const p: Json = { call_id: value.id, name: value.name, input: value.input ?? value.raw_input ?? {} };
        if (value.is_input_complete === false) p.incomplete = true;
        yield this.emit('tool.call', p, ASSISTANT, seq);
      } else yield this.emit('meta', { key: 'zed.agent.part', raw: part as Json }, 'system', seq);
    }
    const results = isObject(message.tool_results) ? Object.values(message.tool_results) : [];
    for (const result of results) {
      if (!isObject(result) || !str(result.tool_use_id)) {
        yield this.emit('meta', { key: 'zed.tool_result', raw: result as Json }, 'system', seq);
        continue;
      }
      const p: Json = { call_id: result.tool_use_id, content: toolResultContent(result.content) };
      if (result.is_error === true) p.is_error = true;
      if (str(result.tool_name)) p.name = result.tool_name;
      if (result.output !== undefined && result.output !== null) p.structured = { output: result.output };
      yield this.emit('tool.result', p, 'tool', seq);
    }
  }

  /** An agent-1 message: role, segments (text, thinking, redacted_thinking), tool_uses, tool_results. */
  private *legacy(message: Json, seq: number): Generator<SpEvent> {
    const segments = (message.segments as unknown[]).filter(isObject);
    if (message.role === 'user') {
      const content = segments.filter((s) => typeof s.text === 'string').map((s) => ({ type: 'text', text: String(s.text) }));
      if (content.length === 0 && typeof message.context === 'string' && message.context !== '') content.push({ type: 'text', text: message.context });
      if (content.length > 0) yield this.emit('message.user', { content }, 'user', seq);
      return;
    }
    if (message.role !== 'assistant') return yield this.emit('meta', { key: `zed.message.${String(message.role)}`, raw: message }, 'system', seq);
    for (const s of segments) {
      if (s.type === 'text' && typeof s.text === 'string') yield this.emit('message.assistant', { content: [{ type: 'text', text: s.text }] }, ASSISTANT, seq);
      else if (s.type === 'thinking' && typeof s.text === 'string') yield this.emit('message.thinking', { text: s.text, ...(str(s.signature) ? { signature: s.signature } : {}) }, ASSISTANT, seq);
      else if (s.type === 'redacted_thinking' && typeof s.data === 'string') yield this.emit('message.thinking', { text: '', visibility: 'redacted', opaque: s.data }, ASSISTANT, seq);
      else yield this.emit('meta', { key: 'zed.segment', raw: s }, 'system', seq);
    }
    for (const u of Array.isArray(message.tool_uses) ? message.tool_uses.filter(isObject) : []) {
      if (str(u.id) && str(u.name)) yield this.emit('tool.call', { call_id: u.id, name: u.name, input: u.input ?? {} }, ASSISTANT, seq);
    }
    for (const r of Array.isArray(message.tool_results) ? message.tool_results.filter(isObject) : []) {
      if (str(r.tool_use_id)) yield this.emit('tool.result', { call_id: r.tool_use_id, content: toolResultContent(r.content), ...(r.is_error === true ? { is_error: true } : {}) }, 'tool', seq);
    }
  }
}

/** The events of one Zed thread, read whole (the client rewrites the row's compressed JSON on every save). */
export async function* captureZed(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const { db, thread } = parseLocator(ref.path);
  const id = thread ?? ref.native_id;
  const { row, read } = await withDb(db, (handle) => {
    const found = listThreads(handle).find((r) => r.id === id);
    if (!found) throw new UserError(`no thread ${id} in this database`, db);
    return { row: found, read: readThread(handle, id) };
  });
  const ts = (Date.parse(String(read.value?.updated_at ?? row.updated_at)) || Date.now()) / 1000;
  const capture = new ThreadCapture(ref, row, ts, options.onDiagnostic);
  yield capture.start(read.value);
  if (!read.value) {
    options.onDiagnostic?.(`${ref.path}:1`, `thread ${id}: ${read.reason}${read.text ? `: ${read.text.slice(0, 200)}` : ''}; kept as meta`);
    yield capture.emit('meta', { key: 'unparseable', reason: read.reason, ...(read.text !== undefined ? { text: read.text } : {}), record: 'thread', id }, 'system', 1);
    return;
  }
  const messages = Array.isArray(read.value.messages) ? read.value.messages : [];
  for (const [i, item] of messages.entries()) yield* capture.message(item, i + 1);
}
