// Finding Crush sessions (docs/formats/crush.md §1): the projects `projects.json` in the global data
// dir lists, each project's `<data_dir>/crush.db`, newest first by updated_at; or, when the home
// given is itself a data directory (a `.crush` folder), its own crush.db. A project entry is data:
// only an absolute data_dir is followed, and only the file named crush.db in it is opened, read-only.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError, warn } from '../../lib/cli/diagnostics.js';
import { isObject, str } from '../../lib/core/json.js';
import { expandTilde } from '../../lib/fs/paths.js';
import { DB_NAME, HOME_ENV, PROJECTS_FILE, defaultHome, formatLocator, parseLocator } from './paths.js';
import { listMessages, listSessions, seconds, withDb, type SessionRow } from './store.js';

export const AGENT = 'crush';

interface Project {
  db: string;
  cwd?: string;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The projects of `projects.json`: entries with an absolute data_dir holding crush.db; others are reported. */
function listedProjects(file: string, onDiagnostic?: DiscoverOptions['onDiagnostic']): Project[] {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`not a Crush projects list: ${(err as Error).message}`, file);
  }
  const list = isObject(value) && Array.isArray(value.projects) ? value.projects : undefined;
  if (!list) throw new UserError('not a Crush projects list (no "projects" array)', file);
  const out: Project[] = [];
  list.forEach((entry, i) => {
    const dataDir = isObject(entry) ? str(entry.data_dir) : undefined;
    if (!dataDir || !isAbsolute(dataDir) || dataDir.includes('\0')) {
      (onDiagnostic ?? warn)(`${file}:${i + 1}`, 'a project without an absolute data_dir: skipped');
      return;
    }
    const db = join(resolve(dataDir), DB_NAME);
    if (!isFile(db)) return;
    const path = isObject(entry) ? str(entry.path) : undefined;
    out.push({ db, cwd: path && isAbsolute(path) ? resolve(path) : undefined });
  });
  return out;
}

/** The stores a home holds: its projects list, or its own crush.db when it is a data directory. */
function projectsOf(home: string, onDiagnostic?: DiscoverOptions['onDiagnostic']): Project[] {
  if (isFile(join(home, PROJECTS_FILE))) return listedProjects(join(home, PROJECTS_FILE), onDiagnostic);
  if (isFile(join(home, DB_NAME))) return [{ db: join(home, DB_NAME), cwd: basename(home) === '.crush' ? dirname(home) : undefined }];
  if (!existsSync(home)) throw new UserError(`no Crush data folder here (set --home or ${HOME_ENV})`, home);
  throw new UserError(`no ${PROJECTS_FILE} and no ${DB_NAME} in this folder`, home);
}

function refOf(project: Project, row: SessionRow, home?: string): SessionRef {
  const ref: SessionRef = { agent: AGENT, native_id: row.id, path: formatLocator(project.db, row.id), store_kind: 'sqlite' };
  if (project.cwd) ref.cwd = project.cwd;
  if (row.title) ref.title = row.title;
  const first = seconds(row.created_at);
  const last = seconds(row.updated_at) ?? first;
  if (first) ref.first_ts = first;
  if (last) ref.last_ts = ref.mtime = last;
  if (row.parent_session_id) ref.parent_native_id = row.parent_session_id;
  if (home) ref.home = home;
  return ref;
}

async function summarize(ref: SessionRef): Promise<SessionRef> {
  const { db, session } = parseLocator(ref.path);
  const rows = await withDb(db, (handle) => listMessages(handle, session ?? ref.native_id));
  const out: SessionRef = { ...ref, messages: 0, tool_calls: 0 };
  for (const row of rows) {
    let parts: unknown;
    try {
      parts = JSON.parse(row.parts);
    } catch {
      continue;
    }
    if (row.role === 'user' || row.role === 'assistant') out.messages! += 1;
    if (!Array.isArray(parts)) continue;
    for (const part of parts) {
      if (!isObject(part) || !isObject(part.data)) continue;
      if (part.type === 'tool_call') out.tool_calls! += 1;
      if (out.first_prompt === undefined && row.role === 'user' && part.type === 'text' && typeof part.data.text === 'string') out.first_prompt = promptTitle(part.data.text);
    }
    if (row.role === 'assistant' && row.model) out.model = row.model;
  }
  return out;
}

/** The session a path names: `<crush.db>#<id>`, a crush.db (its newest top-level session) or a data directory. */
export async function openSession(path: string): Promise<SessionRef> {
  const { db: given, session } = parseLocator(path);
  const db = isFile(join(given, DB_NAME)) ? join(given, DB_NAME) : given;
  if (!isFile(db)) throw new UserError(existsSync(db) ? 'not a Crush database (crush.db or a data folder holding one)' : 'no such file or folder', db);
  const rows = await withDb(db, listSessions);
  const row = session !== undefined ? rows.find((r) => r.id === session) : rows.find((r) => !r.parent_session_id) ?? rows[0];
  if (!row) throw new UserError(session !== undefined ? `no session ${session} in this database` : 'no sessions in it', db);
  const folder = dirname(db);
  return refOf({ db, cwd: basename(folder) === '.crush' ? dirname(folder) : undefined }, row);
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const wantCwd = options.cwd !== undefined ? resolve(expandTilde(options.cwd)) : undefined;
  const found: SessionRef[] = [];
  for (const project of projectsOf(home, options.onDiagnostic)) {
    if (wantCwd !== undefined && project.cwd !== wantCwd) continue;
    for (const row of await withDb(project.db, listSessions)) found.push(refOf(project, row, home));
  }
  found.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  for (const ref of found) yield options.details ? await summarize(ref) : ref;
}

export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  return findByIdPrefix(discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic }), id, `no Crush session "${id}" (sp-capture crush --list shows the sessions)`);
}
