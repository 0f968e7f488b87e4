// Finding Zed agent threads: the rows of `<data dir>/threads/threads.db`, newest first by updated_at,
// the thread's first folder as its cwd; a thread is `<threads.db>#<id>`.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix } from '../../lib/capture/discover.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { expandTilde } from '../../lib/fs/paths.js';
import { HOME_ENV, dbOfHome, defaultHome, formatLocator, parseLocator } from './paths.js';
import { firstFolder, listThreads, withDb, type ThreadRow } from './store.js';

export const AGENT = 'zed';

const seconds = (iso: unknown): number | undefined => {
  if (typeof iso !== 'string') return undefined;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
};

function refOf(db: string, row: ThreadRow, home?: string): SessionRef {
  const ref: SessionRef = { agent: AGENT, native_id: row.id, path: formatLocator(db, row.id), store_kind: 'sqlite' };
  const cwd = firstFolder(row);
  if (cwd) ref.cwd = cwd;
  if (row.summary) ref.title = row.summary;
  const first = seconds(row.created_at);
  const last = seconds(row.updated_at);
  if (first) ref.first_ts = first;
  if (last) ref.last_ts = ref.mtime = last;
  if (row.parent_id) ref.parent_native_id = row.parent_id;
  if (home) ref.home = home;
  return ref;
}

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The thread a path names: `<threads.db>#<id>`, a threads.db (its newest top-level thread) or a data dir. */
export async function openSession(path: string): Promise<SessionRef> {
  const { db: given, thread } = parseLocator(path);
  const db = isFile(given) ? given : dbOfHome(given);
  if (!isFile(db)) throw new UserError(existsSync(given) ? 'not a Zed threads database (threads.db, or a data dir holding threads/threads.db)' : 'no such file or folder', given);
  const rows = await withDb(db, listThreads);
  const row = thread !== undefined ? rows.find((r) => r.id === thread) : rows.find((r) => !r.parent_id) ?? rows[0];
  if (!row) throw new UserError(thread !== undefined ? `no thread ${thread} in this database` : 'no threads in it', db);
  return refOf(db, row);
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const db = dbOfHome(home);
  if (!isFile(db)) {
    if (!existsSync(home)) throw new UserError(`no Zed data folder here (set --home or ${HOME_ENV})`, home);
    throw new UserError('no threads/threads.db in the Zed data folder', home);
  }
  const wantCwd = options.cwd !== undefined ? resolve(expandTilde(options.cwd)) : undefined;
  const rows = await withDb(db, listThreads);
  const refs = rows.map((row) => refOf(db, row, home)).filter((ref) => wantCwd === undefined || (ref.cwd !== undefined && resolve(ref.cwd) === wantCwd));
  refs.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  yield* refs;
}

export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  return findByIdPrefix(discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic }), id, `no Zed thread "${id}" (sp-capture zed --list shows the threads)`);
}
