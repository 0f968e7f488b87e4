// The stores of OpenCode's session format (docs/formats/opencode.md §2, §6), written by OpenCode and
// by its fork Kilo Code CLI (docs/formats/kilo.md): a data dir holding a SQLite database (its name is
// the client's), the ≤ 1.1 JSON store `storage/`, or an export JSON file. A session inside a store is
// named by a locator `<db or storage dir>#<session id>` (SessionRef.path); a plain path names the
// store (capture reads its newest session) or an export file.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expandTilde } from '../../fs/paths.js';

/** Which client wrote a data dir: what the shared reader needs to name its sessions and find its database. */
export interface DataDirOwner {
  /** The agent id sessions and events are named with. */
  agent: string;
  /** How messages name the client ("OpenCode", "Kilo Code CLI"). */
  label: string;
  /** The database file inside the data dir. */
  dbName: string;
  defaultHome(): string;
  /** What a user sets to point at another data dir, for error messages. */
  homeHint: string;
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
 * dir with `storage/`), or an export JSON; a data dir with the client's database is that database.
 */
export function storeOf(path: string, dbName: string): { kind: StoreKind; path: string } | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  if (stat.isDirectory()) {
    if (existsSync(join(path, dbName))) return { kind: 'sqlite', path: join(path, dbName) };
    if (existsSync(join(path, 'session')) && existsSync(join(path, 'message'))) return { kind: 'storage', path };
    if (existsSync(join(path, 'storage', 'session'))) return { kind: 'storage', path: join(path, 'storage') };
    return undefined;
  }
  return { kind: path.endsWith('.json') ? 'export' : 'sqlite', path };
}
