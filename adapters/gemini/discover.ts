// Finding Gemini CLI sessions: every `<home>/tmp/<slug>/chats/session-*.json(l)` (the names the
// client lists; sub-agent files live one folder deeper and are never listed), newest first by
// modification time. The session id is the metadata's `sessionId` (what `--resume <uuid>` matches),
// the project root the slug folder's `.project_root` (or projects.json).
import { readFileSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix, noteTime, sessionFilesByFolder } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError, errorCode } from '../../lib/cli/diagnostics.js';
import { sourceLines, statSessionFile } from '../../lib/capture/read-position.js';
import { toEpochSeconds } from '../../lib/core/event.js';
import { isObject, jsonObject, type Json } from '../../lib/core/json.js';
import { readFirstLine } from '../../lib/core/lines.js';
import { classifyPart, partList } from '../../lib/formats/content-parts.js';
import { defaultHome, isSessionFileName, layoutOf, shortIdOf, tmpDir } from './paths.js';
import { rootOfSlug } from './project.js';
import { SESSION_CONTEXT_ID, isContextText, isMetadata } from './records.js';

/** The metadata of a session file: line 1 of a JSONL file, the object of a legacy `.json` file. */
export function readMetadata(path: string): { metadata?: Json; legacy: boolean; document?: Json } {
  if (path.endsWith('.json')) {
    try {
      const value = jsonObject(readFileSync(path, 'utf8'));
      if (value && isMetadata(value)) return { metadata: value, legacy: true, document: value };
      if (value && typeof value.sessionId === 'string') return { metadata: value, legacy: true, document: value };
    } catch {
      // unreadable: the ref falls back to the name
    }
    return { legacy: true };
  }
  let line: string | undefined;
  try {
    line = readFirstLine(path);
  } catch {
    return { legacy: false };
  }
  const value = line !== undefined ? jsonObject(line) : undefined;
  return { metadata: value && isMetadata(value) ? value : undefined, legacy: false };
}

function refOf(path: string, mtime: number, home: string | undefined): SessionRef {
  const { metadata, legacy } = readMetadata(path);
  const ref: SessionRef = {
    agent: 'gemini',
    native_id: metadata && typeof metadata.sessionId === 'string' ? metadata.sessionId : shortIdOf(path) ?? basename(path).replace(/\.jsonl?$/, ''),
    path,
    mtime,
  };
  if (home !== undefined) ref.home = home;
  const { slugDir } = layoutOf(path);
  if (slugDir !== undefined) {
    const root = rootOfSlug(home, slugDir);
    if (root !== undefined) ref.cwd = root;
  }
  if (metadata) {
    const ts = toEpochSeconds(metadata.startTime);
    if (ts !== undefined) ref.first_ts = ts;
    if (typeof metadata.summary === 'string') ref.title = metadata.summary;
    if (metadata.kind === 'subagent') ref.subagent = true;
  }
  if (legacy) ref.format = 'json';
  return ref;
}

export async function openSession(path: string): Promise<SessionRef> {
  const file = resolve(path);
  const { mtime } = statSessionFile(file, 'Gemini CLI session file', path);
  return refOf(file, mtime, layoutOf(file).home);
}

/** Counts, first prompt, times and title, from one pass over the file (or the legacy object). */
export async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  const seen = new Set<string>();
  const calls = new Set<string>();
  let messages = 0;
  const note = (m: Json): void => {
    if (typeof m.id !== 'string' || seen.has(m.id)) {
      if (typeof m.id === 'string' && Array.isArray(m.toolCalls)) for (const c of m.toolCalls) if (isObject(c) && typeof c.id === 'string') calls.add(c.id);
      return;
    }
    seen.add(m.id);
    noteTime(out, m.timestamp);
    if (Array.isArray(m.toolCalls)) for (const c of m.toolCalls) if (isObject(c) && typeof c.id === 'string') calls.add(c.id);
    if (m.type !== 'user' || m.id === SESSION_CONTEXT_ID) return;
    const text = partList(m.content).map(classifyPart).filter((k) => k.kind === 'text').map((k) => (k.kind === 'text' ? k.text : '')).join('\n');
    if (text.trim() === '' || isContextText(text)) return;
    messages += 1;
    if (out.first_prompt === undefined) out.first_prompt = promptTitle(text);
  };
  const { document } = readMetadata(ref.path);
  if (document) {
    if (Array.isArray(document.messages)) for (const m of document.messages) if (isObject(m)) note(m);
  } else {
    const size = statSync(ref.path).size;
    for await (const line of sourceLines(ref.path, 0, size, 1)) {
      const record = jsonObject(line.text);
      if (!record) continue;
      if (isObject(record.$set) && typeof record.$set.summary === 'string') out.title = record.$set.summary;
      else if (typeof record.id === 'string') note(record);
    }
  }
  out.messages = messages;
  out.tool_calls = calls.size;
  return out;
}

function readDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw new UserError(`cannot read the Gemini CLI sessions folder: ${errorCode(err)} (set --home or GEMINI_CLI_HOME)`, dir);
  }
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(options.home ?? defaultHome());
  const root = tmpDir(home);
  const wantCwd = options.cwd !== undefined ? resolve(options.cwd) : undefined;
  const found: SessionRef[] = [];
  for (const { path, mtime } of sessionFilesByFolder(root, readDir(root), options.onDiagnostic, { subfolder: 'chats', accept: isSessionFileName })) {
    const ref = refOf(path, mtime, home);
    if (wantCwd !== undefined && ref.cwd !== wantCwd) continue;
    found.push(ref);
  }
  found.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  for (const ref of found) yield options.details ? await summarize(ref) : ref;
}

/** A session by id (or a unique prefix), as `gemini --resume <uuid>` matches the metadata's id. */
export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Gemini CLI session "${id}" under ${tmpDir(resolve(options.home ?? defaultHome()))} (sp-capture gemini --list shows the sessions)`);
}
