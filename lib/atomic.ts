// Files written whole or not at all: the content goes to a temp file next to the target, is
// fsynced, and only then takes the target's name, so a crash never leaves half a file behind.
// Two ways to take the name: `createFileAtomic` links it (link fails if the target exists, so a
// writer never overwrites: sessions, artifacts, keys), `replaceFileAtomic` renames it over the
// old file (state that is meant to be replaced: cursors).
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { UserError } from './diagnostics.js';
import { removeOnInterrupt, settleInterrupt } from './private.js';

/** Writes `chunks` to a new temp file next to `path`, fsynced and closed; returns its path. */
function writeTemp(path: string, chunks: Iterable<string | Buffer>, mode: number): string {
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
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


/** Creates `path` with `chunks` atomically; a UserError if it already exists. */
export function createFileAtomic(path: string, chunks: Iterable<string | Buffer>, mode = 0o600): void {
  const temp = writeTemp(path, chunks, mode);
  try {
    linkSync(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new UserError('exists already; not overwriting it', path);
    throw err;
  } finally {
    unlinkSync(temp);
    settleInterrupt(temp);
  }
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
  try {
    renameSync(temp, path);
  } catch (err) {
    unlinkSync(temp);
    throw err;
  } finally {
    settleInterrupt(temp);
  }
}
