// Finding Kimi CLI sessions (docs/formats/kimi.md §1): every `<home>/sessions/<work dir
// folder>/<uuid>/context.jsonl` (and an older client's `<work dir folder>/<uuid>.jsonl`), newest
// first by modification time. The work dir of a folder comes from `kimi.json` (a folder it does not
// name has no cwd); the title from the session's `state.json` (custom_title). Only real folders and
// regular files are read: a symbolic link never leads discovery out of the home.
import { lstatSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix, noteTime, sessionRefsNewestFirst } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { sourceLines, statSessionFile } from '../../lib/capture/read-position.js';
import { isObject, jsonObject, str } from '../../lib/core/json.js';
import { AGENT, partsOf } from './events.js';
import { wireStartTime } from './wire.js';
import { CONTEXT_FILE, METADATA_FILE, SESSION_ID, WORK_DIR_FOLDER, defaultHome, expandTilde, idFromPath, sessionsDir, workDirFolder } from './paths.js';

/** Side files larger than this are not read for a title or the work dirs (they are small). */
const SIDE_FILE_LIMIT = 4 * 1024 * 1024;

function readSmallJson(path: string): Record<string, unknown> | undefined {
  try {
    const stat = lstatSync(path);
    if (!stat.isFile() || stat.size > SIDE_FILE_LIMIT) return undefined;
    return jsonObject(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Work dir by session folder name, from `kimi.json` `work_dirs[]` ({path, kaos}). */
export function workDirsOf(home: string): Map<string, string> {
  const out = new Map<string, string>();
  const metadata = readSmallJson(join(home, METADATA_FILE));
  for (const entry of Array.isArray(metadata?.work_dirs) ? metadata.work_dirs : []) {
    if (!isObject(entry) || !str(entry.path)) continue;
    const kaos = str(entry.kaos) ?? 'local';
    const hash = workDirFolder(entry.path as string);
    out.set(kaos === 'local' ? hash : `${kaos}_${hash}`, entry.path as string);
  }
  return out;
}

/** The session's folder (`<uuid>/` for context.jsonl; none for an older client's `<uuid>.jsonl`). */
function sessionFolderOf(path: string): string | undefined {
  return basename(path) === CONTEXT_FILE ? dirname(path) : undefined;
}

function refOf(path: string, mtime: number, workDirs: Map<string, string>): SessionRef {
  const ref: SessionRef = { agent: AGENT, native_id: idFromPath(path), path, mtime };
  const folder = sessionFolderOf(path);
  const workDirFolderName = basename(folder ? dirname(folder) : dirname(path));
  const cwd = workDirs.get(workDirFolderName);
  if (cwd !== undefined) ref.cwd = cwd;
  const state = folder ? readSmallJson(join(folder, 'state.json')) : undefined;
  if (state && str(state.custom_title)) ref.title = state.custom_title as string;
  if (state?.archived === true) ref.archived = true;
  return ref;
}

export async function openSession(path: string): Promise<SessionRef> {
  const file = resolve(expandTilde(path));
  const { mtime } = statSessionFile(file, 'Kimi CLI context .jsonl', path);
  // The work dirs are in kimi.json two or three folders up (`<home>/sessions/<hash>/[<uuid>/]`).
  const hashFolder = sessionFolderOf(file) ? dirname(dirname(file)) : dirname(file);
  return refOf(file, mtime, workDirsOf(dirname(dirname(hashFolder))));
}

/** A text the client itself put in a user message (`<system>…`, `<system-reminder>…`), not a prompt. */
function isClientText(text: string): boolean {
  return /^\s*<system(?:-reminder)?>/.test(text);
}

async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  let messages = 0;
  let toolCalls = 0;
  for await (const line of sourceLines(ref.path, 0, statSync(ref.path).size, 1)) {
    const record = jsonObject(line.text);
    if (!record) continue;
    if (record.role === 'user') {
      const text = partsOf(record.content).find((p): p is { text: string } => isObject(p) && p.type === 'text' && typeof p.text === 'string' && !isClientText(p.text));
      if (!text) continue;
      messages += 1;
      if (out.first_prompt === undefined && text.text.trim() !== '') out.first_prompt = promptTitle(text.text);
    } else if (record.role === 'assistant') {
      messages += 1;
      if (Array.isArray(record.tool_calls)) toolCalls += record.tool_calls.length;
    }
  }
  // The context file has no times: the wire log's first record starts the session, the file's mtime ends it.
  noteTime(out, wireStartTime(ref.path));
  if (out.mtime !== undefined) noteTime(out, out.mtime);
  out.messages = messages;
  out.tool_calls = toolCalls;
  return out;
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** The context files under `root`: `<folder>/<uuid>/context.jsonl` and `<folder>/<uuid>.jsonl`. */
function contextFiles(root: string): string[] {
  let folders: Dirent[];
  try {
    folders = readdirSync(root, { withFileTypes: true });
  } catch (err) {
    throw new UserError(`cannot read the Kimi CLI sessions folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (set --home or SP_KIMI_HOME)`, root);
  }
  const files: string[] = [];
  for (const folder of folders) {
    if (!folder.isDirectory() || !WORK_DIR_FOLDER.test(folder.name)) continue;
    let entries: Dirent[];
    try {
      entries = readdirSync(join(root, folder.name), { withFileTypes: true });
    } catch {
      continue;
    }
    const seen = new Set<string>();
    for (const entry of entries) {
      if (entry.isDirectory() && SESSION_ID.test(entry.name)) {
        const file = join(root, folder.name, entry.name, CONTEXT_FILE);
        if (isRegularFile(file)) {
          files.push(file);
          seen.add(entry.name);
        }
      }
    }
    // The client moves `<uuid>.jsonl` into `<uuid>/context.jsonl` when it opens one; both at once: the folder wins.
    for (const entry of entries) {
      const id = entry.name.replace(/\.jsonl$/, '');
      if (entry.isFile() && entry.name.endsWith('.jsonl') && SESSION_ID.test(id) && !seen.has(id)) files.push(join(root, folder.name, entry.name));
    }
  }
  return files;
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const workDirs = workDirsOf(home);
  const where = { home, cwd: options.cwd !== undefined ? expandTilde(options.cwd) : undefined, details: options.details };
  yield* sessionRefsNewestFirst(contextFiles(sessionsDir(home)), where, (path, mtime) => refOf(path, mtime, workDirs), summarize);
}

export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Kimi CLI session "${id}" under ${sessionsDir(home)} (sp-capture kimi --list shows the sessions)`, { where: home, ignoreCase: true });
}
