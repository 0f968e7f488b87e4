// Unified diffs for derived `file.edit` events. Pi's `edit` result carries its own numbered display
// diff (`details.diff`: context and removed lines show the old line number, added lines the new one,
// ` <pad> ...` between hunks), which holds exact positions; it is converted only when it parses and
// its numbers are consistent, since a diff with made-up line numbers would mislead.
import { isAbsolute, relative, sep } from 'node:path';

export interface UnifiedDiff {
  diff: string;
  added: number;
  removed: number;
}

interface DisplayLine {
  sign: ' ' | '+' | '-';
  num: number;
  text: string;
}

const DISPLAY_LINE = /^([ +-]) *(\d+) (.*)$/s;
const GAP_LINE = /^\s+\.\.\.$/;

/** `a/<path>` git style for relative paths and paths inside the cwd; other absolute paths as they are. */
function diffName(path: string, cwd: string | undefined, side: 'a' | 'b'): string {
  if (!isAbsolute(path)) return `${side}/${path}`;
  if (cwd && isAbsolute(cwd)) {
    const rel = relative(cwd, path);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return `${side}/${rel.split(sep).join('/')}`;
  }
  return path;
}

function hunkHeader(oldStart: number, oldCount: number, newStart: number, newCount: number): string {
  // Unified convention: an empty side names the line *before* the change.
  const o = oldCount === 0 ? oldStart - 1 : oldStart;
  const n = newCount === 0 ? newStart - 1 : newStart;
  return `@@ -${o},${oldCount} +${n},${newCount} @@\n`;
}

/** Pi's numbered display diff → a unified diff; undefined when it does not parse or its numbers disagree. */
export function fromPiDisplayDiff(path: string, display: string, cwd?: string): UnifiedDiff | undefined {
  const hunks: DisplayLine[][] = [];
  let current: DisplayLine[] = [];
  for (const line of display.split('\n')) {
    if (GAP_LINE.test(line)) {
      if (current.length > 0) hunks.push(current);
      current = [];
      continue;
    }
    const m = DISPLAY_LINE.exec(line);
    if (!m) return undefined;
    current.push({ sign: m[1] as DisplayLine['sign'], num: Number(m[2]), text: m[3] });
  }
  if (current.length > 0) hunks.push(current);
  if (hunks.length === 0) return undefined;

  let out = `--- ${diffName(path, cwd, 'a')}\n+++ ${diffName(path, cwd, 'b')}\n`;
  let offset = 0; // new line number minus old line number before the current hunk
  let added = 0;
  let removed = 0;
  let lastOld = 1;
  for (const hunk of hunks) {
    // Positions come from the changed lines: older clients (≤ 0.30) numbered the context before a
    // change from the wrong line, so context lines count by position and are not checked.
    const at = hunk.findIndex((l) => l.sign !== ' ');
    if (at === -1) continue; // context only: nothing changed here
    const change = hunk[at];
    const oldAtChange = change.sign === '+' ? change.num - offset : change.num;
    const newAtChange = change.sign === '+' ? change.num : change.num + offset;
    const oldStart = oldAtChange - at;
    const newStart = newAtChange - at;
    if (oldStart < lastOld || newStart < 1) return undefined;
    let expectOld = oldStart;
    let expectNew = newStart;
    let body = '';
    let oldCount = 0;
    let newCount = 0;
    for (const line of hunk) {
      if (line.sign === '+') {
        if (line.num !== expectNew) return undefined;
        expectNew += 1;
        newCount += 1;
        added += 1;
        offset += 1;
      } else if (line.sign === '-') {
        if (line.num !== expectOld) return undefined;
        expectOld += 1;
        oldCount += 1;
        removed += 1;
        offset -= 1;
      } else {
        expectOld += 1;
        expectNew += 1;
        oldCount += 1;
        newCount += 1;
      }
      body += `${line.sign}${line.text}\n`;
    }
    lastOld = expectOld;
    out += hunkHeader(oldStart, oldCount, newStart, newCount) + body;
  }
  return { diff: out, added, removed };
}

/** A `write` of a whole file: every line added (whatever the file held before is not recorded). */
export function wholeFileDiff(path: string, content: string, cwd?: string): UnifiedDiff {
  let out = `--- /dev/null\n+++ ${diffName(path, cwd, 'b')}\n`;
  if (content === '') return { diff: out, added: 0, removed: 0 };
  const endsWithNewline = content.endsWith('\n');
  const lines = (endsWithNewline ? content.slice(0, -1) : content).split('\n');
  out += hunkHeader(1, 0, 1, lines.length) + lines.map((l) => `+${l}\n`).join('');
  if (!endsWithNewline) out += '\\ No newline at end of file\n';
  return { diff: out, added: lines.length, removed: 0 };
}
