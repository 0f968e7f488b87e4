// One Goose message → canonical events (docs/formats/goose.md §3). The same JSON shape comes from a
// database row (`content_json` + `metadata_json` + `created_timestamp`) and from a line of a legacy
// `.jsonl` file ({id, role, created, content, metadata}): `role` user or assistant, `content` an
// array of blocks tagged by `type`.
//
// Blocks: text and image make the message; thinking / redactedThinking are message.thinking;
// toolRequest (and frontendToolRequest, a tool the desktop app runs) is tool.call; toolResponse is
// tool.result. Every other block (toolConfirmationRequest, actionRequired, systemNotification,
// conversationCompacted, contextLengthExceeded, summarizationRequested, a type added later) is
// `meta` `goose.content.<type>` with the block as it was: nothing is dropped.
//
// Visibility. Goose's metadata {userVisible, agentVisible} is how it compacts: the messages before a
// compaction stay for the user (agentVisible false), a `conversationCompacted` marker is shown to the
// user only, and the summary is a user message only the model sees. The flags are kept on the events
// (`agent_visible` / `user_visible` when false); the marker is meta `goose.compact_boundary` and the
// agent-only user message after it is marked `compact_summary`.
import type { ContentBlock, SpEvent } from '../../lib/core/event.js';
import type { SessionEmitter } from '../../lib/core/emitter.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';

const ASSISTANT = 'agent:goose' as const;
const MESSAGE_KEYS = ['id', 'role', 'created', 'content', 'metadata'];

/**
 * What tells a compaction summary: a `conversationCompacted` marker (older releases), or messages
 * hidden from the model just before (current releases hide the compacted ones and add the summary).
 */
export interface CompactionState {
  afterCompaction: boolean;
  previousHidden: boolean;
}

export function newCompactionState(): CompactionState {
  return { afterCompaction: false, previousHidden: false };
}

export interface MessageContext {
  emitter: SessionEmitter;
  /** What the message's events carry in origin (row id or line number, the raw text with --raw). */
  nativeSeq: number;
  raw?: string;
  /** Where the message is, for the meta of a malformed one. */
  where: string;
  /** Carried from message to message: a compaction marker makes the next agent-only prompt its summary. */
  state: CompactionState;
}

function visibility(metadata: unknown): Json {
  const out: Json = {};
  if (isObject(metadata)) {
    if (metadata.agentVisible === false) out.agent_visible = false;
    if (metadata.userVisible === false) out.user_visible = false;
  }
  return out;
}

function imageBlock(block: Json): ContentBlock {
  const mediaType = str(block.mimeType) ?? 'application/octet-stream';
  return typeof block.data === 'string' ? { type: 'image', media_type: mediaType, data: block.data } : { type: 'image_unreadable', raw: block };
}

/** An MCP content list (a tool result's) as canonical blocks; resources keep their text. */
export function mcpBlocks(items: unknown[]): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const item of items) {
    if (!isObject(item)) continue;
    if (item.type === 'text' && typeof item.text === 'string') out.push({ type: 'text', text: item.text });
    else if (item.type === 'image') out.push(imageBlock(item));
    else if (item.type === 'resource' && isObject(item.resource) && typeof item.resource.text === 'string') out.push({ type: 'text', text: item.resource.text });
    else out.push({ type: `mcp_${String(item.type ?? 'unknown')}`, raw: item });
  }
  return out;
}

/** A toolResponse's result: `{status: success, value: {content, isError}}` (or, before, value = the list), or `{status: error, error}`. */
function toolResult(block: Json): { content: ContentBlock[] | string; is_error: boolean; structured?: unknown } {
  const result = isObject(block.toolResult) ? block.toolResult : {};
  if (result.status === 'error') return { content: String(result.error ?? ''), is_error: true };
  const value = result.value;
  if (Array.isArray(value)) return { content: mcpBlocks(value), is_error: false };
  if (isObject(value)) {
    const out: { content: ContentBlock[]; is_error: boolean; structured?: unknown } = { content: Array.isArray(value.content) ? mcpBlocks(value.content) : [], is_error: value.isError === true };
    if (value.structuredContent !== undefined) out.structured = value.structuredContent;
    return out;
  }
  return { content: [], is_error: false };
}

/** The events of one message, in the order of its blocks (thinking, then the message, then calls). */
export function* messageEvents(message: Json, ts: number, ctx: MessageContext): Generator<SpEvent> {
  const { emitter } = ctx;
  let first = true;
  const origin = () => {
    const o: Json = { native_seq: ctx.nativeSeq };
    if (first && ctx.raw !== undefined) o.raw = [ctx.raw];
    first = false;
    return o;
  };
  const role = message.role;
  if ((role !== 'user' && role !== 'assistant') || !Array.isArray(message.content)) {
    const key = role !== 'user' && role !== 'assistant' ? `goose.message.${typeof role === 'string' && role !== '' ? role : 'unknown'}` : 'goose.message.malformed';
    yield emitter.emit('meta', { key, raw: message, where: ctx.where }, ts, { actor: 'system', origin: origin() });
    return;
  }
  const seen = visibility(message.metadata);
  const messageId = str(message.id);
  const common: Json = { ...(messageId ? { message_id: messageId } : {}), ...seen };
  const actor = role === 'assistant' ? ASSISTANT : 'user';
  const blocks: ContentBlock[] = [];
  const later: Array<() => SpEvent> = [];
  for (const block of message.content) {
    const type = isObject(block) ? str(block.type) : undefined;
    if (!isObject(block) || type === undefined) {
      later.push(() => emitter.emit('meta', { key: 'goose.content.malformed', raw: block, ...common }, ts, { actor: 'system', origin: origin() }));
      continue;
    }
    switch (type) {
      case 'text':
        if (typeof block.text === 'string') blocks.push({ type: 'text', text: block.text });
        break;
      case 'image':
        blocks.push(imageBlock(block));
        break;
      case 'thinking':
        yield emitter.emit('message.thinking', { text: String(block.thinking ?? ''), visibility: 'visible', ...(typeof block.signature === 'string' && block.signature !== '' ? { signature: block.signature } : {}), ...common }, ts, { actor: ASSISTANT, origin: origin() });
        break;
      case 'redactedThinking':
        yield emitter.emit('message.thinking', { text: '', visibility: 'redacted', opaque: String(block.data ?? ''), ...common }, ts, { actor: ASSISTANT, origin: origin() });
        break;
      case 'toolRequest':
      case 'frontendToolRequest':
        later.push(() => toolCall(block, type, ts, common, ctx, origin()));
        break;
      case 'toolResponse': {
        const result = toolResult(block);
        const payload: Json = { call_id: String(block.id ?? ''), content: result.content, is_error: result.is_error, ...common };
        if (result.structured !== undefined) payload.structured = result.structured;
        if (isObject(block.metadata)) payload.provider_metadata = block.metadata;
        later.push(() => emitter.emit('tool.result', payload, ts, { actor: 'tool', origin: origin() }));
        break;
      }
      case 'conversationCompacted':
        ctx.state.afterCompaction = true;
        later.push(() => emitter.emit('meta', { key: 'goose.compact_boundary', raw: block, ...common }, ts, { actor: 'system', origin: origin() }));
        break;
      default:
        later.push(() => emitter.emit('meta', { key: `goose.content.${type}`, raw: block, ...common }, ts, { actor: 'system', origin: origin() }));
    }
  }
  if (blocks.length > 0) {
    const payload: Json = { content: blocks, ...common };
    if (role === 'user' && seen.user_visible === false && (ctx.state.afterCompaction || ctx.state.previousHidden)) {
      payload.compact_summary = true;
      ctx.state.afterCompaction = false;
    }
    const extra = rest(message, MESSAGE_KEYS);
    if (extra) payload.extra = extra;
    // A user message the user never saw (a summary, a context note) is Goose's, not the user's.
    const by = role === 'user' && seen.user_visible === false ? 'system' : actor;
    yield emitter.emit(role === 'assistant' ? 'message.assistant' : 'message.user', payload, ts, { actor: by, origin: origin() });
  }
  for (const make of later) yield make();
  ctx.state.previousHidden = seen.agent_visible === false;
}

function toolCall(block: Json, type: string, ts: number, common: Json, ctx: MessageContext, origin: Json): SpEvent {
  const call = isObject(block.toolCall) ? block.toolCall : {};
  const callId = str(block.id);
  const value = isObject(call.value) ? call.value : undefined;
  const name = str(value?.name);
  if (call.status !== 'success' || !value || !name || !callId) {
    // A call the model made that Goose could not read (bad JSON, unknown tool): what the model sent, kept.
    return ctx.emitter.emit('meta', { key: 'goose.tool_request.invalid', raw: block, ...common }, ts, { actor: ASSISTANT, origin });
  }
  const payload: Json = { call_id: callId, name, input: value.arguments ?? {}, ...common };
  if (type === 'frontendToolRequest') payload.frontend = true;
  if (isObject(block.metadata)) payload.provider_metadata = block.metadata;
  if (block._meta !== undefined) payload.tool_meta = block._meta;
  return ctx.emitter.emit('tool.call', payload, ts, { actor: ASSISTANT, origin });
}
