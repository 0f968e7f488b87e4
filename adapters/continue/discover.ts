// Finding Continue CLI sessions (docs/formats/continue.md §2): every `<home>/sessions/<id>.json` but
// the index, newest first by modification time. `cn ls` lists the sessions `sessions.json` names and
// `cn --resume` takes the newest file whatever the index says, so every session file is listed; the
// index gives the creation time. Symbolic links are not followed out of the sessions folder.
import { readdirSync, type Dirent } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix, sessionRefsNewestFirst } from '../../lib/capture/discover.js';
import { statSessionFile } from '../../lib/capture/read-position.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { isObject, str } from '../../lib/core/json.js';
import { contentBlocks, createdAt, readIndex, readSessionFile } from './capture.js';
import { AGENT, UNTITLED, defaultHome, expandTilde, idFromPath, isSessionFileName, sessionsDir } from './paths.js';

function refOf(path: string, mtime: number, index = readIndex(dirname(path))): SessionRef {
  const ref: SessionRef = { agent: AGENT, native_id: idFromPath(path), path, mtime };
  const entry = index.get(ref.native_id);
  // The index entry names the cwd and title; only a session it does not know is read for them.
  let document: Record<string, unknown> | undefined = entry;
  if (!entry) {
    try {
      document = readSessionFile(path).document;
    } catch {
      // listed all the same: capture reports what is wrong with it
    }
  }
  const cwd = str(document?.workspaceDirectory);
  if (cwd) ref.cwd = cwd;
  const title = str(document?.title);
  if (title && title !== UNTITLED) ref.title = title;
  const created = createdAt(entry);
  if (created !== undefined) ref.first_ts = created;
  return ref;
}

export async function openSession(path: string): Promise<SessionRef> {
  const file = resolve(expandTilde(path));
  const { mtime } = statSessionFile(file, 'Continue session file', path);
  return refOf(file, mtime);
}

export async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  let history: unknown[];
  try {
    history = readSessionFile(ref.path).history;
  } catch {
    return out;
  }
  let messages = 0;
  let toolCalls = 0;
  for (const item of history) {
    const message = isObject(item) && isObject(item.message) ? item.message : undefined;
    if (message?.role === 'user') {
      messages += 1;
      const text = contentBlocks(message.content).blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
      if (out.first_prompt === undefined && text.trim() !== '') out.first_prompt = promptTitle(text);
    } else if (message?.role === 'assistant') {
      messages += 1;
      toolCalls += Array.isArray(message.toolCalls) ? message.toolCalls.length : 0;
    }
  }
  out.messages = messages;
  out.tool_calls = toolCalls;
  if (out.first_ts !== undefined) out.last_ts = out.mtime;
  return out;
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const root = sessionsDir(home);
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch (err) {
    throw new UserError(`cannot read the Continue sessions folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (set --home or CONTINUE_GLOBAL_DIR)`, root);
  }
  const paths = entries.filter((entry) => entry.isFile() && isSessionFileName(entry.name)).map((entry) => join(root, entry.name));
  const index = readIndex(root);
  const where = { home, cwd: options.cwd !== undefined ? expandTilde(options.cwd) : undefined, details: options.details };
  yield* sessionRefsNewestFirst(paths, where, (path, mtime) => refOf(path, mtime, index), summarize);
}

export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Continue session "${id}" under ${sessionsDir(home)} (sp-capture continue --list shows the sessions)`, { where: home, ignoreCase: true });
}
