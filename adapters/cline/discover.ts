// Finding Cline CLI sessions (docs/formats/cline.md §2): every `<home>/data/sessions/<id>/<id>.messages.json`,
// newest first by modification time. The manifest beside it gives the cwd and the title; `--list`
// details come from reading the messages file.
import { existsSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DiscoverOptions, SessionRef } from '../../lib/adapter/interface.js';
import { findByIdPrefix, noteTime, sessionRefsNewestFirst } from '../../lib/capture/discover.js';
import { promptTitle } from '../../lib/capture/titles.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { statSessionFile } from '../../lib/capture/read-position.js';
import { isObject, str } from '../../lib/core/json.js';
import { readManifest, readMessagesFile, unwrapUserInput } from './capture.js';
import { AGENT, MESSAGES_SUFFIX, defaultHome, expandTilde, idFromPath, sessionsDir } from './paths.js';

/** The messages file a path names: a session folder means its `<id>.messages.json`, a manifest the file beside it. */
function messagesFileOf(path: string): string {
  const plain = resolve(expandTilde(path));
  try {
    if (statSync(plain).isDirectory()) {
      const name = plain.split('/').pop() ?? '';
      return join(plain, `${name}${MESSAGES_SUFFIX}`);
    }
  } catch {
    // reported by statSessionFile below
  }
  if (plain.endsWith('.json') && !plain.endsWith(MESSAGES_SUFFIX)) {
    const beside = plain.slice(0, -'.json'.length) + MESSAGES_SUFFIX;
    if (existsSync(beside)) return beside;
  }
  return plain;
}

function refOf(path: string, mtime: number): SessionRef {
  const ref: SessionRef = { agent: AGENT, native_id: idFromPath(path), path, mtime };
  const manifest = readManifest(path);
  const cwd = str(manifest?.cwd) ?? str(manifest?.workspace_root);
  if (cwd) ref.cwd = cwd;
  const title = isObject(manifest?.metadata) ? str(manifest.metadata.title) : undefined;
  if (title) ref.title = title;
  if (str(manifest?.model)) ref.model = manifest!.model;
  return ref;
}

export async function openSession(path: string): Promise<SessionRef> {
  const file = messagesFileOf(path);
  const { mtime } = statSessionFile(file, 'Cline messages file', path);
  return refOf(file, mtime);
}

export async function summarize(ref: SessionRef): Promise<SessionRef> {
  const out: SessionRef = { ...ref };
  let messages = 0;
  let toolCalls = 0;
  let list: unknown[] = [];
  try {
    list = readMessagesFile(ref.path).messages;
  } catch {
    return out;
  }
  for (const message of list) {
    if (!isObject(message)) continue;
    noteTime(out, message.ts);
    const content = Array.isArray(message.content) ? message.content.filter(isObject) : [];
    const texts = content.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => unwrapUserInput(String(b.text)).text);
    if (message.role === 'user' && texts.length > 0) {
      messages += 1;
      if (out.first_prompt === undefined && texts.join('\n').trim() !== '') out.first_prompt = promptTitle(texts.join('\n'));
    } else if (message.role === 'assistant') {
      messages += 1;
      toolCalls += content.filter((b) => b.type === 'tool_use').length;
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
    throw new UserError(`cannot read the Cline sessions folder: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (set --home or CLINE_DIR)`, root);
  }
  const paths = entries
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => join(root, entry.name, `${entry.name}${MESSAGES_SUFFIX}`));
  const where = { home, cwd: options.cwd !== undefined ? expandTilde(options.cwd) : undefined, details: options.details };
  yield* sessionRefsNewestFirst(paths, where, refOf, summarize);
}

export async function findSession(id: string, options: DiscoverOptions = {}): Promise<SessionRef> {
  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const sessions = discoverSessions({ home: options.home, onDiagnostic: options.onDiagnostic });
  return findByIdPrefix(sessions, id, `no Cline session "${id}" under ${sessionsDir(home)} (sp-capture cline --list shows the sessions)`, { where: home });
}
