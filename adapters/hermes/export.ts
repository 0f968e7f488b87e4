// Hermes sessions outside a database (docs/formats/hermes.md §9): `hermes sessions export` JSONL, one
// session per line (every `sessions` column plus "messages": full rows, active only, content
// decoded, tool_calls parsed), and the per-session JSON logs of older Hermes versions (session_id,
// model, platform, session_start, messages[]; public fixtures from 0.11–0.17). Both are turned
// into the rows the database reader maps (rows.ts), so a session reads the same from either.
import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import type { CaptureOptions, Cursor, SessionRef, SourcePosition } from '../../lib/adapter/interface.js';
import { UserError, warn } from '../../lib/cli/diagnostics.js';
import { emptyCursor } from '../../lib/capture/read-position.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import { canonicalSessionId, toEpochSeconds, type SpEvent } from '../../lib/core/event.js';
import { isObject, type Json } from '../../lib/core/json.js';
import { endPayload, sessionStart } from './capture.js';
import { formatLocator } from './paths.js';
import { AGENT, JSON_PREFIX, newRowState, sessionMapper, plainRow, type Row, type RowState } from './rows.js';

export interface ExportedSession {
  format: 'export' | 'legacy-json';
  /** The session as a `sessions` row. */
  session: Row;
  messages: Row[];
  /** 1-based line of the session in a JSONL export (1 for a JSON file). */
  line: number;
}

/** Whether a file starts like JSON (a `{`), rather than like a SQLite database. */
export function looksLikeJson(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(64);
    const n = readSync(fd, head, 0, 64, 0);
    return /^\s*\{/.test(head.subarray(0, n).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

const JSON_COLUMNS = ['tool_calls', 'reasoning_details', 'codex_reasoning_items', 'codex_message_items', 'display_metadata'];

/** An exported message as a `messages` row: structured values back in their stored text form. */
function messageRow(message: Json, index: number): Row {
  const row: Row = { ...message };
  row.id = typeof message.id === 'number' ? message.id : index + 1;
  const content = message.content;
  if (content !== null && content !== undefined && typeof content !== 'string') row.content = JSON_PREFIX + JSON.stringify(content);
  for (const column of JSON_COLUMNS) if (row[column] !== undefined && row[column] !== null && typeof row[column] !== 'string') row[column] = JSON.stringify(row[column]);
  if (typeof row.timestamp !== 'number') {
    const ts = toEpochSeconds(row.timestamp);
    if (ts !== undefined) row.timestamp = ts;
  }
  row.active ??= 1;
  return row;
}

/** A legacy log's header as a `sessions` row (`platform` is the source; times may be ISO strings). */
function legacySession(value: Json): Row {
  const { session_id, platform, session_start, last_updated, messages: _m, model_config, ...rest } = value;
  const row: Row = { ...rest, id: String(session_id), source: typeof platform === 'string' ? platform : 'unknown' };
  const started = toEpochSeconds(session_start);
  if (started !== undefined) row.started_at = started;
  const updated = toEpochSeconds(last_updated);
  if (updated !== undefined) row.last_updated = updated;
  if (isObject(model_config)) {
    row.model_config = JSON.stringify(model_config);
    if (row.cwd === undefined && typeof model_config.cwd === 'string') row.cwd = model_config.cwd;
  }
  for (const [key, v] of Object.entries(row)) if (isObject(v) || Array.isArray(v)) row[key] = JSON.stringify(v);
  return row;
}

function exportedSession(value: Json): Row {
  const { messages: _m, ...rest } = value;
  const row: Row = { ...rest, id: String(value.id) };
  for (const [key, v] of Object.entries(row)) if (isObject(v) || Array.isArray(v)) row[key] = JSON.stringify(v);
  return row;
}

function toSession(value: unknown, line: number, path: string): ExportedSession {
  const where = `${path}:${line}`;
  if (!isObject(value) || !Array.isArray(value.messages)) throw new UserError('not a Hermes session export (expected an object with "messages")', where);
  const legacy = typeof value.session_id === 'string' && value.id === undefined;
  if (!legacy && typeof value.id !== 'string') throw new UserError('a Hermes session export names no session ("id" or "session_id")', where);
  const messages = value.messages.map((m, i) => (isObject(m) ? messageRow(m, i) : { id: i + 1, role: 'unknown', content: JSON.stringify(m), active: 1 }));
  return { format: legacy ? 'legacy-json' : 'export', session: legacy ? legacySession(value) : exportedSession(value), messages, line };
}

/** Every session of an export file: one JSON object, or JSONL with one session per line. */
export function readExport(path: string): ExportedSession[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new UserError(`cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
  }
  const text = bytes.toString('utf8');
  if (text.includes('\ufffd') && !isUtf8(bytes)) warn(path, 'not valid UTF-8: the bad bytes are read as U+FFFD');
  try {
    return [toSession(JSON.parse(text), 1, path)];
  } catch (err) {
    if (err instanceof UserError) throw err;
  }
  const out: ExportedSession[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new UserError(`not a Hermes session export: invalid JSON (${(err as Error).message})`, `${path}:${i + 1}`);
    }
    out.push(toSession(value, i + 1, path));
  });
  if (out.length === 0) throw new UserError('empty file: no Hermes session in it', path);
  return out;
}

/** The ref of a session of an export file (`file#id`, or the file's first session). */
export function openExport(path: string, id?: string): SessionRef {
  const sessions = readExport(path);
  const found = id === undefined ? sessions[0] : sessions.find((s) => s.session.id === id);
  if (!found) throw new UserError(`no session "${id}" in this export (it has ${sessions.map((s) => s.session.id).join(', ')})`, path);
  const ref: SessionRef = { agent: AGENT, native_id: String(found.session.id), path: formatLocator(path, String(found.session.id)), export: path, format: found.format, mtime: statSync(path).mtimeMs / 1000 };
  if (typeof found.session.cwd === 'string') ref.cwd = found.session.cwd;
  if (typeof found.session.title === 'string') ref.title = found.session.title;
  if (typeof found.session.parent_session_id === 'string') ref.parent_native_id = found.session.parent_session_id;
  return ref;
}

interface ExportState {
  rows: RowState;
  ended: boolean;
}

/** The events of a session of an export file; with a cursor, only messages after the last one read. */
export function* captureExport(ref: SessionRef, options: CaptureOptions = {}): Generator<SpEvent> {
  const path = String(ref.export);
  const found = readExport(path).find((s) => s.session.id === ref.native_id);
  if (!found) throw new UserError(`no session "${ref.native_id}" in this export any more`, path);
  const cursor: Cursor = options.cursor ? structuredClone(options.cursor) : emptyCursor(AGENT, ref.native_id);
  if (cursor.native_id !== ref.native_id) throw new UserError(`the cursor belongs to session ${cursor.native_id}, not ${ref.native_id}`);
  const position = cursor.sources[ref.path] as (SourcePosition & { rowid: number }) | undefined;
  const state: ExportState = (cursor.state as ExportState | undefined) ?? { rows: newRowState(), ended: false };
  cursor.state = state;
  const session = canonicalSessionId(AGENT, ref.native_id);
  const emitter = new SessionEmitter(AGENT, ref.native_id, { nextSeq: cursor.sessions[session]?.next_seq ?? 0 });
  const srow = found.session;
  if (!position) {
    const id = String(srow.id);
    const parent = typeof srow.parent_session_id === 'string' ? srow.parent_session_id : undefined;
    const lineage = { chain: parent ? [parent, id] : [id], root: parent ?? id, children: [], compression_tip: id, ...(parent ? { parent, kind: 'child' as const } : {}) };
    const start = sessionStart(srow, lineage, { path });
    start.export_format = found.format;
    const event = emitter.emit('session.start', start, typeof srow.started_at === 'number' ? srow.started_at : Number(found.messages[0]?.timestamp ?? 0), { actor: 'system' });
    if (options.raw) event.origin = { ...event.origin!, raw: [JSON.stringify(plainRow(srow))] };
    yield event;
  }
  const mapper = sessionMapper(srow, { emitter, db: path, state: state.rows, raw: options.raw, artifactsDir: options.artifactsDir, onDiagnostic: options.onDiagnostic });
  let last = position?.rowid ?? -1;
  for (const row of found.messages) {
    if (Number(row.id) <= last) continue;
    yield* mapper.row(row);
    last = Number(row.id);
  }
  const ended = typeof srow.ended_at === 'number';
  if (ended && !state.ended) {
    yield emitter.emit('session.end', endPayload(srow), srow.ended_at as number, { actor: 'system' });
    state.ended = true;
  }
  cursor.sources[ref.path] = { offset: 0, line: found.messages.length, rowid: last };
  cursor.sessions[session] = { next_seq: emitter.nextSeq };
  options.onCursor?.(cursor);
}
