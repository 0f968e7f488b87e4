// Where Crush keeps sessions (docs/formats/crush.md §1): each project has its own data directory
// (`options.data_directory`, default `<project>/.crush`) holding `crush.db`; the global data dir
// (`$CRUSH_GLOBAL_DATA`, else `$XDG_DATA_HOME/crush`, else `~/.local/share/crush`) keeps
// `projects.json`, the list of projects and their data directories. A session inside a database is
// `<crush.db>#<session id>`.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { envPath, expandTilde } from '../../lib/fs/paths.js';

export const HOME_ENV = 'CRUSH_GLOBAL_DATA';
export const DB_NAME = 'crush.db';
export const PROJECTS_FILE = 'projects.json';

/** The global data dir: `$CRUSH_GLOBAL_DATA`, `$XDG_DATA_HOME/crush`, `~/.local/share/crush`. */
export function defaultHome(): string {
  return envPath(HOME_ENV) ?? join(envPath('XDG_DATA_HOME') ?? join(homedir(), '.local', 'share'), 'crush');
}

export interface Locator {
  db: string;
  session?: string;
}

/** Splits `<crush.db>#<id>`; a path that exists as given is a database even when it contains `#`. */
export function parseLocator(path: string): Locator {
  const plain = resolve(expandTilde(path));
  const at = path.lastIndexOf('#');
  if (at <= 0 || existsSync(plain)) return { db: plain };
  const session = path.slice(at + 1);
  const db = resolve(expandTilde(path.slice(0, at)));
  return session === '' ? { db } : { db, session };
}

export const formatLocator = (db: string, session: string): string => `${db}#${session}`;
