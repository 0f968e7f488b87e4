// Where Kilo Code CLI keeps its sessions (docs/formats/kilo.md §1): OpenCode's layout under its own
// name. The data dir is `$XDG_DATA_HOME/kilo` (default `~/.local/share/kilo`); the database is
// `kilo.db` there for the released channels, `kilo-<channel>.db` for others, and `KILO_DB` (an absolute
// path, or a name inside the data dir) overrides it.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { envPath, expandTilde } from '../../lib/fs/paths.js';
import type { NativeIdFormat } from '../../lib/write/native-id.js';

export const HOME_ENV = 'XDG_DATA_HOME';
export const DB_NAME = 'kilo.db';

/** The data dir: `$XDG_DATA_HOME/kilo`, else `~/.local/share/kilo`. */
export function defaultHome(): string {
  return join(envPath(HOME_ENV) ?? join(homedir(), '.local', 'share'), 'kilo');
}

/** The database the client opens in a data dir: `KILO_DB` when set (absolute, or inside the data dir), else kilo.db. */
export function dbOfHome(home: string): string {
  const dir = resolve(expandTilde(home));
  const fromEnv = process.env.KILO_DB?.trim();
  if (!fromEnv || fromEnv === ':memory:') return join(dir, DB_NAME);
  return isAbsolute(fromEnv) ? fromEnv : join(dir, fromEnv);
}

/** The client version sp's writer was verified with (and names in the session rows it writes). */
export const KILO_VERSION = '7.7.7';

/** The model the client names when a session has none (Kilo's gateway default). */
export const DEFAULT_MODEL = 'kilo/auto';

/** Session ids as OpenCode makes them: `ses_` + 12 hex (inverted time) + 14 base62. */
export const NATIVE_ID: NativeIdFormat = { agent: 'Kilo Code CLI', pattern: /^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/, described: 'ses_<12 hex><14 base62>' };
