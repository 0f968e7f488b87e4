// Writing a compiled handoff into a directory (`--out DIR`): the four agent-work-mem files, or a
// section of the agent's instructions file. Each file is written atomically (temp file, fsync,
// link or rename). Nothing is overwritten without --force, and the check covers every file first,
// so a refusal leaves the directory as it was. With --force an instructions file keeps what it had:
// only the sp-compile section is replaced (or appended when there is none).
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { createFileAtomic } from '../fs/atomic.js';
import { UserError } from '../cli/diagnostics.js';
import { AGENTS_MD_BEGIN, AGENTS_MD_END, type Rendered } from './render.js';
import type { FormatName, Target } from './targets.js';

/** Replaces `path` atomically: the old content stays whole until the rename. */
function replaceFileAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o644);
  try {
    writeSync(fd, Buffer.from(text));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, path);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    try {
      unlinkSync(temp);
    } catch {
      // already renamed or gone
    }
    throw err;
  }
}

/** The instructions file with the sp-compile section put in (replacing an earlier one). */
export function mergeSection(existing: string, section: string): string {
  const begin = existing.indexOf(AGENTS_MD_BEGIN.slice(0, 19)); // "<!-- sp-compile:begin"
  const end = existing.indexOf(AGENTS_MD_END);
  if (begin !== -1 && end > begin) {
    return existing.slice(0, begin) + section.replace(/\n$/, '') + existing.slice(end + AGENTS_MD_END.length);
  }
  const sep = existing === '' || existing.endsWith('\n\n') ? '' : existing.endsWith('\n') ? '\n' : '\n\n';
  return existing + sep + section;
}

export function outputFiles(format: FormatName, target: Target, rendered: Rendered): Array<{ name: string; text: string }> {
  if (format === 'files') return rendered.docs.map((d) => ({ name: d.name, text: d.text }));
  if (format === 'agents-md') return [{ name: target.instructionsFile, text: rendered.text }];
  throw new UserError('--out writes --format files or agents-md; for a message use --render > FILE', '--out');
}

/** Writes the files into `dir`; returns their paths. */
export function writeOutputs(dir: string, format: FormatName, target: Target, rendered: Rendered, force: boolean): string[] {
  const files = outputFiles(format, target, rendered).map((f) => ({ ...f, path: join(dir, f.name) }));
  if (!force) {
    const present = files.filter((f) => existsSync(f.path)).map((f) => f.path);
    if (present.length) throw new UserError(`${present.length === 1 ? 'exists' : 'exist'} already; not overwriting (--force replaces ${format === 'agents-md' ? 'the sp-compile section' : 'them'})`, present.join(', '));
  }
  const created: string[] = [];
  try {
    for (const f of files) {
      if (!force) {
        createFileAtomic(f.path, [f.text], 0o644);
        created.push(f.path);
      } else if (format === 'agents-md' && existsSync(f.path)) {
        replaceFileAtomic(f.path, mergeSection(readFileSync(f.path, 'utf8'), f.text));
      } else {
        replaceFileAtomic(f.path, f.text);
      }
    }
  } catch (err) {
    // All of the handoff or none: a disk that fills up half-way must not leave some of its files.
    for (const path of created) rmSync(path, { force: true });
    throw err;
  }
  return files.map((f) => f.path);
}
