// Where Continue's CLI (`cn`) keeps its sessions (docs/formats/continue.md §2): its global folder
// `CONTINUE_GLOBAL_DIR` (default `~/.continue`) holds `sessions/<id>.json`, one JSON document per
// session, and `sessions/sessions.json`, the index `cn ls` lists. Ids are lower-case UUIDs (v4).
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';
import type { NativeIdFormat } from '../../lib/write/native-id.js';

export { expandTilde } from '../../lib/fs/paths.js';

export const AGENT = 'continue';
export const HOME_ENV = 'CONTINUE_GLOBAL_DIR';
/** The index file beside the sessions; never a session itself. */
export const INDEX_NAME = 'sessions.json';

/** The home the client uses when CONTINUE_GLOBAL_DIR is unset. */
export function builtInHome(): string {
  return join(homedir(), '.continue');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

export function sessionsDir(home: string): string {
  return join(home, 'sessions');
}

export function indexPath(home: string): string {
  return join(sessionsDir(home), INDEX_NAME);
}

export function sessionPath(home: string, id: string): string {
  return join(sessionsDir(home), `${id}.json`);
}

/** The session id a session file's name carries. */
export function idFromPath(path: string): string {
  return basename(path, '.json');
}

/** A file in the sessions folder that holds a session (every `.json` but the index). */
export function isSessionFileName(name: string): boolean {
  return name.endsWith('.json') && name !== INDEX_NAME && !name.startsWith('.');
}

/** The id the client makes (uuid v4): what a writer accepts from events as a file name. */
export const NATIVE_ID: NativeIdFormat = {
  agent: 'Continue CLI',
  pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  described: 'a lower-case UUID',
};

export function newSessionId(): string {
  return randomUUID();
}

/** The model a writer names when the session names none (the client uses its config's model anyway). */
export const DEFAULT_MODEL = 'gpt-4o-mini';
/** The client version the writer was verified with. */
export const CONTINUE_VERSION = '1.5.47';
/** The title the client gives a session it has not titled (headless runs never title one). */
export const UNTITLED = 'Untitled Session';
