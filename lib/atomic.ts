// Writers never overwrite and never leave half a file behind: write a temp file next to the
// target, fsync it, then link it into place (link fails if the target exists), then drop the temp.
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { UserError } from './diagnostics.js';

/** Creates `path` with `chunks` atomically; a UserError if it already exists. */
export function createFileAtomic(path: string, chunks: Iterable<string | Buffer>, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', mode);
  try {
    for (const chunk of chunks) writeSync(fd, typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(temp);
    throw err;
  }
  closeSync(fd);
  try {
    linkSync(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new UserError('exists already; not overwriting it', path);
    throw err;
  } finally {
    unlinkSync(temp);
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
