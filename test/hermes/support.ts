// The Hermes fixtures (fixtures/hermes/) and helpers shared by the Hermes tests. Databases are
// always copied into a temporary folder first: even opening one can create files next to it.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

// URI filenames (immutable=1, readonly_shm=1) need this before the addon loads (lib/capture/sqlite.ts).
process.env.SQLITE_USE_URI = '1';
export const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

export const ROOT = new URL('../../', import.meta.url).pathname;
export const HERMES = `${ROOT}fixtures/hermes/`;
/** Checkpointed WAL database: all five corpus sessions. */
export const CORPUS_DB = `${HERMES}corpus/state.db`;
/** The same database before the S3 rotation pair was written (the pair lived only in the -wal). */
export const WAL_BASE_DB = `${HERMES}corpus/wal/state.db`;

export const S1 = '20261130_051619_bb4de5';
export const S2 = '20261130_051637_0bbbb5';
export const S3_IN_PLACE = '20261130_051641_564346';
export const S3_PARENT = '20261130_051656_853b11';
export const S3_CHILD = '20261130_051711_560b72';
export const SESSIONS = [S1, S2, S3_IN_PLACE, S3_PARENT, S3_CHILD];
export const WAL_ONLY = [S3_PARENT, S3_CHILD];

export function tempDir(name = 'sp-hermes-test-'): string {
  return mkdtempSync(join(tmpdir(), name));
}

/** A copy of the corpus database in a new folder; returns its path. */
export function copyDb(source = CORPUS_DB, dir = tempDir()): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'state.db');
  copyFileSync(source, path);
  return path;
}

export const locator = (db: string, session: string) => `${db}#${session}`;

/**
 * The `wal/` fixture with its -wal: the corpus ships the `wal/state.db` of a database whose newest
 * sessions (the S3 rotation pair) were only in an uncheckpointed -wal, but not that -wal. It is
 * rebuilt here the way it arose: the pair's rows are written into a copy by a connection that never
 * checkpoints, and db, -wal and -shm are copied while that connection is still open (a close would
 * checkpoint). Returns the path of the copy's state.db (its -wal holds the pair).
 */
export function makeWalTrio(dir = tempDir()): string {
  const work = tempDir('sp-hermes-writer-');
  const source = join(work, 'state.db');
  copyFileSync(WAL_BASE_DB, source);
  const db = new Database(source);
  try {
    db.pragma('wal_autocheckpoint = 0');
    if (db.pragma('journal_mode', { simple: true }) !== 'wal') throw new Error('the wal/ fixture is not a WAL database');
    db.exec(`ATTACH 'file:${CORPUS_DB}?immutable=1' AS full`);
    db.transaction(() => {
      db.exec('INSERT OR IGNORE INTO system_prompts SELECT * FROM full.system_prompts');
      for (const id of WAL_ONLY) {
        db.prepare('INSERT INTO sessions SELECT * FROM full.sessions WHERE id = ?').run(id);
        db.prepare('INSERT INTO messages SELECT * FROM full.messages WHERE session_id = ? ORDER BY id').run(id);
        db.prepare('INSERT INTO session_model_usage SELECT * FROM full.session_model_usage WHERE session_id = ?').run(id);
      }
    })();
    db.exec('DETACH full');
    mkdirSync(dir, { recursive: true });
    for (const suffix of ['', '-wal', '-shm']) copyFileSync(source + suffix, join(dir, `state.db${suffix}`));
  } finally {
    db.close();
  }
  return join(dir, 'state.db');
}

export function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Every file of a folder with its SHA-256: what "nothing changed" means. */
export function folderState(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) out[name] = sha256(join(dir, name));
  return out;
}

export type MessageRow = Record<string, unknown> & { id: number; role: string };

/** A session's message rows and session row, read from a copy (never from the original). */
export function readSession(db: string, session: string): { session: Record<string, unknown>; rows: MessageRow[] } {
  const dir = tempDir('sp-hermes-read-');
  const copy = join(dir, 'state.db');
  copyFileSync(db, copy);
  if (existsSync(`${db}-wal`)) copyFileSync(`${db}-wal`, `${copy}-wal`);
  const handle = new Database(copy, { readonly: true });
  try {
    return {
      session: handle.prepare('SELECT * FROM sessions WHERE id = ?').get(session) as Record<string, unknown>,
      rows: handle.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY id').all(session) as MessageRow[],
    };
  } finally {
    handle.close();
  }
}

/** A committed fixture opened without creating -wal/-shm next to it (a plain read-only open would). */
export function openFixture(path: string): InstanceType<typeof Database> {
  return new Database(`file:${path}?immutable=1`, { readonly: true });
}
