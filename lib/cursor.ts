// Cursors for incremental capture, generic across agents. A source position is a byte offset plus
// the SHA-256 of the last consumed line: if the bytes under that line changed, or the file got
// shorter, the file was truncated or rewritten and continuing would mis-read it, so it is reported
// (exit 2) instead. The cursor file is replaced atomically (lib/atomic.ts: temp file + rename), so a
// crash leaves either the old or the new cursor, never half of one.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readFileSync, readSync, statSync } from 'node:fs';
import type { Cursor, SourcePosition } from './adapter.js';
import { replaceFileAtomic } from './atomic.js';
import { UserError } from './diagnostics.js';
import { splitLines, type Line } from './lines.js';

/** What `--cursor FILE` holds: one cursor per native session of one agent. */
export interface CursorFile {
  version: 1;
  agent: string;
  cursors: Record<string, Cursor>;
}

export function emptyCursor(agent: string, nativeId: string): Cursor {
  return { version: 1, agent, native_id: nativeId, sources: {}, sessions: {} };
}

/** Reads a cursor file; a missing file is an empty cursor set (the first incremental run). */
export function readCursorFile(path: string, agent: string): CursorFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, agent, cursors: {} };
    throw new UserError(`cannot read the cursor: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UserError(`not a cursor file (invalid JSON: ${(err as Error).message})`, path);
  }
  const file = value as Partial<CursorFile>;
  if (typeof file !== 'object' || file === null || file.version !== 1 || typeof file.cursors !== 'object' || file.cursors === null) {
    throw new UserError('not a cursor file (expected {"version":1,"agent",…,"cursors":{…}})', path);
  }
  if (file.agent !== agent) throw new UserError(`this cursor belongs to agent "${file.agent}", not "${agent}"`, path);
  return file as CursorFile;
}

export function writeCursorFile(path: string, file: CursorFile): void {
  replaceFileAtomic(path, JSON.stringify(file) + '\n');
}

/** Reads `length` bytes at `position` (fewer at the end of the file). */
function readRange(path: string, position: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const n = readSync(fd, buffer, done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return buffer.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The position just past a consumed line: the line's bytes are read back from the file (they never
 * change in an append-only file), so the hash is over the exact bytes, not a re-encoding.
 */
export function positionAfter(path: string, line: { start: number; end: number; number: number }): SourcePosition {
  const bytes = readRange(path, line.start, line.end - line.start);
  return { offset: line.end, line: line.number, last_line_start: line.start, last_line_sha256: sha256Hex(bytes) };
}

export type SourceCheck = { ok: true; size: number } | { ok: false; problem: 'missing' | 'truncated' | 'rewritten'; detail: string };

/** Whether `path` still holds what `position` consumed: the file is at least as long and the last line is unchanged. */
export function checkSource(path: string, position: SourcePosition): SourceCheck {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    return { ok: false, problem: 'missing', detail: `cannot read it any more (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  if (size < position.offset) {
    return { ok: false, problem: 'truncated', detail: `it has ${size} bytes, but the cursor already consumed ${position.offset}` };
  }
  if (position.last_line_start !== undefined && position.last_line_sha256 !== undefined) {
    const bytes = readRange(path, position.last_line_start, position.offset - position.last_line_start);
    if (bytes.length !== position.offset - position.last_line_start || sha256Hex(bytes) !== position.last_line_sha256) {
      return { ok: false, problem: 'rewritten', detail: `line ${position.line} (bytes ${position.last_line_start}–${position.offset}) is not the line the cursor consumed` };
    }
  }
  return { ok: true, size };
}

/** Throws a UserError (exit 2) unless `path` still holds what the cursor consumed. */
export function assertSourceUnchanged(path: string, position: SourcePosition): number {
  const check = checkSource(path, position);
  if (check.ok) return check.size;
  const what = check.problem === 'missing' ? 'is gone' : `was ${check.problem}`;
  throw new UserError(
    `${what} since the cursor was stored: ${check.detail}; not continuing, so nothing is mis-read (capture it again without the cursor, or delete the cursor file)`,
    path,
  );
}

/**
 * The lines of `path` in the byte range [start, end): capture reads up to the size it saw when it
 * started, so a file that grows meanwhile is read consistently (the rest comes next time).
 */
export async function* sourceLines(path: string, start: number, end: number, firstLineNumber: number): AsyncGenerator<Line> {
  if (end <= start) return;
  const stream = createReadStream(path, { start, end: end - 1, highWaterMark: 1 << 20, flags: 'r' });
  yield* splitLines(stream, firstLineNumber, start);
}

/**
 * A line's exact text for `origin.raw`: splitLines drops a CR before the LF and a BOM at the
 * start of the file, so they are put back (lines joined with "\n" then give the file's bytes).
 * `exact` is false when the bytes were not valid UTF-8 and cannot be carried in a JSON string.
 */
export function rawLineText(line: Line): { text: string; exact: boolean } {
  const bodyBytes = line.end - line.start - (line.terminated ? 1 : 0);
  const missing = bodyBytes - Buffer.byteLength(line.text);
  if (missing === 0) return { text: line.text, exact: true };
  if (missing === 1) return { text: line.text + '\r', exact: true };
  if (line.start === 0 && (missing === 3 || missing === 4)) return { text: '\ufeff' + line.text + (missing === 4 ? '\r' : ''), exact: true };
  return { text: line.text, exact: false };
}
