// Finding Goose sessions (docs/formats/goose.md §1): the rows of `<home>/sessions/sessions.db` and
// the legacy `<id>.jsonl` files beside it that the database does not hold yet (Goose imports them
// once; an imported file's session is the row). Newest first by last update; `cwd` keeps the
// sessions whose recorded working_dir is that directory.
import { closeSync, existsSync, lstatSync, openSync, readSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { prepared } from '../../lib/capture/sqlite.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { isObject, jsonObject, str, type Json } from '../../lib/core/json.js';
import { expandTilde } from '../../lib/fs/paths.js';
import { OpsError } from '../../lib/ops/errors.js';
import { AGENT, DB_NAME, HOME_ENV, dbOfPath, defaultHome, formatLocator, isNativeId, parseLocator, sessionsDirOf } from './paths.js';
import { withGooseDb, type GooseDb } from './store.js';

/** Bytes read for a legacy file's first line (its metadata); Goose reads no more for it either. */
const METADATA_BYTES = 1 << 20;

/**
 * A time as SQLite or chrono stored it, in epoch seconds: `YYYY-MM-DD HH:MM:SS` (CURRENT_TIMESTAMP,
 * UTC without a zone), RFC 3339, or a number of seconds.
 */
export function sqlTime(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value > 1e11 ? value / 1000 : value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value !== 'string' || value === '') return undefined;
  const bare = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value);
  const ms = Date.parse(bare ? `${value.replace(' ', 'T')}Z` : value);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

function sessionsDir(home: string): string {
  const dir = sessionsDirOf(home);
  let stat;
  try {
    stat = statSync(dir);
  } catch {
    throw new UserError(`no Goose sessions folder here (set --home or ${HOME_ENV})`, dir);
  }
  if (!stat.isDirectory()) throw new UserError('the Goose sessions folder is not a directory', dir);
  return dir;
}

interface Row {
  [column: string]: unknown;
}

function dbRef(db: string, row: Row, details: boolean): SessionRef {
  const id = String(row.id);
  const ref: SessionRef = { agent: AGENT, native_id: id, path: formatLocator(db, id), db };
  ref.mtime = sqlTime(row.updated_at) ?? sqlTime(row.created_at) ?? 0;
  if (typeof row.working_dir === 'string' && row.working_dir !== '') ref.cwd = row.working_dir;
  const title = str(row.name) || str(row.description);
  if (title) ref.title = title;
  if (typeof row.session_type === 'string') ref.session_type = row.session_type;
  if (!details) return ref;
  const first = sqlTime(row.created_at);
  if (first !== undefined) ref.first_ts = first;
  if (row.last_message !== null && row.last_message !== undefined) ref.last_ts = sqlTime(row.last_message);
  if (row.message_count !== undefined) ref.messages = Number(row.message_count);
  if (typeof row.first_prompt === 'string') {
    const text = promptOf(jsonObject(`{"c":${row.first_prompt}}`)?.c);
    const prompt = text !== undefined ? promptTitle(text) : undefined;
    if (prompt !== undefined) ref.first_prompt = prompt;
  }
  return ref;
}

/** The text blocks of a message's content, joined. */
function promptOf(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const text = content.filter((b): b is Json => isObject(b) && b.type === 'text' && typeof b.text === 'string').map((b) => String(b.text)).join('\n');
  return text === '' ? undefined : text;
}

/** The sessions of one database, newest first (`only`: one id). */
export function listDb(store: GooseDb, db: string, options: { details?: boolean; cwd?: string; only?: string } = {}): SessionRef[] {
  const select = ['s.*'];
  if (options.details) {
    select.push('(SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS message_count');
    select.push(`(SELECT m.content_json FROM messages m WHERE m.session_id = s.id AND m.role = 'user' ORDER BY m.id LIMIT 1) AS first_prompt`);
    if (store.messages.includes('created_timestamp')) select.push('(SELECT max(m.created_timestamp) FROM messages m WHERE m.session_id = s.id) AS last_message');
  }
  const where: string[] = [];
  const params: unknown[] = [];
  if (options.only !== undefined) {
    where.push('s.id = ?');
    params.push(options.only);
  }
  if (options.cwd !== undefined) {
    where.push('s.working_dir = ?');
    params.push(options.cwd);
  }
  const sql = `SELECT ${select.join(', ')} FROM sessions s${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  const refs = (prepared(store.db, sql).all(...params) as Row[]).map((row) => dbRef(db, row, Boolean(options.details)));
  refs.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || b.native_id.localeCompare(a.native_id));
  return refs;
}

/** A legacy file's first line when it is the metadata record ({working_dir, description, …}). */
export function legacyMetadata(path: string): Json | undefined {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(METADATA_BYTES);
    const n = readSync(fd, buffer, 0, METADATA_BYTES, 0);
    const text = buffer.subarray(0, n).toString('utf8');
    const end = text.indexOf('\n');
    const first = jsonObject(end === -1 ? text : text.slice(0, end));
    return first && first.role === undefined && first.content === undefined ? first : undefined;
  } finally {
    closeSync(fd);
  }
}

/** The ref of a legacy `.jsonl` session. */
export function legacyRef(path: string): SessionRef {
  let stat;
  try {
    stat = statSync(path);
  } catch (err) {
    throw new UserError(`cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
  }
  if (!stat.isFile()) throw new UserError('not a Goose session file', path);
  const ref: SessionRef = { agent: AGENT, native_id: basename(path, '.jsonl'), path, mtime: stat.mtimeMs / 1000, legacy: true };
  const meta = legacyMetadata(path);
  if (meta) {
    if (typeof meta.working_dir === 'string' && meta.working_dir !== '') ref.cwd = meta.working_dir;
    const title = str(meta.name) || str(meta.description);
    if (title) ref.title = title;
  }
  return ref;
}

/**
 * The legacy files of a sessions folder: plain files only. A symlink is never followed (it could
 * point anywhere outside the home); it is reported and skipped.
 */
function legacyFiles(dir: string, onDiagnostic?: (where: string, what: string) => void): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.jsonl') || !isNativeId(name.slice(0, -'.jsonl'.length))) continue;
    const path = join(dir, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isSymbolicLink()) {
      onDiagnostic?.(path, 'a symbolic link: not followed (sessions are read only from files inside the home)');
      continue;
    }
    if (stat.isFile()) out.push(path);
  }
  return out;
}

async function allSessions(home: string, options: DiscoverOptions, only?: string): Promise<SessionRef[]> {
  const dir = sessionsDir(home);
  const db = join(dir, DB_NAME);
  const cwd = options.cwd !== undefined ? resolve(expandTilde(options.cwd)) : undefined;
  const refs: SessionRef[] = [];
  const inDb = new Set<string>();
  if (existsSync(db)) {
    const dbLstat = lstatSync(db);
    if (dbLstat.isSymbolicLink()) throw new UserError('sessions.db is a symbolic link: not followed (sp reads only the files inside the home)', db);
    await withGooseDb(db, (store) => {
      for (const row of prepared(store.db, 'SELECT id FROM sessions').all() as Array<{ id: unknown }>) inDb.add(String(row.id));
      refs.push(...listDb(store, db, { details: options.details, cwd, only }));
    });
  }
  for (const path of legacyFiles(dir, options.onDiagnostic)) {
    const ref = legacyRef(path);
    if (inDb.has(ref.native_id) || (only !== undefined && ref.native_id !== only)) continue;
    if (cwd !== undefined && (ref.cwd === undefined || resolve(ref.cwd) !== cwd)) continue;
    refs.push(ref);
  }
  refs.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || b.native_id.localeCompare(a.native_id));
  return refs;
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  yield* await allSessions(options.home ?? defaultHome(), options);
}

/** The session a path names: a legacy file, `<db>#<id>`, or a database (its newest session). */
export async function openSession(path: string): Promise<SessionRef> {
  const located = parseLocator(path);
  if (located.session === undefined && located.db.endsWith('.jsonl')) return legacyRef(located.db);
  const db = dbOfPath(located.db);
  if (!existsSync(db)) throw new UserError('no such Goose session file or database', db);
  if (located.session !== undefined && !isNativeId(located.session)) throw new UserError(`"${located.session}" is not a Goose session id`, path);
  const refs = await withGooseDb(db, (store) => listDb(store, db, { only: located.session }));
  if (refs.length === 0) throw new UserError(located.session !== undefined ? `no session "${located.session}" in this database (sp-capture goose --list shows them)` : 'the database holds no session yet', db);
  return refs[0];
}

/** A session by id or unique prefix under the home. An id that could name a path (`../x`) is refused. */
export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  if (!isNativeId(id)) throw new UserError(`"${id}" is not a Goose session id (YYYYMMDD_N, or a legacy file's name)`);
  const refs = await allSessions(options.home ?? defaultHome(), { ...options, cwd: undefined });
  const exact = refs.find((r) => r.native_id === id);
  const matches = exact ? [exact] : refs.filter((r) => r.native_id.startsWith(id));
  if (matches.length > 1) throw new OpsError('ambiguous', `"${id}" matches ${matches.length} sessions (${matches.slice(0, 3).map((m) => m.native_id).join(', ')}…); give more of the id`, undefined, matches.map((m) => m.native_id));
  if (matches.length === 0) throw new OpsError('not-found', `no Goose session "${id}" (sp-capture goose --list shows the sessions)`);
  return matches[0];
}
