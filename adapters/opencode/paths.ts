// Where OpenCode keeps its sessions (docs/formats/opencode.md §2, §6): the data dir
// `$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`) holds `opencode.db` (1.2 and later,
// `OPENCODE_DB` overrides it) and, from ≤ 1.1, the JSON store `storage/`; the format's reader is lib/formats/opencode/.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { envPath, expandTilde } from '../../lib/fs/paths.js';

export const HOME_ENV = 'XDG_DATA_HOME';
export const DB_NAME = 'opencode.db';

export { expandTilde } from '../../lib/fs/paths.js';
import type { NativeIdFormat } from '../../lib/write/native-id.js';

/** The data dir: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`. */
export function defaultHome(): string {
  return join(envPath(HOME_ENV) ?? join(homedir(), '.local', 'share'), 'opencode');
}

/** The database of a data dir (`OPENCODE_DB` wins when the data dir is the default one). */
export function dbOfHome(home: string, useEnv = false): string {
  const fromEnv = process.env.OPENCODE_DB;
  if (useEnv && fromEnv && fromEnv.trim() !== '') return resolve(expandTilde(fromEnv));
  return join(resolve(expandTilde(home)), DB_NAME);
}

export { formatLocator, parseLocator, type Locator, type StoreKind } from '../../lib/formats/opencode/locator.js';

/** The model a writer gives assistant messages that name none. */
export const DEFAULT_MODEL = 'anthropic/claude-sonnet-4-5';

/** OpenCode's session ids: `ses_` + 12 hex (inverted time) + 14 base62 (ids.ts). */
export const NATIVE_ID: NativeIdFormat = { agent: 'OpenCode', pattern: /^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/, described: 'ses_<12 hex><14 base62>' };
