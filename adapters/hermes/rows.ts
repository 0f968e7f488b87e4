// One `messages` row → canonical events (docs/formats/hermes.md §2.2, §8.3). The row is read with
// `SELECT *`, so columns of newer schemas come along: the ones this mapper does not know are kept
// in `payload.extra`. Per row, in this order:
//   user       → message.user (content decoded: the `\x00json:` prefix holds a list of parts or a dict)
//   assistant  → message.thinking (reasoning, reasoning_content, reasoning_details, codex_reasoning_items),
//                message.assistant (the text; always when there is nothing else, to keep the row),
//                tool.call per `tool_calls` entry (arguments parsed into `input`)
//   tool       → tool.result, then the events derived from its call (command.run, file.*, todo.*)
//   other      → meta `hermes.message.<role>` with the row (`session_meta`, `system`, future roles)
// Rows that are no longer replayed (`active = 0`: archived by an in-place compaction, or rewound by
// /undo) become meta `hermes.message.compacted` / `hermes.message.inactive` with the whole row and
// `seen_by_model: false`: the compacted copies that replaced them carry the same texts and tool
// ids again, so typed events would hand another agent every call twice.
import type { Actor, SpEvent } from '../../lib/core/event.js';
import type { SessionEmitter } from '../../lib/core/emitter.js';
import { storeArtifact } from '../../lib/core/artifacts.js';
import { excerpt } from '../../lib/cli/diagnostics.js';
import { isObject, type Json } from '../../lib/core/json.js';
import { deriveEvents, resultFailed, resultObject, type OpenCall, type TodoList } from './derive.js';
import { pyJson } from './pyjson.js';

export type Row = Record<string, unknown>;

export const AGENT = 'hermes';
export const ASSISTANT: Actor = 'agent:hermes';
export const JSON_PREFIX = '\u0000json:';

/** Columns the mapper reads; any other non-null column goes to `payload.extra`. */
const KNOWN = new Set([
  'id', 'session_id', 'role', 'content', 'tool_call_id', 'tool_calls', 'tool_name', 'effect_disposition', 'timestamp',
  'token_count', 'finish_reason', 'reasoning', 'reasoning_content', 'reasoning_details', 'codex_reasoning_items',
  'codex_message_items', 'platform_message_id', 'observed', 'active', 'compacted', 'api_content', 'display_kind', 'display_metadata',
]);

/** What the mapper carries between rows (and between incremental captures, in the cursor). */
export interface RowState {
  /** Calls waiting for their result, by id (and by `call_id` when it differs). */
  calls: Record<string, OpenCall>;
  todos: TodoList;
}

export function newRowState(): RowState {
  return { calls: {}, todos: [] };
}

export interface MapperOptions {
  emitter: SessionEmitter;
  /** The database, for diagnostics (`<db>:<row id>`). */
  db: string;
  state: RowState;
  raw?: boolean;
  cwd?: string;
  model?: string;
  /** The session's billing provider: who made (and can verify) its reasoning. */
  provider?: string;
  /** `--artifacts`: images (data URLs in decoded content) stored here by SHA-256, referenced from the blocks. */
  artifactsDir?: string;
  onDiagnostic?: (where: string, what: string) => void;
}

/** The mapper of one session: its cwd, model and billing provider come from the session row. */
export function sessionMapper(
  srow: Row,
  common: Pick<MapperOptions, 'emitter' | 'db' | 'state' | 'raw' | 'artifactsDir' | 'onDiagnostic'>,
): RowMapper {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return new RowMapper({ ...common, cwd: text(srow.cwd), model: text(srow.model), provider: text(srow.billing_provider) });
}

/** A row value as JSON-safe data (better-sqlite3 gives bigint for large integers, Buffer for blobs). */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Buffer.isBuffer(value)) return { base64: value.toString('base64') };
  return value;
}

export function plainRow(row: Row): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(row)) out[key] = plain(value);
  return out;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number | undefined {
  if (typeof value === 'bigint') return Number(value);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A JSON column: the parsed value, or the problem with it. */
function parseJson(text: string): { value?: unknown; problem?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/** One part of a decoded multimodal content list as a canonical block. */
function partBlock(part: unknown): Json {
  if (isObject(part)) {
    if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
    const image = part.type === 'image_url' ? (isObject(part.image_url) ? str(part.image_url.url) : str(part.image_url)) : undefined;
    if (image !== undefined) {
      const data = DATA_URL.exec(image);
      if (data) return { type: 'image', media_type: data[1], data: data[2] };
      return { type: 'image', media_type: 'application/octet-stream', url: image };
    }
  }
  if (typeof part === 'string') return { type: 'text', text: part };
  return { type: 'unknown', value: part };
}

export interface Decoded {
  content: Json[];
  /** The `\x00json:` value, verbatim (the writer encodes it back the same way). */
  json?: unknown;
  /** Why a `\x00json:` value could not be decoded. */
  problem?: string;
}

/** `content` as canonical blocks: plain text, or the `\x00json:` list of parts / dict decoded. */
export function decodeContent(value: unknown): Decoded {
  if (value === null || value === undefined) return { content: [] };
  const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  if (!text.startsWith(JSON_PREFIX)) return { content: text === '' ? [] : [{ type: 'text', text }] };
  const parsed = parseJson(text.slice(JSON_PREFIX.length));
  if (parsed.problem !== undefined) return { content: [{ type: 'text', text }], problem: `content has the \\x00json: prefix but is not JSON (${parsed.problem})` };
  const json = parsed.value;
  if (Array.isArray(json)) return { content: json.map(partBlock), json };
  if (typeof json === 'string') return { content: json === '' ? [] : [{ type: 'text', text: json }], json };
  return { content: [{ type: 'text', text: JSON.stringify(json) }], json };
}

/** The plain text of canonical blocks. */
export function textOf(content: Json[]): string {
  return content.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string).join('\n');
}

export class RowMapper {
  private lastTs: number | undefined;

  constructor(private readonly options: MapperOptions) {}

  private where(row: Row): string {
    return `${this.options.db}:${String(plain(row.id))}`;
  }

  private diagnose(row: Row, what: string): void {
    this.options.onDiagnostic?.(this.where(row), what);
  }

  /** The source time of a row: its `timestamp`, else the previous row's. */
  private time(row: Row): number {
    const ts = num(row.timestamp);
    if (ts !== undefined && ts >= 0) this.lastTs = ts;
    return this.lastTs ?? 0;
  }

  private emitAll(row: Row, pending: Array<{ type: string; payload: Json; actor: Actor; derived_from?: number }>): SpEvent[] {
    const ts = this.time(row);
    const rowId = num(row.id);
    return pending.map((p, i) => {
      const origin: Json = {};
      if (rowId !== undefined) origin.native_seq = rowId;
      if (i === 0 && this.options.raw && p.derived_from === undefined) origin.raw = [JSON.stringify(plainRow(row))];
      return this.options.emitter.emit(p.type, p.payload, ts, { actor: p.actor, derived_from: p.derived_from, origin });
    });
  }

  private extras: { width: number; keys: string[] } | undefined;

  private extraColumns(row: Row): string[] {
    const width = Object.keys(row).length;
    if (this.extras?.width !== width) this.extras = { width, keys: Object.keys(row).filter((k) => !KNOWN.has(k)) };
    return this.extras.keys;
  }

  /** Row fields that describe the whole row, kept on its main event. */
  private rowFields(row: Row, payload: Json): void {
    if (row.api_content !== null && row.api_content !== undefined) payload.api_content = row.api_content;
    if (typeof row.platform_message_id === 'string') payload.platform_message_id = row.platform_message_id;
    if (num(row.observed)) payload.observed = true;
    if (typeof row.display_kind === 'string') payload.display_kind = row.display_kind;
    if (typeof row.display_metadata === 'string') {
      const parsed = parseJson(row.display_metadata);
      payload.display_metadata = parsed.problem === undefined ? parsed.value : row.display_metadata;
    }
    if (num(row.token_count) !== undefined) payload.token_count = num(row.token_count);
    if (typeof row.effect_disposition === 'string') payload.effect_disposition = row.effect_disposition;
    // Columns of newer schemas: found once per row shape, then only those are looked at.
    const extras = this.extraColumns(row);
    if (extras.length === 0) return;
    const extra: Json = {};
    for (const key of extras) if (row[key] !== null && row[key] !== undefined) extra[key] = plain(row[key]);
    if (Object.keys(extra).length > 0) payload.extra = extra;
  }

  private contentPayload(row: Row, payload: Json): void {
    const decoded = decodeContent(row.content);
    payload.content = this.options.artifactsDir ? decoded.content.map((b) => this.stored(b)) : decoded.content;
    if (decoded.json !== undefined) payload.content_json = decoded.json;
    if (row.content === null) payload.content_null = true;
    if (decoded.problem) this.diagnose(row, `${decoded.problem}: kept as text`);
  }

  private stored(block: Json): Json {
    if (block.type !== 'image' || typeof block.data !== 'string') return block;
    const { data, ...rest } = block;
    return { ...rest, artifact: storeArtifact(this.options.artifactsDir!, Buffer.from(data, 'base64')) };
  }

  /** The events of one row, in order. */
  row(row: Row): SpEvent[] {
    const active = row.active === undefined || row.active === null || num(row.active) !== 0;
    if (!active) return this.archived(row);
    switch (row.role) {
      case 'user':
        return this.user(row);
      case 'assistant':
        return this.assistant(row);
      case 'tool':
        return this.tool(row);
      default:
        return this.emitAll(row, [{ type: 'meta', payload: this.metaPayload(row, `hermes.message.${typeof row.role === 'string' && row.role !== '' ? row.role : 'unknown'}`), actor: 'system' }]);
    }
  }

  private metaPayload(row: Row, key: string): Json {
    const payload: Json = { key };
    const decoded = decodeContent(row.content);
    const text = textOf(decoded.content);
    if (text !== '') payload.value = text;
    payload.raw = plainRow(row);
    return payload;
  }

  private archived(row: Row): SpEvent[] {
    const compacted = num(row.compacted) === 1;
    const payload = this.metaPayload(row, compacted ? 'hermes.message.compacted' : 'hermes.message.inactive');
    payload.role = row.role;
    payload.seen_by_model = false;
    payload.reason = compacted ? 'compaction' : 'rewind';
    return this.emitAll(row, [{ type: 'meta', payload, actor: 'system' }]);
  }

  private user(row: Row): SpEvent[] {
    const payload: Json = {};
    this.contentPayload(row, payload);
    this.rowFields(row, payload);
    return this.emitAll(row, [{ type: 'message.user', payload, actor: 'user' }]);
  }

  private assistant(row: Row): SpEvent[] {
    const rowId = String(plain(row.id));
    const common: Json = { message_id: `hermes:${rowId}`, message_id_synthetic: true };
    if (this.options.model) common.model = this.options.model;
    common.stop_reason = typeof row.finish_reason === 'string' ? row.finish_reason : null;
    const pending: Array<{ type: string; payload: Json; actor: Actor }> = [];

    const thinking = this.thinking(row, common);
    if (thinking) pending.push({ type: 'message.thinking', payload: thinking, actor: ASSISTANT });

    const message: Json = {};
    this.contentPayload(row, message);
    Object.assign(message, common);
    this.rowFields(row, message);
    if (typeof row.codex_message_items === 'string') {
      const parsed = parseJson(row.codex_message_items);
      message.codex_message_items = parsed.problem === undefined ? parsed.value : row.codex_message_items;
    }

    const calls = this.toolCalls(row, common);
    const hasText = (message.content as Json[]).length > 0;
    const hasRowFields = Object.keys(message).some((k) => !(k in common) && k !== 'content' && k !== 'content_null');
    if (hasText || hasRowFields || (pending.length === 0 && calls.events.length === 0 && !calls.bad)) pending.push({ type: 'message.assistant', payload: message, actor: ASSISTANT });
    pending.push(...calls.events);
    if (calls.bad) pending.push(calls.bad);
    const events = this.emitAll(row, pending);
    for (const event of events) {
      if (event.type !== 'tool.call') continue;
      const p = event.payload as Json;
      const call: OpenCall = { seq: event.seq, name: String(p.name), input: p.input };
      this.options.state.calls[String(p.call_id)] = call;
      const alias = isObject(p.call_extra) ? str(p.call_extra.call_id) : undefined;
      if (alias && alias !== p.call_id) this.options.state.calls[alias] = call;
    }
    return events;
  }

  private thinking(row: Row, common: Json): Json | undefined {
    const reasoning = str(row.reasoning);
    const echo = str(row.reasoning_content);
    const detailsText = str(row.reasoning_details);
    const codexText = str(row.codex_reasoning_items);
    if (reasoning === undefined && echo === undefined && detailsText === undefined && codexText === undefined) return undefined;
    const payload: Json = {};
    let details: unknown;
    if (detailsText !== undefined) {
      const parsed = parseJson(detailsText);
      if (parsed.problem === undefined) details = parsed.value;
      else {
        payload.reasoning_details_raw = detailsText;
        this.diagnose(row, `reasoning_details is not valid JSON (${parsed.problem}): kept as text`);
      }
    }
    const blocks = Array.isArray(details) ? details.filter(isObject) : [];
    const fromDetails = blocks.map((b) => str(b.text) ?? str(b.summary) ?? '').filter((t) => t !== '').join('\n');
    const text = reasoning ?? (echo !== undefined && echo.trim() !== '' ? echo : undefined) ?? fromDetails;
    payload.text = text;
    const signed = blocks.filter((b) => typeof b.signature === 'string');
    let codex: unknown;
    if (codexText !== undefined) {
      const parsed = parseJson(codexText);
      codex = parsed.problem === undefined ? parsed.value : codexText;
    }
    const encrypted = blocks.find((b) => typeof b.data === 'string' && String(b.type).includes('encrypted'));
    const codexEncrypted = Array.isArray(codex) ? codex.find((i) => isObject(i) && typeof i.encrypted_content === 'string') : undefined;
    payload.visibility = text !== '' ? 'visible' : encrypted || codexEncrypted ? 'encrypted' : 'visible';
    if (signed.length === 1) payload.signature = signed[0].signature;
    if (text === '' && encrypted) payload.opaque = encrypted.data;
    else if (text === '' && isObject(codexEncrypted)) payload.opaque = codexEncrypted.encrypted_content;
    if (this.options.provider) payload.provider = this.options.provider;
    const format = blocks.map((b) => str(b.format)).find((f) => f !== undefined);
    if (format) payload.format = format;
    if (reasoning !== undefined) payload.reasoning = reasoning;
    if (echo !== undefined) {
      if (echo === reasoning) payload.reasoning_content_same = true;
      else payload.reasoning_content = echo;
    }
    if (details !== undefined) payload.reasoning_details = details;
    if (codex !== undefined) payload.codex_reasoning_items = codex;
    Object.assign(payload, common);
    return payload;
  }

  private toolCalls(row: Row, common: Json): { events: Array<{ type: string; payload: Json; actor: Actor }>; bad?: { type: string; payload: Json; actor: Actor } } {
    const text = str(row.tool_calls);
    if (text === undefined || text === '') return { events: [] };
    const parsed = parseJson(text);
    const problem = parsed.problem !== undefined ? `not valid JSON (${parsed.problem})` : !Array.isArray(parsed.value) ? 'not a JSON list' : undefined;
    if (problem !== undefined) {
      // Hermes reads such a row as having no calls (with a warning); the text is kept as it is.
      this.diagnose(row, `tool_calls is ${problem}: kept as meta: ${excerpt(text, 120)}`);
      return { events: [], bad: { type: 'meta', payload: { key: 'hermes.tool_calls.invalid', value: problem, raw: text }, actor: 'system' } };
    }
    const events: Array<{ type: string; payload: Json; actor: Actor }> = [];
    (parsed.value as unknown[]).forEach((entry, i) => {
      const call = isObject(entry) ? entry : {};
      const fn = isObject(call.function) ? call.function : {};
      const payload: Json = {};
      let id = str(call.id) || str(call.call_id);
      if (!id) {
        id = `hermes_${String(plain(row.id))}_${i}`;
        payload.call_id_synthetic = true;
      }
      payload.call_id = id;
      const name = str(fn.name) || str(call.name);
      payload.name = name || 'invalid_tool_call';
      if (!name) payload.name_missing = true;
      const args = fn.arguments ?? call.arguments;
      if (typeof args === 'string') {
        const input = parseJson(args);
        if (input.problem === undefined) {
          payload.input = input.value;
          // Hermes writes arguments with json.dumps; other bytes are kept so they can be written back.
          if (pyJson(input.value) !== args) payload.arguments = args;
        } else {
          payload.input = args;
          payload.arguments_invalid = true;
        }
      } else {
        payload.input = args ?? {};
        if (args === undefined) payload.input_missing = true;
      }
      const { id: _id, function: _fn, name: _name, arguments: _args, ...callExtra } = call;
      if (Object.keys(callExtra).length > 0) payload.call_extra = callExtra;
      const { name: _n, arguments: _a, ...fnExtra } = fn;
      if (Object.keys(fnExtra).length > 0) payload.function_extra = fnExtra;
      if (!isObject(entry)) payload.native = entry;
      Object.assign(payload, common);
      events.push({ type: 'tool.call', payload, actor: ASSISTANT });
    });
    return { events };
  }

  private tool(row: Row): SpEvent[] {
    const payload: Json = {};
    const callId = str(row.tool_call_id);
    payload.call_id = callId || `hermes_${String(plain(row.id))}_result`;
    if (!callId) payload.call_id_synthetic = true;
    if (typeof row.tool_name === 'string') payload.name = row.tool_name;
    const decoded = decodeContent(row.content);
    // Tool content is kept verbatim: a string, or the decoded parts of a multimodal result.
    if (decoded.json !== undefined && Array.isArray(decoded.json)) payload.content = decoded.content;
    else payload.content = typeof row.content === 'string' && decoded.json === undefined ? row.content : textOf(decoded.content);
    if (decoded.json !== undefined) payload.content_json = decoded.json;
    if (row.content === null) payload.content_null = true;
    if (typeof row.finish_reason === 'string') payload.finish_reason = row.finish_reason;
    const text = typeof payload.content === 'string' ? payload.content : textOf(decoded.content);
    payload.is_error = resultFailed(resultObject(text));
    this.rowFields(row, payload);
    const pending: Array<{ type: string; payload: Json; actor: Actor; derived_from?: number }> = [{ type: 'tool.result', payload, actor: 'tool' }];
    const call = callId ? this.options.state.calls[callId] : undefined;
    if (call && callId) {
      for (const [key, open] of Object.entries(this.options.state.calls)) if (open === call || open.seq === call.seq) delete this.options.state.calls[key];
      if (payload.name === undefined) payload.name = call.name;
      for (const d of deriveEvents(call, text, this.options.cwd, this.options.state)) pending.push({ type: d.type, payload: d.payload, actor: 'tool', derived_from: call.seq });
    }
    return this.emitAll(row, pending);
  }
}
