// Files written whole or not at all: the content goes to a temp file next to the target, is
// fsynced, and only then takes the target's name, so a crash never leaves half a file behind.
// Two ways to take the name: `createFileAtomic` links it (link fails if the target exists, so a
// writer never overwrites: sessions, artifacts, keys), `replaceFileAtomic` renames it over the
// old file (state that is meant to be replaced: cursors).
// Temp files and folders are named `.<label>.<pid>.<8 hex>.tmp` (the writing process's pid): a
// SIGINT/SIGTERM/SIGHUP during a write removes the current ones, and the next write into the same
// folder removes those a killed process (kill -9, power loss) left behind, once that pid is gone.
import { chmodSync, closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { UserError } from '../cli/diagnostics.js';
import { removeOnInterrupt, removeStaleTemps, settleInterrupt } from './private.js';

const swept = new Set<string>();

/**
 * A fresh temp path in `dir` for `label` (`.<label>.<pid>.<hex>.tmp`), the first time in this process
 * after removing the stale temps of dead processes there. The caller creates it (exclusively) and
 * registers it with removeOnInterrupt until it is renamed or removed.
 */
export function newTempPath(dir: string, label: string): string {
  // Once per folder and process: a bulk write (thousands of artifacts) must not re-list its folder each time.
  if (!swept.has(dir)) {
    swept.add(dir);
    removeStaleTemps([dir]);
  }
  return join(dir, `.${label}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Writes `chunks` to a new temp file next to `path`, fsynced and closed; returns its path (the caller links or renames it, or removes it). */
export function writeTemp(path: string, chunks: Iterable<string | Buffer>, mode: number): string {
  mkdirSync(dirname(path), { recursive: true });
  const temp = newTempPath(dirname(path), basename(path));
  const fd = openSync(temp, 'wx', mode);
  const release = removeOnInterrupt(temp);
  try {
    for (const chunk of chunks) writeSync(fd, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(temp);
    release();
    // A full disk (ENOSPC) or a file size limit (EFBIG): name the file that could not be written.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== undefined) throw new UserError(`cannot write: ${code} (nothing was written)`, path);
    throw err;
  }
  closeSync(fd);
  return temp;
}

/** Whatever happens to `temp` inside `use`, it needs no clean-up on an interrupt afterwards. */
function withTemp<T>(temp: string, use: () => T): T {
  try {
    return use();
  } finally {
    settleInterrupt(temp);
  }
}

/** Creates `path` with `chunks` atomically; a UserError if it already exists. */
export function createFileAtomic(path: string, chunks: Iterable<string | Buffer>, mode = 0o600): void {
  const temp = writeTemp(path, chunks, mode);
  withTemp(temp, () => {
    try {
      linkSync(temp, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new UserError('exists already; not overwriting it', path);
      throw err;
    } finally {
      unlinkSync(temp);
    }
  });
  // Make the new directory entry durable too.
  try {
    const dirFd = openSync(dirname(path), 'r');
    fsyncSync(dirFd);
    closeSync(dirFd);
  } catch {
    // Some filesystems cannot fsync a directory; the file itself is already durable.
  }
}

/** Replaces `path` atomically with `text` (creates it when absent): readers see the old or the new file. */
export function replaceFileAtomic(path: string, text: string | Buffer, mode = 0o600): void {
  const temp = writeTemp(path, [text], mode);
  withTemp(temp, () => {
    try {
      renameSync(temp, path);
    } catch (err) {
      unlinkSync(temp);
      throw err;
    }
  });
}

/**
 * A copy of `source` at `target` (never over an existing file) with `source`'s permission bits, so a
 * backup of a 0600 database stays 0600: `copy` fills a temp file created with that mode (empty), then
 * it is linked into place. A signal or an error leaves no temp behind.
 */
export async function createCopyWithModeOf(source: string, target: string, copy: (temp: string) => Promise<void>): Promise<void> {
  const mode = statSync(source).mode & 0o777;
  const temp = newTempPath(dirname(target), basename(target));
  closeSync(openSync(temp, 'wx', mode));
  const release = removeOnInterrupt(temp);
  try {
    await copy(temp);
    chmodSync(temp, mode); // whatever the copy did (and the umask) to the mode
    linkSync(temp, target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new UserError('exists already; not overwriting it', target);
    throw err;
  } finally {
    rmSync(temp, { force: true });
    release();
  }
}

/**
 * Moves the folder `staging` to `dir`, never over anything: rename(2) silently replaces an empty
 * folder, so `dir` is first claimed with mkdir (atomic, EEXIST if anything is there) and `staging`
 * renamed over that empty claim. Something put into the claim meanwhile fails the rename (ENOTEMPTY)
 * and stays. Throws the errno error (EEXIST, ENOTEMPTY …) for the caller to word.
 */
export function renameDirNoReplace(staging: string, dir: string): void {
  mkdirSync(dir, { mode: 0o700 });
  try {
    renameSync(staging, dir);
  } catch (err) {
    try {
      rmdirSync(dir); // only while it is still our empty claim
    } catch {
      // not empty: another writer's now
    }
    throw err;
  }
}
