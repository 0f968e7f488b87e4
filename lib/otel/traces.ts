// Canonical sessions as OTLP/JSON traces following the OpenTelemetry GenAI semantic conventions
// (agent, model and tool spans; the gen_ai.* attributes as @opentelemetry/semantic-conventions
// 1.45.0 names them). One trace per session:
//   invoke_agent <agent>   one span per turn (a user message and everything up to the next one)
//     chat <model>         one per API message of the agent (its text, reasoning, calls), with
//                          token usage; it runs from the event before it (the prompt or the last
//                          tool result) to the message
//     execute_tool <tool>  one per tool call, from the call to its result (0 long without times)
// Ids are derived from the session and the events' seq, so exporting the same session twice gives
// the same trace. Message content (prompts, replies, tool arguments and results) goes out only
// when asked (`content`), and the caller redacts it first (see export.ts).
import { createHash } from 'node:crypto';
import type { SpEvent } from '../core/event.js';
import { isObject, str, type Json } from '../core/json.js';

/** The OTLP enum values this mapping uses. */
const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;

export interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string; doubleValue?: number; boolValue?: boolean; arrayValue?: { values: OtlpAttribute['value'][] } };
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  status?: { code: number; message?: string };
}

export interface OtlpTraceRequest {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { scope: { name: string; version?: string }; spans: OtlpSpan[] }[];
  }[];
}

export interface TraceOptions {
  /** Include message content (gen_ai.input.messages, output messages, tool arguments and results). */
  content?: boolean;
  /** The instrumentation scope's version (sp's version). */
  version?: string;
}

function hex(parts: string[], length: number): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, length);
}

function attr(key: string, value: unknown): OtlpAttribute | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return { key, value: { stringValue: value } };
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  if (typeof value === 'number') return Number.isInteger(value) ? { key, value: { intValue: String(value) } } : { key, value: { doubleValue: value } };
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return { key, value: { arrayValue: { values: value.map((v) => ({ stringValue: v })) } } };
  return { key, value: { stringValue: JSON.stringify(value) } };
}

function attrs(fields: Record<string, unknown>): OtlpAttribute[] {
  return Object.entries(fields).map(([k, v]) => attr(k, v)).filter((a): a is OtlpAttribute => a !== undefined);
}

/** Epoch seconds → OTLP's unix nanoseconds (a decimal string: it exceeds 2^53). */
export function unixNano(seconds: number): string {
  return (BigInt(Math.round(seconds * 1000)) * 1_000_000n).toString();
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string').map((b) => (b as { text: string }).text).join('\n');
}

/** Token usage as the conventions count it: input tokens include the cached ones. */
function usageAttributes(usage: unknown): Record<string, number | undefined> {
  if (!isObject(usage)) return {};
  const n = (k: string): number | undefined => (typeof usage[k] === 'number' && Number.isFinite(usage[k]) ? (usage[k] as number) : undefined);
  const cacheRead = n('cache_read_input_tokens') ?? n('cached_input_tokens');
  const cacheWrite = n('cache_creation_input_tokens');
  let input = n('input_tokens') ?? n('prompt_tokens');
  // Anthropic reports input without the cache; OpenAI's input already holds the cached part.
  if (input !== undefined && usage.cache_read_input_tokens !== undefined) input += (cacheRead ?? 0) + (cacheWrite ?? 0);
  return {
    'gen_ai.usage.input_tokens': input,
    'gen_ai.usage.output_tokens': n('output_tokens') ?? n('completion_tokens'),
    'gen_ai.usage.cache_read.input_tokens': cacheRead,
    'gen_ai.usage.cache_creation.input_tokens': cacheWrite,
    'gen_ai.usage.reasoning.output_tokens': n('reasoning_output_tokens') ?? n('reasoning_tokens'),
  };
}

interface Turn {
  span: OtlpSpan;
  first: SpEvent;
  last: SpEvent;
  input?: string;
}

interface Chat {
  span: OtlpSpan;
  messageId?: string;
  parts: Json[];
  usage?: unknown;
  stopReason?: string;
  hasText: boolean;
}

/** The spans of one canonical session (its events in seq order). */
export function sessionSpans(events: SpEvent[], options: TraceOptions = {}): OtlpSpan[] {
  if (events.length === 0) return [];
  const session = events[0].session;
  const start = events.find((e) => e.type === 'session.start');
  const sp = start && isObject(start.payload) ? start.payload : {};
  const agent = start?.agent ?? events[0].agent;
  const conversation = str(sp.native_id) ?? session;
  const traceId = hex(['sp-otel', 'trace', session], 32);
  const spanId = (kind: string, seq: number): string => hex(['sp-otel', 'span', session, kind, String(seq)], 16);

  const spans: OtlpSpan[] = [];
  const turns: Turn[] = [];
  let turn: Turn | undefined;
  let chat: Chat | undefined;
  let previousTs = events[0].ts;
  const tools = new Map<string, OtlpSpan>();

  const openTurn = (event: SpEvent, input?: string): Turn => {
    const span: OtlpSpan = {
      traceId,
      spanId: spanId('turn', event.seq),
      name: `invoke_agent ${agent}`,
      kind: SPAN_KIND_INTERNAL,
      startTimeUnixNano: unixNano(event.ts),
      endTimeUnixNano: unixNano(event.ts),
      attributes: [],
    };
    spans.push(span);
    turn = { span, first: event, last: event, input };
    turns.push(turn);
    chat = undefined;
    return turn;
  };
  const closeChat = (): void => {
    if (!chat) return;
    const out: Record<string, unknown> = {
      ...usageAttributes(chat.usage),
      'gen_ai.response.finish_reasons': chat.stopReason ? [chat.stopReason] : undefined,
    };
    if (options.content && chat.parts.length > 0) out['gen_ai.output.messages'] = JSON.stringify([{ role: 'assistant', parts: chat.parts, ...(chat.stopReason ? { finish_reason: chat.stopReason } : {}) }]);
    chat.span.attributes.push(...attrs(out));
    chat = undefined;
  };
  const chatFor = (event: SpEvent, messageId: string | undefined, forText: boolean): Chat => {
    const t = turn ?? openTurn(event);
    if (chat && (messageId !== undefined ? chat.messageId === messageId : !(forText && chat.hasText))) return chat;
    closeChat();
    const p = isObject(event.payload) ? event.payload : {};
    const model = str(p.model) ?? str(sp.model);
    const span: OtlpSpan = {
      traceId,
      spanId: spanId('chat', event.seq),
      parentSpanId: t.span.spanId,
      name: model ? `chat ${model}` : 'chat',
      kind: SPAN_KIND_CLIENT,
      startTimeUnixNano: unixNano(Math.min(previousTs, event.ts)),
      endTimeUnixNano: unixNano(event.ts),
      attributes: attrs({ 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': conversation, 'gen_ai.request.model': model, 'gen_ai.response.model': model, 'gen_ai.response.id': messageId }),
    };
    spans.push(span);
    chat = { span, messageId, parts: [], hasText: false };
    return chat;
  };

  for (const event of events) {
    if (event.derived_from !== undefined && event.derived_from !== null) continue;
    const p = isObject(event.payload) ? event.payload : {};
    switch (event.type) {
      case 'message.user': {
        const text = textOf(p.content);
        if (text === '') break; // tool results riding in a user message (Claude): the tool spans carry them
        closeChat();
        openTurn(event, text);
        break;
      }
      case 'message.thinking': {
        const c = chatFor(event, str(p.message_id), false);
        if (typeof p.text === 'string' && p.text !== '') c.parts.push({ type: 'reasoning', content: p.text });
        break;
      }
      case 'message.assistant': {
        const text = textOf(p.content);
        const c = chatFor(event, str(p.message_id), text !== '');
        if (text !== '') {
          c.parts.push({ type: 'text', content: text });
          c.hasText = true;
        }
        if (p.usage !== undefined) c.usage = p.usage;
        if (typeof p.stop_reason === 'string') c.stopReason = p.stop_reason;
        c.span.endTimeUnixNano = unixNano(event.ts);
        break;
      }
      case 'tool.call': {
        const c = chatFor(event, str(p.message_id), false);
        const name = str(p.name) ?? 'unknown';
        const callId = str(p.call_id) ?? String(event.seq);
        c.parts.push({ type: 'tool_call', id: callId, name, ...(options.content ? { arguments: p.input } : {}) });
        const span = toolSpan(traceId, spanId('tool', event.seq), (turn ?? openTurn(event)).span.spanId, event, name, callId, conversation, options.content ? p.input ?? null : undefined);
        spans.push(span);
        tools.set(callId, span);
        break;
      }
      case 'tool.result': {
        const span = tools.get(str(p.call_id) ?? '');
        if (!span) break;
        endToolSpan(span, event, p, options.content === true);
        closeChat();
        break;
      }
      default:
        break;
    }
    if (turn) turn.last = event;
    previousTs = event.ts;
  }
  closeChat();

  for (const t of turns) {
    const end = spans.filter((s) => s.parentSpanId === t.span.spanId).reduce((max, s) => (BigInt(s.endTimeUnixNano) > max ? BigInt(s.endTimeUnixNano) : max), BigInt(unixNano(t.last.ts)));
    t.span.endTimeUnixNano = end.toString();
    t.span.attributes = turnAttributes(t, agent, session, conversation, str(sp.model), options.content === true);
  }
  return spans;
}

/** An execute_tool span for a call, ended when its result comes; `args` only with --content. */
function toolSpan(traceId: string, spanId: string, parentSpanId: string, event: SpEvent, name: string, callId: string, conversation: string, args: unknown): OtlpSpan {
  return {
    traceId,
    spanId,
    parentSpanId,
    name: `execute_tool ${name}`,
    kind: SPAN_KIND_INTERNAL,
    startTimeUnixNano: unixNano(event.ts),
    endTimeUnixNano: unixNano(event.ts),
    attributes: attrs({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.conversation.id': conversation,
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': callId,
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.arguments': args !== undefined ? JSON.stringify(args) : undefined,
    }),
  };
}

/** Ends a tool span at its result: the result's time, its content (with --content) and an error status. */
function endToolSpan(span: OtlpSpan, event: SpEvent, p: Record<string, unknown>, content: boolean): void {
  // A result older than its call (clock skew in the source) gives a zero-length span, never a negative one.
  span.endTimeUnixNano = BigInt(unixNano(event.ts)) > BigInt(span.startTimeUnixNano) ? unixNano(event.ts) : span.startTimeUnixNano;
  if (content) span.attributes.push(...attrs({ 'gen_ai.tool.call.result': typeof p.content === 'string' ? p.content : textOf(p.content) }));
  if (p.is_error === true) {
    span.status = { code: STATUS_ERROR, message: 'the tool reported an error' };
    span.attributes.push(...attrs({ 'error.type': 'tool_error' }));
  }
}

function turnAttributes(t: Turn, agent: string, session: string, conversation: string, model: string | undefined, content: boolean): OtlpSpan['attributes'] {
  return attrs({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': agent,
    'gen_ai.agent.id': session,
    'gen_ai.conversation.id': conversation,
    'gen_ai.request.model': model,
    'gen_ai.input.messages': content && t.input !== undefined ? JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: t.input }] }]) : undefined,
  });
}

/** One OTLP export request: a resource per session (service sp, the session's agent and ids). */
export function tracesRequest(sessions: SpEvent[][], options: TraceOptions = {}): OtlpTraceRequest {
  return {
    resourceSpans: sessions
      .filter((events) => events.length > 0)
      .map((events) => {
        const start = events.find((e) => e.type === 'session.start');
        const sp = start && isObject(start.payload) ? start.payload : {};
        return {
          resource: { attributes: attrs({ 'service.name': 'sp', 'sp.session': events[0].session, 'sp.agent': events[0].agent, 'sp.native_id': str(sp.native_id), 'sp.cwd': options.content ? str(sp.cwd) : undefined }) },
          scopeSpans: [{ scope: { name: 'sp-export', ...(options.version ? { version: options.version } : {}) }, spans: sessionSpans(events, options) }],
        };
      }),
  };
}
