// Opening an agent's SQLite database (Hermes's state.db, OpenCode's opencode.db, Cursor's stores)
// with better-sqlite3, loaded lazily: discovery of the other agents never pays for the native addon.
//
// Reading must never disturb a live database (docs/formats/hermes.md §1): a read-write connection
// checkpoints and deletes the `-wal` when it closes, and even a plain read-only connection creates
// `-wal`/`-shm` next to a checkpointed database and writes read marks into an existing `-shm`
// (measured: the `-shm` bytes change). So the reader picks its open mode from what is on disk:
//
//   journal      files present              open as                          why
//   rollback     (no -wal/-shm exist)       read-only connection             file locks; creates nothing
//   WAL          -wal and -shm              `mode=ro&readonly_shm=1` URI     sees the -wal, maps the -shm read-only:
//                                                                            no byte of the trio changes, and a
//                                                                            live Hermes writer is respected
//   WAL          -wal with frames, no -shm  a private copy of db + -wal      nobody can be writing without a -shm;
//                                                                            a read-only open would create one
//   WAL          no -wal (or an empty one   `immutable=1` URI                checkpointed: the file is all there is;
//                and no -shm)                                                immutable creates no -wal/-shm
//
// Trade-offs. `immutable=1` takes no locks and assumes nobody writes: a Hermes that starts meanwhile
// writes into a new -wal, which the immutable reader ignores (those rows come with the next capture,
// whose open sees the -wal); only a checkpoint into the main file during the read (every 50 writes,
// and at close) could show it a torn page, which SQLite reports as corruption rather than as rows.
// `readonly_shm` needs an existing -shm (else SQLite cannot open it, and would leave an empty -wal
// behind), hence the private copy when a -wal has no -shm. A plain `readonly` open would be simpler
// and lock-correct, but writes read marks into the -shm and creates -wal/-shm where none exist.
// A mode chosen from files that change before the open (a writer starting or closing) fails with
// CANTOPEN and is chosen again (discover.ts openSnapshot).
// URI filenames are off in better-sqlite3 unless SQLITE_USE_URI=1 when its addon loads (at the
// first connection), so the variable is set around that; if the addon was loaded earlier without
// it, the private copy is used for every WAL case (tested in a clean environment).
import type Database from 'better-sqlite3';
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../cli/diagnostics.js';

export type Db = Database.Database;
type Ctor = typeof Database;

let loading: Promise<Ctor> | undefined;

export function loadSqlite(): Promise<Ctor> {
  loading ??= (async () => {
    const before = process.env.SQLITE_USE_URI;
    process.env.SQLITE_USE_URI = '1';
    try {
      const Sqlite = (await import('better-sqlite3')).default;
      // The native addon loads (and reads the variable) with the first connection, not the import.
      new Sqlite(':memory:').close();
      return Sqlite;
    } finally {
      if (before === undefined) delete process.env.SQLITE_USE_URI;
      else process.env.SQLITE_USE_URI = before;
    }
  })();
  return loading;
}

export type ReadMode = 'rollback' | 'wal-readonly-shm' | 'wal-copy' | 'immutable';

export interface ReadHandle {
  db: Db;
  mode: ReadMode;
  close(): void;
}

/** A SQLite error that means "someone else holds the lock": worth waiting for. */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code);
}

export function errorText(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const message = (err as Error)?.message ?? String(err);
  return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
}

/** The journal mode the file header records: bytes 18/19 are 2 for WAL, 1 for rollback. */
function headerMode(path: string): 'wal' | 'rollback' {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ENOENT' ? 'no such database' : `cannot read: ${code ?? (err as Error).message}`, path);
  }
  try {
    const header = Buffer.alloc(100);
    const n = readSync(fd, header, 0, 100, 0);
    if (n === 0) throw new UserError('empty file: not a SQLite database', path);
    if (n < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') throw new UserError('not a SQLite database', path);
    return header[18] === 2 && header[19] === 2 ? 'wal' : 'rollback';
  } finally {
    closeSync(fd);
  }
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/** A path as a URI filename: `%`, `?` and `#` would end or escape the path. */
function uri(path: string, query: string): string {
  return `file:${path.replace(/%/g, '%25').replace(/\?/g, '%3f').replace(/#/g, '%23')}?${query}`;
}

function openOrThrow(Sqlite: Ctor, name: string, shown: string, readonly: boolean): Db {
  try {
    return new Sqlite(name, { readonly, fileMustExist: true, timeout: 0 });
  } catch (err) {
    throw new UserError(`cannot open: ${errorText(err)}`, shown);
  }
}

/** A private copy of a WAL database and its -wal, opened read-only; removed on close. */
function openCopy(Sqlite: Ctor, path: string): ReadHandle {
  const dir = mkdtempSync(join(tmpdir(), 'sp-sqlite-'));
  const copy = join(dir, 'state.db');
  try {
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new UserError(`cannot copy it to read the -wal without touching it: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
  }
  const db = openOrThrow(Sqlite, copy, path, true);
  return { db, mode: 'wal-copy', close: () => { db.close(); rmSync(dir, { recursive: true, force: true }); } };
}

function stamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return '-';
  }
}

/**
 * The files as a connection that reads a fixed state of them (immutable, a private copy, a
 * rollback-journal database between its transactions) saw them; undefined for a live WAL database
 * (-wal and -shm present), whose connection maps the writer's -shm and is never kept: a writer in
 * this process would share that read-only mapping.
 */
function fingerprint(path: string): string | undefined {
  const db = stamp(path);
  if (headerMode(path) === 'rollback') return `rollback ${db}`;
  const wal = stamp(`${path}-wal`);
  const shm = stamp(`${path}-shm`);
  if (wal !== '-' && shm !== '-') return undefined;
  return `fixed ${db} ${wal} ${shm}`;
}

interface Cached {
  handle: ReadHandle;
  key: string;
  busy: boolean;
}

/**
 * Read connections kept open between captures of the same database (`--all` captures hundreds of
 * sessions; opening a connection and parsing the schema each time cost as much as reading them),
 * reused only while the files are exactly as they were when it opened; closed when the process exits.
 */
const cache = new Map<string, Cached>();
let exitHook = false;

function closeCached(): void {
  for (const entry of cache.values()) entry.handle.close();
  cache.clear();
}

/** Opens `path` for reading without changing a byte of it or its -wal/-shm (see the table above). */
export async function openForRead(path: string): Promise<ReadHandle> {
  const key = fingerprint(path);
  const entry = cache.get(path);
  if (entry && !entry.busy && key !== undefined && entry.key === key) {
    entry.busy = true;
    return { db: entry.handle.db, mode: entry.handle.mode, close: () => void (entry.busy = false) };
  }
  if (entry && !entry.busy) {
    entry.handle.close();
    cache.delete(path);
  }
  const handle = await openFresh(path);
  if (key === undefined || handle.mode === 'wal-readonly-shm' || cache.has(path)) return handle;
  const kept: Cached = { handle, key, busy: true };
  cache.set(path, kept);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', closeCached);
  }
  return { db: handle.db, mode: handle.mode, close: () => void (kept.busy = false) };
}

/** Drops the kept connections (tests; a long-running process that moves on). */
export function closeReadConnections(): void {
  for (const [path, entry] of cache) {
    if (entry.busy) continue;
    entry.handle.close();
    cache.delete(path);
  }
}

async function openFresh(path: string): Promise<ReadHandle> {
  const Sqlite = await loadSqlite();
  if (headerMode(path) === 'rollback') {
    const db = openOrThrow(Sqlite, path, path, true);
    return { db, mode: 'rollback', close: () => db.close() };
  }
  const wal = sizeOf(`${path}-wal`);
  const shm = sizeOf(`${path}-shm`);
  let mode: ReadMode;
  if (wal !== undefined && shm !== undefined) mode = 'wal-readonly-shm';
  else if (wal !== undefined && wal > 0) mode = 'wal-copy';
  else mode = 'immutable';
  if (mode === 'wal-copy') return openCopy(Sqlite, path);
  const name = uri(path, mode === 'immutable' ? 'immutable=1' : 'mode=ro&readonly_shm=1');
  let db: Db;
  try {
    db = new Sqlite(name, { readonly: true, fileMustExist: true, timeout: 0 });
  } catch (err) {
    // URI filenames unavailable (the addon was loaded without them): the literal name does not exist.
    if ((err as { code?: string }).code === 'SQLITE_CANTOPEN' && existsSync(path)) return openCopy(Sqlite, path);
    throw new UserError(`cannot open: ${errorText(err)}`, path);
  }
  return { db, mode, close: () => db.close() };
}

/** A read-write connection for the writer, as Hermes opens its own (foreign keys on). */
export async function openForWrite(path: string, create: boolean): Promise<Db> {
  const Sqlite = await loadSqlite();
  let db: Db;
  try {
    db = new Sqlite(path, { fileMustExist: !create, timeout: 0 });
  } catch (err) {
    throw new UserError(`cannot open for writing: ${errorText(err)}`, path);
  }
  db.pragma('foreign_keys = ON');
  return db;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * How long to keep retrying a busy database, in ms: `override` when it is a number ≥ 0 (the busy
 * setting the adapter passes, from its documented environment variable: tests, slow disks), else `fallback`.
 */
export function patience(fallback: number, override: string | undefined): number {
  const value = Number(override);
  return Number.isFinite(value) && value >= 0 && override !== '' ? value : fallback;
}

/**
 * Runs `fn` until it does not fail with "busy"/"locked", waiting between tries with random jitter as
 * Hermes's own writer does: 20–150 ms during the first 2 s, then 250 ms–1 s; after `patienceMs`
 * a UserError says who to wait for.
 */
export async function retryBusy<T>(fn: () => T, where: string, what: string, patienceMs: number): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return fn();
    } catch (err) {
      if (!isBusy(err)) throw err;
      const elapsed = Date.now() - started;
      if (elapsed >= patienceMs) {
        throw new UserError(
          `${what}: the database stayed locked for ${(elapsed / 1000).toFixed(1)} s (${attempt} tries; ${errorText(err)}): another process (the agent, running?) holds it; try again when it is idle`,
          where,
        );
      }
      const [low, high] = elapsed < 2000 ? [20, 150] : [250, 1000];
      await sleep(Math.min(low + Math.random() * (high - low), Math.max(1, patienceMs - elapsed)));
    }
  }
}

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/** `db.prepare(sql)`, once per connection: kept connections serve many captures. */
export function prepared(db: Db, sql: string): Database.Statement {
  let byText = statements.get(db);
  if (!byText) statements.set(db, (byText = new Map()));
  let statement = byText.get(sql);
  if (!statement) byText.set(sql, (statement = db.prepare(sql)));
  return statement;
}

const makers = new WeakMap<Database.Statement, (values: unknown[]) => Record<string, unknown>>();

/**
 * Rows of a raw-mode statement as objects of one fixed shape. better-sqlite3 builds a dictionary
 * object per row, which took half the time of reading a large session; an object literal with the
 * statement's column names (a per-statement function) is a fast-property object at a third of it.
 */
export function rowMaker(statement: Database.Statement): (values: unknown[]) => Record<string, unknown> {
  let make = makers.get(statement);
  if (!make) {
    const names = statement.columns().map((c) => c.name);
    // Column names come from the database; JSON.stringify makes each a plain string literal.
    make = new Function('v', `return {${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')}};`) as (values: unknown[]) => Record<string, unknown>;
    makers.set(statement, make);
  }
  return make;
}

const checked = new WeakMap<Db, Map<string, string[]>>();

/**
 * SQLite's structural check of the tables a capture reads (and their indexes), once per connection:
 * a damaged page the rows being read do not happen to cross is otherwise invisible, and the capture
 * would pass a damaged database silently. Cost is proportional to those tables, not the file.
 * Returns SQLite's own problem lines (empty when the tables are sound); tables that are absent are skipped.
 */
export function tableProblems(db: Db, tables: readonly string[]): string[] {
  let byTables = checked.get(db);
  if (!byTables) checked.set(db, (byTables = new Map()));
  const key = tables.join('\u0000');
  const known = byTables.get(key);
  if (known) return known;
  const problems: string[] = [];
  for (const table of tables) {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)) continue;
    try {
      const rows = db.pragma(`quick_check("${table.replace(/"/g, '""')}")`) as Array<{ quick_check: string }>;
      for (const row of rows) if (row.quick_check !== 'ok') problems.push(`${table}: ${row.quick_check}`);
    } catch (err) {
      problems.push(`${table}: ${errorText(err)}`);
    }
  }
  byTables.set(key, problems);
  return problems;
}
