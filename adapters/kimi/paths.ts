// Where Kimi CLI keeps its sessions (docs/formats/kimi.md §1): under its share dir (KIMI_SHARE_DIR,
// else `~/.kimi`), `sessions/<md5 of the work dir>/<session uuid>/context.jsonl`, beside
// `wire.jsonl` and `state.json`; `kimi.json` lists the work dirs. Clients before the per-session
// folder left `sessions/<md5>/<session uuid>.jsonl`. sp's home is the share dir itself
// (SP_KIMI_HOME, else KIMI_SHARE_DIR, else `~/.kimi`).
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';

export const HOME_ENV = 'SP_KIMI_HOME';
export const CLIENT_HOME_ENV = 'KIMI_SHARE_DIR';
export { expandTilde } from '../../lib/fs/paths.js';

export const CONTEXT_FILE = 'context.jsonl';
export const METADATA_FILE = 'kimi.json';

/** A session id as the client makes it (a UUID); a folder or file of any other name is not one. */
export const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A work-dir folder: the md5 of the path, prefixed `<kaos>_` for a non-local KAOS. */
export const WORK_DIR_FOLDER = /^(?:[A-Za-z0-9-]{1,64}_)?[0-9a-f]{32}$/;

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? envPath(CLIENT_HOME_ENV) ?? join(homedir(), '.kimi');
}

export function sessionsDir(home: string): string {
  return join(home, 'sessions');
}

/** The folder name the client gives a local work dir: the md5 hex of its path (UTF-8). */
export function workDirFolder(path: string): string {
  return createHash('md5').update(path, 'utf8').digest('hex');
}

/** The session id a context file belongs to: its folder (`<id>/context.jsonl`) or its name (`<id>.jsonl`). */
export function idFromPath(path: string): string {
  const name = basename(path);
  return name === CONTEXT_FILE ? basename(dirname(path)) : basename(name, '.jsonl');
}

/** The UI event log beside a session's context file (`<uuid>/wire.jsonl`); none in the flat layout. */
export function wirePathOf(contextPath: string): string | undefined {
  return basename(contextPath) === CONTEXT_FILE ? join(dirname(contextPath), 'wire.jsonl') : undefined;
}
