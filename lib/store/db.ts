// index.sqlite: a rebuildable index over the logs (sessions, event keys for deduplication, lineage,
// full-text search, whose text is added after the log: search-index.ts) plus the per-remote sync
// cursors. FTS5 with the trigram tokenizer: substrings of Chinese text and of code identifiers are
// searchable (unicode61 would index a CJK run as one token). better-sqlite3 is loaded only when a store is opened.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { SpEvent } from '../core/event.js';
import { emptySummary, type SessionSummary } from './derive.js';

export type Db = BetterSqlite3.Database;

const SCHEMA_VERSION = '1';

let sqlite: typeof BetterSqlite3 | undefined;
function load(): typeof BetterSqlite3 {
  sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return sqlite;
}

export function openDb(path: string, readonly: boolean): Db {
  const Database = load();
  const db = new Database(path, { readonly, fileMustExist: readonly });
  if (!readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    createSchema(db);
  }
  return db;
}

export function createSchema(db: Db): void {
  const hadMark = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fts_mark'").get() !== undefined;
  const hadSessions = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'").get() !== undefined;
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE IF NOT EXISTS sessions(
      id TEXT PRIMARY KEY, agent TEXT, native_id TEXT, cwd TEXT, title TEXT, events INTEGER NOT NULL,
      first_ts REAL, last_ts REAL, owner TEXT, uri TEXT, parent TEXT, fork_seq INTEGER, fork_reason TEXT,
      deleted INTEGER NOT NULL DEFAULT 0, head TEXT, bytes INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE IF NOT EXISTS events(session TEXT NOT NULL, seq INTEGER NOT NULL, key TEXT NOT NULL, type TEXT, ts REAL,
      PRIMARY KEY(session, seq)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS events_key ON events(session, key);
    CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, session UNINDEXED, seq UNINDEXED, tokenize='trigram');
    CREATE TABLE IF NOT EXISTS fts_mark(session TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS cursors(remote TEXT NOT NULL, machine TEXT NOT NULL, session TEXT NOT NULL,
      seq INTEGER NOT NULL, head TEXT, PRIMARY KEY(remote, machine, session)) WITHOUT ROWID;
  `);
  // Writers before fts_mark added every event's text as they indexed it: their sessions are complete.
  if (hadSessions && !hadMark) db.exec('INSERT INTO fts_mark(session, seq) SELECT id, events FROM sessions');
  db.prepare('INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)').run('schema', SCHEMA_VERSION);
}

/** Prepared statements for writing, made once per open store. */
export class IndexWriter {
  private readonly findKey;
  private readonly insertEvent;
  private readonly upsertSession;
  private readonly getSession;

  constructor(readonly db: Db) {
    this.findKey = db.prepare('SELECT seq FROM events WHERE session = ? AND key = ? LIMIT 1').pluck();
    this.insertEvent = db.prepare('INSERT INTO events(session, seq, key, type, ts) VALUES (?, ?, ?, ?, ?)');
    this.upsertSession = db.prepare(`INSERT INTO sessions(id, agent, native_id, cwd, title, events, first_ts, last_ts, owner, uri, parent, fork_seq, fork_reason, deleted, head, bytes)
      VALUES (@id, @agent, @native_id, @cwd, @title, @events, @first_ts, @last_ts, @owner, @uri, @parent, @fork_seq, @fork_reason, @deleted, @head, @bytes)
      ON CONFLICT(id) DO UPDATE SET agent=excluded.agent, native_id=excluded.native_id, cwd=excluded.cwd, title=excluded.title,
        events=excluded.events, first_ts=excluded.first_ts, last_ts=excluded.last_ts, owner=excluded.owner, uri=excluded.uri,
        parent=excluded.parent, fork_seq=excluded.fork_seq, fork_reason=excluded.fork_reason, deleted=excluded.deleted, head=excluded.head, bytes=excluded.bytes`);
    this.getSession = db.prepare('SELECT * FROM sessions WHERE id = ?');
  }

  /** The stored seq of the event with this key in the session, if any. */
  seqOfKey(session: string, key: string): number | undefined {
    return this.findKey.get(session, key) as number | undefined;
  }

  /** Indexes an event's key, type and time; its search text is added later (search-index.ts). */
  addEvent(event: SpEvent, key: string): void {
    this.insertEvent.run(event.session, event.seq, key, event.type, typeof event.ts === 'number' ? event.ts : null);
  }

  putSession(s: SessionSummary): void {
    this.upsertSession.run({ ...s, deleted: s.deleted ? 1 : 0 });
  }

  session(id: string): SessionSummary | undefined {
    const row = this.getSession.get(id) as Record<string, unknown> | undefined;
    return row ? rowToSummary(row) : undefined;
  }

  /** How many events of the session the index holds. */
  indexedCount(session: string): number {
    return this.db.prepare('SELECT count(*) FROM events WHERE session = ?').pluck().get(session) as number;
  }

  /** Drops a session's index rows (before indexing it again from its log). */
  dropSession(session: string): void {
    this.db.prepare('DELETE FROM events WHERE session = ?').run(session);
    this.db.prepare('DELETE FROM fts WHERE session = ?').run(session);
    this.db.prepare('DELETE FROM fts_mark WHERE session = ?').run(session);
    this.db.prepare('DELETE FROM sessions WHERE id = ?').run(session);
  }
}

export function rowToSummary(row: Record<string, unknown>): SessionSummary {
  const s = emptySummary(row.id as string);
  for (const key of Object.keys(s) as Array<keyof SessionSummary>) if (key in row) (s as unknown as Record<string, unknown>)[key] = row[key];
  s.deleted = Boolean(row.deleted);
  return s;
}
