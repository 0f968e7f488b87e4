// Finding Qwen Code sessions: every `<runtime>/projects/<folder>/chats/<uuid>.jsonl` (the names the
// client accepts), newest first by modification time (what `qwen --continue` picks). The session
// id is the file name; the cwd is the first record's (the client checks it on resume).
import { readdirSync, statSync, type Dirent } from 'node:fs';
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
import { SESSION_FILE, projectsDir, runtimeDir, runtimeOfFile } from './paths.js';

export function readHead(path: string): Json | undefined {
  try {
    const line = readFirstLine(path);
    return line !== undefined ? jsonObject(line) : undefined;
  } catch {
    return undefined;
  }
}

function refOf(path: string, mtime: number, runtime: string | undefined): SessionRef {
  const head = readHead(path);
  const name = basename(path, '.jsonl');
  const ref: SessionRef = {
    agent: 'qwen',
    native_id: SESSION_FILE.test(basename(path)) ? name : head && typeof head.sessionId === 'string' ? head.sessionId : name,
    path,
    mtime,
  };
  if (runtime !== undefined) ref.home = runtime;
  if (head) {
    if (typeof head.cwd === 'string') ref.cwd = head.cwd;
    const ts = toEpochSeconds(head.timestamp);
    if (ts !== undefined) ref.first_ts = ts;
  }
  return ref;
}

export async function openSession(path: string): Promise<SessionRef> {
  const file = resolve(path);
  const { mtime } = statSessionFile(file, 'Qwen Code session file (.jsonl)', path);
  return refOf(file, mtime, runtimeOfFile(file));
}

export async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  let messages = 0;
  let calls = 0;
  const size = statSync(ref.path).size;
  for await (const line of sourceLines(ref.path, 0, size, 1)) {
    const record = jsonObject(line.text);
    if (!record) continue;
    noteTime(out, record.timestamp);
    if (record.type === 'system' && record.subtype === 'custom_title' && isObject(record.systemPayload) && typeof record.systemPayload.customTitle === 'string') {
      out.title = record.systemPayload.customTitle;
    }
    if (out.model === undefined && record.type === 'assistant' && typeof record.model === 'string') out.model = record.model;
    const parts = partList(isObject(record.message) ? record.message.parts : undefined).map(classifyPart);
    calls += parts.filter((k) => k.kind === 'call').length;
    if (record.type !== 'user') continue;
    const text = parts.map((k) => (k.kind === 'text' ? k.text : '')).join('');
    if (text.trim() === '') continue;
    messages += 1;
    if (out.first_prompt === undefined) out.first_prompt = promptTitle(text);
  }
  out.messages = messages;
  out.tool_calls = calls;
  return out;
}

function readDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw new UserError(`cannot read the Qwen Code projects folder: ${errorCode(err)} (set --home or QWEN_HOME / QWEN_RUNTIME_DIR)`, dir);
  }
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const runtime = runtimeDir(options.home);
  const root = projectsDir(runtime);
  const wantCwd = options.cwd !== undefined ? resolve(options.cwd) : undefined;
  const found: SessionRef[] = [];
  for (const { path, mtime } of sessionFilesByFolder(root, readDir(root), options.onDiagnostic, { subfolder: 'chats', accept: (name) => SESSION_FILE.test(name) })) {
    const ref = refOf(path, mtime, runtime);
    if (wantCwd !== undefined && ref.cwd !== wantCwd) continue;
    found.push(ref);
  }
  found.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  for (const ref of found) yield options.details ? await summarize(ref) : ref;
}

export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Qwen Code session "${id}" under ${projectsDir(runtimeDir(options.home))} (sp-capture qwen --list shows the sessions)`);
}
