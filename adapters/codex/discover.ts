// Finding Codex sessions: every `rollout-*.jsonl` under `<home>/sessions/` (the client's
// YYYY/MM/DD folders, and files put directly in sessions/, which the client also finds), newest
// first by modification time. Titles come from `session_index.jsonl` (the TUI's thread names);
// `--list` details come from one streaming pass over each file.
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix, noteTime } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError, errorCode } from '../../lib/cli/diagnostics.js';
import { toEpochSeconds } from '../../lib/core/event.js';
import { sourceLines, statSessionFile } from '../../lib/capture/read-position.js';
import { isObject, jsonObject, type Json } from '../../lib/core/json.js';
import { AGENT, defaultHome, homeOfRollout, parseRolloutName, sessionIndexPath, sessionsDir } from './paths.js';
import { isContextText, isImageWrapper, type HeadInfo } from './rollout.js';

/**
 * The session_meta, first model and first timestamp from the head of a rollout. Bounded: it stops
 * once it knows them, or after `maxLines`, so a huge file costs only its first lines.
 */
export async function scanHead(path: string, end: number, options: { completeOnly?: boolean; maxLines?: number } = {}): Promise<HeadInfo> {
  const info: HeadInfo = {};
  const maxLines = options.maxLines ?? 200;
  for await (const line of sourceLines(path, 0, end, 1)) {
    if (options.completeOnly && !line.terminated) break;
    const record = jsonObject(line.text);
    if (record) {
      if (info.firstTs === undefined) info.firstTs = toEpochSeconds(record.timestamp);
      const payload = isObject(record.payload) ? record.payload : undefined;
      if (record.type === 'session_meta' && payload && info.meta === undefined) info.meta = payload;
      if (info.model === undefined && record.type === 'turn_context' && typeof payload?.model === 'string') info.model = payload.model;
    }
    if (line.number >= maxLines) break;
    if (info.meta !== undefined && info.model !== undefined && info.firstTs !== undefined) break;
  }
  return info;
}

/** Thread names from `session_index.jsonl` (one `{id, thread_name, updated_at}` per line; the last one wins). */
export async function readTitles(home: string): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  const path = sessionIndexPath(home);
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return titles;
  }
  for await (const line of sourceLines(path, 0, size, 1)) {
    const record = jsonObject(line.text);
    if (record && typeof record.id === 'string' && typeof record.thread_name === 'string') titles.set(record.id, record.thread_name);
  }
  return titles;
}

function messageText(item: Json): string {
  return Array.isArray(item.content)
    ? item.content
        .filter((p) => isObject(p) && typeof p.text === 'string' && !isImageWrapper(p.text))
        .map((p) => (p as { text: string }).text)
        .join(' ')
    : '';
}

/** What `--list` shows for one rollout: one full streaming pass. */
export async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  const size = statSync(ref.path).size;
  let prompts = 0;
  let replies = 0;
  let toolCalls = 0;
  for await (const line of sourceLines(ref.path, 0, size, 1)) {
    const record = jsonObject(line.text);
    if (!record) continue;
    noteTime(out, record.timestamp);
    const p = isObject(record.payload) ? record.payload : undefined;
    if (!p) continue;
    if (record.type === 'session_meta' && out.cwd === undefined && typeof p.cwd === 'string') out.cwd = p.cwd;
    if (record.type === 'turn_context' && out.model === undefined && typeof p.model === 'string') out.model = p.model;
    if (record.type !== 'response_item') continue;
    if (p.type === 'message' && p.role === 'user') {
      const text = messageText(p);
      if (text.trim() === '' || isContextText(text)) continue;
      prompts += 1;
      if (out.first_prompt === undefined) out.first_prompt = promptTitle(text);
    } else if (p.type === 'message' && p.role === 'assistant') {
      replies += 1;
    } else if (p.type === 'function_call' || p.type === 'custom_tool_call' || p.type === 'local_shell_call') {
      toolCalls += 1;
    }
  }
  out.messages = prompts + replies;
  out.tool_calls = toolCalls;
  return out;
}

/** The ref of one rollout file, wherever it lies: its id from session_meta, else from its name. */
export async function openRollout(path: string, titles?: Map<string, string>): Promise<SessionRef> {
  const file = resolve(path);
  const { size, mtime } = statSessionFile(file, 'Codex rollout (.jsonl)', path);
  const head = await scanHead(file, size, { maxLines: 20 });
  const named = parseRolloutName(file);
  const metaId = typeof head.meta?.id === 'string' && head.meta.id !== '' ? head.meta.id : undefined;
  // The client looks a thread up by the id in session_meta; the file name is the fallback.
  const nativeId = metaId ?? named?.id ?? basename(file).replace(/\.jsonl$/, '');
  const ref: SessionRef = { agent: AGENT, native_id: nativeId, path: file, mtime };
  const home = homeOfRollout(file);
  if (home !== undefined) ref.home = home;
  if (typeof head.meta?.cwd === 'string') ref.cwd = head.meta.cwd;
  const index = titles ?? (home !== undefined ? await readTitles(home) : undefined);
  const title = index?.get(nativeId);
  if (title !== undefined) ref.title = title;
  return ref;
}

/** Rollout files under a directory: the YYYY/MM/DD folders and the directory itself. */
function rolloutFiles(dir: string, depth: number, out: string[], onDiagnostic?: DiscoverOptions['onDiagnostic']): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (depth === 0) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UserError(`cannot read the Codex sessions folder: ${code ?? (err as Error).message} (set --home or CODEX_HOME)`, dir);
    }
    onDiagnostic?.(dir, `cannot read: ${errorCode(err)}; skipped`);
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && depth < 3) rolloutFiles(path, depth + 1, out, onDiagnostic);
    else if (entry.isFile() && entry.name.startsWith('rollout-') && entry.name.endsWith('.jsonl')) out.push(path);
  }
}

/** Every rollout under the home, newest first (by mtime); `cwd` keeps one project's. */
export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(options.home ?? defaultHome());
  const files: string[] = [];
  rolloutFiles(sessionsDir(home), 0, files, options.onDiagnostic);
  const titles = await readTitles(home);
  const wantCwd = options.cwd !== undefined ? resolve(options.cwd) : undefined;
  const stamped: Array<{ path: string; mtime: number }> = [];
  for (const path of files) {
    try {
      stamped.push({ path, mtime: statSync(path).mtimeMs });
    } catch {
      // deleted while we looked
    }
  }
  stamped.sort((a, b) => b.mtime - a.mtime || b.path.localeCompare(a.path));
  for (const { path } of stamped) {
    let ref: SessionRef;
    try {
      ref = await openRollout(path, titles);
    } catch (err) {
      options.onDiagnostic?.(path, `${(err as Error).message}; skipped`);
      continue;
    }
    ref.home = home;
    if (wantCwd !== undefined && (ref.cwd === undefined || resolve(ref.cwd) !== wantCwd)) continue;
    yield options.details ? await summarize(ref) : ref;
  }
}

/** The rollout of a session id (or a unique prefix of one) under the home. */
export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const home = resolve(options.home ?? defaultHome());
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Codex session "${id}" under ${sessionsDir(home)} (sp-capture codex --list shows the sessions)`, { where: home, ignoreCase: true });
}
