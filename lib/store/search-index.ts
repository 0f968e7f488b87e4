// The search text (the `fts` table) is added to the index after the log, not by the writer that
// appends (docs/design.md §5): an append indexes an event's key, type and time; its text goes in
// later, in batches, from the log. `fts_mark` holds per session how many events (seq 0..mark-1)
// have their text in `fts`; the mark moves in the same transaction as the rows it covers, so a
// process killed half-way leaves a consistent index and the next catch-up resumes at the mark.
import { join } from 'node:path';
import type { SpEvent } from '../core/event.js';
import { UserError, warn } from '../cli/diagnostics.js';
import { openDb, type Db } from './db.js';
import { searchText } from './derive.js';
import { StoreLock } from './lock.js';
import { LOG_FILE, fileLinesSync, readAnchors, startPointFor } from './log.js';

/** Events per transaction: the text of a few thousand events at a time keeps memory flat (SP_SEARCH_BATCH overrides it). */
const BATCH = Math.max(1, Number(process.env.SP_SEARCH_BATCH) || 4000);

type Run = { run(...params: unknown[]): unknown };

interface Behind {
  id: string;
  events: number;
  bytes: number;
  mark: number;
}

function behind(db: Db): Behind[] {
  try {
    // Sessions in the order they were first indexed, as the writers used to add their text.
    return db
      .prepare('SELECT s.id AS id, s.events AS events, s.bytes AS bytes, coalesce(m.seq, 0) AS mark FROM sessions s LEFT JOIN fts_mark m ON m.session = s.id WHERE coalesce(m.seq, 0) < s.events ORDER BY s.rowid')
      .all() as Behind[];
  } catch (err) {
    // An index written before the mark existed (opened read-only here): its writers added the text as they went.
    if (err instanceof Error && /no such table: fts_mark/.test(err.message)) return [];
    throw err;
  }
}

/** How many stored events have no search text in the index yet. */
export function unsearchedEvents(db: Db): number {
  return behind(db).reduce((n, s) => n + s.events - s.mark, 0);
}

/**
 * Adds the missing search text from the logs (the caller holds the store lock and a writable db).
 * A session whose log cannot be read back is skipped with a warning (sp-verify says what is wrong);
 * the others go on. Returns how many events are still without text.
 */
export function fillSearchIndex(db: Db, storeDir: string): number {
  const insert = db.prepare('INSERT INTO fts(text, session, seq) VALUES (?, ?, ?)');
  const setMark = db.prepare('INSERT INTO fts_mark(session, seq) VALUES (?, ?) ON CONFLICT(session) DO UPDATE SET seq = excluded.seq');
  let left = 0;
  for (const s of behind(db)) {
    try {
      fillSession(db, storeDir, s, insert, setMark);
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      warn(err.where, `${err.message}; its events are not searchable`);
      left += s.events - s.mark;
    }
  }
  return left;
}

function fillSession(db: Db, storeDir: string, s: Behind, insert: Run, setMark: Run): void {
  const dir = join(storeDir, 'sessions', s.id);
  const logPath = join(dir, LOG_FILE);
  const start = startPointFor(readAnchors(dir).filter((a) => a.offset <= s.bytes), s.mark);
  let rows: Array<[string, number]> = [];
  let seq = start.seq;
  let mark = s.mark;
  const commit = () => {
    db.transaction(() => {
      for (const [text, at] of rows) insert.run(text, s.id, at);
      setMark.run(s.id, seq);
    })();
    rows = [];
    mark = seq;
  };
  for (const line of fileLinesSync(logPath, start.offset)) {
    if (line.start >= s.bytes || seq >= s.events) break;
    if (seq >= s.mark) {
      let event: SpEvent;
      try {
        event = JSON.parse(line.text) as SpEvent;
      } catch {
        throw new UserError(`seq ${seq}: not JSON at offset ${line.start}`, logPath);
      }
      if (event.seq !== seq) throw new UserError(`offset ${line.start}: seq ${String(event.seq)} where ${seq} was expected`, logPath);
      const text = searchText(event);
      if (text) rows.push([text, seq]);
    }
    seq += 1;
    if (seq - mark >= BATCH) commit();
  }
  if (seq < s.events) {
    if (seq > mark) commit();
    throw new UserError(`the log ends at seq ${seq}, the index holds ${s.events} events`, logPath);
  }
  if (seq > mark) commit();
}

/**
 * For a reader: adds the missing search text when no writer holds the store (taking its lock for
 * the while), so a search answers over every stored event. Returns how many events are still
 * without text (a writer is at work, or the store cannot be written here).
 */
export function catchUpSearchIndex(storeDir: string, readDb: Db): number {
  const missing = unsearchedEvents(readDb);
  if (missing === 0) return 0;
  let lock: StoreLock;
  try {
    lock = StoreLock.acquire(storeDir, 0);
  } catch (err) {
    if (!(err instanceof UserError) && !isAccessError(err)) throw err;
    warn(storeDir, `${missing} stored event${missing === 1 ? ' is' : 's are'} not searchable yet (${err instanceof UserError ? 'a writer holds the store' : 'the store is read-only here'}); a later search includes them`);
    return missing;
  }
  try {
    const db = openDb(join(storeDir, 'index.sqlite'), false);
    try {
      return fillSearchIndex(db, storeDir);
    } finally {
      db.close();
    }
  } catch (err) {
    if (isAccessError(err)) return missing;
    throw err;
  } finally {
    lock.release();
  }
}

/** A store this process may read but not write (another user's, read-only media). */
function isAccessError(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN';
}
