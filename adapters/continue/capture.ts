// `capture` for Continue's CLI (docs/formats/continue.md §3): one `sessions/<id>.json` → session.start
// (the document's header and the session's entry in `sessions.json`), then the events of each
// history item, in order. The client rewrites the whole file after every step, so a record here is a
// history item: its number (1-based) is `origin.native_seq`, and a broken item is `file:N` plus a meta
// event. With a cursor, capture continues after the items it consumed, and refuses (exit 2) a file
// whose consumed items changed or went away. The files are only ever read.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CaptureOptions, Diagnose, SessionRef } from '../../lib/adapter/interface.js';
import { itemListEvents, readJsonDocument, type ItemListState } from '../../lib/capture/json-document.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SessionEmitter } from '../../lib/core/emitter.js';
import { toEpochSeconds, type Actor, type ContentBlock, type SpEvent } from '../../lib/core/event.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';
import { AGENT, INDEX_NAME } from './paths.js';
import { fidelity } from './fidelity.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

const ASSISTANT: Actor = 'agent:continue';
const ITEM_KEYS = ['message', 'contextItems', 'editorState', 'toolCallStates', 'reasoning'];
/** Tool call states the client records for a call that did not succeed. */
const FAILED_STATUSES = new Set(['errored', 'canceled', 'cancelled']);

interface ContinueState extends ItemListState {
  ts?: number;
}

/** The session file parsed: its document and its history list (exit 2 when it is not one). */
export function readSessionFile(path: string, onDiagnostic?: Diagnose): { document: Json; history: unknown[] } {
  const { document } = readJsonDocument(path, 'a Continue session file', onDiagnostic);
  const history = document.history === undefined ? [] : document.history;
  if (!Array.isArray(history)) throw new UserError('not a Continue session file: "history" is not a list', path);
  return { document, history };
}

/** The `sessions.json` of a sessions folder, by session id; empty when it is missing or broken. */
export function readIndex(folder: string): Map<string, Json> {
  const entries = new Map<string, Json>();
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(join(folder, INDEX_NAME), 'utf8'));
  } catch {
    return entries;
  }
  if (!Array.isArray(value)) return entries;
  for (const entry of value) if (isObject(entry) && str(entry.sessionId)) entries.set(entry.sessionId as string, entry);
  return entries;
}

/** The index's `dateCreated` (epoch milliseconds as a string) in epoch seconds. */
export function createdAt(entry: Json | undefined): number | undefined {
  const value = entry?.dateCreated;
  if (typeof value === 'string' && /^[0-9]{10,16}$/.test(value)) return Number(value) / 1000;
  return toEpochSeconds(value);
}

/** A message content (a string, or parts {type text | imageUrl}) as canonical blocks; other parts returned apart. */
export function contentBlocks(content: unknown): { blocks: ContentBlock[]; unknown: unknown[] } {
  if (typeof content === 'string') return { blocks: content === '' ? [] : [{ type: 'text', text: content }], unknown: [] };
  const blocks: ContentBlock[] = [];
  const other: unknown[] = [];
  for (const part of Array.isArray(content) ? content : []) {
    if (isObject(part) && part.type === 'text' && typeof part.text === 'string') blocks.push({ type: 'text', text: part.text });
    else if (isObject(part) && part.type === 'imageUrl' && isObject(part.imageUrl) && typeof part.imageUrl.url === 'string') {
      const data = /^data:([a-z]+\/[a-z0-9.+-]+);base64,(.*)$/is.exec(part.imageUrl.url);
      if (data) blocks.push({ type: 'image', media_type: data[1], data: data[2] });
      else blocks.push({ type: 'image', media_type: 'image', url: part.imageUrl.url });
    } else other.push(part);
  }
  return { blocks, unknown: other };
}

/** A tool call's arguments: the client stores them as a JSON string. */
function argumentsOf(call: Json, parsedArgs: unknown): { input: unknown; raw?: string } {
  const fn = isObject(call.function) ? call.function : {};
  const args = fn.arguments;
  if (typeof args !== 'string') return { input: args ?? parsedArgs ?? {} };
  if (args.trim() === '') return { input: {} };
  try {
    return { input: JSON.parse(args) };
  } catch {
    return { input: isObject(parsedArgs) ? parsedArgs : {}, raw: args };
  }
}

/** The text the client sends for a tool call state: its outputs' contents joined, as it joins them. */
export function outputText(output: unknown): string {
  if (!Array.isArray(output)) return '';
  return output.map((o) => (isObject(o) && typeof o.content === 'string' ? o.content : JSON.stringify(o))).join('\n');
}

interface Pending {
  type: string;
  payload: Json;
  actor: Actor;
}

function startPayload(ref: SessionRef, document: Json, entry: Json | undefined, history: unknown[]): Json {
  const payload: Json = { native_id: ref.native_id, source_path: ref.path };
  if (str(document.workspaceDirectory)) payload.cwd = document.workspaceDirectory;
  if (str(document.title)) payload.title = document.title;
  // The client records no model per session: the model of the last answer that names one.
  for (const item of [...history].reverse()) {
    const model = isObject(item) && isObject(item.message) && isObject(item.message.usage) ? str(item.message.usage.model) : undefined;
    if (model) {
      payload.model = model;
      break;
    }
  }
  if (str(document.chatModelTitle)) payload.chat_model_title = document.chatModelTitle;
  if (str(document.mode)) payload.mode = document.mode;
  const header = rest(document, ['history']);
  if (header) payload.header = header;
  if (entry) payload.index_entry = entry;
  if (str(document.sessionId) && document.sessionId !== ref.native_id) payload.recorded_session_id = document.sessionId;
  return payload;
}

class ContinueMapper {
  constructor(
    private readonly emitter: SessionEmitter,
    private readonly path: string,
    private readonly state: ContinueState,
    private readonly raw: boolean,
    private readonly onDiagnostic?: Diagnose,
  ) {}

  start(payload: Json, ts: number): SpEvent {
    this.state.started = true;
    this.state.ts = ts;
    return this.emitter.emit('session.start', payload, ts, { actor: 'system', level: 1, origin: {} });
  }

  /** Events of history item `index` (0-based); never throws on bad input (a bad item becomes meta). */
  item(value: unknown, index: number): SpEvent[] {
    const number = index + 1;
    let pending: Pending[];
    if (!isObject(value) || !isObject(value.message)) {
      const shown = JSON.stringify(value) ?? String(value);
      this.onDiagnostic?.(`${this.path}:${number}`, `history item ${number} has no message object: ${shown.slice(0, 120)}`);
      pending = [{ type: 'meta', payload: { key: 'continue.unparseable', error: 'no message object', text: shown.slice(0, 4096) }, actor: 'system' }];
    } else pending = this.dispatch(value, value.message as Json, number);
    // The client keeps no time per message: every event carries the session's time.
    const at = this.state.ts ?? Date.now() / 1000;
    return pending.map((p, i) => {
      const origin: Json = { native_seq: number };
      if (i === 0 && this.raw) origin.raw = [JSON.stringify(value)];
      return this.emitter.emit(p.type, p.payload, at, { actor: p.actor, level: levelOf(p.type), origin });
    });
  }

  private dispatch(item: Json, message: Json, number: number): Pending[] {
    const role = str(message.role);
    let out: Pending[];
    if (role === 'user') out = this.user(item, message, number);
    else if (role === 'assistant') out = this.assistant(item, message, number);
    else if (role === 'thinking') out = this.thinking(message, number);
    else if (role === 'tool' && str(message.toolCallId)) {
      out = [{ type: 'tool.result', payload: { call_id: message.toolCallId, content: outputText([{ content: message.content }]), is_error: false, message_id: `item-${number}` }, actor: 'tool' }];
    } else return [{ type: 'meta', payload: { key: `continue.${role ?? 'untyped'}`, raw: item }, actor: 'system' }];
    const extra = rest(item, ITEM_KEYS);
    if (extra && out.length > 0) out[0].payload.extra = { ...(isObject(out[0].payload.extra) ? out[0].payload.extra : {}), ...extra };
    if (out.length === 0) return [{ type: 'meta', payload: { key: `continue.empty-${role}`, raw: item }, actor: 'system' }];
    return out;
  }

  private unknownParts(parts: unknown[], actor: Actor, number: number): Pending[] {
    return parts.map((part) => ({ type: 'meta', payload: { key: `continue.part.${isObject(part) ? (str(part.type) ?? 'untyped') : 'untyped'}`, raw: part, message_id: `item-${number}` }, actor }));
  }

  private user(item: Json, message: Json, number: number): Pending[] {
    const { blocks, unknown } = contentBlocks(message.content);
    const out: Pending[] = [];
    if (blocks.length > 0) {
      const payload: Json = { content: blocks, message_id: `item-${number}` };
      if (Array.isArray(item.contextItems) && item.contextItems.length > 0) payload.context_items = item.contextItems;
      // The client stores the typed text again as editorState; only an editor state that says more is kept.
      if (item.editorState !== undefined && JSON.stringify(item.editorState) !== JSON.stringify(message.content)) payload.editor_state = item.editorState;
      const extra = rest(message, ['role', 'content']);
      if (extra) payload.extra = extra;
      out.push({ type: 'message.user', payload, actor: 'user' });
    }
    return [...out, ...this.unknownParts(unknown, 'user', number)];
  }

  private thinking(message: Json, number: number): Pending[] {
    const text = contentBlocks(message.content).blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const payload: Json = { text, visibility: 'visible', provider: 'continue', message_id: `item-${number}` };
    if (str(message.signature)) payload.signature = message.signature;
    if (str(message.redactedThinking)) {
      payload.opaque = message.redactedThinking;
      if (text === '') payload.visibility = 'redacted';
    }
    return [{ type: 'message.thinking', payload, actor: ASSISTANT }];
  }

  private assistant(item: Json, message: Json, number: number): Pending[] {
    const out: Pending[] = [];
    const messageId = `item-${number}`;
    const usage = isObject(message.usage) ? message.usage : undefined;
    const model = str(usage?.model);
    if (isObject(item.reasoning) && typeof item.reasoning.text === 'string' && item.reasoning.text !== '') {
      out.push({ type: 'message.thinking', payload: { text: item.reasoning.text, visibility: 'visible', provider: model ?? 'continue', message_id: messageId, reasoning: item.reasoning }, actor: ASSISTANT });
    }
    const { blocks, unknown } = contentBlocks(message.content);
    const extra = rest(message, ['role', 'content', 'toolCalls', 'usage']);
    const described: Json = {};
    if (model) described.model = model;
    if (usage) described.usage = usage;
    if (extra) described.extra = extra;
    let placed = false;
    if (blocks.length > 0) {
      out.push({ type: 'message.assistant', payload: { content: blocks, message_id: messageId, ...described }, actor: ASSISTANT });
      placed = true;
    }
    out.push(...this.unknownParts(unknown, ASSISTANT, number));
    const states = Array.isArray(item.toolCallStates) ? item.toolCallStates.filter(isObject) : [];
    const stateOf = new Map(states.filter((s) => str(s.toolCallId)).map((s) => [s.toolCallId as string, s]));
    const calls = Array.isArray(message.toolCalls) ? [...message.toolCalls] : [];
    // A state whose call the message does not list still names the call it ran.
    const listed = new Set(calls.map((c) => (isObject(c) ? str(c.id) : undefined)));
    for (const state of states) if (isObject(state.toolCall) && str(state.toolCallId) && !listed.has(state.toolCallId as string)) calls.push(state.toolCall);
    const results: Pending[] = [];
    for (const call of calls) {
      const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
      const id = isObject(call) ? str(call.id) : undefined;
      if (!isObject(call) || !id || !str(fn?.name)) {
        out.push({ type: 'meta', payload: { key: 'continue.tool-call-without-id', raw: call, message_id: messageId }, actor: ASSISTANT });
        continue;
      }
      const state = stateOf.get(id);
      const { input, raw } = argumentsOf(call, state?.parsedArgs);
      const payload: Json = { call_id: id, name: fn!.name, input, message_id: messageId };
      if (raw !== undefined) payload.raw_arguments = raw;
      const callExtra = rest(call, ['id', 'type', 'function']);
      if (callExtra) payload.extra = callExtra;
      if (!placed) {
        // An answer that is only calls: its model and usage ride on the first call.
        Object.assign(payload, described);
        placed = true;
      }
      out.push({ type: 'tool.call', payload, actor: ASSISTANT });
      if (state) results.push({ type: 'tool.result', payload: this.result(id, fn!.name as string, state), actor: 'tool' });
    }
    if (!placed && (usage || extra)) out.push({ type: 'message.assistant', payload: { content: [], message_id: messageId, ...described }, actor: ASSISTANT });
    return [...out, ...results];
  }

  private result(callId: string, name: string, state: Json): Json {
    const status = str(state.status);
    const payload: Json = { call_id: callId, name, content: outputText(state.output), is_error: status !== undefined && FAILED_STATUSES.has(status) };
    if (status) payload.status = status;
    if (Array.isArray(state.output)) payload.structured = state.output;
    // A call the client never finished is sent to the model as "Tool cancelled" (docs/formats/continue.md §4).
    if (!Array.isArray(state.output) || state.output.length === 0) payload.content = 'Tool cancelled';
    const extra = rest(state, ['toolCallId', 'toolCall', 'status', 'parsedArgs', 'output']);
    if (extra) payload.extra = extra;
    return payload;
  }
}

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);


export async function* captureContinue(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const { path } = ref;
  const { document, history } = readSessionFile(path, options.onDiagnostic);
  yield* itemListEvents<ContinueState>(ref, options, {
    agent: AGENT,
    noun: 'history item',
    items: history,
    mapper: (emitter, state) => {
      const mapper = new ContinueMapper(emitter, path, state, options.raw === true, options.onDiagnostic);
      return {
        start: () => {
          const entry = readIndex(dirname(path)).get(ref.native_id);
          return mapper.start(startPayload(ref, document, entry, history), createdAt(entry) ?? statSync(path).mtimeMs / 1000);
        },
        item: (value, index) => mapper.item(value, index),
      };
    },
  });
}
