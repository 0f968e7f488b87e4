// A patch intent as a target's file tools: every vocabulary without a patch tool of its own
// renders one the same way — an added file as its write tool, a deleted one as `rm` through its
// shell tool, an update as its edit tool (one call per hunk, or one for all where the tool takes
// several) — and refuses a move, which no edit tool can express. The adapter gives the spelling.
import type { PatchFile, Replacement } from '../patch.js';
import { shq, type NativeCall } from './types.js';

export interface PatchToolSpelling {
  /** The write tool's call for a new file (`path` as the patch names it). */
  write(path: string, content: string): NativeCall;
  /** The shell tool's call running `command` (an `rm` of the file), `description` said for the user. */
  shell(command: string, description: string, path: string): NativeCall;
  /** The edit tool's calls for an update's hunks. */
  edit(path: string, hunks: Replacement[]): NativeCall[];
  /** The path as the target's tools take it (absolute, or relative to the cwd). */
  path(path: string): string;
}

/** The calls for a patch's files; undefined when one moves a file (no edit tool can say it). */
export function patchAsCalls(files: readonly PatchFile[], spelling: PatchToolSpelling): NativeCall[] | undefined {
  const calls: NativeCall[] = [];
  for (const file of files) {
    if (file.op === 'add') calls.push(spelling.write(file.path, file.content));
    else if (file.op === 'delete') calls.push(spelling.shell(`rm ${shq(spelling.path(file.path))}`, `Delete ${file.path}`, file.path));
    else {
      if (file.moveTo) return undefined;
      calls.push(...spelling.edit(file.path, file.hunks));
    }
  }
  return calls;
}
