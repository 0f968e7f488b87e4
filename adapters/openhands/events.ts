// One OpenHands SDK event (a JSON object whose `kind` names its class) → canonical events
// (docs/formats/openhands.md §3). Every event has `id`, `timestamp` and `source` (user, agent,
// environment, hook) and, in newer releases, `parent_id` (the conversation tree).
//
//   MessageEvent               message.user / message.assistant (+ message.thinking from its reasoning)
//   ActionEvent                message.assistant from its thought, message.thinking, tool.call
//   ObservationEvent           tool.result (observation.content, is_error)
//   UserRejectObservation      tool.result, is_error, the rejection as text
//   AgentErrorEvent            tool.result, is_error, the error as text
//   Condensation               meta openhands.compact_boundary (+ message.user compact_summary when it has a summary)
//   CondensationSummaryEvent   message.user compact_summary
//   anything else              meta openhands.<kind> with the record (SystemPromptEvent, CondensationRequest,
//                              ConversationStateUpdateEvent, PauseEvent, ConversationErrorEvent, …)
import type { ContentBlock, SpEvent } from '../../lib/core/event.js';
import type { SessionEmitter } from '../../lib/core/emitter.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';

const ASSISTANT = 'agent:openhands' as const;
const BASE_KEYS = ['kind', 'id', 'timestamp', 'source', 'parent_id'];

export interface EventContext {
  emitter: SessionEmitter;
  ts: number;
  /** The file's index (origin.native_seq), and its text with --raw. */
  index: number;
  raw?: string;
}

/** The SDK's content list (TextContent, ImageContent with image_urls) as canonical blocks. */
export function contentBlocks(content: unknown): ContentBlock[] {
  if (!Array.isArray(content)) return [];
  const out: ContentBlock[] = [];
  for (const item of content) {
    if (!isObject(item)) continue;
    if (item.type === 'text' && typeof item.text === 'string') out.push({ type: 'text', text: item.text });
    else if (item.type === 'image' && Array.isArray(item.image_urls)) {
      for (const url of item.image_urls) if (typeof url === 'string') out.push(imageOf(url));
    } else out.push({ type: `openhands_${String(item.type ?? 'unknown')}`, raw: item });
  }
  return out;
}

function imageOf(url: string): ContentBlock {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'image', media_type: data[1], data: data[2] };
  return { type: 'image', media_type: 'image/*', url };
}

function textOf(blocks: ContentBlock[]): string {
  return blocks.filter((b): b is { type: 'text'; text: string } => b.type === 'text' && typeof (b as { text?: unknown }).text === 'string').map((b) => b.text).join('\n');
}

/** The fields every canonical event of a record carries: the event id, and its tree parent when recorded. */
function common(record: Json): Json {
  const out: Json = {};
  if (typeof record.id === 'string') out.event_id = record.id;
  if (typeof record.parent_id === 'string') out.parent_event_id = record.parent_id;
  return out;
}

class Emit {
  private first = true;
  constructor(private readonly ctx: EventContext) {}
  event(type: string, payload: Json, actor: 'user' | 'system' | 'tool' | typeof ASSISTANT): SpEvent {
    const origin: Json = { native_seq: this.ctx.index };
    if (this.first && this.ctx.raw !== undefined) origin.raw = [this.ctx.raw];
    this.first = false;
    return this.ctx.emitter.emit(type, payload, this.ctx.ts, { actor, origin });
  }
}

/** Reasoning an LLM response carried (reasoning_content, thinking_blocks, a Responses reasoning item). */
function* thinking(out: Emit, holder: Json, ids: Json): Generator<SpEvent> {
  if (typeof holder.reasoning_content === 'string' && holder.reasoning_content !== '') yield out.event('message.thinking', { text: holder.reasoning_content, visibility: 'visible', ...ids }, ASSISTANT);
  if (Array.isArray(holder.thinking_blocks)) {
    for (const block of holder.thinking_blocks.filter(isObject)) {
      if (block.type === 'redacted_thinking') yield out.event('message.thinking', { text: '', visibility: 'redacted', opaque: String(block.data ?? ''), ...ids }, ASSISTANT);
      else yield out.event('message.thinking', { text: String(block.thinking ?? ''), visibility: 'visible', ...(typeof block.signature === 'string' ? { signature: block.signature } : {}), ...ids }, ASSISTANT);
    }
  }
  const item = isObject(holder.responses_reasoning_item) ? holder.responses_reasoning_item : undefined;
  if (item) {
    const summary = Array.isArray(item.summary) ? item.summary.filter((s): s is string => typeof s === 'string').join('\n') : '';
    const payload: Json = { text: summary, visibility: typeof item.encrypted_content === 'string' ? 'encrypted' : 'summary', ...ids };
    if (typeof item.encrypted_content === 'string') payload.opaque = item.encrypted_content;
    payload.reasoning_item = item;
    yield out.event('message.thinking', payload, ASSISTANT);
  }
}

function* message(out: Emit, record: Json): Generator<SpEvent> {
  const llm = isObject(record.llm_message) ? record.llm_message : {};
  const ids = common(record);
  const role = llm.role;
  if (role === 'assistant') yield* thinking(out, llm, ids);
  const payload: Json = { content: contentBlocks(llm.content), ...ids };
  if (typeof record.llm_response_id === 'string') payload.message_id = record.llm_response_id;
  if (Array.isArray(record.activated_skills) && record.activated_skills.length > 0) payload.activated_skills = record.activated_skills;
  if (Array.isArray(record.extended_content) && record.extended_content.length > 0) payload.extended_content = contentBlocks(record.extended_content);
  if (typeof record.sender === 'string') payload.sender = record.sender;
  const extra = rest(record, [...BASE_KEYS, 'llm_message', 'llm_response_id', 'activated_skills', 'extended_content', 'sender']);
  if (extra) payload.extra = extra;
  if (role === 'assistant') yield out.event('message.assistant', payload, ASSISTANT);
  else if (role === 'user') yield out.event('message.user', payload, record.source === 'user' ? 'user' : 'system');
  else yield out.event('meta', { key: `openhands.message.${typeof role === 'string' ? role : 'unknown'}`, raw: record, ...ids }, 'system');
}

/** A tool call's arguments: the JSON string the model sent, parsed; else the action's fields. */
function callInput(record: Json): { input: unknown; unparsed?: string } {
  const call = isObject(record.tool_call) ? record.tool_call : {};
  if (typeof call.arguments === 'string') {
    try {
      const parsed: unknown = JSON.parse(call.arguments);
      if (isObject(parsed)) return { input: parsed };
    } catch {
      // kept as the string below
    }
    return { input: isObject(record.action) ? rest(record.action, ['kind']) ?? {} : {}, unparsed: call.arguments };
  }
  return { input: isObject(record.action) ? rest(record.action, ['kind']) ?? {} : {} };
}

function* action(out: Emit, record: Json): Generator<SpEvent> {
  const ids = common(record);
  const responseId = str(record.llm_response_id);
  const messageIds = { ...ids, ...(responseId ? { message_id: responseId } : {}) };
  yield* thinking(out, record, messageIds);
  const thought = contentBlocks(record.thought);
  if (textOf(thought).trim() !== '') yield out.event('message.assistant', { content: thought, ...messageIds }, ASSISTANT);
  const callId = str(record.tool_call_id) ?? str(isObject(record.tool_call) ? record.tool_call.id : undefined);
  const name = str(record.tool_name) ?? str(isObject(record.tool_call) ? record.tool_call.name : undefined);
  if (!callId || !name) {
    yield out.event('meta', { key: 'openhands.action.malformed', raw: record, ...ids }, 'system');
    return;
  }
  const { input, unparsed } = callInput(record);
  const payload: Json = { call_id: callId, name, input, ...messageIds };
  if (unparsed !== undefined) payload.arguments_text = unparsed;
  if (isObject(record.action)) payload.action = record.action;
  else payload.invalid = true; // the SDK records a call it could not turn into an action with action null
  for (const key of ['security_risk', 'summary', 'critic_result']) if (record[key] !== undefined && record[key] !== null) payload[key] = record[key];
  yield out.event('tool.call', payload, ASSISTANT);
}

function* observation(out: Emit, record: Json): Generator<SpEvent> {
  const ids = common(record);
  const callId = str(record.tool_call_id);
  if (!callId) {
    yield out.event('meta', { key: `openhands.${String(record.kind)}.malformed`, raw: record, ...ids }, 'system');
    return;
  }
  const payload: Json = { call_id: callId, ...ids };
  if (typeof record.tool_name === 'string') payload.name = record.tool_name;
  if (typeof record.action_id === 'string') payload.action_event_id = record.action_id;
  if (record.kind === 'ObservationEvent') {
    const obs = isObject(record.observation) ? record.observation : {};
    payload.content = contentBlocks(obs.content);
    payload.is_error = obs.is_error === true;
    const details = rest(obs, ['content', 'is_error']);
    if (details) payload.observation = details;
    if (Array.isArray(record.extended_content) && record.extended_content.length > 0) payload.extended_content = contentBlocks(record.extended_content);
  } else if (record.kind === 'UserRejectObservation') {
    payload.content = `rejected${record.rejection_source ? ` by the ${String(record.rejection_source)}` : ''}: ${String(record.rejection_reason ?? '')}`;
    payload.is_error = true;
    payload.rejected = true;
  } else {
    payload.content = String(record.error ?? '');
    payload.is_error = true;
    if (record.classification !== undefined) payload.classification = record.classification;
  }
  yield out.event('tool.result', payload, 'tool');
}

function* condensation(out: Emit, record: Json): Generator<SpEvent> {
  const ids = common(record);
  const boundary: Json = { key: 'openhands.compact_boundary', raw: record, ...ids };
  if (Array.isArray(record.forgotten_event_ids)) boundary.forgotten = record.forgotten_event_ids.length;
  yield out.event('meta', boundary, 'system');
  if (typeof record.summary === 'string' && record.summary !== '') yield out.event('message.user', { content: [{ type: 'text', text: record.summary }], compact_summary: true, ...ids }, 'system');
}

/** The canonical events of one event record. */
export function* recordEvents(record: Json, ctx: EventContext): Generator<SpEvent> {
  const out = new Emit(ctx);
  switch (record.kind) {
    case 'MessageEvent':
      yield* message(out, record);
      return;
    case 'ActionEvent':
      yield* action(out, record);
      return;
    case 'ObservationEvent':
    case 'UserRejectObservation':
    case 'AgentErrorEvent':
      yield* observation(out, record);
      return;
    case 'Condensation':
      yield* condensation(out, record);
      return;
    case 'CondensationSummaryEvent':
      yield out.event('message.user', { content: [{ type: 'text', text: String(record.summary ?? '') }], compact_summary: true, ...common(record) }, 'system');
      return;
    default: {
      const kind = typeof record.kind === 'string' && record.kind !== '' ? record.kind : 'unknown';
      yield out.event('meta', { key: `openhands.${kind}`, raw: record, ...common(record) }, record.source === 'user' ? 'user' : 'system');
    }
  }
}
