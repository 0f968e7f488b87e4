// The stores of OpenCode's session format (docs/formats/opencode.md §2, §6), written by OpenCode and
// by its fork Kilo Code CLI (docs/formats/kilo.md): a data dir holding a SQLite database (its name is
// the client's), the ≤ 1.1 JSON store `storage/`, or an export JSON file. A session inside a store is
// named by a locator `<db or storage dir>#<session id>` (SessionRef.path); a plain path names the
// store (capture reads its newest session) or an export file.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatDbLocator, parseDbLocator } from '../../fs/paths.js';

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

/** Splits `<store>#<id>` as every `<db>#<id>` locator is split (lib/fs/paths.ts); the store may also be a JSON store folder. */
export function parseLocator(path: string): Locator {
  const { db: store, session } = parseDbLocator(path);
  return session === undefined ? { store } : { store, session };
}

export const formatLocator = formatDbLocator;

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
