// `capture` for Goose (docs/formats/goose.md §2–3): a session of sessions.db → session.start from
// its row, then every message row in id order (messages.ts); a legacy `.jsonl` → session.start from
// its metadata line, then every message line. Read whole each time: Goose rewrites a session's
// rows in place when it compacts or edits (replace_conversation), so a cursor of row ids would not
// stay valid.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { prepared, rowMaker } from '../../lib/capture/sqlite.js';
import { captureLines, statSessionFile } from '../../lib/capture/read-position.js';
import { nativeRawText, parseNativeLine } from '../../lib/capture/native.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, jsonObject, str, type Json } from '../../lib/core/json.js';
import { legacyMetadata, sqlTime } from './discover.js';
import { messageEvents, newCompactionState, type MessageContext } from './messages.js';
import { AGENT, formatLocator, parseLocator } from './paths.js';
import { openGooseDb } from './store.js';

/** A message row whose JSON is larger than this is not parsed (kept as meta, reported): bounded memory per row. */
export const MAX_ROW_BYTES = 64 * 1024 * 1024;

/** Session columns session.start names itself; the rest (non-null) go to `extra`. */
const START_KEYS = new Set(['id', 'name', 'description', 'working_dir', 'created_at', 'updated_at', 'session_type', 'provider_name', 'model_config_json', 'extension_data', 'recipe_json', 'user_recipe_values_json']);
const STATS = ['total_tokens', 'input_tokens', 'output_tokens', 'accumulated_total_tokens', 'accumulated_input_tokens', 'accumulated_output_tokens', 'accumulated_cost'];

function parsedColumn(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function plain(value: unknown): unknown {
  return typeof value === 'bigint' ? Number(value) : value;
}

/** session.start from a sessions row. */
function startPayload(row: Json, source: string, version: number | undefined): Json {
  const payload: Json = { native_id: String(row.id) };
  if (typeof row.working_dir === 'string' && row.working_dir !== '') payload.cwd = row.working_dir;
  const title = str(row.name) || str(row.description);
  if (title) payload.title = title;
  const config = parsedColumn(row.model_config_json);
  if (isObject(config)) {
    const model = str(config.model_name);
    if (model) payload.model = model;
    payload.model_config = config;
  }
  if (typeof row.provider_name === 'string') payload.provider = row.provider_name;
  if (typeof row.session_type === 'string') payload.session_type = row.session_type;
  const started = sqlTime(row.created_at);
  if (started !== undefined) payload.started = started;
  const updated = sqlTime(row.updated_at);
  if (updated !== undefined) payload.updated = updated;
  const extensions = parsedColumn(row.extension_data);
  if (isObject(extensions) && Object.keys(extensions).length > 0) payload.extension_data = extensions;
  if (row.recipe_json !== null && row.recipe_json !== undefined) payload.recipe = parsedColumn(row.recipe_json);
  if (row.user_recipe_values_json !== null && row.user_recipe_values_json !== undefined) payload.recipe_values = parsedColumn(row.user_recipe_values_json);
  const stats: Json = {};
  for (const key of STATS) if (row[key] !== null && row[key] !== undefined) stats[key] = plain(row[key]);
  payload.stats = stats;
  const extra: Json = {};
  for (const [key, value] of Object.entries(row)) if (!START_KEYS.has(key) && !STATS.includes(key) && value !== null && value !== undefined) extra[key] = plain(value);
  if (Object.keys(extra).length > 0) payload.extra = extra;
  payload.source_path = source;
  if (version !== undefined) payload.schema_version = version;
  return payload;
}

async function* captureDb(ref: SessionRef, options: CaptureOptions): AsyncGenerator<SpEvent> {
  const located = parseLocator(ref.path);
  const db = located.db;
  const id = located.session ?? ref.native_id;
  const store = await openGooseDb(db);
  try {
    const srow = prepared(store.db, 'SELECT * FROM sessions WHERE id = ?').get(id) as Json | undefined;
    if (!srow) throw new UserError(`no session "${id}" in this database`, db);
    const emitter = new SessionEmitter(AGENT, id);
    const locator = formatLocator(db, id);
    const startTs = sqlTime(srow.created_at) ?? 0;
    const start = emitter.emit('session.start', startPayload(srow, db, store.version), startTs, { actor: 'system' });
    if (options.raw) start.origin = { ...start.origin!, raw: [JSON.stringify(Object.fromEntries(Object.entries(srow).map(([k, v]) => [k, plain(v)])))] };
    yield start;
    const state = newCompactionState();
    let lastTs = startTs;
    // content_json over the bound is not fetched at all: its size comes from the record header.
    const others = store.messages.filter((c) => c !== 'content_json').map((c) => `"${c.replace(/"/g, '""')}"`);
    const sql = `SELECT ${others.join(', ')}, length(CAST(content_json AS BLOB)) AS content_bytes, CASE WHEN length(CAST(content_json AS BLOB)) > ${MAX_ROW_BYTES} THEN NULL ELSE content_json END AS content_json FROM messages WHERE session_id = ? ORDER BY id`;
    const statement = prepared(store.db, sql).raw(true);
    const make = rowMaker(statement);
    for (const values of statement.iterate(id) as IterableIterator<unknown[]>) {
      const row = make(values) as Json;
      const rowId = Number(plain(row.id));
      const where = `${locator}:${rowId}`;
      const ts = sqlTime(row.created_timestamp) ?? sqlTime(row.timestamp) ?? lastTs;
      lastTs = ts;
      const bytes = Number(plain(row.content_bytes) ?? 0);
      delete row.content_bytes;
      if (bytes > MAX_ROW_BYTES) {
        options.onDiagnostic?.(where, `content_json is ${bytes} bytes, over ${MAX_ROW_BYTES}: not read, kept as meta`);
        yield emitter.emit('meta', { key: 'goose.message.too_large', bytes, role: String(row.role) }, ts, { actor: 'system', origin: { native_seq: rowId } });
        continue;
      }
      const raw = options.raw ? JSON.stringify(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, plain(v)]))) : undefined;
      const content = typeof row.content_json === 'string' ? row.content_json : '';
      const parsed = jsonObject(`{"c":${content}}`);
      if (!parsed) {
        const snippet = content.slice(0, 200);
        options.onDiagnostic?.(where, `content_json is not JSON: ${snippet}`);
        yield emitter.emit('meta', { key: 'unparseable', text: content, reason: 'content_json is not JSON', role: String(row.role) }, ts, { actor: 'system', origin: { native_seq: rowId, ...(raw ? { raw: [raw] } : {}) } });
        continue;
      }
      const message: Json = { role: row.role, content: parsed.c };
      if (typeof row.message_id === 'string') message.id = row.message_id;
      const metadata = parsedColumn(row.metadata_json);
      if (metadata !== null && metadata !== undefined) message.metadata = metadata;
      const ctx: MessageContext = { emitter, nativeSeq: rowId, raw, where, state };
      yield* messageEvents(message, ts, ctx);
    }
  } finally {
    store.close();
  }
}

async function* captureLegacy(ref: SessionRef, options: CaptureOptions): AsyncGenerator<SpEvent> {
  const path = ref.path;
  const { size, mtime } = statSessionFile(path, 'Goose session file');
  const emitter = new SessionEmitter(AGENT, ref.native_id);
  const meta = size > 0 ? legacyMetadata(path) : undefined;
  const start: Json = { native_id: ref.native_id, legacy: true, source_path: path };
  if (meta) {
    if (typeof meta.working_dir === 'string' && meta.working_dir !== '') start.cwd = meta.working_dir;
    const title = str(meta.name) || str(meta.description);
    if (title) start.title = title;
    start.metadata = meta;
  }
  const state = newCompactionState();
  let started = false;
  let lastTs = mtime;
  for await (const line of captureLines(path, undefined, size, false)) {
    const raw = nativeRawText({ path, raw: options.raw }, line);
    const parsed = parseNativeLine({ path, raw: options.raw, onDiagnostic: options.onDiagnostic }, line);
    if (!started) {
      // The session starts at its first message's time (the metadata line holds none).
      const firstTs = parsed.kind === 'record' && typeof parsed.record.created === 'number' ? parsed.record.created : mtime;
      const event = emitter.emit('session.start', start, firstTs, { actor: 'system' });
      if (options.raw && meta && raw !== undefined) event.origin = { ...event.origin!, raw: [raw] };
      yield event;
      started = true;
      lastTs = firstTs;
      if (meta && line.number === 1) continue;
    }
    if (parsed.kind === 'blank') continue;
    if (parsed.kind === 'unparseable') {
      yield emitter.emit('meta', parsed.meta, lastTs, { actor: 'system', origin: { native_seq: line.number, ...(raw !== undefined ? { raw: [raw] } : {}) } });
      continue;
    }
    const ts = typeof parsed.record.created === 'number' ? parsed.record.created : lastTs;
    lastTs = ts;
    yield* messageEvents(parsed.record, ts, { emitter, nativeSeq: line.number, raw, where: `${path}:${line.number}`, state });
  }
  if (!started) yield emitter.emit('session.start', start, mtime, { actor: 'system' });
}

export async function* captureGoose(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  if (options.cursor && Object.keys(options.cursor.sources).length > 0) throw new UserError('Goose sessions are captured whole: --cursor is not supported for them');
  if (ref.legacy === true || (!ref.path.includes('#') && ref.path.endsWith('.jsonl'))) yield* captureLegacy(ref, options);
  else yield* captureDb(ref, options);
}
