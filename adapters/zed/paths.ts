// Where Zed keeps agent threads (docs/formats/zed.md §1): `<data dir>/threads/threads.db`, the data dir
// being `$XDG_DATA_HOME/zed` (else `~/.local/share/zed`) on Linux, `~/Library/Application Support/Zed`
// on macOS, `%LOCALAPPDATA%\Zed` on Windows; `SP_ZED_HOME` points sp at another one. A thread inside
// the database is `<threads.db>#<thread id>`.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { envPath, expandTilde, formatDbLocator, parseDbLocator } from '../../lib/fs/paths.js';

export const HOME_ENV = 'SP_ZED_HOME';
export const DB_PATH = ['threads', 'threads.db'];

export function defaultHome(): string {
  const own = envPath(HOME_ENV);
  if (own) return own;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Zed');
  if (process.platform === 'win32') return join(envPath('LOCALAPPDATA') ?? join(homedir(), 'AppData', 'Local'), 'Zed');
  return join(envPath('XDG_DATA_HOME') ?? join(homedir(), '.local', 'share'), 'zed');
}

export const dbOfHome = (home: string): string => join(resolve(expandTilde(home)), ...DB_PATH);

export interface Locator {
  db: string;
  thread?: string;
}

/** Splits `<threads.db>#<id>`; a path that exists as given is a database even when it contains `#`. */
export function parseLocator(path: string): Locator {
  const { db, session } = parseDbLocator(path);
  return session === undefined ? { db } : { db, thread: session };
}

export const formatLocator = formatDbLocator;
