// Where sp keeps ATIF trajectories it writes, and how a trajectory file is read. ATIF has no agent
// home of its own: sp's "home" for it is a folder of trajectory files (SP_ATIF_HOME, default
// ~/.atif/trajectories); `sp-capture atif --path FILE` reads one wherever it lies.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UserError, readError } from '../../lib/cli/diagnostics.js';
import { statSessionFile } from '../../lib/capture/read-position.js';
import { isObject, type Json } from '../../lib/core/json.js';
import { envPath } from '../../lib/fs/paths.js';

export const AGENT = 'atif';
export const HOME_ENV = 'SP_ATIF_HOME';

/** A trajectory larger than this is refused: it is read whole (one JSON document), not streamed. */
export const MAX_TRAJECTORY_BYTES = 256 * 1024 * 1024;

export function defaultHome(): string {
  return envPath(HOME_ENV) ?? join(homedir(), '.atif', 'trajectories');
}

export interface TrajectoryFile {
  text: string;
  doc: Json;
  mtime: number;
}

/** Reads and parses a trajectory file; a UserError (exit 2) when it is not one JSON object. */
export function readTrajectory(path: string): TrajectoryFile {
  const { size, mtime } = statSessionFile(path, 'ATIF trajectory');
  if (size > MAX_TRAJECTORY_BYTES) throw new UserError(`larger than ${MAX_TRAJECTORY_BYTES} bytes; not read`, path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw readError(err, path);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new UserError(`not JSON: ${(err as Error).message}`, path);
  }
  if (!isObject(doc)) throw new UserError('not an ATIF trajectory: the document is not a JSON object', path);
  return { text, doc, mtime };
}

/**
 * A session id as a file name: the native id of a `--same-id` write names the file, so it must
 * stay one plain name inside the home (no separators, no `..`, no control characters).
 */
export function safeFileStem(id: string): string | undefined {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(id) && !id.includes('..') ? id : undefined;
}
