// One line of a Kimi CLI context file → canonical events (docs/formats/kimi.md §2). A line is a
// chat message `{role: user|assistant|tool|system, content, tool_calls?, tool_call_id?, name?,
// partial?}` (content a string when it is one text part, else a list of parts text / think /
// image_url / audio_url / video_url), or a bookkeeping record whose role starts with `_`
// (`_system_prompt`, `_usage`, `_checkpoint`). Bookkeeping and anything unknown is `meta`
// {key: kimi.<role>, raw: the record}. The file holds no times: events take the file's time (the
// start, when the wire log gives one, its first record's).
import type { Actor, SpEvent } from '../../lib/core/event.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';
import type { Line } from '../../lib/core/lines.js';
import { mapNativeLine, newCallNamesState, type CallNamesState, type LineMapperOptions, type Pending } from '../../lib/formats/line-file.js';
import { fidelity } from './fidelity.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

export const AGENT = 'kimi';
const ASSISTANT: Actor = 'agent:kimi';
const MESSAGE_FIELDS = ['role', 'content', 'tool_calls', 'tool_call_id'];

/** What the mapper carries from line to line (and, in a cursor, from run to run): no time (the file holds none). */
export type KimiState = Omit<CallNamesState, 'last_ts'>;
export const newKimiState: () => KimiState = newCallNamesState;

export interface MapperOptions extends LineMapperOptions<KimiState> {
  /** Epoch seconds every event of this run carries (the context file records no times). */
  ts: number;
}

/** The parts of a message's content: a string is one text part; anything else, no parts. */
export function partsOf(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

/** A `data:<media>;base64,<data>` or plain URL image part as a canonical image, or undefined. */
function imageOf(part: Json): Json | undefined {
  const image = isObject(part.image_url) ? part.image_url : undefined;
  const url = image ? str(image.url) : undefined;
  if (!url) return undefined;
  const data = /^data:([^;,]{1,100});base64,(.*)$/s.exec(url);
  if (data) return { type: 'image', media_type: data[1], data: data[2] };
  return { type: 'image', media_type: 'application/octet-stream', url };
}

/** Text and image parts as canonical content; every other part kept aside as it was. */
function contentOf(parts: unknown[]): { content: Json[]; unknown: unknown[] } {
  const content: Json[] = [];
  const unknown: unknown[] = [];
  for (const part of parts) {
    if (isObject(part) && part.type === 'text' && typeof part.text === 'string') content.push({ type: 'text', text: part.text });
    else if (isObject(part) && part.type === 'image_url' && imageOf(part)) content.push(imageOf(part)!);
    else unknown.push(part);
  }
  return { content, unknown };
}

/** A call's `function.arguments` (a JSON string, or null) as the input object it encodes. */
function inputOf(args: unknown): { input: Json; bad?: string } {
  if (args === null || args === undefined || args === '') return { input: {} };
  if (typeof args !== 'string') return { input: {}, bad: JSON.stringify(args) };
  try {
    const value: unknown = JSON.parse(args);
    return isObject(value) ? { input: value } : { input: {}, bad: args };
  } catch {
    return { input: {}, bad: args };
  }
}

export class KimiMapper {
  constructor(private readonly options: MapperOptions) {}

  private get state(): KimiState {
    return this.options.state;
  }

  /** session.start: made up from the session's place (the context file has no header). */
  start(payload: Json, ts: number): SpEvent {
    this.state.started = true;
    return this.options.emitter.emit('session.start', payload, Math.min(ts, this.options.ts), { actor: 'system', level: 1, origin: {} });
  }

  /** Events of one line; never throws on bad input (a bad line becomes meta). */
  line(line: Line): SpEvent[] {
    const { rawText, pending } = mapNativeLine(this.options, line, AGENT, (r) => this.dispatch(r));
    return pending.map((p, i) => {
      const origin: Json = { native_seq: line.number };
      if (i === 0 && rawText !== undefined) origin.raw = [rawText];
      return this.options.emitter.emit(p.type, p.payload, this.options.ts, { actor: p.actor, level: levelOf(p.type), origin });
    });
  }

  private dispatch(record: Json): Pending[] {
    const role = str(record.role);
    let out: Pending[] | undefined;
    if (role === 'user') out = this.user(record);
    else if (role === 'assistant') out = this.assistant(record);
    else if (role === 'tool') out = this.tool(record);
    if (out && out.length > 0) return out;
    // `_system_prompt`, `_usage`, `_checkpoint` (an undo point, not a compaction: the history stays),
    // `system` messages and roles a later client adds.
    return [{ type: 'meta', payload: { key: `kimi.${role ?? 'untyped'}`, raw: record }, actor: 'system' }];
  }

  private user(record: Json): Pending[] | undefined {
    if (typeof record.content !== 'string' && !Array.isArray(record.content)) return undefined;
    const { content, unknown } = contentOf(partsOf(record.content));
    const payload: Json = { content };
    if (typeof record.content === 'string') payload.string_content = true;
    if (unknown.length > 0) payload.native_blocks = unknown;
    const extra = rest(record, MESSAGE_FIELDS);
    if (extra) payload.extra = extra;
    return [{ type: 'message.user', payload, actor: 'user' }];
  }

  private tool(record: Json): Pending[] | undefined {
    const callId = str(record.tool_call_id);
    if (!callId) return undefined;
    const { content, unknown } = contentOf(partsOf(record.content));
    const payload: Json = { call_id: callId, content };
    // The client marks a failed call by a leading `<system>ERROR: …</system>` text part.
    const first = content[0];
    payload.is_error = first?.type === 'text' && typeof first.text === 'string' && first.text.startsWith('<system>ERROR:');
    const name = this.state.names[callId];
    if (name) payload.name = name;
    if (unknown.length > 0) payload.native_blocks = unknown;
    const extra = rest(record, MESSAGE_FIELDS);
    if (extra) payload.extra = extra;
    return [{ type: 'tool.result', payload, actor: 'tool' }];
  }

  private assistant(record: Json): Pending[] {
    const thinking: Pending[] = [];
    const texts: Json[] = [];
    const unknown: unknown[] = [];
    for (const part of partsOf(record.content)) {
      if (isObject(part) && part.type === 'think' && typeof part.think === 'string') {
        const p: Json = { text: part.think, visibility: 'visible', provider: 'moonshot' };
        if (str(part.encrypted)) p.opaque = part.encrypted;
        const extra = rest(part, ['type', 'think', 'encrypted']);
        if (extra) p.extra = extra;
        thinking.push({ type: 'message.thinking', payload: p, actor: ASSISTANT });
      } else if (isObject(part) && part.type === 'text' && typeof part.text === 'string') texts.push({ type: 'text', text: part.text });
      else unknown.push(part);
    }
    const calls: Pending[] = [];
    for (const call of Array.isArray(record.tool_calls) ? record.tool_calls : []) {
      const fn = isObject(call) && isObject(call.function) ? call.function : undefined;
      const id = isObject(call) ? str(call.id) : undefined;
      const name = fn ? str(fn.name) : undefined;
      if (!id || !name) {
        unknown.push(call);
        continue;
      }
      this.state.names[id] = name;
      const { input, bad } = inputOf(fn!.arguments);
      const p: Json = { call_id: id, name, input };
      if (bad !== undefined) p.native_arguments = bad;
      const extra = rest(call as Json, ['type', 'id', 'function']);
      if (extra) p.extra = extra;
      calls.push({ type: 'tool.call', payload: p, actor: ASSISTANT });
    }
    const out: Pending[] = [...thinking];
    // A reply of calls only is stored with content "" (one empty text part): no message of its own.
    const said = texts.some((t) => t.text !== '');
    if (said || calls.length === 0) {
      const p: Json = { content: texts };
      if (typeof record.content === 'string') p.string_content = true;
      out.push({ type: 'message.assistant', payload: p, actor: ASSISTANT });
    }
    out.push(...calls);
    if (unknown.length > 0) out.push({ type: 'meta', payload: { key: 'kimi.unknown-parts', raw: unknown }, actor: ASSISTANT });
    const extra = rest(record, MESSAGE_FIELDS);
    if (extra) out[0].payload[out[0].type === 'message.assistant' ? 'extra' : 'message_extra'] = extra;
    return out;
  }
}

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);
