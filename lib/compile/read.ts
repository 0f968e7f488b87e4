// A line reader for the compiler's one pass over the input. Lines are handed to a callback
// synchronously, chunk by chunk: an async generator per line (lib/core/lines.ts) costs a promise per
// line, which on a 100k-event session is a good share of the whole compile. Same rules as
// lib/core/lines.ts otherwise: CRLF accepted, a UTF-8 BOM at the start skipped, a last line without
// its newline still delivered (and marked).
import { statSync } from 'node:fs';
import type { Input } from '../core/ndjson.js';

export interface RawLine {
  text: string;
  /** 1-based line number. */
  number: number;
  /** The line's bytes (a leading BOM left out, newline included), when asked for; valid only during the callback. */
  bytes?: Buffer;
  terminated: boolean;
}

const LF = 0x0a;
const CR = 0x0d;

export async function forEachLine(source: AsyncIterable<Buffer | string>, keepBytes: boolean, onLine: (line: RawLine) => void): Promise<void> {
  let number = 1;
  let atStart = true;
  const emit = (buf: Buffer, start: number, end: number, terminated: boolean) => {
    let from = start;
    if (atStart) {
      atStart = false;
      if (end - from >= 3 && buf[from] === 0xef && buf[from + 1] === 0xbb && buf[from + 2] === 0xbf) from += 3;
    }
    let stop = terminated ? end - 1 : end;
    if (stop > from && buf[stop - 1] === CR) stop--;
    onLine({ text: buf.toString('utf8', from, stop), number: number++, terminated, ...(keepBytes ? { bytes: buf.subarray(from, end) } : {}) });
  };
  // A line longer than a chunk is kept as a list of pieces and joined once, at its newline:
  // joining on every chunk would copy a long line over and over (quadratic in its length).
  let carry: Buffer[] = [];
  let carried = 0;
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let from = 0;
    if (carried > 0) {
      const at = buf.indexOf(LF);
      if (at === -1) {
        carry.push(Buffer.from(buf)); // a copy: the stream may reuse its chunk
        carried += buf.length;
        continue;
      }
      const whole = Buffer.concat([...carry, buf.subarray(0, at + 1)], carried + at + 1);
      carry = [];
      carried = 0;
      emit(whole, 0, whole.length, true);
      from = at + 1;
    }
    for (;;) {
      const at = buf.indexOf(LF, from);
      if (at === -1) break;
      emit(buf, from, at + 1, true);
      from = at + 1;
    }
    if (from < buf.length) {
      carry.push(Buffer.from(buf.subarray(from)));
      carried += buf.length - from;
    }
  }
  if (carried > 0) {
    const rest = Buffer.concat(carry, carried);
    emit(rest, 0, rest.length, false);
  }
}

/**
 * Whether `input` can be read only once: stdin, a stream made in this process, or a path that is not a
 * regular file (a FIFO, `<(…)`, a character device): opening it again would wait for a writer that
 * never comes, or read other bytes. Such inputs are spooled, never re-read by their name.
 */
export function readsOnce(input: Input): boolean {
  if (input.name === 'stdin' || input.readOnce) return true;
  try {
    return !statSync(input.name).isFile();
  } catch {
    return true; // gone already: the read itself names what is wrong
  }
}
