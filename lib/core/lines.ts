// A streaming line splitter over bytes. It keeps byte offsets (for cursors into agents' files),
// tells whether the last line had its newline (a torn write), strips one CR before LF and a
// UTF-8 BOM at the very start, and holds only one line plus one chunk in memory.
import { isUtf8 } from 'node:buffer';
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import type { Readable } from 'node:stream';

/**
 * Read chunk size. Small on purpose: a chunk whose lines are processed across many awaits survives
 * the young-generation collections and is promoted; a promoted 1 MB chunk is freed only by a full
 * collection, which external (Buffer) memory triggers late — at 1 MB, sp-redact's peak RSS grew
 * with the stream (133 MB at 200 MB); at 64 KB the chunks die young and it stays flat (79 MB).
 */
export const READ_CHUNK = 1 << 16;

export interface Line {
  /** The line's text without its line ending. */
  text: string;
  /** 1-based line number in the source. */
  number: number;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line's newline (or past its last byte when unterminated). */
  end: number;
  /** False only for a last line that has no newline: possibly a write still in progress. */
  terminated: boolean;
  /**
   * The line's bytes as read, line ending included; only when asked for (`keepBytes`), since they may
   * share memory with the whole chunk read. Lets a filter pass an unchanged line on without encoding it again.
   */
  bytes?: Buffer;
  /** Set when the line's bytes are not valid UTF-8 (its text then holds U+FFFD in their place). */
  invalidUtf8?: true;
}

const LF = 0x0a;
const CR = 0x0d;

export async function* splitLines(source: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, firstLineNumber = 1, startOffset = 0, keepBytes = false): AsyncGenerator<Line> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = firstLineNumber;
  let offset = startOffset;
  let atStart = startOffset === 0;

  const emit = (bytes: Buffer, terminated: boolean): Line => {
    let body = bytes;
    let skip = 0;
    if (atStart) {
      atStart = false;
      if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) skip = 3;
    }
    let stop = body.length - (terminated ? 1 : 0);
    if (stop > skip && body[stop - 1] === CR) stop -= 1;
    const line: Line = { text: body.toString('utf8', skip, stop), number, start: offset, end: offset + body.length, terminated };
    if (keepBytes) line.bytes = body;
    // A lossy decode always leaves U+FFFD in the text: a cheap search first, the byte check only then.
    if (line.text.includes('\ufffd') && !isUtf8(body.subarray(skip, stop))) line.invalidUtf8 = true;
    number += 1;
    offset += body.length;
    return line;
  };

  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let from = 0;
    for (;;) {
      const at = buf.indexOf(LF, from);
      if (at === -1) break;
      const piece = buf.subarray(from, at + 1);
      if (pendingBytes > 0) {
        pending.push(piece);
        const whole = Buffer.concat(pending, pendingBytes + piece.length);
        pending = [];
        pendingBytes = 0;
        yield emit(whole, true);
      } else {
        yield emit(piece, true);
      }
      from = at + 1;
    }
    if (from < buf.length) {
      // Copy: the stream may reuse its chunk buffers.
      const rest = Buffer.from(buf.subarray(from));
      pending.push(rest);
      pendingBytes += rest.length;
    }
  }
  if (pendingBytes > 0) yield emit(Buffer.concat(pending, pendingBytes), false);
}

/** A file's lines from a byte offset on. The stream is opened read-only. */
export function fileLines(path: string, options: { start?: number; firstLineNumber?: number } = {}): AsyncGenerator<Line> {
  const stream: Readable = createReadStream(path, { start: options.start ?? 0, highWaterMark: READ_CHUNK, flags: 'r' });
  return splitLines(stream, options.firstLineNumber ?? 1, options.start ?? 0);
}

/** Line 1 of a file (without its line end), reading at most `max` bytes; undefined for an empty file. */
export function readFirstLine(path: string, max = 1 << 16): string | undefined {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buffer = Buffer.alloc(4096);
    while (total < max) {
      const n = readSync(fd, buffer, 0, buffer.length, total);
      if (n === 0) break;
      const at = buffer.subarray(0, n).indexOf(0x0a);
      if (at >= 0) {
        chunks.push(Buffer.from(buffer.subarray(0, at)));
        total += at;
        break;
      }
      chunks.push(Buffer.from(buffer.subarray(0, n)));
      total += n;
    }
    if (total === 0 && chunks.length === 0) return undefined;
    let text = Buffer.concat(chunks).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  } finally {
    closeSync(fd);
  }
}
