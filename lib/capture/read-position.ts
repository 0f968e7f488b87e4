// Cursors for incremental capture, and reading a native file from one, generic across agents. A
// source position is a byte offset plus the SHA-256 of the last consumed line: if the bytes under
// that line changed, or the file got shorter, the file was truncated or rewritten and continuing
// would mis-read it, so it is reported (exit 2) instead. The cursor file is replaced atomically
// (lib/fs/atomic.ts: temp file + rename), so a crash leaves either the old or the new cursor, never
// half of one. Every adapter's capture reads its files through the helpers below, so all of them
// check cursors, stop before a half-written last line and report unreadable files the same way.
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readFileSync, readSync, statSync, type Stats } from 'node:fs';
import type { Cursor, SourcePosition } from '../adapter/interface.js';
import { replaceFileAtomic } from '../fs/atomic.js';
import { UserError, errorCode, readError, warn } from '../cli/diagnostics.js';
import { SessionEmitter } from '../core/emitter.js';
import { canonicalSessionId } from '../core/event.js';
import { READ_CHUNK, splitLines, type Line } from '../core/lines.js';

/** What `--cursor FILE` holds: one cursor per native session of one agent. */
export interface CursorFile {
  version: 1;
  agent: string;
  cursors: Record<string, Cursor>;
}

export function emptyCursor(agent: string, nativeId: string): Cursor {
  return { version: 1, agent, native_id: nativeId, sources: {}, sessions: {} };
}

/**
 * The cursor a capture of the session in `ref` continues from (a copy: the caller's stays as it
 * was), or a new one without `stored`. A cursor of another session, or one that read this session
 * from another file, is refused: continuing from it could skip or duplicate events.
 */
export function cursorFor(agent: string, ref: { native_id: string; path: string }, stored: Cursor | undefined): Cursor {
  const cursor: Cursor = stored ? structuredClone(stored) : emptyCursor(agent, ref.native_id);
  if (cursor.native_id !== ref.native_id) {
    throw new UserError(`the cursor belongs to session ${cursor.native_id}, not ${ref.native_id}`);
  }
  const known = Object.keys(cursor.sources);
  if (known.length > 0 && !(ref.path in cursor.sources)) {
    throw new UserError(`the cursor was stored for ${known[0]}; this session is now read from another file, so continuing could duplicate events`, ref.path);
  }
  return cursor;
}

/** Stores in `cursor` that `path` was consumed up to and including `last` (nothing when no line was). */
export function storePosition(cursor: Cursor, path: string, last: Line | undefined): void {
  if (last) cursor.sources[path] = positionAfter(path, last);
}

/** The emitter of a session's events: its seq numbering continues where the cursor's last run stopped. */
export function emitterFor(cursor: Cursor, agent: string, nativeId: string): SessionEmitter {
  return new SessionEmitter(agent, nativeId, { nextSeq: cursor.sessions[canonicalSessionId(agent, nativeId)]?.next_seq ?? 0 });
}

/** Stores in `cursor` the seq a session's next event gets, so the next run continues the numbering. */
export function storeNextSeq(cursor: Cursor, emitter: SessionEmitter): void {
  cursor.sessions[emitter.session] = { ...cursor.sessions[emitter.session], next_seq: emitter.nextSeq };
}

/** Reads a cursor file; a missing file is an empty cursor set (the first incremental run). */
export function readCursorFile(path: string, agent: string): CursorFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, agent, cursors: {} };
    throw new UserError(`cannot read the cursor: ${errorCode(err)}`, path);
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

/** `mtime` in epoch seconds. */
export type SourceCheck = { ok: true; size: number; mtime: number } | { ok: false; problem: 'missing' | 'truncated' | 'rewritten'; detail: string };

/** Whether `path` still holds what `position` consumed: the file is at least as long and the last line is unchanged. */
export function checkSource(path: string, position: SourcePosition): SourceCheck {
  let size: number;
  let mtime: number;
  try {
    const stat = statSync(path);
    size = stat.size;
    mtime = stat.mtimeMs / 1000;
  } catch (err) {
    return { ok: false, problem: 'missing', detail: `cannot read it any more (${errorCode(err)})` };
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
  return { ok: true, size, mtime };
}

/** Throws a UserError (exit 2) unless `path` still holds what the cursor consumed; returns its size. */
export function assertSourceUnchanged(path: string, position: SourcePosition): number {
  return unchangedSource(path, position).size;
}

function unchangedSource(path: string, position: SourcePosition): { size: number; mtime: number } {
  const check = checkSource(path, position);
  if (check.ok) return check;
  const what = check.problem === 'missing' ? 'is gone' : `was ${check.problem}`;
  throw new UserError(
    `${what} since the cursor was stored: ${check.detail}; not continuing, so nothing is mis-read (capture it again without the cursor, or delete the cursor file)`,
    path,
  );
}

/**
 * A native session file's size and mtime (epoch seconds), or a UserError (exit 2) that names
 * `where` (default: the path): `is a directory, not a <kind>`, or `cannot read: <code>`.
 */
export function statSessionFile(path: string, kind: string, where = path): { size: number; mtime: number } {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (err) {
    throw readError(err, where);
  }
  if (stat.isDirectory()) throw new UserError(`is a directory, not a ${kind}`, where);
  return { size: stat.size, mtime: stat.mtimeMs / 1000 };
}

/**
 * How far a capture reads `path` (its size now: a file that grows meanwhile is read up to there,
 * the rest comes next time) and its mtime. With the position a cursor stored, the file must still
 * hold what that run consumed (see assertSourceUnchanged).
 */
export function sourceExtent(path: string, position: SourcePosition | undefined, kind: string): { size: number; mtime: number } {
  return position ? unchangedSource(path, position) : statSessionFile(path, kind);
}

/**
 * The lines a capture consumes: from the cursor's position (or the start) up to `end`. In an
 * incremental capture a last line without its newline may still be being written: it is left for
 * the next run, which reads it once its newline is there.
 */
export async function* captureLines(path: string, position: SourcePosition | undefined, end: number, incremental: boolean): AsyncGenerator<Line> {
  // A 0-byte session file (a client that died before its first write) yields a bare session.start: say so.
  // An incremental capture is quiet about it: the file may just have been created.
  if (end === 0 && !incremental) warn(path, 'empty file: no records in it');
  for await (const line of sourceLines(path, position?.offset ?? 0, end, (position?.line ?? 0) + 1)) {
    if (!line.terminated && incremental) return;
    if (line.invalidUtf8) warn(`${path}:${line.number}`, 'not valid UTF-8: the bad bytes are read as U+FFFD');
    yield line;
  }
}

/**
 * `raw_final_newline` of a `--raw` capture: origin.raw lines joined with "\n" give the file, and this
 * says whether one more "\n" ends it. An incremental capture consumes only complete lines: always true.
 */
export function rawFinalNewline(path: string, size: number, incremental: boolean): boolean {
  if (incremental || size === 0) return true;
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(1);
    return readSync(fd, buffer, 0, 1, size - 1) === 1 && buffer[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/**
 * The lines of `path` in the byte range [start, end): capture reads up to the size it saw when it
 * started, so a file that grows meanwhile is read consistently (the rest comes next time).
 */
export async function* sourceLines(path: string, start: number, end: number, firstLineNumber: number): AsyncGenerator<Line> {
  if (end <= start) return;
  // What an incremental or --follow step usually reads (a few new lines) is read at once: a stream
  // waits on the thread pool for its open, each read and its close, and on a busy machine each of
  // those waits took longer than reading the bytes.
  if (end - start <= READ_CHUNK) {
    yield* splitLines([readRange(path, start, end - start)], firstLineNumber, start);
    return;
  }
  const stream = createReadStream(path, { start, end: end - 1, highWaterMark: READ_CHUNK, flags: 'r' }); // see READ_CHUNK
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
