// Where the package's own files are, whether running from the TypeScript sources (lib/) or from
// the compiled output (dist/lib/); and the paths users give through environment variables.
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

let root: URL | undefined;

export function packageRoot(): URL {
  if (root) return root;
  for (const up of ['../', '../../', '../../../']) {
    const candidate = new URL(up, import.meta.url);
    if (existsSync(new URL('package.json', candidate))) return (root = candidate);
  }
  throw new Error('cannot find the sp package root');
}

/** `~` and `~/…` as the shell would expand them (paths from environment variables and options arrive unexpanded). */
export function expandTilde(path: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return join(homedir(), path.slice(2));
  return path;
}

/** A session inside a database that holds many: `<db>#<id>`. */
export interface DbLocator {
  /** The database file, absolute. */
  db: string;
  /** The session id, when the locator names one. */
  session?: string;
}

/**
 * Splits `<db>#<id>` at the LAST `#`: the database's path may hold one, an id may not. A path that
 * exists as given is the database itself, `#` and all.
 */
export function parseDbLocator(path: string): DbLocator {
  const plain = resolve(expandTilde(path));
  const at = path.lastIndexOf('#');
  if (at <= 0 || existsSync(plain)) return { db: plain };
  const db = resolve(expandTilde(path.slice(0, at)));
  const session = path.slice(at + 1);
  return session === '' ? { db } : { db, session };
}

export function formatDbLocator(db: string, session: string): string {
  return `${db}#${session}`;
}

/** An absolute path from an environment variable, or undefined when it is unset or blank. */
export function envPath(name: string): string | undefined {
  const value = process.env[name];
  return value && value.trim() !== '' ? resolve(expandTilde(value)) : undefined;
}

/** Why realpathOfNearest could not resolve a path: where it stopped, and a dangling link or an error code. */
export class UnresolvablePath extends Error {
  constructor(
    readonly at: string,
    readonly dangling: boolean,
    readonly code: string,
  ) {
    super(dangling ? `${at}: a symlink that points nowhere` : `${at}: cannot resolve: ${code}`);
  }
}

/**
 * `path` (absolute, or against the cwd) with every symlink resolved as far as it exists: the
 * realpath of its nearest existing ancestor, the rest (not created yet, so no link) appended. A
 * component that exists but cannot be resolved (a dangling or looping symlink) throws
 * UnresolvablePath: whatever later created it would follow the link to wherever it points.
 */
export function realpathOfNearest(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new UnresolvablePath(existing, false, code);
      let present = true;
      try {
        lstatSync(existing);
      } catch {
        present = false;
      }
      if (present) throw new UnresolvablePath(existing, true, code);
      const parent = dirname(existing);
      if (parent === existing) return join(existing, ...rest.reverse());
      rest.push(basename(existing));
      existing = parent;
    }
  }
}

/**
 * A cwd as a client that resolves it sees it: symlinks resolved when the directory exists here; a
 * path that does not exist (yet) is only made absolute.
 */
export function realCwd(cwd: string): string {
  const absolute = resolve(cwd);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}
