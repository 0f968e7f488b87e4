// Where Hermes keeps its sessions (docs/formats/hermes.md §1): one SQLite database,
// `$HERMES_HOME/state.db` (default `~/.hermes`; a leading `~` expanded), holding every session.
//
// A session inside a database is named by a locator `<db path>#<session id>`: it is what
// `SessionRef.path` holds, so `--path` can name one session of a database, and two sessions of
// one database never share a path (`--all --follow` tells sessions apart by path). A plain path
// (no `#`) names the database itself: capture then reads its newest session.
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { envPath, expandTilde } from '../../lib/fs/paths.js';

export const HOME_ENV = 'HERMES_HOME';
export const DB_NAME = 'state.db';

/** How long a busy database is retried, in ms, when set (tests, slow disks); the writers of other SQLite stores honour it too. */
export const BUSY_ENV = 'SP_HERMES_BUSY_MS';
export const busySetting = (): string | undefined => process.env[BUSY_ENV];

export { expandTilde } from '../../lib/fs/paths.js';
import type { NativeIdFormat } from '../../lib/write/native-id.js';

/** The home the client uses when HERMES_HOME is unset. */
export function builtInHome(): string {
  return join(homedir(), '.hermes');
}

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? builtInHome();
}

export function dbOfHome(home: string): string {
  return join(resolve(expandTilde(home)), DB_NAME);
}

/** A session is `<state.db>#<id>` (Hermes ids never contain a `#`). */
export { parseDbLocator as parseLocator, formatDbLocator as formatLocator, type DbLocator as Locator } from '../../lib/fs/paths.js';

/** The database of a home or a file path: a directory means `<dir>/state.db`. */
export function dbOfPath(path: string): string {
  const plain = resolve(expandTilde(path));
  try {
    if (statSync(plain).isDirectory()) return join(plain, DB_NAME);
  } catch {
    // not there (yet): taken as the file itself
  }
  return plain;
}

/** The model a writer gives assistant messages that name none. */
export const DEFAULT_MODEL = 'anthropic/claude-sonnet-4.6';

/** Hermes names CLI sessions `YYYYMMDD_HHMMSS_<6 hex>` (gateway sessions: 8 hex). */
export const NATIVE_ID: NativeIdFormat = { agent: 'Hermes', pattern: /^\d{8}_\d{6}_[0-9a-f]{6,8}$/, described: 'YYYYMMDD_HHMMSS_<6 or 8 hex>' };
