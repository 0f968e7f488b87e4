// Finding Droid sessions: every `<home>/sessions/<project slug>/<uuid>.jsonl` (and, for files an
// older client left at the top, `<home>/sessions/<uuid>.jsonl`), newest first by modification time.
// `--list` details come from one streaming pass per file (docs/formats/droid.md §1).
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix, noteTime, sessionRefsNewestFirst } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { sourceLines, statSessionFile } from '../../lib/capture/read-position.js';
import { isObject, jsonObject, str } from '../../lib/core/json.js';
import { readFirstLine } from '../../lib/core/lines.js';
import { sessionIdOfLine } from './capture.js';
import { AGENT } from './events.js';
import { defaultHome, expandTilde, idFromPath, sessionsDir } from './paths.js';

const SESSION_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

function refOf(path: string, mtime: number): SessionRef {
  let first: string | undefined;
  try {
    first = readFirstLine(path);
  } catch {
    first = undefined;
  }
  const ref: SessionRef = { agent: AGENT, native_id: sessionIdOfLine(first) ?? idFromPath(path), path, mtime };
  const start = first ? jsonObject(first) : undefined;
  if (start?.type === 'session_start') {
    if (str(start.cwd)) ref.cwd = start.cwd as string;
    if (str(start.title)) ref.title = start.title as string;
  }
  return ref;
}

export async function openSession(path: string): Promise<SessionRef> {
  const file = resolve(expandTilde(path));
  const { mtime } = statSessionFile(file, 'Droid session .jsonl', path);
  return refOf(file, mtime);
}

async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  let messages = 0;
  let toolCalls = 0;
  for await (const line of sourceLines(ref.path, 0, statSync(ref.path).size, 1)) {
    const record = jsonObject(line.text);
    if (!record || record.type !== 'message' || !isObject(record.message) || record.message.visibility === 'llm_only') continue;
    noteTime(out, record.timestamp);
    const message = record.message;
    const blocks = Array.isArray(message.content) ? message.content.filter(isObject) : [];
    if (message.role === 'user') {
      const text = blocks.find((b) => b.type === 'text' && typeof b.text === 'string');
      if (!text) continue;
      messages += 1;
      if (out.first_prompt === undefined && String(text.text).trim() !== '') out.first_prompt = promptTitle(String(text.text));
    } else if (message.role === 'assistant') {
      messages += 1;
      toolCalls += blocks.filter((b) => b.type === 'tool_use').length;
      if (str(message.modelId)) out.model = message.modelId as string;
    }
  }
  out.messages = messages;
  out.tool_calls = toolCalls;
  return out;
}

function sessionFiles(root: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch (err) {
    throw new UserError(`cannot read the Droid sessions folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (set --home or SP_DROID_HOME)`, root);
  }
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.isFile() && SESSION_FILE.test(entry.name)) files.push(join(root, entry.name));
    else if (entry.isDirectory() && !entry.name.startsWith('.')) {
      let inner: Dirent[];
      try {
        inner = readdirSync(join(root, entry.name), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const file of inner) if (file.isFile() && SESSION_FILE.test(file.name)) files.push(join(root, entry.name, file.name));
    }
  }
  return files;
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const where = { home, cwd: options.cwd !== undefined ? expandTilde(options.cwd) : undefined, details: options.details };
  yield* sessionRefsNewestFirst(sessionFiles(sessionsDir(home)), where, refOf, summarize);
}

export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Droid session "${id}" under ${sessionsDir(home)} (sp-capture droid --list shows the sessions)`, { where: home });
}
