// Where Gemini CLI keeps sessions (docs/formats/gemini.md §2.1–§2.2): `<home>/tmp/<slug>/chats/
// session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl` (legacy `.json`), home = `$GEMINI_CLI_HOME/.gemini`
// (the variable replaces the user's home directory; `.gemini` is still appended) or `~/.gemini`.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';
import { UUID, type NativeIdFormat } from '../../lib/write/native-id.js';

export const HOME_ENV = 'GEMINI_CLI_HOME';

export function defaultHome(): string {
  return join(envPath(HOME_ENV) ?? homedir(), '.gemini');
}

export function tmpDir(home: string): string {
  return join(home, 'tmp');
}

const SESSION_FILE = /^session-.*\.jsonl?$/;

/** Whether the client lists a file of this name (`session-*.json(l)`). */
export function isSessionFileName(name: string): boolean {
  return SESSION_FILE.test(name);
}

/** `session-2026-11-30T05-46-3b7eba0a.jsonl` for a start time and session id. */
export function sessionFileName(startMs: number, sessionId: string): string {
  const minute = new Date(startMs).toISOString().slice(0, 16).replace(/:/g, '-');
  return `session-${minute}-${sessionId.slice(0, 8)}.jsonl`;
}

/** The 8-character id a file name ends with, if it has the client's shape. */
export function shortIdOf(path: string): string | undefined {
  return /-([0-9a-zA-Z]{8})\.jsonl?$/.exec(basename(path))?.[1];
}

/** For `<home>/tmp/<slug>/chats/<file>`: the home and the slug folder. */
export function layoutOf(path: string): { home?: string; slugDir?: string } {
  const chats = dirname(resolve(path));
  if (basename(chats) !== 'chats') return {};
  const slugDir = dirname(chats);
  const tmp = dirname(slugDir);
  return basename(tmp) === 'tmp' ? { home: dirname(tmp), slugDir } : { slugDir };
}

/** The project root a slug folder belongs to: its `.project_root` marker. */
export function projectRootOf(slugDir: string): string | undefined {
  try {
    const text = readFileSync(join(slugDir, '.project_root'), 'utf8').trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

/** The model gemini messages name when the source names none (write_todos needs a 2.x model). */
export const DEFAULT_MODEL = 'gemini-2.5-pro';

/** Gemini CLI's `sessionId` is a UUID; `--resume` matches it exactly. */
export const NATIVE_ID: NativeIdFormat = { agent: 'Gemini CLI', pattern: UUID, described: 'a UUID' };
