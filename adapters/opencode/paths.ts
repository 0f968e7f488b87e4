// Where OpenCode keeps its sessions (docs/formats/opencode.md §2, §6): the data dir
// `$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`) holds `opencode.db` (1.2 and later,
// `OPENCODE_DB` overrides it) and, from ≤ 1.1, the JSON store `storage/`. A session inside a store
// is named by a locator `<db or storage dir>#<session id>` (SessionRef.path); a plain path names
// the store (capture reads its newest session) or an `opencode export` JSON file.
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { envPath, expandTilde } from '../../lib/fs/paths.js';

export const HOME_ENV = 'XDG_DATA_HOME';
export const DB_NAME = 'opencode.db';

export { expandTilde } from '../../lib/fs/paths.js';
import type { NativeIdFormat } from '../../lib/write/writer.js';

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

export interface Locator {
  store: string;
  session?: string;
}

/** Splits `<store>#<id>`; a path that exists as given is a store even when it contains `#`. */
export function parseLocator(path: string): Locator {
  const plain = resolve(expandTilde(path));
  const at = path.lastIndexOf('#');
  if (at <= 0 || existsSync(plain)) return { store: plain };
  const store = resolve(expandTilde(path.slice(0, at)));
  const session = path.slice(at + 1);
  return session === '' ? { store } : { store, session };
}

export function formatLocator(store: string, session: string): string {
  return `${store}#${session}`;
}

export type StoreKind = 'sqlite' | 'storage' | 'export';

/**
 * What a path holds: a SQLite file, a JSON store (a folder with `session/` and `message/`, or a data
 * dir with `storage/`), or an export JSON; a data dir with `opencode.db` is its database.
 */
export function storeOf(path: string): { kind: StoreKind; path: string } | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  if (stat.isDirectory()) {
    if (existsSync(join(path, DB_NAME))) return { kind: 'sqlite', path: join(path, DB_NAME) };
    if (existsSync(join(path, 'session')) && existsSync(join(path, 'message'))) return { kind: 'storage', path };
    if (existsSync(join(path, 'storage', 'session'))) return { kind: 'storage', path: join(path, 'storage') };
    return undefined;
  }
  return { kind: path.endsWith('.json') ? 'export' : 'sqlite', path };
}

/** The model a writer gives assistant messages that name none. */
export const DEFAULT_MODEL = 'anthropic/claude-sonnet-4-5';

/** OpenCode's session ids: `ses_` + 12 hex (inverted time) + 14 base62 (ids.ts). */
export const NATIVE_ID: NativeIdFormat = { agent: 'OpenCode', pattern: /^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/, described: 'ses_<12 hex><14 base62>' };
