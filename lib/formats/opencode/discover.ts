// Finding sessions in OpenCode's format (OpenCode, Kilo Code CLI): the database of the data dir (1.2+)
// and, when there is one, its ≤ 1.1 JSON store `storage/` (sessions a 1.18 client no longer sees, but
// the user's history), newest first by time_updated. A session's path is `<store>#<id>`; an export
// JSON file is its own path. The owner says whose data dir it is (agent id, database name).
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../adapter/interface.js';
import { findByIdPrefix } from '../../capture/discover.js';
import { promptTitle } from '../../capture/titles.js';
import { UserError } from '../../cli/diagnostics.js';
import { isObject, str } from '../../core/json.js';
import { expandTilde } from '../../fs/paths.js';
import { formatLocator, parseLocator, storeOf, type DataDirOwner } from './locator.js';
import { listDbSessions, listStorageSessions, readDbSession, readExport, readStorageSession, withDb, type SessionRow, type StoredSession } from './store.js';

function refOf(owner: DataDirOwner, store: string, kind: string, row: SessionRow, home?: string): SessionRef {
  const ref: SessionRef = { agent: owner.agent, native_id: row.id, path: formatLocator(store, row.id), store_kind: kind };
  if (row.directory) ref.cwd = row.directory;
  if (row.title) ref.title = row.title;
  if (row.time_created) ref.first_ts = row.time_created / 1000;
  if (row.time_updated) ref.last_ts = ref.mtime = row.time_updated / 1000;
  if (row.parent_id) ref.parent_native_id = row.parent_id;
  if (row.project_id) ref.project_id = row.project_id;
  if (home) ref.home = home;
  return ref;
}

async function sessionsOf(store: { kind: string; path: string }): Promise<SessionRow[]> {
  if (store.kind === 'sqlite') return withDb(store.path, (db) => listDbSessions(db));
  if (store.kind === 'storage') return listStorageSessions(store.path);
  return [];
}

/** The session a path names: `<store>#<id>`, a store (its newest session), or an export JSON file. */
export async function openSession(owner: DataDirOwner, path: string): Promise<SessionRef> {
  const { store: plain, session } = parseLocator(path);
  const store = storeOf(plain, owner.dbName);
  if (!store) {
    if (!existsSync(plain)) throw new UserError('no such file or folder', plain);
    throw new UserError(`not a ${owner.label} store (${owner.dbName}, a storage/ folder, or an export JSON)`, plain);
  }
  if (store.kind === 'export') {
    const stored = readExport(store.path);
    const f = stored.info;
    const time = isObject(f.time) ? f.time : {};
    const ref: SessionRef = { agent: owner.agent, native_id: String(f.id ?? ''), path: store.path, store_kind: 'export', mtime: statSync(store.path).mtimeMs / 1000 };
    if (str(f.directory)) ref.cwd = f.directory as string;
    if (str(f.title)) ref.title = f.title as string;
    if (typeof time.created === 'number') ref.first_ts = time.created / 1000;
    return ref;
  }
  const rows = await sessionsOf(store);
  const row = session ? rows.find((r) => r.id === session) : rows.find((r) => !r.parent_id) ?? rows[0];
  if (!row) throw new UserError(session ? `no session ${session} in this ${store.kind === 'sqlite' ? 'database' : 'storage folder'}` : 'no sessions in it', store.path);
  return refOf(owner, store.path, store.kind, row);
}

/** The stored session of a ref (capture's input). */
export async function loadSession(owner: DataDirOwner, ref: SessionRef): Promise<StoredSession> {
  const { store: plain, session } = parseLocator(ref.path);
  const store = storeOf(plain, owner.dbName);
  if (!store) throw new UserError(`not a ${owner.label} store (${owner.dbName}, a storage/ folder, or an export JSON)`, plain);
  if (store.kind === 'export') return readExport(store.path);
  const id = session ?? ref.native_id;
  if (store.kind === 'sqlite') return withDb(store.path, (db) => readDbSession(db, id, ref.path));
  return readStorageSession(store.path, id, ref.path);
}

async function summarize(owner: DataDirOwner, ref: SessionRef): Promise<SessionRef> {
  const stored = await loadSession(owner, ref);
  const out: SessionRef = { ...ref };
  let messages = 0;
  let toolCalls = 0;
  for (const m of stored.messages) {
    if (m.info?.role === 'user' || m.info?.role === 'assistant') messages += 1;
    for (const p of m.parts) {
      if (p.data?.type === 'tool') toolCalls += 1;
      if (out.first_prompt === undefined && m.info?.role === 'user' && p.data?.type === 'text' && p.data.synthetic !== true && typeof p.data.text === 'string') out.first_prompt = promptTitle(p.data.text);
    }
    if (m.info?.role === 'assistant' && str(m.info.modelID)) out.model = m.info.modelID;
  }
  out.messages = messages;
  out.tool_calls = toolCalls;
  return out;
}

export async function* discoverSessions(owner: DataDirOwner, options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? owner.defaultHome()));
  const db = join(home, owner.dbName);
  const storage = join(home, 'storage');
  const stores: Array<{ kind: string; path: string }> = [];
  if (existsSync(db)) stores.push({ kind: 'sqlite', path: db });
  if (existsSync(join(storage, 'session'))) stores.push({ kind: 'storage', path: storage });
  if (stores.length === 0) {
    if (!existsSync(home)) throw new UserError(`no ${owner.label} data folder here (set --home or ${owner.homeHint})`, home);
    throw new UserError(`no ${owner.dbName} and no storage/ folder in the ${owner.label} data folder`, home);
  }
  const wantCwd = options.cwd !== undefined ? resolve(expandTilde(options.cwd)) : undefined;
  const found: SessionRef[] = [];
  for (const store of stores) {
    for (const row of await sessionsOf(store)) {
      if (wantCwd !== undefined && (!row.directory || resolve(row.directory) !== wantCwd)) continue;
      found.push(refOf(owner, store.path, store.kind, row, home));
    }
  }
  found.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  for (const ref of found) yield options.details ? await summarize(owner, ref) : ref;
}

export async function findSession(owner: DataDirOwner, id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const sessions = discoverSessions(owner, { home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no ${owner.label} session "${id}" (sp-capture ${owner.agent} --list shows the sessions)`);
}
