// Finding Aider histories: Aider writes `.aider.chat.history.md` into each repository it runs in,
// so discovery searches a directory tree (the "home": AIDER_HISTORY_ROOT or --home, default the
// current directory) for those files, newest first. One ref per file; its capture yields every
// session in it.
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { filesUnder } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { statSessionFile } from '../../lib/capture/read-position.js';
import { captureAider } from './capture.js';
import { AGENT, CHAT_FILE, defaultHome, expandTilde, fileId, isInputHistory } from './paths.js';

/** How deep under the search root history files are looked for (repositories inside a projects folder …). */
const MAX_DEPTH = 5;
const SKIP = new Set(['node_modules', '.git', '.venv', 'venv', '__pycache__', 'dist', 'build', 'target']);

function refOf(path: string, mtime: number): SessionRef {
  const ref: SessionRef = { agent: AGENT, native_id: fileId(path), path, mtime, cwd: dirname(path) };
  if (isInputHistory(path)) ref.kind = 'input-history';
  return ref;
}

export async function openHistory(path: string): Promise<SessionRef> {
  let file = resolve(expandTilde(path));
  try {
    if (statSync(file).isDirectory()) file = join(file, CHAT_FILE);
  } catch {
    // reported below
  }
  const { mtime } = statSessionFile(file, 'Aider chat history');
  return refOf(file, mtime);
}

async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  let messages = 0;
  let sessions = 0;
  for await (const event of captureAider(ref)) {
    if (event.type === 'session.start') {
      sessions += 1;
      out.first_ts ??= event.ts;
      out.last_ts = event.ts;
    } else if (event.type === 'message.user' || event.type === 'message.assistant') {
      messages += 1;
      out.last_ts = Math.max(out.last_ts ?? 0, event.ts);
      const content = (event.payload as { content?: { text?: string }[] }).content;
      if (out.first_prompt === undefined && event.type === 'message.user' && content?.[0]?.text) out.first_prompt = promptTitle(content[0].text);
    }
  }
  out.messages = messages;
  out.tool_calls = 0;
  out.sessions = sessions;
  return out;
}

export async function* discoverHistories(options: DiscoverOptions = {}): AsyncGenerator<SessionRef> {
  const root = resolve(expandTilde(options.home ?? defaultHome()));
  try {
    if (!statSync(root).isDirectory()) throw new UserError('not a directory to search for Aider histories', root);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read the folder to search for Aider histories: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (set --home or AIDER_HISTORY_ROOT)`, root);
  }
  const wantCwd = options.cwd !== undefined ? resolve(expandTilde(options.cwd)) : undefined;
  const found: SessionRef[] = [];
  for (const path of filesUnder(root, { maxDepth: MAX_DEPTH, enter: (name) => !SKIP.has(name), accept: (name) => name === CHAT_FILE })) {
    if (wantCwd !== undefined && dirname(path) !== wantCwd) continue;
    try {
      found.push(refOf(path, statSync(path).mtimeMs / 1000));
    } catch {
      continue;
    }
  }
  found.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  for (const ref of found) yield options.details ? await summarize(ref) : ref;
}
