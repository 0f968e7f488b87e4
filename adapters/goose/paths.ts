// Where Goose keeps its sessions (docs/formats/goose.md §1): under its data directory, in
// `sessions/`: one SQLite database `sessions.db` (current releases) and, from releases before the
// database, one `<id>.jsonl` per session (Goose imports those into the database once and leaves
// them in place). The data directory is `$GOOSE_PATH_ROOT/data` when that variable names an
// absolute path, else the platform's: `$XDG_DATA_HOME/goose` (`~/.local/share/goose`) on Linux,
// `~/Library/Application Support/Block/goose` on macOS, `%APPDATA%\Block\goose\data` on Windows.
//
// A session inside the database is named by a locator `<db>#<id>` (SessionRef.path); a legacy
// session is its file.
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { expandTilde } from '../../lib/fs/paths.js';

export const AGENT = 'goose';
export const HOME_ENV = 'GOOSE_PATH_ROOT';
export const DB_NAME = 'sessions.db';
export const SESSIONS_DIR = 'sessions';

/** The data directory Goose uses on this machine (our home). */
export function defaultHome(): string {
  const root = process.env[HOME_ENV];
  if (root && isAbsolute(root)) return join(root, 'data');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Block', 'goose');
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Block', 'goose', 'data');
  const xdg = process.env.XDG_DATA_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share'), 'goose');
}

/** The sessions folder of a home: `<home>/sessions`, or `<home>/data/sessions` when given the path root. */
export function sessionsDirOf(home: string): string {
  const dir = resolve(expandTilde(home));
  const direct = join(dir, SESSIONS_DIR);
  if (existsSync(direct)) return direct;
  const rooted = join(dir, 'data', SESSIONS_DIR);
  return existsSync(rooted) ? rooted : direct;
}

/** A session is `<sessions.db>#<id>`. */
export { parseDbLocator as parseLocator, formatDbLocator as formatLocator, type DbLocator as Locator } from '../../lib/fs/paths.js';

/** A directory names its `sessions.db` (a home, or the sessions folder itself). */
export function dbOfPath(path: string): string {
  try {
    if (statSync(path).isDirectory()) return existsSync(join(path, DB_NAME)) ? join(path, DB_NAME) : join(sessionsDirOf(path), DB_NAME);
  } catch {
    // not there: taken as the file
  }
  return path;
}

/**
 * Goose's session ids: `YYYYMMDD_N` from the database (N counts the day's sessions), and for legacy
 * files their name (a timestamp `YYYYMMDD_HHMMSS` or a name the user chose). Anything else, in
 * particular a path separator or `..`, is not an id.
 */
export const NATIVE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export function isNativeId(id: string): boolean {
  return NATIVE_ID.test(id) && !id.includes('..');
}
