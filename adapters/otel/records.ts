// OTLP/JSON log records as flat telemetry events: name, time, attributes (values unwrapped), and
// the session they belong to. The two clients that export agent telemetry name things differently:
//   Claude Code: body `claude_code.<name>`, attribute event.name `<name>`, session.id, event.sequence,
//                event.timestamp, prompt.id
//   Codex:       event.name `codex.<name>`, conversation.id, event.timestamp
// (event names and attributes as the pinned clients, @anthropic-ai/claude-code 2.1.197 and
// @openai/codex 0.171.0, emit them; see formats notes in the README's Interchange section).
import { isObject, type Json } from '../../lib/core/json.js';

export interface TelemetryEvent {
  /** `claude_code.user_prompt`, `codex.tool_result` … */
  name: string;
  /** Epoch seconds. */
  ts: number;
  session?: string;
  sequence?: number;
  attributes: Json;
  /** The log record as it was in the file. */
  raw: Json;
}

function unwrap(value: unknown): unknown {
  if (!isObject(value)) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  if (isObject(value.arrayValue)) return (Array.isArray(value.arrayValue.values) ? value.arrayValue.values : []).map(unwrap);
  if (isObject(value.kvlistValue)) return attributesOf(value.kvlistValue.values);
  return undefined;
}

export function attributesOf(list: unknown): Json {
  const out: Json = {};
  if (!Array.isArray(list)) return out;
  for (const item of list) if (isObject(item) && typeof item.key === 'string') out[item.key] = unwrap(item.value);
  return out;
}

function nanosToSeconds(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
  if (!text || !/^\d{1,20}$/.test(text) || text === '0') return undefined;
  return Number(BigInt(text) / 1_000_000n) / 1000;
}

/** The event's name: event.name, qualified by the body's namespace when it carries none. */
function nameOf(attributes: Json, body: unknown): string | undefined {
  const bodyText = typeof body === 'string' ? body : undefined;
  const eventName = typeof attributes['event.name'] === 'string' ? attributes['event.name'] : undefined;
  if (eventName && eventName.includes('.')) return eventName;
  if (bodyText && /^[a-z_]+\.[a-z_.]+$/.test(bodyText)) return bodyText;
  return eventName;
}

/** The log records of one OTLP/JSON logs request (`resourceLogs[].scopeLogs[].logRecords[]`); undefined when it is not one. */
export function recordsOf(request: Json): TelemetryEvent[] | undefined {
  if (!Array.isArray(request.resourceLogs)) return undefined;
  const out: TelemetryEvent[] = [];
  for (const rl of request.resourceLogs) {
    if (!isObject(rl)) continue;
    const resource = isObject(rl.resource) ? attributesOf(rl.resource.attributes) : {};
    for (const sl of Array.isArray(rl.scopeLogs) ? rl.scopeLogs : []) {
      if (!isObject(sl)) continue;
      for (const record of Array.isArray(sl.logRecords) ? sl.logRecords : []) {
        if (!isObject(record)) continue;
        const attributes = { ...resource, ...attributesOf(record.attributes) };
        const body = unwrap(record.body);
        const name = nameOf(attributes, body) ?? 'unnamed';
        const stamp = typeof attributes['event.timestamp'] === 'string' ? Date.parse(attributes['event.timestamp']) / 1000 : NaN;
        const ts = nanosToSeconds(record.timeUnixNano) ?? nanosToSeconds(record.observedTimeUnixNano) ?? (Number.isFinite(stamp) ? stamp : 0);
        const session = [attributes['session.id'], attributes['conversation.id'], attributes['gen_ai.conversation.id']].find((v): v is string => typeof v === 'string' && v !== '');
        const sequence = typeof attributes['event.sequence'] === 'number' ? attributes['event.sequence'] : undefined;
        out.push({ name, ts, session, sequence, attributes, raw: record });
      }
    }
  }
  return out;
}
