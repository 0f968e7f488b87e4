// `capture` for OpenTelemetry log exports of agent clients: the events Claude Code and Codex send
// when their telemetry is on (OTEL_LOGS_EXPORTER / [otel] exporter), as an OTLP/HTTP collector's
// file exporter writes them (one OTLP/JSON logs request per line) or as one OTLP/JSON request.
// One canonical session per session.id / conversation.id, its events in time order:
//   *.user_prompt            → message.user (the prompt text when the client logged it; a client that
//                              withheld it gives meta `otel.user_prompt`, its length only)
//   claude_code.api_request  → message.assistant with no text: the model call, its model and usage
//   codex.sse_event response.completed → the same, from Codex's token counts (Codex logs each completed
//                              response twice, once without counts: that one is meta)
//   claude_code.assistant_response → message.assistant with the reply text (when logged)
//   *.tool_result            → tool.call (at its start: time less duration) and tool.result
//                              (Codex logs the output; Claude Code only success and size)
//   anything else            → meta `otel.<event name>` with the record (decisions, errors, …)
// A line that is not JSON is reported (file:line) and kept as meta; a JSON line that is not a logs
// request passes through as meta `otel.unknown`. Telemetry holds what the client chose to log:
// prompts and replies only with their content logging on, tool output from Codex only.
import { readFileSync } from 'node:fs';
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError, excerpt, readError } from '../../lib/cli/diagnostics.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import type { SpEvent } from '../../lib/core/event.js';
import { MAX_JSON_DEPTH, isObject, nestedDeeperThan, type Json } from '../../lib/core/json.js';
import { statSessionFile } from '../../lib/capture/read-position.js';
import { AGENT, fileId } from './paths.js';
import { recordsOf, type TelemetryEvent } from './records.js';

/** A telemetry export is read whole; beyond this it is refused rather than held in memory. */
export const MAX_EXPORT_BYTES = 512 * 1024 * 1024;

interface Located extends TelemetryEvent {
  line: number;
  order: number;
}

type Item = { kind: 'event'; event: Located } | { kind: 'other'; line: number; raw: unknown; broken?: string; order: number };

/** Every record of an export file, with the line it is on. */
export function readExport(path: string, onDiagnostic?: (where: string, what: string) => void): Item[] {
  const { size } = statSessionFile(path, 'OpenTelemetry export');
  if (size > MAX_EXPORT_BYTES) throw new UserError(`larger than ${MAX_EXPORT_BYTES} bytes; not read`, path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw readError(err, path);
  }
  const strict = new TextDecoder('utf-8', { fatal: true });
  const items: Item[] = [];
  let order = 0;
  const take = (value: unknown, line: number, rawText: string): void => {
    if (nestedDeeperThan(value, MAX_JSON_DEPTH)) {
      const what = `nested deeper than ${MAX_JSON_DEPTH} levels`;
      onDiagnostic?.(`${path}:${line}`, `${what} (kept as meta, cut): ${excerpt(rawText, 120)}`);
      items.push({ kind: 'other', line, raw: excerpt(rawText, 200), broken: what, order: order++ });
      return;
    }
    const records = isObject(value) ? recordsOf(value) : undefined;
    if (!records) {
      items.push({ kind: 'other', line, raw: value, order: order++ });
      return;
    }
    for (const record of records) items.push({ kind: 'event', event: { ...record, line, order: order++ } });
  };
  // One pretty-printed request (`.json`): a document, not lines.
  try {
    const text = strict.decode(bytes);
    if (text.trimStart().startsWith('{') && !text.trimEnd().includes('\n{')) {
      take(JSON.parse(text), 1, text);
      return items;
    }
  } catch {
    // read as lines below: the first broken line is reported there
  }
  let start = 0;
  for (let number = 1; start < bytes.length; number += 1) {
    const at = bytes.indexOf(0x0a, start);
    const end = at === -1 ? bytes.length : at;
    const lineBytes = bytes.subarray(start, end);
    start = end + 1;
    let raw: string;
    try {
      raw = strict.decode(lineBytes);
    } catch {
      raw = lineBytes.toString('utf8');
      onDiagnostic?.(`${path}:${number}`, `not valid UTF-8 (kept as meta, bad bytes as U+FFFD): ${excerpt(raw, 120)}`);
      items.push({ kind: 'other', line: number, raw, broken: 'not valid UTF-8', order: order++ });
      continue;
    }
    if (raw.trim() === '') continue;
    try {
      take(JSON.parse(raw), number, raw);
    } catch (err) {
      onDiagnostic?.(`${path}:${number}`, `not JSON (kept as meta): ${(err as Error).message}: ${excerpt(raw, 120)}`);
      items.push({ kind: 'other', line: number, raw, broken: (err as Error).message, order: order++ });
    }
  }
  return items;
}

/** The session a record belongs to when it names none: the one before it in the file, else the file. */
function sessionsOf(items: Item[], fallback: string): Map<Item, string> {
  const out = new Map<Item, string>();
  let current: string | undefined;
  for (const item of items) if (item.kind === 'event' && item.event.session) {
    current = item.event.session;
    break;
  }
  for (const item of items) {
    if (item.kind === 'event' && item.event.session) current = item.event.session;
    out.set(item, current ?? fallback);
  }
  return out;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

/** A prompt or reply the client logged, or undefined when it withheld it. */
function logged(value: unknown): string | undefined {
  const text = str(value);
  return text === undefined || text === '<REDACTED>' ? undefined : text;
}

function jsonOrText(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

class OtelSession {
  readonly emitter: SessionEmitter;
  private started = false;
  private lastRequest?: string;
  private model?: string;
  private calls = 0;

  constructor(
    readonly nativeId: string,
    private readonly path: string,
    private readonly raw: boolean,
  ) {
    this.emitter = new SessionEmitter(AGENT, nativeId);
  }

  private origin(line: number, raw: unknown): Json {
    const origin: Json = { native_seq: line, path: this.path };
    if (this.raw) origin.raw = [typeof raw === 'string' ? raw : JSON.stringify(raw)];
    return origin;
  }

  *start(first: Located | undefined, ts: number): Generator<SpEvent> {
    if (this.started) return;
    this.started = true;
    const a = first?.attributes ?? {};
    const client = first?.name.startsWith('claude_code.') ? 'claude' : first?.name.startsWith('codex.') ? 'codex' : undefined;
    const payload: Json = { native_id: this.nativeId, source: 'opentelemetry' };
    if (client) payload.client = client;
    // Codex names its version on every record (app.version); Claude Code only on its resource (service.version).
    for (const [key, attrs] of [['version', ['app.version', 'service.version']], ['model', ['model']], ['service', ['service.name']]] as const) {
      const value = attrs.map((attr) => str(a[attr])).find((v) => v !== undefined);
      if (value !== undefined) payload[key] = value;
    }
    if (str(a.model)) this.model = String(a.model);
    yield this.emitter.emit('session.start', payload, ts, { actor: 'system', origin: { native_seq: first?.line ?? 1, path: this.path } });
  }

  *event(e: Located): Generator<SpEvent> {
    const a = e.attributes;
    const short = e.name.replace(/^(claude_code|codex)\./, '');
    const origin = this.origin(e.line, e.raw);
    const meta = (): SpEvent => this.emitter.emit('meta', { key: `otel.${short}`, value: { name: e.name }, raw: e.raw }, e.ts, { actor: 'system', origin });
    if (str(a.model)) this.model = String(a.model);
    switch (short) {
      case 'user_prompt': {
        const text = logged(a.prompt);
        if (text === undefined) {
          yield meta();
          return;
        }
        yield this.emitter.emit('message.user', { content: [{ type: 'text', text }], ...(str(a['prompt.id']) ? { prompt_id: a['prompt.id'] } : {}) }, e.ts, { actor: 'user', level: 0, origin });
        return;
      }
      case 'api_request':
      case 'sse_event': {
        // Codex's api_request is the HTTP attempt (no tokens): its completed response carries the call.
        // Codex 0.171 logs each response.completed twice: once as a plain stream event, once with
        // the token counts; only the second is the model call.
        const counted = ['input_token_count', 'output_token_count'].some((k) => num(a[k]) !== undefined);
        if ((short === 'sse_event' && (a['event.kind'] !== 'response.completed' || !counted)) || (short === 'api_request' && e.name !== 'claude_code.api_request')) {
          yield meta();
          return;
        }
        const usage: Json = {};
        const input = num(a.input_tokens) ?? num(a.input_token_count);
        if (input !== undefined) usage.input_tokens = input;
        const output = num(a.output_tokens) ?? num(a.output_token_count);
        if (output !== undefined) usage.output_tokens = output;
        if (num(a.cache_read_tokens) !== undefined) usage.cache_read_input_tokens = num(a.cache_read_tokens);
        if (num(a.cache_creation_tokens) !== undefined) usage.cache_creation_input_tokens = num(a.cache_creation_tokens);
        if (num(a.cached_token_count) !== undefined) usage.cached_input_tokens = num(a.cached_token_count);
        if (num(a.reasoning_token_count) !== undefined) usage.reasoning_output_tokens = num(a.reasoning_token_count);
        if (num(a.cost_usd) !== undefined) usage.cost_usd = num(a.cost_usd);
        this.lastRequest = str(a.request_id) ?? `otel-call-${e.order}`;
        const payload: Json = { content: [], message_id: this.lastRequest, usage };
        if (this.model) payload.model = this.model;
        if (num(a.duration_ms) !== undefined) payload.duration_ms = num(a.duration_ms);
        yield this.emitter.emit('message.assistant', payload, e.ts, { actor: `agent:${AGENT}`, level: 0, origin });
        return;
      }
      case 'assistant_response': {
        const text = logged(a.response);
        if (text === undefined) {
          yield meta();
          return;
        }
        const payload: Json = { content: [{ type: 'text', text }], message_id: str(a.request_id) ?? this.lastRequest ?? `otel-reply-${e.order}` };
        if (this.model) payload.model = this.model;
        yield this.emitter.emit('message.assistant', payload, e.ts, { actor: `agent:${AGENT}`, level: 0, origin });
        return;
      }
      case 'tool_result': {
        const name = str(a.tool_name) ?? 'unknown';
        const callId = str(a.tool_use_id) ?? str(a.call_id) ?? `otel_call_${++this.calls}_${e.order}`;
        const duration = num(a.duration_ms);
        const started = duration !== undefined && duration >= 0 ? Math.max(0, e.ts - duration / 1000) : e.ts;
        const input = jsonOrText(a.arguments ?? a.tool_input ?? a.tool_parameters);
        yield this.emitter.emit('tool.call', { call_id: callId, name, input, ...(this.lastRequest ? { message_id: this.lastRequest } : {}) }, started, { actor: `agent:${AGENT}`, level: 0, origin });
        const output = str(a.output) ?? str(a.error) ?? '';
        const result: Json = { call_id: callId, content: output };
        if (String(a.success) === 'false') result.is_error = true;
        if (duration !== undefined) result.duration_ms = duration;
        if (str(a.output) === undefined) result.output_logged = false;
        yield this.emitter.emit('tool.result', result, e.ts, { actor: 'tool', level: 0, origin });
        return;
      }
      default:
        yield meta();
    }
  }

  other(item: Extract<Item, { kind: 'other' }>, ts: number): SpEvent {
    const key = item.broken !== undefined ? 'otel.invalid-line' : 'otel.unknown';
    return this.emitter.emit('meta', { key, raw: item.raw, ...(item.broken ? { value: { error: item.broken } } : {}) }, ts, { actor: 'system', origin: this.origin(item.line, item.raw) });
  }
}

export async function* captureOtel(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const items = readExport(ref.path, options.onDiagnostic);
  if (items.length === 0) throw new UserError('holds no OpenTelemetry records (an empty export)', ref.path);
  const fallback = fileId(ref.path);
  const sessionOf = sessionsOf(items, fallback);
  // Records reach a collector in batches, not always in order: time order, then the client's own
  // sequence number, then the file's order.
  const sortKey = (item: Item): [number, number, number] => (item.kind === 'event' ? [item.event.ts, item.event.sequence ?? 0, item.event.order] : [Number.NEGATIVE_INFINITY, 0, item.order]);
  const ids = [...new Set(items.map((i) => sessionOf.get(i)!))];
  for (const id of ids) {
    const own = items.filter((i) => sessionOf.get(i) === id);
    const events = own.filter((i): i is Extract<Item, { kind: 'event' }> => i.kind === 'event').sort((x, y) => {
      const [a, b] = [sortKey(x), sortKey(y)];
      return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
    });
    const session = new OtelSession(id, ref.path, options.raw === true);
    const firstTs = events[0]?.event.ts ?? 0;
    yield* session.start(events[0]?.event, firstTs);
    for (const item of own) if (item.kind === 'other') yield session.other(item, firstTs);
    for (const item of events) yield* session.event(item.event);
  }
}
