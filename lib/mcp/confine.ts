// What an MCP caller may touch. The server's caller is an agent, and an agent can be steered by a
// prompt injection, so every path a tool argument names is treated as hostile: it is made absolute
// and symlink-free (realpath of its nearest existing ancestor) and must then lie under a root fixed
// at start-up — reads under the agent homes, --root folders and the store; writes only under
// --allow-write folders. Files are read only when they are regular files within the byte limit, and
// every call has a byte, event and wall-time budget.
import { constants, lstatSync, realpathSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { expandTilde, realpathOfNearest, UnresolvablePath } from '../fs/paths.js';
import { ToolInputError } from './pipeline.js';

export interface Limits {
  /** Bytes one call may read from one file (and the largest file it opens). */
  maxBytes: number;
  /** Events one call may capture, read or return. */
  maxEvents: number;
  /** Wall time of one call, in milliseconds. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: Limits = { maxBytes: 256 * 1024 * 1024, maxEvents: 10_000, timeoutMs: 60_000 };

/** A folder the server may use, and why (said when a path falls outside all of them). */
export interface Root {
  dir: string;
  why: string;
}

/** A tool argument that names a path outside what the server was allowed at start-up. */
export class ConfinementError extends ToolInputError {}

/** A call that went over one of its limits. */
export class LimitError extends ToolInputError {}

const READ_RULE = 'is outside the roots this server may read (agent homes, --root, the store); start sp-mcp with --root DIR to allow it';
const WRITE_RULE = 'is outside the folders this server may write (--allow-write); start sp-mcp with --allow-write DIR to allow it';

/**
 * The absolute, symlink-free form of `path` (relative paths against the server's cwd, `~` as the
 * adapters expand it): the realpath of its nearest existing ancestor, with the missing rest
 * appended. A component that exists but cannot be resolved (a dangling or looping symlink) is
 * refused: whatever later created it would follow the link to wherever it points.
 */
export function realPath(path: string, what: string): string {
  if (path.includes('\0')) throw new ConfinementError(`${what} contains a NUL byte`);
  try {
    return realpathOfNearest(expandTilde(path));
  } catch (err) {
    if (!(err instanceof UnresolvablePath)) throw err;
    if (err.dangling) throw new ConfinementError(`${what} ${path} goes through a symlink that points nowhere (${err.at}): refused`);
    throw new ConfinementError(`${what} ${path} cannot be resolved: ${err.code}`);
  }
}

/** The path as the caller gave it, and where it leads when a symlink or ".." took it elsewhere. */
function shown(path: string, real: string): string {
  return resolve(expandTilde(path)) === real ? path : `${path} (it resolves to ${real})`;
}

function tryRealPath(path: string): string | undefined {
  try {
    return realPath(path, 'root');
  } catch {
    return undefined;
  }
}

export function isUnder(path: string, dir: string): boolean {
  if (path === dir) return true;
  return path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** Where a session's transcript lives: a database locator `<db>#<id>` names its database file. */
function locatorFile(path: string): string {
  const hash = path.lastIndexOf('#');
  if (hash <= 0) return path;
  try {
    lstatSync(path);
    return path;
  } catch {
    return path.slice(0, hash);
  }
}

/**
 * A hard link is another name of the same file, and realpath cannot tell which name is the real
 * one: a file under a root with a second name may be a file outside (a key, another user's
 * transcript) linked in. Agents and sp never hard-link session files, so a regular file with more
 * than one name is refused rather than guessed about.
 */
function refuseHardLink(nlink: number, path: string, what: string): void {
  if (nlink > 1) throw new ConfinementError(`${what} ${path} is a hard link (${nlink} names): a file under a root may be another name of a file outside, so it is not read`);
}

export interface ConfinementOptions {
  readRoots: Root[];
  writeRoots: string[];
  /** The store the store tools use when the caller names none. */
  store: string;
  limits: Limits;
}

export class Confinement {
  readonly readRoots: Root[];
  readonly writeRoots: string[];
  readonly store: string;
  readonly limits: Limits;

  constructor(options: ConfinementOptions) {
    // Roots are compared in their symlink-free form, so a /tmp that is itself a link still matches.
    // A root that cannot be resolved (a dangling symlink) allows nothing rather than failing every call.
    this.readRoots = options.readRoots.flatMap((r) => {
      const dir = tryRealPath(r.dir);
      return dir === undefined ? [] : [{ dir, why: r.why }];
    });
    this.writeRoots = options.writeRoots.flatMap((d) => tryRealPath(d) ?? []);
    this.store = tryRealPath(options.store) ?? resolve(options.store);
    this.limits = options.limits;
  }

  /** `path` (a tool argument called `what`) resolved, if the server may read it; a tool error otherwise. */
  readable(path: string, what: string): string {
    const real = realPath(path, what);
    const allowed = [...this.readRoots.map((r) => r.dir), ...this.writeRoots];
    if (!allowed.some((dir) => isUnder(real, dir))) throw new ConfinementError(`${what} ${shown(path, real)} ${READ_RULE}`);
    return real;
  }

  /** `path` resolved, if the server may create and write files there; a tool error otherwise. */
  writable(path: string, what: string): string {
    if (this.writeRoots.length === 0) {
      throw new ConfinementError(`this server writes nowhere: start sp-mcp with --allow-write DIR to let relay write sessions there (dry_run: true works without)`);
    }
    const real = realPath(path, what);
    if (!this.writeRoots.some((dir) => isUnder(real, dir))) throw new ConfinementError(`${what} ${shown(path, real)} ${WRITE_RULE}`);
    return real;
  }

  /** A session file a writer plans to create (or a database it adds a session to): under an --allow-write folder. */
  writableSessionFile(path: string): void {
    this.writable(locatorFile(path), 'the session file');
  }

  /**
   * A session an adapter found: its transcript (or database) must lie under a read root too. Before
   * a capture (`toRead`), a transcript must also be a regular file within the byte limit; a database
   * (a `<db>#<id>` locator) is read by query, page by page, so its size is not held against it.
   */
  sessionFile(path: string, toRead = false): void {
    const file = locatorFile(path);
    const real = this.readable(file, 'the session file');
    let st;
    try {
      st = lstatSync(real);
    } catch {
      return; // the adapter reports a file that is not there in its own words
    }
    if (st.isFile()) refuseHardLink(st.nlink, path, 'the session file');
    if (!toRead || file !== path) return;
    if (st.isDirectory()) return; // a session kept as a folder of files (the adapter reads its parts)
    if (!st.isFile()) throw new ToolInputError(`the session file ${path} is not a regular file (a FIFO, device or socket): only regular files are read`);
    this.checkSize(st.size, path, 'the session file');
  }

  /**
   * A regular file under a read root, opened without following a last symlink and without blocking,
   * refused before any read when it is a FIFO, device, socket or directory, or over the byte limit.
   */
  async openFile(path: string, what: string): Promise<{ real: string; size: number; chunks: (budget: Budget) => AsyncGenerator<Buffer> }> {
    const real = this.readable(path, what);
    let st;
    try {
      st = lstatSync(real);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ToolInputError(`no such file: ${path}`);
      throw new ToolInputError(`${what} ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (st.isDirectory()) throw new ToolInputError(`${what} ${path} is a directory, not a file`);
    if (!st.isFile()) throw new ToolInputError(`${what} ${path} is not a regular file (a FIFO, device or socket): only regular files are read`);
    refuseHardLink(st.nlink, path, what);
    this.checkSize(st.size, path, what);
    const limit = this.limits.maxBytes;
    const checkSize = this.checkSize.bind(this);
    return {
      real,
      size: st.size,
      chunks: async function* (budget: Budget) {
        const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
        try {
          // The file may have been swapped between the check and the open: check what was opened.
          const opened = await handle.stat();
          if (!opened.isFile() || opened.ino !== st.ino || opened.dev !== st.dev) throw new ToolInputError(`${what} ${path} changed while it was opened: not read`);
          refuseHardLink(opened.nlink, path, what);
          checkSize(opened.size, path, what);
          let total = 0;
          for (;;) {
            budget.check();
            const buffer = Buffer.allocUnsafe(1 << 16);
            const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
            if (bytesRead === 0) return;
            total += bytesRead;
            // A file that grows while it is read is cut at the limit, with an error rather than a partial answer.
            if (total > limit) throw new LimitError(`${what} ${path} grew past the limit of ${limit} bytes this server reads (--max-bytes): not read`);
            yield buffer.subarray(0, bytesRead);
          }
        } finally {
          await handle.close();
        }
      },
    };
  }

  private checkSize(size: number, path: string, what: string): void {
    if (size > this.limits.maxBytes) {
      throw new LimitError(`${what} ${path} is ${size} bytes, over the limit of ${this.limits.maxBytes} bytes this server reads (--max-bytes): not read`);
    }
  }
}

/** One call's budget: its deadline and the events it has taken; checked in every reading loop. */
export class Budget {
  readonly deadline: number;
  private events = 0;
  private expired = false;

  constructor(
    readonly tool: string,
    readonly limits: Limits,
  ) {
    this.deadline = Date.now() + limits.timeoutMs;
  }

  /** Marks the call as timed out: work still running stops at its next check. */
  expire(): void {
    this.expired = true;
  }

  timeoutMessage(): string {
    return `took longer than the limit of ${this.limits.timeoutMs / 1000} s per call (--timeout): stopped`;
  }

  check(): void {
    if (this.expired || Date.now() > this.deadline) throw new LimitError(this.timeoutMessage());
  }

  /** One more event read or captured. */
  event(): void {
    this.check();
    if (++this.events > this.limits.maxEvents) {
      throw new LimitError(`more than ${this.limits.maxEvents} events, the limit per call (--max-events): stopped`);
    }
  }
}

export interface AccessOptions {
  /** Agent homes named at start-up: read roots, and each agent's home when a call names none. */
  homes?: Record<string, string>;
  /** Folders anything under which may be read. */
  roots?: string[];
  /** Folders relay may write sessions and create project folders in; none: relay only dry-runs. */
  allowWrite?: string[];
  /** The store search and verify use (default $SP_HOME/store). */
  store?: string;
  limits?: Partial<Limits>;
}

/** sp-mcp's command-line flags, as given. */
export interface AccessFlags {
  home?: string[];
  root?: string[];
  allowWrite?: string[];
  store?: string;
  maxBytes?: string;
  maxEvents?: number;
  timeout?: number;
}

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** A byte count: 1048576, 512K, 256M, 1G (powers of 1024; a trailing "iB" or "B" is accepted). */
export function parseBytes(text: string): number | undefined {
  const m = /^\s*(\d+)\s*([kmg]?)(?:i?b)?\s*$/i.exec(text);
  if (!m) return undefined;
  const value = Number(m[1]) * UNITS[m[2].toLowerCase()];
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/**
 * The flags checked and turned into access options. A folder that does not exist is an error here
 * (a mistyped --allow-write would otherwise allow nothing, silently); `problem` is a usage error.
 */
export function accessFromFlags(flags: AccessFlags, knownAgents: readonly string[], problem: (what: string) => Error): AccessOptions {
  const folder = (flag: string, dir: string): string => {
    const absolute = resolve(expandTilde(dir));
    let st;
    try {
      st = lstatSync(absolute);
      if (st.isSymbolicLink()) st = lstatSync(realpathSync(absolute));
    } catch {
      throw problem(`${flag} ${dir}: no such folder`);
    }
    if (!st.isDirectory()) throw problem(`${flag} ${dir}: not a folder`);
    return absolute;
  };
  const homes: Record<string, string> = {};
  for (const value of flags.home ?? []) {
    const at = value.indexOf('=');
    if (at <= 0 || at === value.length - 1) throw problem(`--home takes AGENT=DIR, got "${value}"`);
    const agent = value.slice(0, at);
    if (!knownAgents.includes(agent)) throw problem(`--home ${value}: unknown agent "${agent}"; known agents: ${[...knownAgents].sort().join(', ')}`);
    homes[agent] = folder('--home', value.slice(at + 1));
  }
  const limits: Partial<Limits> = {};
  if (flags.maxBytes !== undefined) {
    const bytes = parseBytes(flags.maxBytes);
    if (bytes === undefined) throw problem(`--max-bytes takes a byte count such as 268435456 or 256M, got "${flags.maxBytes}"`);
    limits.maxBytes = bytes;
  }
  if (flags.maxEvents !== undefined) {
    if (!Number.isInteger(flags.maxEvents) || flags.maxEvents < 1) throw problem(`--max-events takes a whole number of at least 1, got ${flags.maxEvents}`);
    limits.maxEvents = flags.maxEvents;
  }
  if (flags.timeout !== undefined) {
    if (!Number.isFinite(flags.timeout) || flags.timeout <= 0) throw problem(`--timeout takes seconds above 0, got ${flags.timeout}`);
    limits.timeoutMs = Math.round(flags.timeout * 1000);
  }
  return {
    homes,
    roots: (flags.root ?? []).map((dir) => folder('--root', dir)),
    allowWrite: (flags.allowWrite ?? []).map((dir) => folder('--allow-write', dir)),
    // The store may not exist yet (sp-sync ingest creates it): only made absolute.
    store: flags.store !== undefined ? resolve(expandTilde(flags.store)) : undefined,
    limits,
  };
}
