// The apply_patch text format (Codex's `apply_patch` tool, Hermes's `patch` in patch mode):
//   *** Begin Patch
//   *** Add File: PATH        then every line `+…`
//   *** Update File: PATH     optional `*** Move to: NEW`, then hunks: `@@ [anchor]`, lines ` ctx`, `-old`, `+new`
//   *** Delete File: PATH
//   *** End Patch
// Parsed into per-file operations and built from old/new replacements, so an Edit's strings and a
// patch hunk can become each other. The one parser of the format: the relay vocabularies (Codex,
// Hermes) and Codex's capture-time derivation (file.edit from an apply_patch call) both read a
// patch here, so a text is a patch, or malformed, the same way on both paths.

export interface Replacement {
  old: string;
  new: string;
  /** Replace every occurrence (Claude `replace_all`, Hermes `replace_all`). */
  all?: boolean;
}

export type PatchFile =
  | { op: 'add'; path: string; content: string }
  | { op: 'delete'; path: string }
  | { op: 'update'; path: string; moveTo?: string; hunks: Replacement[] };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const MOVE = /^\*\*\* Move to: (.+)$/;

/** The files of a patch text; undefined when the text is not one (no Begin/End, a line it cannot place). */
export function parsePatch(text: string): PatchFile[] | undefined {
  return parsePatchSections(text)?.map((section) => section.file);
}

/** One file of a patch, and its section's hunk lines as written (`@@` anchors kept; empty but for updates). */
export interface PatchSection {
  file: PatchFile;
  lines: string[];
}

/** parsePatch, keeping each update's hunk lines as written (capture turns them into a diff). */
export function parsePatchSections(text: string): PatchSection[] | undefined {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  let at = 0;
  while (at < lines.length && lines[at].trim() === '') at += 1;
  if (lines[at]?.trim() !== BEGIN || lines[lines.length - 1]?.trim() !== END) return undefined;
  const body = lines.slice(at + 1, lines.length - 1);
  const files: PatchSection[] = [];
  let i = 0;
  while (i < body.length) {
    const header = FILE_HEADER.exec(body[i]);
    if (!header) {
      if (body[i].trim() === '') {
        i += 1;
        continue;
      }
      return undefined;
    }
    const [, kind, path] = header;
    i += 1;
    if (kind === 'Delete') {
      files.push({ file: { op: 'delete', path: path.trim() }, lines: [] });
      continue;
    }
    if (kind === 'Add') {
      const content: string[] = [];
      while (i < body.length && !FILE_HEADER.test(body[i])) {
        if (!body[i].startsWith('+')) return undefined;
        content.push(body[i].slice(1));
        i += 1;
      }
      files.push({ file: { op: 'add', path: path.trim(), content: content.length > 0 ? content.join('\n') + '\n' : '' }, lines: [] });
      continue;
    }
    const file: PatchFile = { op: 'update', path: path.trim(), hunks: [] };
    const lines: string[] = [];
    const move = i < body.length ? MOVE.exec(body[i]) : null;
    if (move) {
      file.moveTo = move[1].trim();
      i += 1;
    }
    let oldLines: string[] | undefined;
    let newLines: string[] = [];
    const flush = (): void => {
      if (oldLines && (oldLines.length > 0 || newLines.length > 0)) file.hunks.push({ old: oldLines.join('\n'), new: newLines.join('\n') });
      oldLines = undefined;
      newLines = [];
    };
    while (i < body.length && !FILE_HEADER.test(body[i])) {
      const line = body[i];
      i += 1;
      if (line !== '*** End of File') lines.push(line);
      if (line.startsWith('@@')) {
        flush();
        oldLines = [];
        continue;
      }
      if (line === '*** End of File') continue;
      oldLines ??= []; // a hunk may start without an @@ line
      if (line.startsWith('+')) newLines.push(line.slice(1));
      else if (line.startsWith('-')) oldLines.push(line.slice(1));
      else if (line.startsWith(' ')) {
        oldLines.push(line.slice(1));
        newLines.push(line.slice(1));
      } else if (line === '') {
        // a blank context line whose leading space was trimmed away
        oldLines.push('');
        newLines.push('');
      } else return undefined;
    }
    flush();
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    files.push({ file, lines });
  }
  return files.length > 0 ? files : undefined;
}

/**
 * The hunk lines of one replacement: the lines old and new share at the start and at the end are
 * context (` `), the rest `-` old and `+` new. Parsing the hunk back gives `old`/`new` again (a
 * trailing newline both share is a shared empty last line, so it comes back too).
 */
export function hunkLines(replacement: Replacement): string[] {
  const oldLines = replacement.old.split('\n');
  const newLines = replacement.new.split('\n');
  let head = 0;
  while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) head += 1;
  let tail = 0;
  while (tail < oldLines.length - head && tail < newLines.length - head && oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]) tail += 1;
  const out: string[] = [];
  for (const line of oldLines.slice(0, head)) out.push(` ${line}`);
  for (const line of oldLines.slice(head, oldLines.length - tail)) out.push(`-${line}`);
  for (const line of newLines.slice(head, newLines.length - tail)) out.push(`+${line}`);
  for (const line of oldLines.slice(oldLines.length - tail)) out.push(` ${line}`);
  return out;
}

/** A patch text of the given files. */
export function buildPatch(files: PatchFile[]): string {
  const out = [BEGIN];
  for (const file of files) {
    if (file.op === 'delete') {
      out.push(`*** Delete File: ${file.path}`);
    } else if (file.op === 'add') {
      out.push(`*** Add File: ${file.path}`);
      const content = file.content.endsWith('\n') ? file.content.slice(0, -1) : file.content;
      if (file.content !== '') for (const line of content.split('\n')) out.push(`+${line}`);
    } else {
      out.push(`*** Update File: ${file.path}`);
      if (file.moveTo) out.push(`*** Move to: ${file.moveTo}`);
      for (const hunk of file.hunks) {
        out.push('@@');
        out.push(...hunkLines(hunk));
      }
    }
  }
  out.push(END);
  return out.join('\n') + '\n';
}
