// Finding Auggie sessions (docs/formats/auggie.md §2): every `<home>/sessions/<uuid>.json`, newest
// first by modification time; the cwd comes from the IDE state the client records with each request.
import { readdirSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix, noteTime, sessionRefsNewestFirst } from '../../lib/capture/discover.js';
import { statSessionFile } from '../../lib/capture/read-position.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { isObject, str } from '../../lib/core/json.js';
import { readSessionFile } from './capture.js';
import { cwdOf, exchangeEvents } from './exchange.js';
import { AGENT, NATIVE_ID, defaultHome, expandTilde, idFromPath, sessionsDir } from './paths.js';

function refOf(path: string, mtime: number): SessionRef {
  const ref: SessionRef = { agent: AGENT, native_id: idFromPath(path), path, mtime };
  try {
    const { document, history } = readSessionFile(path);
    const cwd = cwdOf(history);
    if (cwd) ref.cwd = cwd;
    if (isObject(document.agentState) && str(document.agentState.modelId)) ref.model = document.agentState.modelId as string;
  } catch {
    // listed without details; capture reports what is wrong with it
  }
  return ref;
}

export async function openSession(path: string): Promise<SessionRef> {
  const file = resolve(expandTilde(path));
  const { mtime } = statSessionFile(file, 'Auggie session file', path);
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
  for (const entry of history) {
    if (!isObject(entry)) continue;
    noteTime(out, entry.finishedAt);
    for (const event of exchangeEvents(entry)) {
      if (event.type === 'message.user') {
        messages += 1;
        const content = event.payload.content as Array<{ text?: string }>;
        const text = content.map((b) => b.text ?? '').join('\n');
        if (out.first_prompt === undefined && text.trim() !== '') out.first_prompt = promptTitle(text);
      } else if (event.type === 'message.assistant') messages += 1;
      else if (event.type === 'tool.call') toolCalls += 1;
    }
  }
  out.messages = messages;
  out.tool_calls = toolCalls;
  return out;
}

export async function* discoverSessions(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const root = sessionsDir(home);
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch (err) {
    throw new UserError(`cannot read the Auggie sessions folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (set --home or SP_AUGGIE_HOME)`, root);
  }
  // Only files named by a session id: the client keeps nothing else there, and a stray name is not a session.
  const paths = entries.filter((e) => e.isFile() && e.name.endsWith('.json') && NATIVE_ID.pattern.test(e.name.slice(0, -5))).map((e) => join(root, e.name));
  const where = { home, cwd: options.cwd !== undefined ? expandTilde(options.cwd) : undefined, details: options.details };
  yield* sessionRefsNewestFirst(paths, where, refOf, summarize);
}

export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Auggie session "${id}" under ${sessionsDir(home)} (sp-capture auggie --list shows the sessions)`, { where: home });
}
