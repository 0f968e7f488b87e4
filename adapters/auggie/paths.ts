// Where Augment Auggie keeps its sessions (docs/formats/auggie.md §2): its cache folder (`~/.augment`,
// moved by `--augment-cache-dir`; the client reads no variable for it) holds `sessions/<uuid>.json`,
// one whole JSON document per session, and `task-storage/tasks/<uuid>` with the task list a session
// names in `rootTaskUuid`. sp's home is that cache folder (SP_AUGGIE_HOME, else `~/.augment`).
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { envPath } from '../../lib/fs/paths.js';
import { UUID, type NativeIdFormat } from '../../lib/write/native-id.js';

export { expandTilde } from '../../lib/fs/paths.js';

export const AGENT = 'auggie';
export const HOME_ENV = 'SP_AUGGIE_HOME';
/** The client's flag that moves its cache folder: how a resume names a home that is not the default. */
export const CACHE_DIR_FLAG = '--augment-cache-dir';

/** The cache folder the client uses without `--augment-cache-dir`. */
export function builtInHome(): string {
  return join(homedir(), '.augment');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

export function sessionsDir(home: string): string {
  return join(home, 'sessions');
}

export function sessionPath(home: string, id: string): string {
  return join(sessionsDir(home), `${id}.json`);
}

/** The task list file a session's `rootTaskUuid` names; undefined unless the id is a UUID (never a path of the file's choosing). */
export function taskPath(home: string, taskId: unknown): string | undefined {
  return typeof taskId === 'string' && UUID.test(taskId) ? join(home, 'task-storage', 'tasks', taskId) : undefined;
}

/** The session id a file's name carries. */
export function idFromPath(path: string): string {
  return basename(path, '.json');
}

/** The client names sessions by a UUID (the file name and the document's `sessionId`). */
export const NATIVE_ID: NativeIdFormat = { agent: 'Augment Auggie', pattern: UUID, described: 'a UUID' };

export function newSessionId(): string {
  return randomUUID();
}

/** The client version the writer was verified with (docs/formats/auggie.md §6). */
export const AUGGIE_VERSION = '0.36.0';
