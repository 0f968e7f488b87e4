// Gemini CLI session records → canonical events (docs/formats/gemini.md §2.3). A JSONL session is a
// log of mutable records: a message is appended again in full whenever it changes (its text first,
// then again with `toolCalls`), `{"$set":…}` patches the metadata or replaces the whole message list,
// `{"$rewindTo":id}` cuts the history. The mapper turns each record into the events of what is NEW
// in it (a call, a result, text seen for the first time), so every message, call and result is
// emitted once however often the client rewrote it; each tool result the client stores twice (in
// `toolCalls[].result` and again in a user `functionResponse` message) comes out once. Records that
// add nothing new are kept as small meta events, unknown ones whole, so nothing is dropped. All
// state is plain JSON (`GeminiState`) for incremental capture. The legacy single-object `.json`
// file goes through the same message mapping (`legacyMessage`).
import { createHash } from 'node:crypto';
import type { SessionEmitter } from '../../lib/core/emitter.js';
import { toEpochSeconds, type Actor, type ContentBlock, type SpEvent } from '../../lib/core/event.js';
import { isObject, rest, type Json } from '../../lib/core/json.js';
import type { Line } from '../../lib/core/lines.js';
import { levelOf } from './fidelity.js';
import { classifyPart, partList, responseContent } from '../../lib/formats/content-parts.js';
import { headerOrigin, mapNativeLine, type LineMapperOptions } from '../../lib/formats/line-file.js';

/** The content block a part with no canonical counterpart is kept in, as it was (stored data: the name stays). */
export const PART_BLOCK = 'gemini.part';

export const AGENT = 'gemini';
const ASSISTANT: Actor = 'agent:gemini';
/** The id the client gives its own `<session_context>` message (sha256("environment-context"), cut). */
export const SESSION_CONTEXT_ID = 'd04923d38bb0f6017037e74183378ef4';

interface MessageState {
  /** The seq the message's first event followed (its parent, for `$rewindTo`). */
  parent: number | null;
  /** Assistant text emitted so far, thoughts and calls seen (to emit only what a rewrite adds). */
  text: string;
  thoughts: number;
  calls: string[];
  /** SHA-256 of the record last seen under this id. */
  hash: string;
  /** Seq of the message's last conversation event. */
  last?: number;
}

export interface GeminiState {
  started: boolean;
  /** Whether the session's metadata line was read (later ones are meta). */
  metadata_seen: boolean;
  last_ts?: number;
  /** Seq of the last event emitted. */
  tail: number | null;
  /** Set by `$rewindTo`: the parent of the next conversation event. */
  pending_parent?: number | null;
  messages: Record<string, MessageState>;
  /** Call ids whose result was emitted, and call id → tool name. */
  results: Record<string, true>;
  calls: Record<string, string>;
}

export function newGeminiState(): GeminiState {
  return { started: false, metadata_seen: false, tail: null, messages: {}, results: {}, calls: {} };
}

export type GeminiMapperOptions = LineMapperOptions<GeminiState>;

interface Pending {
  type: string;
  payload: Json;
  actor: Actor;
  ts?: number;
}

const USER_MAPPED = new Set(['id', 'type', 'content', 'timestamp']);
const GEMINI_MAPPED = new Set(['id', 'type', 'content', 'timestamp', 'thoughts', 'tokens', 'model', 'toolCalls']);
const CALL_MAPPED = new Set(['id', 'name', 'args', 'result']);

/**
 * The call id the model saw: the client stores `<tool>__<raw id>` and sends the raw id (§2.3).
 * The stored form goes to `native_call_id` when it differs.
 */
export function modelCallId(id: string, name: string | undefined): string {
  return name && id.startsWith(`${name}__`) && id.length > name.length + 2 ? id.slice(name.length + 2) : id;
}

function withCallId(payload: Json, id: string, name: string | undefined): Json {
  const callId = modelCallId(id, name);
  payload.call_id = callId;
  if (callId !== id) payload.native_call_id = id;
  return payload;
}

function sha(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

export function isMetadata(record: Json): boolean {
  return typeof record.sessionId === 'string' && typeof record.projectHash === 'string';
}

/** Whether a user text is the client's own context message (never a prompt). */
export function isContextText(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('<session_context>') || t.startsWith('<hook_context>');
}

export class GeminiMapper {
  constructor(private readonly options: GeminiMapperOptions) {}

  private get state(): GeminiState {
    return this.options.state;
  }

  /** session.start, from the metadata line (`line`) when there is one. */
  start(payload: Json, ts: number, line?: Line): SpEvent {
    this.state.started = true;
    this.state.last_ts = ts;
    const origin: Json = line ? headerOrigin(this.options, line) : {};
    if (line) this.state.metadata_seen = true;
    const event = this.options.emitter.emit('session.start', payload, ts, { actor: 'system', level: levelOf('session.start'), origin });
    this.state.tail = event.seq;
    return event;
  }

  /** The events of one JSONL line (never throws: a bad line becomes meta). */
  line(line: Line): SpEvent[] {
    const { rawText, record, pending } = mapNativeLine(this.options, line, AGENT, (r) => this.record(r));
    return this.finish(line, record, pending, rawText);
  }

  /** The events of one message of a legacy `.json` session (index 0-based); unchanged messages give none. */
  legacyMessage(message: unknown, index: number): SpEvent[] {
    if (!isObject(message)) return this.emitAll([meta({ key: 'gemini.legacy.not-a-message', raw: message })], { message_index: index });
    const pending = this.message(message, true);
    return this.emitAll(pending, { message_index: index, ...(typeof message.id === 'string' ? { native_uuid: message.id } : {}) });
  }

  /** What one parsed record becomes. */
  private record(record: Json): Pending[] {
    if (isMetadata(record)) {
      return [meta({ key: 'gemini.metadata', raw: record })];
    }
    if (typeof record.id === 'string') return this.message(record, false);
    if (isObject(record.$set)) return this.patch(record.$set);
    if (typeof record.$rewindTo === 'string') return this.rewind(record.$rewindTo, record);
    return [meta({ key: 'gemini.unknown', raw: record })];
  }

  private patch(set: Json): Pending[] {
    const value: Json = { ...set };
    const out: Pending[] = [];
    if (Array.isArray(set.messages)) {
      const ids = set.messages.map((m) => (isObject(m) && typeof m.id === 'string' ? m.id : null));
      value.messages = { replaced_with: ids };
      out.push(meta({ key: 'gemini.set', value }));
      // The list replaces the history: what it adds (a compression summary, materialized result
      // turns) comes out as events; messages already seen add only what changed in them.
      for (const m of set.messages) if (isObject(m) && typeof m.id === 'string') out.push(...this.message(m, true, true));
      // A list that leaves out messages seen before cuts the history (compression): what follows
      // continues from the list's last message.
      const listed = new Set(ids.filter((x): x is string => x !== null));
      const cut = Object.entries(this.state.messages).some(([mid, m]) => m.last !== undefined && !listed.has(mid));
      if (cut) {
        const lastKnown = [...ids].reverse().find((x): x is string => x !== null && this.state.messages[x]?.last !== undefined);
        this.state.pending_parent = lastKnown !== undefined ? this.state.messages[lastKnown].last! : null;
      } else {
        // A later list that holds the whole history again (the resume's second patch) undoes the cut.
        delete this.state.pending_parent;
      }
      return out;
    }
    out.push(meta({ key: 'gemini.set', value }));
    return out;
  }

  private rewind(target: string, record: Json): Pending[] {
    const known = this.state.messages[target];
    // The client drops that message and everything after it; an unknown id drops everything.
    this.state.pending_parent = known ? known.parent : null;
    return [meta({ key: 'gemini.rewind', value: { target, known: known !== undefined }, raw: record })];
  }

  /**
   * A message record: the events of what is new in it. `quiet` (legacy files, `$set` lists): a
   * record that adds nothing gives nothing (the list's ids are in the `$set` meta).
   */
  private message(record: Json, quiet: boolean, inList = false): Pending[] {
    const id = String(record.id);
    const hash = sha(record);
    const seen = this.state.messages[id];
    if (seen && seen.hash === hash) return quiet ? [] : [meta({ key: 'gemini.message.repeat', value: { id } })];
    const ts = toEpochSeconds(record.timestamp);
    const state: MessageState = seen ?? { parent: this.state.tail, text: '', thoughts: 0, calls: [], hash };
    state.hash = hash;
    this.state.messages[id] = state;
    let out: Pending[];
    switch (record.type) {
      case 'user':
        out = seen ? this.userUpdate(record, id, quiet) : this.user(record, id, inList);
        break;
      case 'gemini':
        out = this.gemini(record, id, state, !seen);
        break;
      case 'info':
      case 'error':
      case 'warning':
        out = seen ? [] : [meta({ key: `gemini.${record.type}`, value: record.content, raw: record })];
        break;
      default:
        out = seen ? [] : [meta({ key: 'gemini.message.unknown-type', raw: record })];
    }
    if (out.length === 0 && !quiet) out.push(meta({ key: 'gemini.message.rewrite', value: { id }, raw: record }));
    for (const p of out) if (ts !== undefined && p.ts === undefined) p.ts = ts;
    return out;
  }

  private user(record: Json, id: string, inList: boolean): Pending[] {
    const blocks: ContentBlock[] = [];
    const out: Pending[] = [];
    const parts = partList(record.content);
    const texts = parts.filter((p) => typeof p.text === 'string' && p.thought !== true).map((p) => String(p.text));
    if (id === SESSION_CONTEXT_ID || (texts.length > 0 && isContextText(texts[0]))) {
      return [meta({ key: 'gemini.session_context', raw: record })];
    }
    const duplicates: string[] = [];
    for (const part of parts) {
      const k = classifyPart(part);
      if (k.kind === 'text' || k.kind === 'thought') blocks.push({ type: 'text', text: k.text });
      else if (k.kind === 'image') blocks.push(k.block);
      else if (k.kind === 'response') {
        const callId = k.id ?? '';
        if (this.state.results[callId]) duplicates.push(callId);
        else out.push(this.result(callId, k.name, k.response, undefined));
      } else blocks.push({ type: PART_BLOCK, part: k.kind === 'call' ? k.part : k.part });
    }
    if (blocks.length > 0) {
      const payload: Json = { content: blocks, message_id: id };
      const extra = rest(record, USER_MAPPED);
      if (extra) payload.extra = extra;
      if (record.displayContent !== undefined) payload.display_content = record.displayContent;
      out.unshift({ type: 'message.user', payload, actor: 'user' });
    }
    if (duplicates.length > 0 && !inList) {
      // The client's second copy of results already read from `toolCalls[].result` (§2.4).
      out.push(meta({ key: 'gemini.duplicate-results', value: { id, call_ids: duplicates } }));
    }
    return out;
  }

  /** A user record rewritten under its id: only results not seen before are new. */
  private userUpdate(record: Json, id: string, quiet: boolean): Pending[] {
    const out: Pending[] = [];
    for (const part of partList(record.content)) {
      const k = classifyPart(part);
      if (k.kind === 'response' && !this.state.results[k.id ?? '']) out.push(this.result(k.id ?? '', k.name, k.response, undefined));
    }
    if (out.length === 0 && !quiet) out.push(meta({ key: 'gemini.message.rewrite', value: { id }, raw: record }));
    return out;
  }

  private gemini(record: Json, id: string, state: MessageState, first: boolean): Pending[] {
    const out: Pending[] = [];
    const model = typeof record.model === 'string' ? record.model : undefined;
    const common = (payload: Json): Json => {
      payload.message_id = id;
      if (model) payload.model = model;
      return payload;
    };
    // Thoughts: the client keeps summaries ({subject, description}), not the raw reasoning.
    const thoughts = Array.isArray(record.thoughts) ? record.thoughts : [];
    for (let i = state.thoughts; i < thoughts.length; i += 1) {
      const t = thoughts[i];
      const payload: Json = isObject(t)
        ? { text: String(t.description ?? ''), visibility: 'summary', provider: 'google' }
        : { text: String(t), visibility: 'summary', provider: 'google' };
      if (isObject(t) && typeof t.subject === 'string') payload.subject = t.subject;
      out.push({ type: 'message.thinking', payload: common(payload), actor: ASSISTANT, ts: isObject(t) ? toEpochSeconds(t.timestamp) : undefined });
    }
    state.thoughts = Math.max(state.thoughts, thoughts.length);

    // Content: a string, or (after a resume rewrite) parts with thoughts and calls.
    const texts: string[] = [];
    const contentCalls: Pending[] = [];
    const contentResults: Pending[] = [];
    const others: ContentBlock[] = [];
    for (const part of partList(record.content)) {
      const k = classifyPart(part);
      if (k.kind === 'text') texts.push(k.text);
      else if (k.kind === 'thought' && first) {
        const payload: Json = { text: k.text, visibility: 'visible', provider: 'google' };
        if (k.signature) payload.signature = k.signature;
        out.push({ type: 'message.thinking', payload: common(payload), actor: ASSISTANT });
      } else if (k.kind === 'call') {
        const callId = k.id ?? `${id}#${state.calls.length}`;
        if (!state.calls.includes(callId) && this.state.calls[callId] === undefined) {
          state.calls.push(callId);
          this.state.calls[callId] = k.name;
          contentCalls.push({ type: 'tool.call', payload: common({ ...withCallId({}, callId, k.name), name: k.name, input: k.args }), actor: ASSISTANT });
        }
      } else if (k.kind === 'response') {
        if (!this.state.results[k.id ?? '']) contentResults.push(this.result(k.id ?? '', k.name, k.response, undefined));
      } else if (k.kind === 'image') others.push(k.block);
      else if (k.kind === 'other') others.push({ type: PART_BLOCK, part: k.part });
    }
    const text = texts.join('');
    if ((text !== '' && text !== state.text) || (first && others.length > 0)) {
      const content: ContentBlock[] = text !== '' && text !== state.text ? [{ type: 'text', text }] : [];
      if (first) content.push(...others);
      const payload: Json = common({ content });
      if (state.text !== '') payload.revises_text = true;
      if (isObject(record.tokens)) payload.usage = record.tokens;
      out.push({ type: 'message.assistant', payload, actor: ASSISTANT });
      if (text !== '') state.text = text;
    }
    out.push(...contentCalls);

    // toolCalls: each call once; its result (stored again later by the client) once.
    const calls = Array.isArray(record.toolCalls) ? record.toolCalls.filter(isObject) : [];
    const results: Pending[] = [...contentResults];
    for (const call of calls) {
      const callId = typeof call.id === 'string' ? call.id : `${id}#${calls.indexOf(call)}`;
      const name = typeof call.name === 'string' ? call.name : '';
      if (!state.calls.includes(callId) && this.state.calls[callId] === undefined) {
        state.calls.push(callId);
        this.state.calls[callId] = name;
        const payload: Json = common({ ...withCallId({}, callId, name), name, input: call.args ?? {} });
        const extra = rest(call, CALL_MAPPED);
        if (extra) payload.extra = extra;
        out.push({ type: 'tool.call', payload, actor: ASSISTANT, ts: toEpochSeconds(call.timestamp) });
      }
      if (call.result !== undefined && !this.state.results[callId]) {
        const parts = partList(call.result);
        const response = parts.map(classifyPart).find((k) => k.kind === 'response');
        const value = response && response.kind === 'response' ? response.response : call.result;
        results.push(this.result(callId, name, value, call));
      }
    }
    out.push(...results);
    if (first && out.length > 0) {
      const extra = rest(record, GEMINI_MAPPED);
      if (extra) out[0].payload.extra = extra;
    }
    if (first && out.length === 0) {
      // An empty model turn (the client writes one before its calls arrive): kept as an empty message.
      const payload: Json = common({ content: [] });
      if (isObject(record.tokens)) payload.usage = record.tokens;
      const extra = rest(record, GEMINI_MAPPED);
      if (extra) payload.extra = extra;
      out.push({ type: 'message.assistant', payload, actor: ASSISTANT });
    }
    return out;
  }

  private result(callId: string, name: string | undefined, response: unknown, call: Json | undefined): Pending {
    this.state.results[callId] = true;
    const { content, is_error, plain } = responseContent(response);
    const payload: Json = withCallId({}, callId, name ?? (this.state.calls[callId] || undefined));
    payload.content = content;
    const status = call && typeof call.status === 'string' ? call.status : undefined;
    if (is_error || status === 'error') payload.is_error = true;
    if (name) payload.name = name;
    const structured: Json = {};
    if (!plain) structured.response = response;
    if (call) {
      if (status) structured.status = status;
      if (call.resultDisplay !== undefined) structured.resultDisplay = call.resultDisplay;
    }
    if (Object.keys(structured).length > 0) payload.structured = structured;
    return { type: 'tool.result', payload, actor: 'tool', ts: call ? toEpochSeconds(call.timestamp) : undefined };
  }

  /** Emits a line's events: origin on all, raw on the first, the rewind parent on the first conversation event. */
  private finish(line: Line, record: Json | undefined, pending: Pending[], rawText: string | undefined): SpEvent[] {
    const origin: Json = { native_seq: line.number };
    if (record && typeof record.id === 'string') origin.native_uuid = record.id;
    return this.emitAll(pending, origin, rawText);
  }

  private emitAll(pending: Pending[], origin: Json, rawText?: string): SpEvent[] {
    const out: SpEvent[] = [];
    const messageId = typeof origin.native_uuid === 'string' ? origin.native_uuid : undefined;
    pending.forEach((p, i) => {
      const ts = p.ts ?? this.state.last_ts ?? 0;
      this.state.last_ts = ts;
      const o: Json = i === 0 && rawText !== undefined ? { ...origin, raw: [rawText] } : { ...origin };
      const extras: Parameters<SessionEmitter['emit']>[3] = { actor: p.actor, level: levelOf(p.type), origin: o };
      const expected = this.options.emitter.nextSeq - 1;
      if (this.state.pending_parent !== undefined && p.type !== 'meta') {
        if (this.state.pending_parent !== expected) extras.parent_seq = this.state.pending_parent;
        delete this.state.pending_parent;
      }
      const event = this.options.emitter.emit(p.type, p.payload, ts, extras);
      this.state.tail = event.seq;
      const mid = typeof p.payload.message_id === 'string' ? p.payload.message_id : messageId;
      if (mid !== undefined && p.type !== 'meta' && this.state.messages[mid]) this.state.messages[mid].last = event.seq;
      out.push(event);
    });
    return out;
  }
}

function meta(payload: Json): Pending {
  return { type: 'meta', payload, actor: 'system' };
}
