// What `sp watch` (and the archive flow) remembers between scans, per native session: the
// (mtime, size, inode) of every file the session lives in, the SHA-256 of the first bytes of each
// line file it consumed, and the adapter's capture cursor. Unchanged signatures mean "skip without
// opening the file"; a changed head hash means "rotated or rewritten: read it again from the start".
// The state is private ($SP_HOME/watch/, 0700/0600) and replaced atomically after each scan that
// changed it, so a crash leaves the previous state (and the next scan re-reads what the store then
// deduplicates).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cursor, SessionRef } from '../adapter.js';
import { replaceFileAtomic } from '../atomic.js';
import { UserError, errorCode } from '../diagnostics.js';
import { isObject } from '../json.js';
import { makePrivateDir } from '../private.js';

export interface SessionState {
  agent: string;
  native_id: string;
  /** The session's locator as the adapter gave it (a file, or `<db>#<id>`). */
  path: string;
  /** Per watched path: `ino:size:mtimeMs`, or `absent`. */
  sig: Record<string, string>;
  /** Per line file the cursor consumed: SHA-256 of its first HEAD_BYTES (or fewer, up to the cursor). */
  heads: Record<string, string>;
  cursor?: Cursor;
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
  return value as unknown as WatchState;
}

export function saveState(path: string, state: WatchState): void {
  makePrivateDir(join(path, '..'));
  replaceFileAtomic(path, JSON.stringify(state) + '\n');
}
