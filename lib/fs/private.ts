// $SP_HOME is private: its folders are made 0700 and its files 0600 from the start (a stored
// session may hold a secret the redactor missed, the keys sign for this machine). The mode given
// to mkdir/open only ever narrows under a umask; a folder made here is chmodded as well so an odd
// umask cannot leave it unusable. Temp files and locks a run leaves behind are removed when it is
// interrupted (SIGINT, SIGTERM), and stale ones of dead pids by the next run.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/** mkdir -p with 0700 for every folder it creates. */
export function makePrivateDir(path: string): void {
  const first = mkdirSync(path, { recursive: true, mode: PRIVATE_DIR });
  if (first === undefined) return;
  // Every folder from the first one created down to `path`.
  const top = resolve(first);
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    chmodSync(dir, PRIVATE_DIR);
    if (dir === top || dir === dirname(dir)) break;
  }
}

const pending = new Set<string>();
const INTERRUPTS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let installed = false;

function onSignal(signal: NodeJS.Signals): void {
  // Another handler takes this signal (a --follow loop that ends its step and closes cleanly):
  // the process goes on, so its files stay.
  if (process.listenerCount(signal) > 1) return;
  // A temp may be a staging folder (a writer builds a session folder before renaming it into place).
  for (const path of pending) rmSync(path, { recursive: true, force: true });
  pending.clear();
  // End the way the signal would have without this handler (exit status 128 + n).
  process.removeListener(signal, onSignal);
  process.kill(process.pid, signal);
}

/** Removes `path` (a file or a staging folder) if the process is interrupted before `release()` is called. */
export function removeOnInterrupt(path: string): () => void {
  if (!installed) {
    installed = true;
    for (const signal of INTERRUPTS) process.on(signal, onSignal);
  }
  pending.add(path);
  return () => settleInterrupt(path);
}

/** `path` took its final name or was removed: nothing to clean up for it on an interrupt. */
export function settleInterrupt(path: string): void {
  pending.delete(path);
}

/** A private temp folder (0700 under the OS temp dir) and its removal. */
export interface ScratchDir {
  readonly path: string;
  /** Removes the folder (again: nothing). */
  remove(): void;
}

const scratchDirs = new Set<string>();
let scratchExitHook = false;

/**
 * A temp folder for what a run spools (a session, a ledger): it goes when `remove()` is called, when
 * the process exits, or on an interrupt, whichever comes first — a long-running server or a killed
 * run never leaves one behind.
 */
export function scratchDir(prefix: string): ScratchDir {
  const path = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const settle = removeOnInterrupt(path);
  scratchDirs.add(path);
  if (!scratchExitHook) {
    scratchExitHook = true;
    process.on('exit', () => {
      for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
    });
  }
  let removed = false;
  return {
    path,
    remove() {
      if (removed) return;
      removed = true;
      scratchDirs.delete(path);
      rmSync(path, { recursive: true, force: true });
      settle();
    },
  };
}

/** Whether a process with this pid runs on this host (EPERM: it does, as another user). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Temp files and staging folders sp writes next to their target (lib/fs/atomic.ts), and a lock's staging file and a lock moved aside (lib/store/lock.ts). */
const TEMP_NAME = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;
const STALE_LOCK_NAME = /^lock\.(?:stale|new)\.(\d+)$/;

/** The pid that owns a temp file, by its name, or undefined when the name is not one of sp's temps. */
export function tempOwner(name: string): number | undefined {
  const m = TEMP_NAME.exec(name) ?? STALE_LOCK_NAME.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** Temp files of dead processes directly in `dir` (not recursive). */
export function staleTemps(dir: string): string[] {
  if (!existsSync(dir)) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const pid = tempOwner(name);
    if (pid !== undefined && pid !== process.pid && !pidAlive(pid)) out.push(join(dir, name));
  }
  return out;
}

/** Removes the stale temps in each folder; returns how many went. */
export function removeStaleTemps(dirs: string[]): number {
  let removed = 0;
  for (const dir of dirs) {
    for (const path of staleTemps(dir)) {
      try {
        rmSync(path, { recursive: true, force: true });
        removed += 1;
      } catch {
        // not ours to remove (permissions): it stays
      }
    }
  }
  return removed;
}
