// Reading Goose's sessions.db (docs/formats/goose.md §2) without changing a byte of it
// (lib/capture/sqlite.ts picks the open mode), inside one read transaction so a session row and its
// messages are one snapshot while Goose writes.
import { UserError } from '../../lib/cli/diagnostics.js';
import { errorText, openForRead, prepared, type Db } from '../../lib/capture/sqlite.js';

export interface GooseDb {
  db: Db;
  /** Columns of `sessions` and `messages` (they grew over the schema versions). */
  sessions: string[];
  messages: string[];
  version?: number;
}

function columns(db: Db, table: string): string[] {
  return (prepared(db, `SELECT name FROM pragma_table_info('${table}')`).all() as Array<{ name: string }>).map((r) => r.name);
}

export interface OpenGooseDb extends GooseDb {
  /** Ends the read transaction and closes the connection. */
  close(): void;
}

/** A read snapshot of the database; a file that is not a Goose database is a user error. */
export async function openGooseDb(path: string): Promise<OpenGooseDb> {
  let handle;
  try {
    handle = await openForRead(path);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot open: ${errorText(err)}`, path);
  }
  const close = () => {
    try {
      handle.db.exec('COMMIT');
    } catch {
      // no transaction open, or nothing written: nothing to lose
    }
    handle.close();
  };
  try {
    handle.db.exec('BEGIN');
    const sessions = columns(handle.db, 'sessions');
    const messages = columns(handle.db, 'messages');
    for (const [table, cols, need] of [['sessions', sessions, ['id', 'working_dir']], ['messages', messages, ['id', 'session_id', 'role', 'content_json']]] as const) {
      const missing = need.filter((c) => !cols.includes(c));
      if (missing.length > 0) throw new UserError(`not a Goose sessions database: ${cols.length === 0 ? `no ${table} table` : `table ${table} lacks ${missing.join(', ')}`}`, path);
    }
    let version: number | undefined;
    try {
      const row = prepared(handle.db, 'SELECT max(version) AS v FROM schema_version').get() as { v: number | null } | undefined;
      if (typeof row?.v === 'number') version = row.v;
    } catch {
      // databases before the schema_version table
    }
    return { db: handle.db, sessions, messages, version, close };
  } catch (err) {
    close();
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read: ${errorText(err)}`, path);
  }
}

/** `fn` on a read snapshot, closed afterwards. */
export async function withGooseDb<T>(path: string, fn: (store: GooseDb) => T): Promise<T> {
  const store = await openGooseDb(path);
  try {
    return fn(store);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read: ${errorText(err)}`, path);
  } finally {
    store.close();
  }
}
