// Finding Pi sessions: every `<home>/sessions/--<cwd>--/*.jsonl` whose line 1 is a session header
// (the client lists the folder and takes any such file; the name is cosmetic), newest first by
// modification time as `pi -c` picks them. `--list` details come from one streaming pass per file.
import { closeSync, openSync, readSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix, noteTime, sessionFilesByFolder } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError, errorCode } from '../../lib/cli/diagnostics.js';
import { toEpochSeconds } from '../../lib/core/event.js';
import { sourceLines, statSessionFile } from '../../lib/capture/read-position.js';
import { readFirstLine } from '../../lib/core/lines.js';
import { isObject, jsonObject, str, type Json } from '../../lib/core/json.js';
import { isHeader, textOf, versionOf } from './format.js';
import { cwdFolder, defaultHome, homeOfSessionFile, idFromFileName, resolveCwd, sessionsDir } from './paths.js';

/** The session header of a file, or why it has none the client would accept. */
export function readHeader(path: string): { header?: Json; problem?: string } {
  let line: string | undefined;
  try {
    line = readFirstLine(path);
  } catch (err) {
    return { problem: `cannot read: ${errorCode(err)}` };
  }
  if (line === undefined || line.trim() === '') return { problem: 'empty file or blank line 1 (no session header)' };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { problem: 'line 1 is not JSON (no session header)' };
  }
  if (!isHeader(value)) return { problem: 'line 1 is not a session header {"type":"session","id":…}' };
  return { header: value };
}

/** The native session id a `parentSession` / `branchedFrom` path names (its `<ts>_<id>.jsonl`). */
function parentIdOf(header: Json): string | undefined {
  const from = str(header.parentSession) ?? str(header.branchedFrom);
  return from ? idFromFileName(from) ?? from : undefined;
}

function refOf(path: string, header: Json | undefined, mtime: number, home: string | undefined): SessionRef {
  const ref: SessionRef = {
    agent: 'pi',
    native_id: header ? String(header.id) : idFromFileName(path) ?? basename(path, '.jsonl'),
    path,
    mtime,
  };
  if (home !== undefined) ref.home = home;
  if (header) {
    if (typeof header.cwd === 'string') ref.cwd = header.cwd;
    const ts = toEpochSeconds(header.timestamp);
    if (ts !== undefined) ref.first_ts = ts;
    ref.format_version = versionOf(header);
    const parent = parentIdOf(header);
    if (parent !== undefined) ref.parent_native_id = parent;
  } else {
    ref.header = false;
  }
  return ref;
}

/** The ref of one session file, wherever it lies (a file without a valid header is still captured). */
export async function openSession(path: string): Promise<SessionRef> {
  const file = resolve(path);
  const { mtime } = statSessionFile(file, 'Pi session file (.jsonl)', path);
  const { header } = readHeader(file);
  return refOf(file, header, mtime, homeOfSessionFile(file));
}

/** What `--list` shows for one session: counts, first prompt, last time, title, model, branches. */
export async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  const size = statSync(ref.path).size;
  const ids = new Set<string>();
  const parents = new Set<string>();
  let messages = 0;
  let toolCalls = 0;
  let entries = 0;
  for await (const line of sourceLines(ref.path, 0, size, 1)) {
    if (line.number === 1) continue;
    const entry = jsonObject(line.text);
    if (!entry || entry.type === 'session') continue;
    entries += 1;
    if (typeof entry.id === 'string') ids.add(entry.id);
    if (typeof entry.parentId === 'string') parents.add(entry.parentId);
    noteTime(out, entry.timestamp);
    if (entry.type === 'session_info') {
      if (typeof entry.name === 'string' && entry.name !== '') out.title = entry.name;
      else delete out.title;
    }
    if (entry.type === 'model_change' && typeof entry.modelId === 'string') out.model = entry.modelId;
    const message = isObject(entry.message) ? entry.message : undefined;
    if (entry.type !== 'message' || !message) continue;
    if (message.role === 'user') {
      messages += 1;
      if (out.first_prompt === undefined) {
        const text = textOf(message.content);
        out.first_prompt = promptTitle(text);
      }
    } else if (message.role === 'assistant') {
      messages += 1;
      if (typeof message.model === 'string') out.model = message.model;
      if (Array.isArray(message.content)) toolCalls += message.content.filter((b) => isObject(b) && b.type === 'toolCall').length;
    }
  }
  out.messages = messages;
  out.tool_calls = toolCalls;
  out.entries = entries;
  // Leaves of the tree: entries nobody names as parent (v1 files are one linear branch).
  if (ids.size > 0) {
    let leaves = 0;
    for (const id of ids) if (!parents.has(id)) leaves += 1;
    out.branches = leaves;
  } else if (entries > 0) {
    out.branches = 1;
  }
  return out;
}

function readDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`cannot read the Pi sessions folder: ${code ?? (err as Error).message} (set --home or PI_CODING_AGENT_DIR)`, dir);
  }
}

/** Every session under the home, newest first (by mtime); `cwd` keeps one project's. */
export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(options.home ?? defaultHome());
  const root = sessionsDir(home);
  const wantCwd = options.cwd !== undefined ? resolveCwd(options.cwd) : undefined;
  const wantFolder = wantCwd !== undefined ? cwdFolder(wantCwd) : undefined;
  const found: SessionRef[] = [];
  for (const { folder, path, mtime } of sessionFilesByFolder(root, readDir(root), options.onDiagnostic)) {
    const { header, problem } = readHeader(path);
    if (!header) {
      options.onDiagnostic?.(`${path}:1`, `${problem}; not a session the client lists, skipped (capture it with --path)`);
      continue;
    }
    const ref = refOf(path, header, mtime, home);
    // The folder is the client's own filing (`pi -c` looks only there); a recorded cwd equal to the one asked for also counts.
    if (wantFolder !== undefined && folder !== wantFolder && (typeof header.cwd !== 'string' || resolve(header.cwd) !== wantCwd)) continue;
    found.push(ref);
  }
  found.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  for (const ref of found) yield options.details ? await summarize(ref) : ref;
}

/** The session of an id (or a unique prefix of one, as `pi --session <prefix>` takes it) under the home. */
export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const home = resolve(options.home ?? defaultHome());
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Pi session "${id}" under ${sessionsDir(home)} (sp-capture pi --list shows the sessions)`, { where: home });
}
