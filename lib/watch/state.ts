// What `sp watch` (and the archive flow) remembers between scans, per native session: the
// (mtime, size, inode) of every file the session lives in, the SHA-256 of the first bytes of each
// line file it consumed, and the adapter's read position (the capture cursor). Unchanged signatures mean "skip without
// opening the file"; a changed head hash means "rotated or rewritten: read it again from the start".
// The state is private ($SP_HOME/watch/, 0700/0600) and replaced atomically after each scan that
// changed it, so a crash leaves the previous state (and the next scan re-reads what the store then
// deduplicates).
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Cursor, SessionRef } from '../adapter/interface.js';
import { replaceFileAtomic } from '../fs/atomic.js';
import { UserError, errorCode } from '../cli/diagnostics.js';
import { isObject } from '../core/json.js';
import { makePrivateDir } from '../fs/private.js';

export interface SessionState {
  agent: string;
  native_id: string;
  /** The session's locator as the adapter gave it (a file, or `<db>#<id>`). */
  path: string;
  /** Per watched path: `ino:size:mtimeMs`, or `absent`. */
  sig: Record<string, string>;
  /** Per line file the read position consumed: SHA-256 of its first HEAD_BYTES (or fewer, up to the position). */
  heads: Record<string, string>;
  /** The read position (the capture's `--cursor`): kept in a file of its own (loaded only when the session changed); never in the state file. */
  position?: Cursor;
  /** On disk: the session has a read position file. */
  has_cursor?: true;
  /** Why this session was left alone at this signature (a hostile or unreadable file): not retried until it changes. */
  skipped?: string;
}

export interface WatchState {
  version: 1;
  /** The store this state feeds: a state is never reused for another store. */
  store: string;
  sessions: Record<string, SessionState>;
  /** Per agent home: the sessions its last discovery found, and the folders they were found in. */
  discovery?: Record<string, DiscoveryState>;
  /** Not saved: where the cursors live, and which of them changed since the last save. */
  cursorDir?: string;
  changedCursors?: Set<string>;
}

/**
 * What a discovery found, reused while nothing could have added or removed a session: every folder
 * from the sessions up to the home keeps its signature (a new or removed file changes its folder's
 * mtime), and no database-like file changed (a new session there is a new row, not a new file).
 */
export interface DiscoveryState {
  dirs: Record<string, string>;
  refs: SessionRef[];
}

/** How many leading bytes of a line file identify it: a rotated or compacted file differs there. */
export const HEAD_BYTES = 4096;

export function sessionKey(agent: string, path: string): string {
  return `${agent} ${path}`;
}

/** The state file for a store: one per store, under $SP_HOME/watch/. */
export function statePath(home: string, storeDir: string): string {
  const tag = createHash('sha256').update(storeDir).digest('hex').slice(0, 16);
  return join(home, 'watch', `state-${tag}.json`);
}

export function emptyState(storeDir: string): WatchState {
  return { version: 1, store: storeDir, sessions: {} };
}

function cursorDirOf(path: string): string {
  return path.replace(/\.json$/, '') + '.cursors';
}

function cursorPath(state: WatchState, key: string): string | undefined {
  return state.cursorDir ? join(state.cursorDir, createHash('sha256').update(key).digest('hex').slice(0, 32) + '.json') : undefined;
}

/** A session's read position: in memory, else read from its file (a missing or damaged one: read the session from the start). */
export function cursorOf(state: WatchState, key: string): Cursor | undefined {
  const entry = state.sessions[key];
  if (!entry) return undefined;
  if (entry.position || !entry.has_cursor) return entry.position;
  const path = cursorPath(state, key);
  if (!path) return undefined;
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (isReadPosition(value)) entry.position = value;
  } catch {
    // none: the session is read from the start, and the store keeps each event once
  }
  return entry.position;
}

const isReadPosition = (value: unknown): value is Cursor => isObject(value) && value.version === 1 && isObject(value.sources);

/** Sets a session's state (its read position is saved with the next saveState). */
export function setSession(state: WatchState, key: string, entry: SessionState): void {
  if (entry.position) {
    entry.has_cursor = true;
    (state.changedCursors ??= new Set()).add(key);
  } else delete entry.has_cursor;
  state.sessions[key] = entry;
}

/** Forgets a session (its cursor file goes too). */
export function dropSession(state: WatchState, key: string): void {
  delete state.sessions[key];
  state.changedCursors?.delete(key);
  const path = cursorPath(state, key);
  if (path) rmSync(path, { force: true });
}

/** Reads the state; a missing file is the first run. A damaged one is an error (exit 2), never silently dropped. */
export function loadState(path: string, storeDir: string): WatchState {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyState(storeDir);
    throw new UserError(`cannot read the watch state: ${errorCode(err)}`, path);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UserError(`not a watch state (invalid JSON: ${(err as Error).message}); delete it to read every session again (the store keeps each event once)`, path);
  }
  if (!isObject(value) || value.version !== 1 || !isObject(value.sessions) || typeof value.store !== 'string') {
    throw new UserError('not a watch state (expected {"version":1,"store",…,"sessions":{…}}); delete it to start over', path);
  }
  if (value.store !== storeDir) throw new UserError(`this watch state feeds the store ${value.store}, not ${storeDir}`, path);
  const state = value as unknown as WatchState;
  state.cursorDir = cursorDirOf(path);
  // A state saved before read positions had files of their own holds each inline, as `cursor`: it
  // is used, and moves to its file with the next save.
  for (const [key, entry] of Object.entries(state.sessions)) {
    const inline = entry as SessionState & { cursor?: unknown };
    if (inline.cursor === undefined) continue;
    const { cursor: old, ...rest } = inline;
    setSession(state, key, isReadPosition(old) ? { ...rest, position: old } : rest);
  }
  return state;
}

/** Writes the cursors that changed, then the state (without cursors and runtime fields). */
export function saveState(path: string, state: WatchState): void {
  makePrivateDir(join(path, '..'));
  state.cursorDir ??= cursorDirOf(path);
  if (state.changedCursors?.size) {
    makePrivateDir(state.cursorDir);
    for (const key of state.changedCursors) {
      const position = state.sessions[key]?.position;
      const file = cursorPath(state, key)!;
      if (position) replaceFileAtomic(file, JSON.stringify(position) + '\n');
    }
    state.changedCursors.clear();
  }
  const { cursorDir: _dir, changedCursors: _changed, ...saved } = state;
  const sessions = Object.fromEntries(Object.entries(saved.sessions).map(([key, { position: _position, ...entry }]) => [key, entry]));
  // `sessions` keeps its place among the keys (an overwritten key is not moved): the same bytes as before.
  replaceFileAtomic(path, JSON.stringify({ ...saved, sessions }) + '\n');
}
