// Where Cline CLI keeps its sessions (docs/formats/cline.md §2): the config folder `CLINE_DIR`
// (default `~/.cline`) holds `data/sessions/<id>/` with `<id>.messages.json` (the conversation the
// client resumes) and `<id>.json` (the manifest: cwd, provider, model, title). The folder name is the
// session id, `<epoch milliseconds>_<five base-36 characters>`.
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';
import type { NativeIdFormat } from '../../lib/write/native-id.js';

export { expandTilde } from '../../lib/fs/paths.js';

export const AGENT = 'cline';
export const HOME_ENV = 'CLINE_DIR';
export const MESSAGES_SUFFIX = '.messages.json';

/** The home the client uses when CLINE_DIR is unset. */
export function builtInHome(): string {
  return join(homedir(), '.cline');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

export function sessionsDir(home: string): string {
  return join(home, 'data', 'sessions');
}

export function messagesPath(home: string, id: string): string {
  return join(sessionsDir(home), id, `${id}${MESSAGES_SUFFIX}`);
}

/** The manifest beside a messages file. */
export function manifestPathOf(messagesFile: string): string {
  return messagesFile.slice(0, -MESSAGES_SUFFIX.length) + '.json';
}

/** The session id a messages file's name carries. */
export function idFromPath(messagesFile: string): string {
  const name = basename(messagesFile);
  return name.endsWith(MESSAGES_SUFFIX) ? name.slice(0, -MESSAGES_SUFFIX.length) : basename(name, '.json');
}

/** The id pattern the client makes: what a writer accepts from events as a folder name. */
export const NATIVE_ID: NativeIdFormat = { agent: 'Cline CLI', pattern: /^[0-9]{10,16}_[a-z0-9]{5}$/, described: '<epoch milliseconds>_<five base-36 characters>' };

/** A fresh id in the client's own spelling. */
export function newSessionId(now = Date.now()): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(5);
  let tail = '';
  for (const b of bytes) tail += alphabet[b % alphabet.length];
  return `${now}_${tail}`;
}

/** The model a writer names when the session names none. */
export const DEFAULT_MODEL = 'claude-sonnet-4-5';
/** The client version the written files claim (the one the writer was verified with). */
export const CLINE_VERSION = '3.0.65';
