// Finding Copilot sessions: every `<home>/session-state/<id>/events.jsonl`, newest first by
// modification time (as `--continue` picks the most recent). `--list` details come from one
// streaming pass per file.
import { existsSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix, noteTime, sessionRefsNewestFirst } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { sourceLines, statSessionFile } from '../../lib/capture/read-position.js';
import { isObject, jsonObject, str } from '../../lib/core/json.js';
import { sessionIdOfLine } from './capture.js';
import { AGENT } from './events.js';
import { EVENTS_FILE, defaultHome, expandTilde, idFromPath, readFirstLine, readWorkspace, sessionStateDir } from './paths.js';

/** The events file a path names: a session folder means its events.jsonl. */
function eventsPathOf(path: string): string {
  const plain = resolve(expandTilde(path));
  try {
    if (statSync(plain).isDirectory()) return join(plain, EVENTS_FILE);
  } catch {
    // reported by statSessionFile below
  }
  return plain;
}

function refOf(path: string, mtime: number): SessionRef {
  let first: string | undefined;
  try {
    first = readFirstLine(path);
  } catch {
    first = undefined;
  }
  const fromLine = sessionIdOfLine(first);
  const ref: SessionRef = { agent: AGENT, native_id: fromLine ?? (basename(path) === EVENTS_FILE ? idFromPath(path) : basename(path, '.jsonl')), path, mtime };
  const start = first ? jsonObject(first) : undefined;
  const context = start && isObject(start.data) && isObject(start.data.context) ? start.data.context : undefined;
  const workspace = readWorkspace(path);
  const cwd = str(context?.cwd) ?? workspace?.cwd;
  if (cwd) ref.cwd = cwd;
  if (workspace?.name) ref.title = workspace.name;
  return ref;
}

export async function openSession(path: string): Promise<SessionRef> {
  const file = eventsPathOf(path);
  const { mtime } = statSessionFile(file, 'Copilot events.jsonl', path);
  return refOf(file, mtime);
}

async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  let messages = 0;
  let toolCalls = 0;
  for await (const line of sourceLines(ref.path, 0, statSync(ref.path).size, 1)) {
    const record = jsonObject(line.text);
    if (!record) continue;
    noteTime(out, record.timestamp);
    const data = isObject(record.data) ? record.data : {};
    if (record.type === 'user.message') {
      messages += 1;
      if (out.first_prompt === undefined && typeof data.content === 'string' && data.content.trim() !== '') out.first_prompt = promptTitle(data.content);
    } else if (record.type === 'assistant.message') {
      messages += 1;
      if (Array.isArray(data.toolRequests)) toolCalls += data.toolRequests.length;
      if (str(data.model)) out.model = data.model;
    }
  }
  out.messages = messages;
  out.tool_calls = toolCalls;
  return out;
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const root = sessionStateDir(home);
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch (err) {
    throw new UserError(`cannot read the Copilot session-state folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (set --home or COPILOT_HOME)`, root);
  }
  // Entries that are session folders holding an events file; the rest is shared (lib/capture/discover.ts).
  const paths = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => join(root, entry.name, EVENTS_FILE))
    .filter((path) => existsSync(path));
  const where = { home, cwd: options.cwd !== undefined ? expandTilde(options.cwd) : undefined, details: options.details };
  yield* sessionRefsNewestFirst(paths, where, refOf, summarize);
}

export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Copilot session "${id}" under ${sessionStateDir(home)} (sp-capture copilot --list shows the sessions)`, { where: home });
}
