// Where Aider keeps its history (docs/formats/aider.md §1): `<git root>/.aider.chat.history.md` and
// `.aider.input.history` next to it. Aider has no home of its own, so sp's "home" for Aider is a
// directory to search for history files (AIDER_HISTORY_ROOT, default: the current directory).
import { createHash } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';

export const AGENT = 'aider';
export const HOME_ENV = 'AIDER_HISTORY_ROOT';
export const CHAT_FILE = '.aider.chat.history.md';
export const INPUT_FILE = '.aider.input.history';

export { expandTilde } from '../../lib/fs/paths.js';

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? process.cwd();
}

/** A history file has no id: the file's absolute path names it (stable while the file stays put). */
export function fileId(path: string): string {
  return createHash('sha256').update(resolve(path)).digest('hex').slice(0, 16);
}

export function isInputHistory(path: string): boolean {
  return basename(path).endsWith('.input.history');
}

/** The input history written next to a chat history (same folder), when there is one. */
export function inputHistoryBeside(chatPath: string): string {
  return join(dirname(chatPath), INPUT_FILE);
}

/** `YYYY-MM-DD HH:MM:SS[.ffffff]` as Aider writes it (local time, no zone): read as UTC, said so in session.start. */
export function parseLocalStamp(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  return Number.isNaN(ms) ? undefined : ms / 1000 + (m[7] ? Number(m[7]) : 0);
}
