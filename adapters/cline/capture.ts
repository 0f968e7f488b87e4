// `capture` for Cline CLI (docs/formats/cline.md §3): one `<id>.messages.json` → session.start (from
// the file's header and the manifest beside it), then one or more events per message, in order. The
// client rewrites the whole file after every step, so a record here is a message: its number
// (1-based) is `origin.native_seq`, and a broken message is `file:N` plus a meta event. With a cursor,
// capture continues after the messages it consumed, and refuses (exit 2) a file whose consumed
// messages changed or went away. The file is only ever read.
import { readFileSync, statSync } from 'node:fs';
import type { CaptureOptions, Diagnose, SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { itemListEvents, readJsonDocument, type ItemListState } from '../../lib/capture/json-document.js';
import { toEpochSeconds, type Actor, type ContentBlock, type SpEvent } from '../../lib/core/event.js';
import type { SessionEmitter } from '../../lib/core/emitter.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';
import { AGENT, manifestPathOf } from './paths.js';
import { fidelity } from './fidelity.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

const ASSISTANT: Actor = 'agent:cline';
const HEADER_KEYS = ['version', 'updated_at', 'agent', 'sessionId', 'origin', 'messages', 'system_prompt'];
const MESSAGE_KEYS = ['id', 'role', 'content', 'ts', 'modelInfo', 'metrics'];
/** The wrapper the client puts around what the user typed: `<user_input mode="act">…</user_input>`. */
const USER_INPUT = /^<user_input mode="([a-z]+)">([\s\S]*)<\/user_input>$/;

/** What a cursor carries from run to run. */
type ClineState = ItemListState;

/** The messages file parsed; a file that is not one JSON object is unreadable input (exit 2). */
export function readMessagesFile(path: string, onDiagnostic?: Diagnose): { text: string; document: Json; messages: unknown[] } {
  const { text, document } = readJsonDocument(path, 'a Cline messages file', onDiagnostic);
  const messages = document.messages === undefined ? [] : document.messages;
  if (!Array.isArray(messages)) throw new UserError('not a Cline messages file: "messages" is not a list', path);
  return { text, document, messages };
}

/** The manifest beside a messages file, when it is there and is an object. */
export function readManifest(messagesFile: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(manifestPathOf(messagesFile), 'utf8'));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The text the user typed, without the client's mode wrapper; and the mode it names. */
export function unwrapUserInput(text: string): { text: string; mode?: string } {
  const m = USER_INPUT.exec(text);
  return m ? { text: m[2], mode: m[1] } : { text };
}


function startPayload(ref: SessionRef, document: Json, manifest: Json | undefined): Json {
  const payload: Json = { native_id: ref.native_id, source_path: ref.path };
  const metadata = manifest && isObject(manifest.metadata) ? manifest.metadata : undefined;
  const cwd = str(manifest?.cwd) ?? str(manifest?.workspace_root);
  if (cwd) payload.cwd = cwd;
  const model = str(manifest?.model);
  if (model) payload.model = model;
  if (str(manifest?.provider)) payload.provider = manifest!.provider;
  const title = str(metadata?.title);
  if (title) payload.title = title;
  const origin = isObject(document.origin) ? document.origin : undefined;
  const version = str(origin?.version) ?? str(isObject(metadata?.sessionHistoryOrigin) ? metadata!.sessionHistoryOrigin.version : undefined);
  if (version) payload.version = version;
  if (typeof document.system_prompt === 'string') payload.system_prompt = document.system_prompt;
  const header = rest(document, ['messages', 'system_prompt']);
  if (header) payload.header = header;
  if (manifest) {
    // The manifest's system prompt repeats the file's; everything else is kept as it was.
    const { systemPrompt: _repeated, ...meta } = metadata ?? {};
    payload.manifest = { ...manifest, ...(metadata ? { metadata: meta } : {}) };
  }
  if (str(document.sessionId) && document.sessionId !== ref.native_id) payload.recorded_session_id = document.sessionId;
  return payload;
}

interface Pending {
  type: string;
  payload: Json;
  actor: Actor;
}

/** The text of a tool result's content: the client stores a string, or a list of {query, result, success}. */
export function resultText(content: unknown): { text: string; failed: boolean } {
  if (typeof content === 'string') {
    // The editor tool stores its {query, result, success} record as a JSON string.
    try {
      const value: unknown = JSON.parse(content);
      if (isObject(value) && value.success === false) return { text: content, failed: true };
    } catch {
      // plain text
    }
    return { text: content, failed: false };
  }
  if (!Array.isArray(content)) return { text: content === undefined || content === null ? '' : JSON.stringify(content), failed: false };
  let failed = false;
  const parts = content.map((item) => {
    if (!isObject(item)) return typeof item === 'string' ? item : JSON.stringify(item);
    if (item.success === false) failed = true;
    if (item.type === 'text' && typeof item.text === 'string') return item.text;
    if (typeof item.result === 'string') return item.result;
    if (typeof item.error === 'string') return item.error;
    return JSON.stringify(item);
  });
  return { text: parts.join('\n'), failed };
}

class ClineMapper {
  constructor(
    private readonly emitter: SessionEmitter,
    private readonly path: string,
    private readonly state: ClineState,
    private readonly raw: boolean,
    private readonly onDiagnostic?: Diagnose,
  ) {}

  start(payload: Json, ts: number): SpEvent {
    this.state.started = true;
    this.state.last_ts = ts;
    return this.emitter.emit('session.start', payload, ts, { actor: 'system', level: 1, origin: {} });
  }

  /** Events of message `index` (0-based); never throws on bad input (a bad message becomes meta). */
  message(value: unknown, index: number): SpEvent[] {
    const number = index + 1;
    let pending: Pending[];
    let record: Json | undefined;
    if (!isObject(value)) {
      const shown = JSON.stringify(value) ?? String(value);
      this.onDiagnostic?.(`${this.path}:${number}`, `message ${number} is not an object: ${shown.slice(0, 120)}`);
      pending = [{ type: 'meta', payload: { key: 'cline.unparseable', error: 'not an object', text: shown.slice(0, 4096) }, actor: 'system' }];
    } else {
      record = value;
      pending = this.dispatch(value, number);
    }
    const ts = record ? toEpochSeconds(record.ts) : undefined;
    if (ts !== undefined) this.state.last_ts = ts;
    const at = ts ?? this.state.last_ts ?? Date.now() / 1000;
    return pending.map((p, i) => {
      const origin: Json = { native_seq: number };
      if (record && str(record.id)) origin.native_uuid = record.id;
      if (i === 0 && this.raw) origin.raw = [JSON.stringify(value)];
      return this.emitter.emit(p.type, p.payload, at, { actor: p.actor, level: levelOf(p.type), origin });
    });
  }

  private dispatch(record: Json, number: number): Pending[] {
    const role = str(record.role);
    const content = typeof record.content === 'string' ? [{ type: 'text', text: record.content }] : Array.isArray(record.content) ? record.content : undefined;
    if ((role !== 'user' && role !== 'assistant') || !content) {
      if (role === undefined && content === undefined) this.onDiagnostic?.(`${this.path}:${number}`, `message ${number} has neither a role nor content: kept as meta`);
      return [{ type: 'meta', payload: { key: `cline.${role ?? 'untyped'}`, raw: record }, actor: 'system' }];
    }
    const out = role === 'user' ? this.user(content) : this.assistant(content, record);
    const extra = rest(record, MESSAGE_KEYS);
    if (extra && out.length > 0) out[0].payload.extra = extra;
    if (out.length === 0) return [{ type: 'meta', payload: { key: `cline.empty-${role}`, raw: record }, actor: 'system' }];
    return out;
  }

  private user(content: unknown[]): Pending[] {
    const out: Pending[] = [];
    const blocks: ContentBlock[] = [];
    let mode: string | undefined;
    let wrapped = false;
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') {
        const plain = unwrapUserInput(block.text);
        if (plain.mode) {
          mode = plain.mode;
          wrapped = true;
        }
        blocks.push({ type: 'text', text: plain.text });
      } else if (block.type === 'image' && isObject(block.source) && typeof block.source.data === 'string') {
        blocks.push({ type: 'image', media_type: str(block.source.media_type) ?? 'image/png', data: block.source.data });
      } else if (block.type === 'tool_result') {
        const callId = str(block.tool_use_id) ?? '';
        const { text, failed } = resultText(block.content);
        if (!callId) {
          out.push({ type: 'meta', payload: { key: 'cline.tool-result-without-call', raw: block }, actor: 'tool' });
          continue;
        }
        const p: Json = { call_id: callId, content: text, is_error: block.is_error === true || failed };
        if (str(block.name)) p.name = block.name;
        if (typeof block.content !== 'string') p.structured = block.content ?? null;
        const extra = rest(block, ['type', 'tool_use_id', 'name', 'content', 'is_error']);
        if (extra) p.extra = extra;
        out.push({ type: 'tool.result', payload: p, actor: 'tool' });
      } else {
        out.push({ type: 'meta', payload: { key: `cline.block.${str(block.type) ?? 'untyped'}`, raw: block }, actor: 'user' });
      }
    }
    if (blocks.length > 0) {
      const p: Json = { content: blocks };
      if (wrapped) p.user_input_mode = mode;
      out.unshift({ type: 'message.user', payload: p, actor: 'user' });
    }
    return out;
  }

  private assistant(content: unknown[], record: Json): Pending[] {
    const out: Pending[] = [];
    const model = isObject(record.modelInfo) ? str(record.modelInfo.id) : undefined;
    const messageId = str(record.id);
    const withId = (p: Json): Json => (messageId ? { ...p, message_id: messageId } : p);
    const texts: ContentBlock[] = [];
    const flush = (): void => {
      if (texts.length === 0) return;
      const p: Json = withId({ content: texts.splice(0) });
      if (model) p.model = model;
      if (isObject(record.modelInfo)) p.model_info = record.modelInfo;
      if (isObject(record.metrics)) p.usage = record.metrics;
      out.push({ type: 'message.assistant', payload: p, actor: ASSISTANT });
    };
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') texts.push({ type: 'text', text: block.text });
      else if ((block.type === 'thinking' || block.type === 'reasoning') && typeof (block.thinking ?? block.text) === 'string') {
        flush();
        const p: Json = withId({ text: String(block.thinking ?? block.text), visibility: 'visible', provider: model ?? 'cline' });
        if (str(block.signature)) p.signature = block.signature;
        out.push({ type: 'message.thinking', payload: p, actor: ASSISTANT });
      } else if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
        flush();
        out.push({ type: 'message.thinking', payload: withId({ text: '', visibility: 'redacted', opaque: block.data, provider: model ?? 'cline' }), actor: ASSISTANT });
      } else if (block.type === 'tool_use' && str(block.id) && str(block.name)) {
        flush();
        const p: Json = withId({ call_id: block.id, name: block.name, input: block.input ?? {} });
        const extra = rest(block, ['type', 'id', 'name', 'input']);
        if (extra) p.extra = extra;
        out.push({ type: 'tool.call', payload: p, actor: ASSISTANT });
      } else {
        flush();
        out.push({ type: 'meta', payload: withId({ key: `cline.block.${str(block.type) ?? 'untyped'}`, raw: block }), actor: ASSISTANT });
      }
    }
    flush();
    return out;
  }
}

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);

export async function* captureCline(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const { path } = ref;
  const { document, messages } = readMessagesFile(path, options.onDiagnostic);
  yield* itemListEvents<ClineState>(ref, options, {
    agent: AGENT,
    noun: 'message',
    items: messages,
    mapper: (emitter, state) => {
      const mapper = new ClineMapper(emitter, path, state, options.raw === true, options.onDiagnostic);
      return {
        start: () => {
          const manifest = readManifest(path);
          const first = messages.find(isObject);
          const ts = toEpochSeconds(manifest?.started_at) ?? toEpochSeconds(first?.ts) ?? statSync(path).mtimeMs / 1000;
          return mapper.start(startPayload(ref, document, manifest), ts);
        },
        item: (value, index) => mapper.message(value, index),
      };
    },
  });
}
