// One writer per store at a time: a lock file holding "pid host", made whole under another name and
// hard-linked into place (the link fails when the name is taken), so a writer killed at any moment
// never leaves an empty lock nobody can judge. A lock left by a process that died (kill -9) is broken
// by the next writer on the same host.
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../cli/diagnostics.js';
import { PRIVATE_FILE, pidAlive as alive, removeOnInterrupt } from '../fs/private.js';

/** Who holds a store's lock: its pid and host, and whether it is stale (a dead pid on this host). */
export function lockHolder(dir: string): { pid: number; host: string; stale: boolean } | undefined {
  let holder: string;
  try {
    holder = readFileSync(join(dir, 'lock'), 'utf8');
  } catch {
    return undefined;
  }
  const [pidText, host = ''] = holder.trim().split(' ');
  const pid = Number(pidText);
  return { pid, host, stale: holder.endsWith('\n') && host === hostname() && Number.isInteger(pid) && !alive(pid) };
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export class StoreLock {
  private released = false;
  private readonly settle: () => void;
  private constructor(readonly path: string) {
    // An interrupted writer (Ctrl-C while ingest reads stdin) removes its lock on the way out.
    this.settle = removeOnInterrupt(path);
  }

  /** Takes the lock, waiting up to `timeoutMs` for another writer; a UserError if it stays held. */
  static acquire(dir: string, timeoutMs = 10_000): StoreLock {
    const path = join(dir, 'lock');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (createWhole(path)) return new StoreLock(path);
      let holder = '';
      try {
        holder = readFileSync(path, 'utf8');
      } catch {
        continue; // released meanwhile
      }
      const [pidText, host] = holder.trim().split(' ');
      const pid = Number(pidText);
      // Only a known dead pid on this host is stale (a lock without its line ending was not made here).
      if (holder.endsWith('\n') && host === hostname() && Number.isInteger(pid) && !alive(pid)) {
        breakStale(path, holder);
        continue;
      }
      if (Date.now() >= deadline) {
        throw new UserError(`the store is locked by another writer (pid ${pidText || '?'} on ${host || '?'}); try again when it has finished`, path);
      }
      sleep(25);
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.settle();
    try {
      unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

/** Creates the lock with its content in one step; false when another writer holds it. */
function createWhole(path: string): boolean {
  const staged = `${path}.new.${process.pid}`;
  writeFileSync(staged, `${process.pid} ${hostname()}\n`, { mode: PRIVATE_FILE });
  try {
    linkSync(staged, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    try {
      unlinkSync(staged);
    } catch {
      // gone already
    }
  }
}

/** Moves the stale lock aside and deletes it, unless another writer replaced it in between. */
function breakStale(path: string, stale: string): void {
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  let moved = '';
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    return;
  }
  if (moved !== stale) {
    // We moved a live writer's fresh lock: put it back (link fails if a third writer holds the name).
    try {
      renameSync(aside, path);
    } catch {
      // nothing more to do
    }
    return;
  }
  try {
    unlinkSync(aside);
  } catch {
    // gone already
  }
}
