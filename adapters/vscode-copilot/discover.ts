// Finding VS Code chat sessions (docs/formats/vscode-copilot.md §1): under each home (an editor's
// `User` folder) every `workspaceStorage/<hash>/chatSessions/<id>.json|.jsonl` and
// `globalStorage/emptyWindowChatSessions/<id>.json|.jsonl`, newest first. When a session has both
// files the log (`.jsonl`) is read, as the editor does. A folder or file that is a symbolic link, or
// whose name is not one the editor makes, is skipped and reported: a link could lead out of the home.
import { existsSync, lstatSync, readdirSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix, noteTime, sessionRefsNewestFirst } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError, errorCode } from '../../lib/cli/diagnostics.js';
import { expandTilde } from '../../lib/fs/paths.js';
import { isObject, str } from '../../lib/core/json.js';
import { requestText, roundsOf } from './parts.js';
import { AGENT, CHAT_SESSIONS, EMPTY_WINDOW_SESSIONS, HOME_ENV, SESSION_FILE, SESSION_ID, WORKSPACE_HASH, WORKSPACE_STORAGE, editorOf, homesOf, idOfFile } from './paths.js';
import { readSessionFile } from './read.js';
import { workspaceOf } from './workspace.js';

function refOf(path: string, mtime: number): SessionRef {
  const ref: SessionRef = { agent: AGENT, native_id: idOfFile(path) ?? path, path, mtime };
  const place = workspaceOf(path);
  if (place.cwd) ref.cwd = place.cwd;
  if (place.workspace) ref.workspace = place.workspace;
  return ref;
}

/** `--list` details: title, first prompt, times, request and tool call counts, the last model. */
async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  let session;
  try {
    session = readSessionFile(ref.path).session;
  } catch {
    return out;
  }
  if (!session) return out;
  if (str(session.customTitle)) out.title = session.customTitle as string;
  noteTime(out, session.creationDate);
  const requests = Array.isArray(session.requests) ? session.requests.filter(isObject) : [];
  let calls = 0;
  for (const request of requests) {
    noteTime(out, request.timestamp);
    if (out.first_prompt === undefined && requestText(request).trim() !== '') out.first_prompt = promptTitle(requestText(request));
    if (str(request.modelId)) out.model = request.modelId as string;
    const rounds = roundsOf(request);
    if (rounds) calls += rounds.reduce((n, round) => n + (Array.isArray(round.toolCalls) ? round.toolCalls.length : 0), 0);
    else if (Array.isArray(request.response)) calls += request.response.filter((p) => isObject(p) && p.kind === 'toolInvocationSerialized').length;
  }
  noteTime(out, session.lastMessageDate);
  out.messages = requests.length * 2;
  out.tool_calls = calls;
  return out;
}

function entriesOf(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** The session files of one chatSessions folder: plain files only, the log preferred over the flat file. */
function sessionFilesIn(folder: string, options: DiscoverOptions): string[] {
  const byId = new Map<string, string>();
  for (const entry of entriesOf(folder)) {
    const match = SESSION_FILE.exec(entry.name);
    if (!match) continue;
    const path = join(folder, entry.name);
    if (entry.isSymbolicLink()) {
      options.onDiagnostic?.(path, 'a symbolic link: not followed (a chat session must lie in its chatSessions folder)');
      continue;
    }
    if (!entry.isFile()) continue;
    if (match[2] === 'jsonl' || !byId.has(match[1])) byId.set(match[1], path);
  }
  return [...byId.values()];
}

/** A folder sp may enter: a real directory, not a link (reported). */
function plainFolder(path: string, options: DiscoverOptions): boolean {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) {
      options.onDiagnostic?.(path, 'a symbolic link: not followed (it could lead out of the editor\'s storage)');
      return false;
    }
    return stat.isDirectory();
  } catch {
    return false;
  }
}

function homeFiles(home: string, options: DiscoverOptions): string[] {
  const workspaces = join(home, WORKSPACE_STORAGE);
  const empty = join(home, EMPTY_WINDOW_SESSIONS);
  if (!existsSync(workspaces) && !existsSync(empty)) {
    throw new UserError(`no ${WORKSPACE_STORAGE}/ or ${EMPTY_WINDOW_SESSIONS}/ here: not an editor's User folder (set --home or ${HOME_ENV})`, home);
  }
  const files: string[] = [];
  if (plainFolder(workspaces, options)) {
    for (const entry of entriesOf(workspaces)) {
      const where = join(workspaces, entry.name);
      if (entry.isSymbolicLink()) options.onDiagnostic?.(where, 'a symbolic link: not followed (a workspace folder must lie in workspaceStorage)');
      else if (entry.isDirectory() && WORKSPACE_HASH.test(entry.name)) {
        const chats = join(where, CHAT_SESSIONS);
        if (existsSync(chats) && plainFolder(chats, options)) files.push(...sessionFilesIn(chats, options));
      }
    }
  }
  if (existsSync(empty) && plainFolder(empty, options)) files.push(...sessionFilesIn(empty, options));
  return files;
}

export async function* discoverVscodeCopilot(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const homes = homesOf(options.home);
  if (homes.length === 0) throw new UserError(`no VS Code chat storage found (looked in every editor's User folder); set --home or ${HOME_ENV}`);
  const cwd = options.cwd !== undefined ? expandTilde(options.cwd) : undefined;
  const all: SessionRef[] = [];
  for (const home of homes) {
    const editor = editorOf(home);
    for await (const ref of sessionRefsNewestFirst(homeFiles(home, options), { home, cwd, details: options.details }, refOf, summarize)) {
      if (editor) ref.editor = editor;
      all.push(ref);
    }
  }
  all.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  yield* all;
}

export async function openVscodeCopilot(path: string): Promise<SessionRef> {
  const file = resolve(expandTilde(path));
  if (!idOfFile(file)) throw new UserError('not a chat session file (<session id>.json or .jsonl)', file);
  let stat;
  try {
    stat = lstatSync(file);
  } catch (err) {
    throw new UserError(`cannot read: ${errorCode(err)}`, file);
  }
  if (stat.isSymbolicLink()) throw new UserError('a symbolic link: not followed (give the session file itself)', file);
  if (!stat.isFile()) throw new UserError('not a plain file', file);
  return refOf(file, stat.mtimeMs / 1000);
}

export async function findVscodeCopilot(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  // An id names a file: anything but an id's characters could name another place.
  if (!SESSION_ID.test(id)) throw new UserError(`"${id.slice(0, 80)}" is not a chat session id (letters, digits, - and _)`);
  const sessions = discoverVscodeCopilot({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no VS Code chat session "${id}" (sp-capture ${AGENT} --list shows the sessions)`);
}
