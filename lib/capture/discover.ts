// What the adapters' discover.ts files share: listing session files filed in one folder per
// project (Claude's projects/<slug>/, Pi's sessions/--<cwd>--/), and the `--list` details every
// SessionRef has (first and last time, the first prompt), so every agent lists alike.
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Diagnose, SessionRef } from '../adapter/interface.js';
import { errorCode } from '../cli/diagnostics.js';
import { OpsError } from '../ops/errors.js';
import { toEpochSeconds } from '../core/event.js';

/**
 * The session files in the project folders of `root`, with their mtime (epoch seconds), folder by
 * folder: `.jsonl` files unless `accept` says otherwise, directly in each folder or in its
 * `subfolder` (Gemini-format `<project>/chats/`). `folders` are root's entries, read by the adapter
 * (its error for a missing root names its home). A folder that cannot be read is reported and
 * skipped (a project without the subfolder is not an error); a file deleted meanwhile is skipped.
 */
export function* sessionFilesByFolder(
  root: string,
  folders: Dirent[],
  onDiagnostic?: Diagnose,
  options: { subfolder?: string; accept?: (name: string) => boolean } = {},
): Generator<{ folder: string; name: string; path: string; mtime: number }> {
  const accept = options.accept ?? ((name: string) => name.endsWith('.jsonl'));
  for (const folder of folders) {
    if (!folder.isDirectory()) continue;
    const folderPath = options.subfolder === undefined ? join(root, folder.name) : join(root, folder.name, options.subfolder);
    let entries: Dirent[];
    try {
      entries = readdirSync(folderPath, { withFileTypes: true });
    } catch (err) {
      if (options.subfolder === undefined || (err as NodeJS.ErrnoException).code !== 'ENOENT') onDiagnostic?.(folderPath, `cannot read: ${errorCode(err)}; skipped`);
      continue;
    }
    for (const entry of entries) {
      if (!entry.isFile() || !accept(entry.name)) continue;
      const path = join(folderPath, entry.name);
      let mtime: number;
      try {
        mtime = statSync(path).mtimeMs / 1000;
      } catch {
        continue; // deleted while we looked
      }
      yield { folder: folder.name, name: entry.name, path, mtime };
    }
  }
}

/** Widens `ref.first_ts`/`last_ts` by the time of a record (read in file order), when it has one. */
export function noteTime(ref: SessionRef, value: unknown): void {
  const ts = toEpochSeconds(value);
  if (ts === undefined) return;
  if (ref.first_ts === undefined) ref.first_ts = ts;
  ref.last_ts = ts;
}

/**
 * A prompt for `first_prompt` and one-line listings: whitespace runs folded, cut to `max` characters
 * (code points, so a cut never splits a character).
 */
export function cutPrompt(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length > max ? chars.slice(0, max).join('') : flat;
}

/**
 * The session `id` names among `refs`: its native id, else the one native id it is a unique prefix
 * of (as the clients' own `--resume <prefix>` takes it). Several matches: an OpsError (ambiguous) listing a
 * few; none: an OpsError (not-found) saying `none` (where it looked, and how to list). `where` is the place
 * either error names.
 */
export async function findByIdPrefix(
  refs: AsyncIterable<SessionRef> | Iterable<SessionRef>,
  id: string,
  none: string,
  options: { where?: string; ignoreCase?: boolean } = {},
): Promise<SessionRef> {
  const fold = (s: string) => (options.ignoreCase ? s.toLowerCase() : s);
  const want = fold(id);
  const matches: SessionRef[] = [];
  for await (const ref of refs) {
    const have = fold(ref.native_id);
    if (have === want) return ref;
    if (have.startsWith(want)) matches.push(ref);
  }
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    throw new OpsError('ambiguous', `"${id}" matches ${matches.length} sessions (${matches.slice(0, 3).map((m) => m.native_id).join(', ')}…); give more of the id`, options.where, matches.map((m) => m.native_id));
  }
  throw new OpsError('not-found', none);
}

/**
 * Files under `root` whose name `accept` takes, at most `maxDepth` folders down, entering only the
 * folders `enter` allows. Symbolic links are never followed (a link must not lead discovery out of
 * a home); an unreadable folder is skipped.
 */
export function* filesUnder(root: string, options: { maxDepth: number; enter: (name: string) => boolean; accept: (name: string) => boolean }, depth = 0): Generator<string> {
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isFile() && options.accept(entry.name)) yield join(root, entry.name);
    else if (entry.isDirectory() && depth < options.maxDepth && options.enter(entry.name)) yield* filesUnder(join(root, entry.name), options, depth + 1);
  }
}

/**
 * The sessions behind candidate files, newest first: each file's modification time, its ref, only
 * those in `cwd` when one is asked for, and (with `details`) the summary `--list` shows. A file
 * that vanished between listing and stat is skipped. For agents with one file per session.
 */
export async function* sessionRefsNewestFirst(
  paths: Iterable<string>,
  options: { home: string; cwd?: string; details?: boolean },
  refOf: (path: string, mtime: number) => SessionRef,
  summarize: (ref: SessionRef) => Promise<SessionRef>,
): AsyncGenerator<SessionRef> {
  const wantCwd = options.cwd !== undefined ? resolve(options.cwd) : undefined;
  const found: SessionRef[] = [];
  for (const path of paths) {
    let mtime: number;
    try {
      mtime = statSync(path).mtimeMs / 1000;
    } catch {
      continue;
    }
    const ref = refOf(path, mtime);
    ref.home = options.home;
    if (wantCwd !== undefined && (ref.cwd === undefined || resolve(ref.cwd) !== wantCwd)) continue;
    found.push(ref);
  }
  found.sort((a, b) => (b.mtime ?? 0) - (a.mtime ?? 0) || a.path.localeCompare(b.path));
  for (const ref of found) yield options.details ? await summarize(ref) : ref;
}
