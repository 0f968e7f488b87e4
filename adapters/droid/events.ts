// One Droid session line → canonical events (docs/formats/droid.md §2). Records are typed
// `{type, …}`; what the model sees is the `message` records (Anthropic-style content blocks), cut
// at the last `compaction_state`. `message` records the client marks `visibility: "llm_only"` are
// the environment context it prepends (system reminders), kept as meta. Everything else
// (`agent_turn_outcome`, title or usage records, types a later client adds) is `meta`
// {key: droid.<type>, raw: the record}.
import type { Actor, SpEvent } from '../../lib/core/event.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';
import type { Line } from '../../lib/core/lines.js';
import { TimedRecordMapper, headerOrigin, newCallNamesState, type CallNamesState, type LineMapperOptions, type Pending } from '../../lib/formats/line-file.js';
import { fidelity } from './fidelity.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

export const AGENT = 'droid';
const ASSISTANT: Actor = 'agent:droid';
const MESSAGE_ENVELOPE = ['type', 'id', 'parentId', 'timestamp', 'message'];

export type DroidState = CallNamesState;
export const newDroidState = newCallNamesState;

/** The session.start payload a `session_start` record gives (docs/formats/droid.md §2). */
export function startPayload(nativeId: string, record: Json | undefined): Json {
  const payload: Json = { native_id: nativeId };
  if (!record) return payload;
  if (str(record.cwd)) payload.cwd = record.cwd;
  if (str(record.title)) payload.title = record.title;
  if (typeof record.version === 'number') payload.format_version = record.version;
  if (str(record.id) && record.id !== nativeId) payload.recorded_session_id = record.id;
  const extra = rest(record, ['type', 'id', 'cwd', 'title', 'version']);
  if (extra) payload.extra = extra;
  return payload;
}

/** An Anthropic-style image block as a canonical image, or undefined. */
function imageOf(block: Json): Json | undefined {
  const source = isObject(block.source) ? block.source : undefined;
  if (!source) return undefined;
  const media = str(source.media_type) ?? 'application/octet-stream';
  if (source.type === 'base64' && typeof source.data === 'string') return { type: 'image', media_type: media, data: source.data };
  if (source.type === 'url' && typeof source.url === 'string') return { type: 'image', media_type: media, url: source.url };
  return undefined;
}

export class DroidMapper extends TimedRecordMapper {
  constructor(options: LineMapperOptions<CallNamesState>) {
    super(options, AGENT, levelOf);
  }

  /** session.start: from the file's first line when it is one, else made up (header: false). */
  start(payload: Json, ts: number, line?: Line): SpEvent {
    return this.emitStart(payload, ts, line ? headerOrigin(this.options, line) : {});
  }

  protected override addOrigin(record: Json, origin: Json): void {
    if (str(record.parentId)) origin.native_parent_uuid = record.parentId;
  }

  protected dispatch(record: Json): Pending[] {
    const type = str(record.type);
    let out: Pending[] | undefined;
    if (type === 'message' && isObject(record.message) && record.message.visibility !== 'llm_only') {
      const message = record.message;
      if (message.role === 'user') out = this.user(message);
      else if (message.role === 'assistant') out = this.assistant(message);
      const envelope = rest(record, MESSAGE_ENVELOPE);
      if (out && out.length > 0 && envelope) out[0].payload.envelope_extra = envelope;
    } else if (type === 'message' && isObject(record.message)) {
      return [{ type: 'meta', payload: { key: 'droid.context', raw: record }, actor: 'system' }];
    } else if (type === 'compaction_state' && typeof record.summaryText === 'string') {
      const extra = rest(record, ['type', 'id', 'timestamp', 'summaryText']);
      out = [{ type: 'checkpoint', payload: { kind: 'compaction', summary: record.summaryText, ...(extra ? { extra } : {}) }, actor: 'system' }];
    }
    if (!out || out.length === 0) return [{ type: 'meta', payload: { key: `droid.${type ?? 'untyped'}`, raw: record }, actor: 'system' }];
    return out;
  }

  private user(message: Json): Pending[] {
    const blocks = Array.isArray(message.content) ? message.content : typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [];
    const content: Json[] = [];
    const results: Pending[] = [];
    const unknown: unknown[] = [];
    for (const block of blocks) {
      if (!isObject(block)) {
        unknown.push(block);
        continue;
      }
      if (block.type === 'text' && typeof block.text === 'string') content.push({ type: 'text', text: block.text });
      else if (block.type === 'image' && imageOf(block)) content.push(imageOf(block)!);
      else if (block.type === 'tool_result') results.push(this.result(block));
      else unknown.push(block);
    }
    const out: Pending[] = [];
    if (content.length > 0 || results.length === 0) {
      const payload: Json = { content };
      if (typeof message.content === 'string') payload.string_content = true;
      if (unknown.length > 0) payload.native_blocks = unknown;
      const extra = rest(message, ['role', 'content']);
      if (extra) payload.extra = extra;
      out.push({ type: 'message.user', payload, actor: 'user' });
    } else if (unknown.length > 0) out.push({ type: 'meta', payload: { key: 'droid.unknown-blocks', raw: unknown }, actor: 'user' });
    return [...out, ...results];
  }

  private result(block: Json): Pending {
    const callId = str(block.tool_use_id) ?? '';
    if (!callId) return { type: 'meta', payload: { key: 'droid.tool-result-without-call', raw: block }, actor: 'tool' };
    let content: unknown = '';
    if (typeof block.content === 'string') content = block.content;
    else if (Array.isArray(block.content)) {
      content = block.content.filter(isObject).map((b) => (b.type === 'text' && typeof b.text === 'string' ? { type: 'text', text: b.text } : b.type === 'image' && imageOf(b) ? imageOf(b) : { type: 'text', text: JSON.stringify(b) }));
    }
    const payload: Json = { call_id: callId, content, is_error: block.is_error === true };
    const name = this.state.names[callId];
    if (name) payload.name = name;
    const extra = rest(block, ['type', 'tool_use_id', 'content', 'is_error']);
    if (extra) payload.extra = extra;
    return { type: 'tool.result', payload, actor: 'tool' };
  }

  private assistant(message: Json): Pending[] {
    const blocks = Array.isArray(message.content) ? message.content : typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [];
    const model = str(message.modelId);
    const texts: Json[] = [];
    const thinking: Pending[] = [];
    const calls: Pending[] = [];
    const unknown: unknown[] = [];
    for (const block of blocks) {
      if (!isObject(block)) {
        unknown.push(block);
        continue;
      }
      if (block.type === 'text' && typeof block.text === 'string') texts.push({ type: 'text', text: block.text });
      else if (block.type === 'thinking' || block.type === 'redacted_thinking') {
        const p: Json = { text: typeof block.thinking === 'string' ? block.thinking : '', visibility: block.type === 'redacted_thinking' ? 'redacted' : 'visible', provider: 'anthropic' };
        if (str(block.signature)) p.signature = block.signature;
        if (str(block.data)) p.opaque = block.data;
        const extra = rest(block, ['type', 'thinking', 'signature', 'data']);
        if (extra) p.extra = extra;
        thinking.push({ type: 'message.thinking', payload: p, actor: ASSISTANT });
      } else if (block.type === 'tool_use' && str(block.id) && str(block.name)) {
        this.state.names[block.id as string] = block.name as string;
        const p: Json = { call_id: block.id, name: block.name, input: block.input ?? {} };
        const extra = rest(block, ['type', 'id', 'name', 'input']);
        if (extra) p.extra = extra;
        calls.push({ type: 'tool.call', payload: p, actor: ASSISTANT });
      } else unknown.push(block);
    }
    const out: Pending[] = [...thinking];
    if (texts.length > 0 || calls.length === 0) {
      const p: Json = { content: texts };
      if (model) p.model = model;
      if (typeof message.content === 'string') p.string_content = true;
      out.push({ type: 'message.assistant', payload: p, actor: ASSISTANT });
    }
    out.push(...calls);
    if (unknown.length > 0) out.push({ type: 'meta', payload: { key: 'droid.unknown-blocks', raw: unknown }, actor: ASSISTANT });
    const extra = rest(message, ['role', 'content', 'modelId']);
    // The message's own fields (reasoningEffort …) go with the first event; a thinking event keeps
    // its block's fields in `extra`, so the message's are `message_extra` there.
    if (extra && out.length > 0) out[0].payload[out[0].type === 'message.assistant' ? 'extra' : 'message_extra'] = extra;
    if (model && out.length > 0 && out[0].type !== 'message.assistant') out[0].payload.model = model;
    return out;
  }
}

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);
