// Finding Hermes sessions: every row of `sessions` in `<home>/state.db`, newest first by last
// activity (the latest message, else the session's own times), as `hermes -c` picks the most
// recently used. `--list` answers from SQL: the counters Hermes keeps on the session row, the first
// user message and the latest message time through the (session_id, …) indexes, and the number of
// child sessions; no message row is read beyond one per session.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { OpsError } from '../../lib/ops/errors.js';
import { openExport, looksLikeJson } from './export.js';
import { LineageReader, kindOf } from './lineage.js';
import { busySetting, dbOfHome, dbOfPath, defaultHome, expandTilde, formatLocator, parseLocator } from './paths.js';
import { checkReadable, introspect, type Schema } from './schema.js';
import { decodeContent, textOf, AGENT } from './rows.js';
import { closeReadConnections, prepared, errorText, openForRead, patience, retryBusy, type Db, type ReadHandle } from '../../lib/capture/sqlite.js';

/** A lineage-tree selector: `<id>+` captures the session's whole lineage (root and every descendant). */
export const TREE_SUFFIX = '+';

export interface Snapshot {
  db: Db;
  schema: Schema;
  handle: ReadHandle;
  /** Ends the read transaction and closes the connection. */
  close(): void;
}

/**
 * SQLite errors that mean the files changed between choosing the open mode and opening: a writer
 * that just closed (its -wal and -shm are gone) or just started (a -wal without its -shm yet).
 * The mode is chosen again from what is on disk now.
 */
function filesMoved(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^SQLITE_(CANTOPEN|READONLY_CANTINIT|READONLY_RECOVERY|IOERR_SHORT_READ)/.test(code);
}

/** Opens a database for reading inside one read transaction; the lock is retried while busy. */
export async function openSnapshot(dbPath: string): Promise<Snapshot> {
  const deadline = Date.now() + patience(10_000, busySetting());
  for (let attempt = 1; ; attempt += 1) {
    const handle = await openForRead(dbPath);
    let open = false;
    const close = () => {
      if (open) {
        open = false;
        try {
          handle.db.exec('COMMIT');
        } catch {
          // a read transaction has nothing to lose
        }
      }
      handle.close();
    };
    try {
      await retryBusy(
        () => {
          handle.db.exec('BEGIN');
          try {
            prepared(handle.db, 'SELECT count(*) FROM sqlite_master').get();
          } catch (err) {
            handle.db.exec('ROLLBACK');
            throw err;
          }
          open = true;
        },
        dbPath,
        'cannot read',
        Math.max(0, deadline - Date.now()),
      );
      const schema = introspect(handle.db);
      checkReadable(schema, dbPath);
      return { db: handle.db, schema, handle, close };
    } catch (err) {
      close();
      if (err instanceof UserError) throw err;
      // A lock-free open (immutable, a copy) may also see a torn page while a writer checkpoints.
      const torn = handle.mode !== 'wal-readonly-shm' && handle.mode !== 'rollback' && /^SQLITE_(CORRUPT|NOTADB|IOERR)/.test(String((err as { code?: unknown })?.code));
      if ((filesMoved(err) || torn) && attempt < 20 && Date.now() < deadline) {
        closeReadConnections();
        await new Promise((resolve) => setTimeout(resolve, 5 * attempt));
        continue;
      }
      throw new UserError(`cannot read: ${errorText(err)}`, dbPath);
    }
  }
}

/** `fn` on a snapshot of the database, closed afterwards. */
export async function withSnapshot<T>(dbPath: string, fn: (db: Db, schema: Schema) => T): Promise<T> {
  const snapshot = await openSnapshot(dbPath);
  try {
    return fn(snapshot.db, snapshot.schema);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read: ${errorText(err)}`, dbPath);
  } finally {
    snapshot.close();
  }
}

interface ListRow {
  id: string;
  [column: string]: unknown;
}

function num(value: unknown): number | undefined {
  if (typeof value === 'bigint') return Number(value);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function refOf(db: string, row: ListRow, schema: Schema, lineage: LineageReader | undefined, details: boolean): SessionRef {
  const ref: SessionRef = { agent: AGENT, native_id: row.id, path: formatLocator(db, row.id), db };
  const times = [num(row.last_message_at), num(row.started_at), num(row.ended_at), num(row.last_activity_at)].filter((t): t is number => t !== undefined);
  ref.mtime = times.length > 0 ? Math.max(...times) : 0;
  if (typeof row.cwd === 'string' && row.cwd !== '') ref.cwd = row.cwd;
  if (typeof row.title === 'string' && row.title !== '') ref.title = row.title;
  if (typeof row.parent_session_id === 'string' && row.parent_session_id !== '') ref.parent_native_id = row.parent_session_id;
  if (!details) return ref;
  if (typeof row.source === 'string') ref.source = row.source;
  if (typeof row.model === 'string') ref.model = row.model;
  if (typeof row.first_prompt === 'string') {
    const text = textOf(decodeContent(row.first_prompt).content);
    const prompt = promptTitle(text);
    if (prompt !== undefined) ref.first_prompt = prompt;
  }
  if (num(row.started_at) !== undefined) ref.first_ts = num(row.started_at);
  const last = num(row.last_message_at) ?? num(row.ended_at);
  if (last !== undefined) ref.last_ts = last;
  if (num(row.message_count) !== undefined) ref.messages = num(row.message_count);
  if (num(row.tool_call_count) !== undefined) ref.tool_calls = num(row.tool_call_count);
  if (schema.sessions.includes('ended_at')) ref.ended = num(row.ended_at) !== undefined;
  if (typeof row.end_reason === 'string') ref.end_reason = row.end_reason;
  ref.children = num(row.children) ?? 0;
  if (lineage && ref.parent_native_id) {
    const self = lineage.get(row.id);
    if (self) ref.lineage_kind = kindOf(self, lineage.get(ref.parent_native_id));
  }
  return ref;
}

/** Every session of one database, newest first. */
export function listSessions(db: Db, schema: Schema, dbPath: string, options: { details?: boolean; cwd?: string; only?: string } = {}): SessionRef[] {
  const has = (table: 'sessions' | 'messages', column: string) => schema[table].includes(column);
  const select = ['s.*'];
  if (has('messages', 'timestamp')) select.push('(SELECT max(m.timestamp) FROM messages m WHERE m.session_id = s.id) AS last_message_at');
  if (options.details) {
    const active = has('messages', 'active') ? ' AND m.active = 1' : '';
    select.push(`(SELECT m.content FROM messages m WHERE m.session_id = s.id AND m.role = 'user'${active} ORDER BY m.id LIMIT 1) AS first_prompt`);
    if (has('sessions', 'parent_session_id')) select.push('(SELECT count(*) FROM sessions c WHERE c.parent_session_id = s.id) AS children');
  }
  const where: string[] = [];
  const params: unknown[] = [];
  if (options.only !== undefined) {
    where.push('s.id = ?');
    params.push(options.only);
  }
  if (options.cwd !== undefined) {
    if (!has('sessions', 'cwd')) return [];
    where.push('s.cwd = ?');
    params.push(options.cwd);
  }
  const sql = `SELECT ${select.join(', ')} FROM sessions s${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
  const lineage = options.details ? new LineageReader(db, schema.sessions) : undefined;
  const refs = (prepared(db, sql).all(...params) as ListRow[]).map((row) => refOf(dbPath, row, schema, lineage, Boolean(options.details)));
  refs.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || b.native_id.localeCompare(a.native_id));
  return refs;
}

function homeDb(home: string): string {
  const dir = resolve(expandTilde(home));
  let stat;
  try {
    stat = statSync(dir);
  } catch (err) {
    throw new UserError(`cannot read the Hermes home: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (set --home or HERMES_HOME)`, dir);
  }
  if (!stat.isDirectory()) throw new UserError('the Hermes home is not a directory (set --home or HERMES_HOME)', dir);
  const db = dbOfHome(dir);
  if (!existsSync(db)) throw new UserError('no state.db here: Hermes has not stored a session in this home yet (set --home or HERMES_HOME)', dir);
  return db;
}

/** Every session under the home, newest first; `cwd` keeps one project's. */
export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const db = homeDb(options.home ?? defaultHome());
  const cwd = options.cwd !== undefined ? resolve(expandTilde(options.cwd)) : undefined;
  const refs = await withSnapshot(db, (handle, schema) => listSessions(handle, schema, db, { details: options.details, cwd }));
  yield* refs;
}

/** The session a locator names (`<db>#<id>`, `<db>#<id>+`), or the newest session of a database. */
export async function openSession(path: string): Promise<SessionRef> {
  const located = parseLocator(path);
  const db = dbOfPath(located.db);
  if (existsSync(db) && statSync(db).isFile() && looksLikeJson(db)) return openExport(db, located.session);
  const tree = located.session?.endsWith(TREE_SUFFIX) ?? false;
  const id = tree ? located.session!.slice(0, -TREE_SUFFIX.length) : located.session;
  const refs = await withSnapshot(db, (handle, schema) => listSessions(handle, schema, db, { only: id }));
  if (refs.length === 0) {
    throw new UserError(id !== undefined ? `no session "${id}" in this database (sp-capture hermes --list --home DIR shows them)` : 'the database holds no session yet', db);
  }
  const ref = refs[0];
  if (tree) {
    ref.tree = true;
    ref.path = formatLocator(db, `${ref.native_id}${TREE_SUFFIX}`);
  }
  return ref;
}

/** A session by id (or a unique prefix of one) under the home; `<id>+` selects its whole lineage tree. */
export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const db = homeDb(options.home ?? defaultHome());
  const tree = id.endsWith(TREE_SUFFIX);
  const wanted = tree ? id.slice(0, -TREE_SUFFIX.length) : id;
  const refs = await withSnapshot(db, (handle, schema) => listSessions(handle, schema, db));
  const exact = refs.find((r) => r.native_id === wanted);
  const matches = exact ? [exact] : refs.filter((r) => r.native_id.startsWith(wanted));
  if (matches.length > 1) {
    throw new OpsError('ambiguous', `"${wanted}" matches ${matches.length} sessions (${matches.slice(0, 3).map((m) => m.native_id).join(', ')}…); give more of the id`, db, matches.map((m) => m.native_id));
  }
  if (matches.length === 0) throw new OpsError('not-found', `no Hermes session "${wanted}" in ${db} (sp-capture hermes --list shows the sessions)`);
  const ref = matches[0];
  if (tree) {
    ref.tree = true;
    ref.path = formatLocator(db, `${ref.native_id}${TREE_SUFFIX}`);
  }
  return ref;
}
