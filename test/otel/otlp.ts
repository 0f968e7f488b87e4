// Decoding OTLP with the official OpenTelemetry JS protobuf types (@opentelemetry/otlp-transformer's
// generated root): OTLP/JSON differs from proto3 JSON only in its ids (hex, not base64), so those are
// converted, the object is checked and built by the generated ExportTraceServiceRequest, encoded to
// the protobuf wire format and decoded back. What comes out is what a collector would see.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
interface ProtoType {
  verify(value: unknown): string | null;
  fromObject(value: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): unknown;
}
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoType } } } } };
};
export const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export interface DecodedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Record<string, unknown>;
  status?: { code?: number };
}

function idsToBase64(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(idsToBase64);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = (k === 'traceId' || k === 'spanId' || k === 'parentSpanId') && typeof v === 'string' ? Buffer.from(v, 'hex').toString('base64') : idsToBase64(v);
  }
  return out;
}

function attributeValue(v: Record<string, unknown>): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  if ('arrayValue' in v) return ((v.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(attributeValue);
  return undefined;
}

/**
 * What `verify` checks: proto3 JSON writes 64-bit integers as decimal strings, which protobufjs's
 * verify does not take (fromObject does): each must be digits, and is checked as a number.
 */
function forVerify(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => forVerify(v));
  if (typeof value === 'string' && key !== undefined && (/UnixNano$/.test(key) || key === 'intValue')) {
    if (!/^-?\d+$/.test(value)) throw new Error(`${key}: not a decimal integer: ${value}`);
    return 0;
  }
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forVerify(v, k)]));
}

/** OTLP/JSON text → its spans, through the protobuf wire format; throws when the types reject it. */
export function decodeOtlpJson(text: string): { resources: Record<string, unknown>[]; spans: DecodedSpan[] } {
  const object = idsToBase64(JSON.parse(text));
  const problem = ExportTraceServiceRequest.verify(forVerify(object));
  if (problem) throw new Error(`not an ExportTraceServiceRequest: ${problem}`);
  const wire = ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(object)).finish();
  const decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(wire), { longs: String, bytes: String, defaults: true }) as {
    resourceSpans: { resource: { attributes: { key: string; value: Record<string, unknown> }[] }; scopeSpans: { spans: Record<string, unknown>[] }[] }[];
  };
  const hex = (b64: unknown): string => Buffer.from(String(b64 ?? ''), 'base64').toString('hex');
  const resources: Record<string, unknown>[] = [];
  const spans: DecodedSpan[] = [];
  for (const rs of decoded.resourceSpans) {
    resources.push(Object.fromEntries(rs.resource.attributes.map((a) => [a.key, attributeValue(a.value)])));
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        spans.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: String(s.name),
          kind: Number(s.kind),
          start: BigInt(String(s.startTimeUnixNano)),
          end: BigInt(String(s.endTimeUnixNano)),
          attributes: Object.fromEntries((s.attributes as { key: string; value: Record<string, unknown> }[]).map((a) => [a.key, attributeValue(a.value)])),
          status: s.status as { code?: number } | undefined,
        });
      }
    }
  }
  return { resources, spans };
}
