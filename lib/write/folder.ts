// A session that is a folder of files (Cline's task folder, Copilot's session-state folder) is
// written whole or not at all: every file goes into a private staging folder beside it, which is
// moved into place last. A folder that appeared under the same name meanwhile (even an empty one)
// is never replaced.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../cli/diagnostics.js';
import { createFileAtomic, newTempPath, renameDirNoReplace } from '../fs/atomic.js';
import { removeOnInterrupt } from '../fs/private.js';

/** One file of the folder: its name and its content, produced when the file is written (in order). */
export type FolderFile = [name: string, chunks: () => Iterable<string | Buffer>];

/** Writes `files` as the new folder `dir`, staged in `root` (an existing folder on the same file system); the staging folder is removed on failure or interrupt. */
export function createFolderAtomic(root: string, dir: string, label: string, files: FolderFile[]): void {
  const staging = newTempPath(root, label);
  const release = removeOnInterrupt(staging);
  try {
    mkdirSync(staging, { mode: 0o700 });
    for (const [name, chunks] of files) createFileAtomic(join(staging, name), chunks(), 0o600);
    renameDirNoReplace(staging, dir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if (err instanceof UserError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTEMPTY') throw new UserError('a session with this id appeared meanwhile; nothing was written', dir);
    throw new UserError(`cannot write the session: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, dir);
  } finally {
    release();
  }
}
