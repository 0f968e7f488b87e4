// One events.jsonl line → canonical events (docs/formats/copilot.md §3). The file is a linear list of
// typed envelopes `{type, data, id, timestamp, parentId}`; what the model sees is user.message,
// assistant.message (text, toolRequests, reasoning) and tool.execution_complete, cut at the last
// successful session.compaction_complete. Everything else (turn/usage/shutdown bookkeeping, system
// prompts, hooks, types a later client adds) is `meta` {key: copilot.<type>, raw: the record}.
import type { Actor, SpEvent } from '../../lib/core/event.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';
import type { Line } from '../../lib/core/lines.js';
import { parseNativeLine } from '../../lib/capture/native.js';
import { TimedRecordMapper, headerOrigin, newCallNamesState, type CallNamesState, type LineMapperOptions, type Pending } from '../../lib/formats/line-file.js';
import { fidelity } from './fidelity.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

export const AGENT = 'copilot';
const ASSISTANT: Actor = 'agent:copilot';
const ENVELOPE = ['type', 'data', 'id', 'timestamp', 'parentId'];

export type CopilotState = CallNamesState;
export const newCopilotState = newCallNamesState;

/** A tool call's arguments as an object: older files store them as a JSON string. */
export function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** The session.start payload a `session.start` record gives. */
export function startPayload(nativeId: string, data: Json | undefined): Json {
  const payload: Json = { native_id: nativeId };
  if (!data) return payload;
  const context = isObject(data.context) ? data.context : undefined;
  if (context) {
    if (str(context.cwd)) payload.cwd = context.cwd;
    if (str(context.branch)) payload.git_branch = context.branch;
    if (str(context.headCommit)) payload.git_head = context.headCommit;
    payload.context = context;
  }
  if (str(data.selectedModel)) payload.model = data.selectedModel;
  if (str(data.copilotVersion)) payload.version = data.copilotVersion;
  if (str(data.sessionId) && data.sessionId !== nativeId) payload.recorded_session_id = data.sessionId;
  const extra = rest(data, ['context', 'selectedModel', 'copilotVersion', 'sessionId']);
  if (extra) payload.extra = extra;
  return payload;
}

export class CopilotMapper extends TimedRecordMapper {
  constructor(options: LineMapperOptions<CallNamesState>) {
    super(options, AGENT, levelOf);
  }

  /** session.start: from the file's first line when it is one, else made up (header: false). */
  start(payload: Json, ts: number, line?: Line): SpEvent {
    const origin: Json = line ? headerOrigin(this.options, line) : {};
    if (line) {
      const record = parseNativeLine({ path: this.options.path }, line);
      if (record.kind === 'record' && str(record.record.id)) origin.native_uuid = record.record.id;
    }
    return this.emitStart(payload, ts, origin);
  }

  protected dispatch(record: Json): Pending[] {
    const type = str(record.type);
    const data = isObject(record.data) ? record.data : undefined;
    const envelope = rest(record, ENVELOPE);
    let out: Pending[] | undefined;
    if (data) {
      switch (type) {
        case 'user.message':
          out = this.user(data);
          break;
        case 'assistant.message':
          out = this.assistant(data);
          break;
        case 'assistant.reasoning':
          if (typeof data.content === 'string') out = [{ type: 'message.thinking', payload: { text: data.content, visibility: 'visible', ...(str(data.reasoningId) ? { reasoning_id: data.reasoningId } : {}) }, actor: ASSISTANT }];
          break;
        case 'tool.execution_complete':
          out = this.result(data);
          break;
        case 'session.compaction_complete':
          if (data.success !== false && typeof data.summaryContent === 'string') {
            const extra = rest(data, ['summaryContent']);
            out = [{ type: 'checkpoint', payload: { kind: 'compaction', summary: data.summaryContent, ...(extra ? { extra } : {}) }, actor: 'system' }];
          }
          break;
        default:
          break;
      }
    }
    if (!out) return [{ type: 'meta', payload: { key: `copilot.${type ?? 'untyped'}`, raw: record }, actor: 'system' }];
    // The envelope (id, parentId …) is in origin; anything else an envelope grows is kept.
    if (envelope && out.length > 0) out[0].payload.envelope_extra = envelope;
    return out;
  }

  private user(data: Json): Pending[] {
    const payload: Json = { content: typeof data.content === 'string' ? [{ type: 'text', text: data.content }] : [] };
    if (typeof data.content !== 'string' && data.content !== undefined) payload.native_content = data.content;
    if (str(data.messageId)) payload.message_id = data.messageId;
    if (typeof data.transformedContent === 'string') payload.transformed_content = data.transformedContent;
    const extra = rest(data, ['content', 'messageId', 'transformedContent']);
    if (extra) payload.extra = extra;
    return [{ type: 'message.user', payload, actor: 'user' }];
  }

  private assistant(data: Json): Pending[] {
    const messageId = str(data.messageId);
    const model = str(data.model);
    const out: Pending[] = [];
    const withId = (p: Json): Json => (messageId ? { ...p, message_id: messageId } : p);
    // Reasoning: Anthropic-wire messages keep signed thinking blocks (reasoningBlocks), the
    // signature also in reasoningOpaque; other wires only reasoningText (and opaque/encrypted content).
    const blocks = isObject(data.reasoningBlocks) && Array.isArray(data.reasoningBlocks.blocks) ? data.reasoningBlocks.blocks.filter(isObject) : [];
    const provider = isObject(data.reasoningBlocks) ? str(data.reasoningBlocks.provider) : undefined;
    if (blocks.length > 0) {
      blocks.forEach((block, i) => {
        const text = typeof block.thinking === 'string' ? block.thinking : typeof block.text === 'string' ? block.text : '';
        const p: Json = { text, visibility: block.type === 'redacted_thinking' ? 'redacted' : 'visible', provider: provider === 'anthropic-messages' ? 'anthropic' : provider ?? 'copilot' };
        if (str(block.signature)) p.signature = block.signature;
        if (str(block.data)) p.opaque = block.data;
        if (i === 0) {
          p.reasoning_blocks = data.reasoningBlocks;
          if (str(data.reasoningOpaque)) p.reasoning_opaque = data.reasoningOpaque;
        }
        out.push({ type: 'message.thinking', payload: withId(p), actor: ASSISTANT });
      });
    } else if (str(data.reasoningText) || str(data.reasoningOpaque) || str(data.encryptedContent)) {
      const p: Json = { text: str(data.reasoningText) ?? '', visibility: str(data.reasoningText) ? 'visible' : 'encrypted', provider: model ?? 'copilot' };
      if (str(data.reasoningOpaque)) p.opaque = data.reasoningOpaque;
      if (str(data.encryptedContent)) p.encrypted_content = data.encryptedContent;
      out.push({ type: 'message.thinking', payload: withId(p), actor: ASSISTANT });
    }
    const requests = Array.isArray(data.toolRequests) ? data.toolRequests : [];
    const text = typeof data.content === 'string' ? data.content : '';
    if (text !== '' || requests.length === 0) {
      const p: Json = withId({ content: text !== '' ? [{ type: 'text', text }] : [] });
      if (model) p.model = model;
      out.push({ type: 'message.assistant', payload: p, actor: ASSISTANT });
    }
    for (const request of requests) {
      if (!isObject(request)) continue;
      const callId = str(request.toolCallId) ?? '';
      const name = str(request.name) ?? '';
      // A request without an id or a name cannot be a call (nothing pairs with it, no client replays
      // it): it is kept whole as meta instead of a tool.call the schema would refuse.
      if (!callId || !name) {
        out.push({ type: 'meta', payload: withId({ key: 'copilot.tool-request-incomplete', raw: request }), actor: ASSISTANT });
        continue;
      }
      this.state.names[callId] = name;
      const p: Json = withId({ call_id: callId, name, input: parseArguments(request.arguments) });
      if (typeof request.arguments === 'string') p.arguments_string = true;
      const extra = rest(request, ['toolCallId', 'name', 'arguments']);
      if (extra) p.extra = extra;
      out.push({ type: 'tool.call', payload: p, actor: ASSISTANT });
    }
    const extra = rest(data, ['messageId', 'model', 'content', 'toolRequests', 'reasoningText', 'reasoningOpaque', 'reasoningBlocks', 'encryptedContent']);
    if (extra && out.length > 0) out[0].payload.extra = extra;
    return out;
  }

  private result(data: Json): Pending[] {
    const callId = str(data.toolCallId) ?? '';
    const result = isObject(data.result) ? data.result : undefined;
    const error = isObject(data.error) ? data.error : undefined;
    const failed = data.success === false;
    let content = '';
    if (failed && error && typeof error.message === 'string') content = error.message;
    else if (result && typeof result.content === 'string') content = result.content;
    else if (error && typeof error.message === 'string') content = error.message;
    const p: Json = { call_id: callId, content, is_error: failed };
    const name = this.state.names[callId];
    if (name) p.name = name;
    const structured: Json = {};
    if (result && result.detailedContent !== undefined && result.detailedContent !== null) structured.detailedContent = result.detailedContent;
    if (error) structured.error = error;
    if (data.fileEdits !== undefined) structured.fileEdits = data.fileEdits;
    if (Object.keys(structured).length > 0) p.structured = structured;
    const extra = rest(data, ['toolCallId', 'success', 'result', 'error', 'fileEdits']);
    if (extra) p.extra = extra;
    if (result) {
      const more = rest(result, ['content', 'detailedContent']);
      if (more) p.result_extra = more;
    }
    // A result that names no call cannot be paired: kept whole as meta, not as a tool.result the schema refuses.
    if (!callId) return [{ type: 'meta', payload: { key: 'copilot.tool-result-without-call', raw: data }, actor: 'tool' }];
    return [{ type: 'tool.result', payload: p, actor: 'tool' }];
  }
}

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);
