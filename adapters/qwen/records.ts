// Qwen Code session records → canonical events (docs/formats/qwen.md §3.2). Each line is one
// record in a `uuid`/`parentUuid` tree; `message` is a Gemini `Content`. A record's parent is the
// last event of the record its `parentUuid` names, so branches (rewinds) and cuts (a null parent
// after the root, a parent that names no record) show as `parent_seq`; records sharing a uuid are
// fragments of one message and continue each other. System records (telemetry, compression,
// titles …) and unknown types are kept whole as meta. State is plain JSON for incremental capture.
import type { SessionEmitter } from '../../lib/core/emitter.js';
import { toEpochSeconds, type Actor, type ContentBlock, type SpEvent } from '../../lib/core/event.js';
import { isObject, rest, type Json } from '../../lib/core/json.js';
import type { Line } from '../../lib/core/lines.js';
import { classifyPart, partList, responseContent } from '../../lib/formats/content-parts.js';
import { mapNativeLine, type LineMapperOptions, type Pending } from '../../lib/formats/line-file.js';
import { levelOf } from './fidelity.js';

/** The content block a part with no canonical counterpart is kept in, as it was (stored data: the name stays). */
export const PART_BLOCK = 'gemini.part';

export const AGENT = 'qwen';
const ASSISTANT: Actor = 'agent:qwen';
const TYPES = new Set(['user', 'assistant', 'tool_result', 'system']);
/** Envelope keys said once in session.start when equal to its values. */
export const SESSION_KEYS = ['sessionId', 'cwd', 'version', 'gitBranch'] as const;
const MAPPED = new Set(['uuid', 'parentUuid', 'type', 'message', 'timestamp', 'model', 'usageMetadata', 'toolCallResult', ...SESSION_KEYS]);

export interface QwenState {
  started: boolean;
  /** Envelope values of session.start. */
  level: Record<string, string>;
  last_ts?: number;
  /** uuid → seq of the last event made from that record. */
  uuids: Record<string, number>;
  root_seen: boolean;
}

export function newQwenState(): QwenState {
  return { started: false, level: {}, uuids: {}, root_seen: false };
}

export type QwenMapperOptions = LineMapperOptions<QwenState>;

export class QwenMapper {
  constructor(private readonly options: QwenMapperOptions) {}

  private get state(): QwenState {
    return this.options.state;
  }

  start(payload: Json, ts: number, level: Record<string, string>): SpEvent {
    this.state.started = true;
    this.state.level = level;
    this.state.last_ts = ts;
    return this.options.emitter.emit('session.start', payload, ts, { actor: 'system', level: levelOf('session.start') });
  }

  line(line: Line): SpEvent[] {
    const { rawText, record, pending } = mapNativeLine(this.options, line, AGENT, (r) => this.record(r));
    return this.finish(line, record, pending, rawText);
  }

  private record(record: Json): Pending[] {
    if (typeof record.type !== 'string' || !TYPES.has(record.type)) return [meta({ key: 'qwen.unknown', raw: record })];
    if (record.type === 'system') return [meta({ key: `qwen.system.${typeof record.subtype === 'string' ? record.subtype : 'unknown'}`, raw: record })];
    return this.message(record);
  }

  private message(record: Json): Pending[] {
    const parts = partList(isObject(record.message) ? record.message.parts : undefined);
    const uuid = typeof record.uuid === 'string' ? record.uuid : undefined;
    const model = typeof record.model === 'string' ? record.model : undefined;
    const out: Pending[] = [];
    const common = (payload: Json): Json => {
      if (uuid) payload.message_id = uuid;
      if (model) payload.model = model;
      return payload;
    };
    const blocks: ContentBlock[] = [];
    const flushText = (type: 'message.user' | 'message.assistant'): void => {
      if (blocks.length === 0) return;
      out.push({ type, payload: common({ content: blocks.splice(0) }), actor: type === 'message.user' ? 'user' : ASSISTANT });
    };
    const textType = record.type === 'assistant' ? 'message.assistant' : 'message.user';
    for (const part of parts) {
      const k = classifyPart(part);
      if (k.kind === 'text') blocks.push({ type: 'text', text: k.text });
      else if (k.kind === 'image') blocks.push(k.block);
      else if (k.kind === 'thought') {
        flushText(textType);
        const payload: Json = { text: k.text, visibility: 'visible' };
        if (k.signature) payload.signature = k.signature;
        out.push({ type: 'message.thinking', payload: common(payload), actor: ASSISTANT });
      } else if (k.kind === 'call') {
        flushText(textType);
        out.push({ type: 'tool.call', payload: common({ call_id: k.id ?? '', name: k.name, input: k.args }), actor: ASSISTANT });
      } else if (k.kind === 'response') {
        flushText(textType);
        const { content, is_error, plain } = responseContent(k.response);
        const payload: Json = { call_id: k.id ?? '', content };
        if (k.name) payload.name = k.name;
        const tcr = isObject(record.toolCallResult) ? record.toolCallResult : undefined;
        if (is_error || tcr?.status === 'error') payload.is_error = true;
        const structured: Json = {};
        if (!plain) structured.response = k.response;
        if (tcr) structured.toolCallResult = tcr;
        if (Object.keys(structured).length > 0) payload.structured = structured;
        out.push({ type: 'tool.result', payload, actor: 'tool' });
      } else blocks.push({ type: PART_BLOCK, part: k.part });
    }
    flushText(textType);
    if (out.length === 0) out.push({ type: textType, payload: common({ content: [] }), actor: textType === 'message.user' ? 'user' : ASSISTANT });
    const first = out[0].payload;
    if (isObject(record.usageMetadata)) (out.find((p) => p.type === 'message.assistant') ?? out[0]).payload.usage = record.usageMetadata;
    const extra: Json = rest(record, MAPPED) ?? {};
    for (const key of SESSION_KEYS) {
      if (record[key] !== undefined && record[key] !== this.state.level[key]) extra[key] = record[key];
    }
    if (Object.keys(extra).length > 0) first.extra = extra;
    return out;
  }

  private finish(line: Line, record: Json | undefined, pending: Pending[], rawText: string | undefined): SpEvent[] {
    const origin: Json = { native_seq: line.number };
    const uuid = record && typeof record.uuid === 'string' ? record.uuid : undefined;
    if (uuid) origin.native_uuid = uuid;
    const ts = (record && toEpochSeconds(record.timestamp)) ?? this.state.last_ts ?? 0;
    this.state.last_ts = ts;
    // The parent of this record's first event: a fragment continues its uuid, else the parent's last event.
    let parentSeq: number | null | undefined;
    let nativeParent: string | undefined;
    if (record && 'parentUuid' in record) {
      const parent = record.parentUuid;
      if (uuid !== undefined && this.state.uuids[uuid] !== undefined) parentSeq = this.state.uuids[uuid];
      else if (typeof parent === 'string') {
        parentSeq = this.state.uuids[parent];
        if (parentSeq === undefined) {
          nativeParent = parent;
          parentSeq = null;
          this.options.onDiagnostic?.(`${this.options.path}:${line.number}`, `parentUuid ${parent} names no earlier record: the client's history starts again here`);
        }
      } else if (parent === null) parentSeq = this.state.root_seen ? null : undefined;
      this.state.root_seen = true;
    }
    const out: SpEvent[] = [];
    pending.forEach((p, i) => {
      const o: Json = i === 0 && rawText !== undefined ? { ...origin, raw: [rawText] } : { ...origin };
      if (i === 0 && nativeParent !== undefined) o.native_parent = nativeParent;
      const extras: Parameters<SessionEmitter['emit']>[3] = { actor: p.actor, level: levelOf(p.type), origin: o };
      if (i === 0 && parentSeq !== undefined && parentSeq !== this.options.emitter.nextSeq - 1) extras.parent_seq = parentSeq;
      out.push(this.options.emitter.emit(p.type, p.payload, ts, extras));
    });
    if (uuid !== undefined && out.length > 0) {
      // A system record is no step of the conversation: what hangs off it continues from the step it
      // hangs off (so a rewind's branch point reaches the message after it).
      const system = pending.every((p) => p.type === 'meta');
      const effective = system ? (parentSeq === undefined ? out[0].seq - 1 : parentSeq) : out[out.length - 1].seq;
      if (effective !== null && effective >= 0) this.state.uuids[uuid] = effective;
      else this.state.uuids[uuid] = out[out.length - 1].seq;
    }
    return out;
  }
}

function meta(payload: Json): Pending {
  return { type: 'meta', payload, actor: 'system' };
}
