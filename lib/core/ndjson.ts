// Streaming NDJSON in and out. A bad line is named as `source:LINE` with the offending text cut
// to 200 characters; strict mode stops (exit 2), lenient mode reports, counts and goes on.
import { createReadStream, statSync } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { READ_CHUNK, splitLines, type Line } from './lines.js';
import { UserError, excerpt, readError, warn } from '../cli/diagnostics.js';
import { canonicalize } from './jcs.js';
import { parseJsonObject } from './json.js';

export interface Input {
  /** How diagnostics name it: a path, or `stdin`. */
  name: string;
  open(): AsyncIterable<Buffer | string>;
  /** Made in this process (e.g. redacted): read it through open() once, never again by its name. */
  readOnce?: boolean;
}

/** Inputs from command-line file arguments; none or `-` means stdin. Missing files are a usage error. */
export function inputsFrom(paths: readonly string[] | undefined): Input[] {
  const list = paths && paths.length > 0 ? paths : ['-'];
  return list.map((path) => {
    if (path === '-') return { name: 'stdin', open: () => process.stdin };
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch (err) {
      throw readError(err, path);
    }
    if (isDir) throw new UserError('is a directory, not an NDJSON file', path);
    return { name: path, open: () => createReadStream(path, { highWaterMark: READ_CHUNK }) };
  });
}

export interface ParsedLine<T = unknown> {
  value: T;
  line: Line;
  source: string;
}

export interface BadLine {
  source: string;
  line: Line;
  reason: string;
}

export interface ReadOptions {
  /** Stop at the first bad line with a UserError (exit 2). Default: report and skip. */
  strict?: boolean;
  /** Called for each bad line instead of the default stderr report (lenient mode). */
  onBadLine?: (bad: BadLine) => void;
  /** Keep each line's bytes (`line.bytes`), e.g. to pass unchanged lines on as they came. */
  keepBytes?: boolean;
}

export function describeBadLine(bad: BadLine): string {
  const torn = bad.line.terminated ? '' : ' (last line has no newline: truncated?)';
  return `${bad.reason}${torn}: ${excerpt(bad.line.text)}`;
}

/** An input's byte stream; one that cannot be opened is a UserError naming it. */
export function openInput(input: Input): AsyncIterable<Buffer | string> {
  try {
    return input.open();
  } catch (err) {
    throw new UserError(`cannot read: ${(err as Error).message}`, input.name);
  }
}

/**
 * Reads JSON objects, one per line, from each input in turn. Blank lines are skipped; CRLF and a
 * leading BOM are accepted.
 */
export async function* readObjects<T = Record<string, unknown>>(inputs: Input[], options: ReadOptions = {}): AsyncGenerator<ParsedLine<T>> {
  for (const input of inputs) {
    const stream = openInput(input);
    try {
      for await (const line of splitLines(stream, 1, 0, options.keepBytes)) {
        if (line.text.trim() === '') continue;
        // sp writes UTF-8 only: other bytes in a canonical stream are damage, not text to guess at.
        const parsed = line.invalidUtf8 ? { reason: 'not valid UTF-8' } : parseJsonObject(line.text);
        if (parsed.value) {
          yield { value: parsed.value as T, line, source: input.name };
          continue;
        }
        const bad: BadLine = { source: input.name, line, reason: parsed.reason! };
        if (options.strict) throw new UserError(describeBadLine(bad), `${input.name}:${line.number}`);
        if (options.onBadLine) options.onBadLine(bad);
        else warn(`${input.name}:${line.number}`, describeBadLine(bad));
      }
    } catch (err) {
      throw readError(err, input.name);
    }
  }
}

/**
 * Writes NDJSON with backpressure, batching small writes. Lines are canonical JSON (RFC 8785), so
 * a stream written by sp is byte-stable and verifies on the fast path. Lines are encoded into a
 * byte buffer as they come: concatenating them into one string first makes a rope whose UTF-8
 * encoding at flush time costs several times the encoding of each line (measured 6x on CJK text).
 */
export class NdjsonWriter {
  private chunk: Buffer;
  private used = 0;
  private closed = false;

  constructor(
    private readonly out: Writable = process.stdout,
    private readonly batchBytes = 1 << 16,
  ) {
    this.chunk = Buffer.allocUnsafe(Math.max(batchBytes, 1 << 10));
    // A closed pipe (`| head`) is not an error for a stream producer: stop quietly.
    out.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') {
        this.closed = true;
        process.exit(0);
      }
      throw err;
    });
  }

  async write(value: unknown): Promise<void> {
    await this.writeLine(canonicalize(value));
  }

  /**
   * Writes a line as bytes that are already serialized, line ending included (a line passed on as
   * it was read).
   */
  async writeBytes(bytes: Buffer): Promise<void> {
    if (this.used + bytes.length > this.chunk.length) {
      await this.flush();
      if (bytes.length > this.chunk.length) this.chunk = Buffer.allocUnsafe(bytes.length);
    }
    this.used += bytes.copy(this.chunk, this.used);
    if (this.used >= this.batchBytes) await this.flush();
  }

  /** Writes a line that is already serialized (without its newline). */
  async writeLine(text: string): Promise<void> {
    const most = text.length * 3 + 1; // UTF-8 bytes of a UTF-16 string are at most 3 per code unit
    if (this.used + most > this.chunk.length) {
      await this.flush();
      if (most > this.chunk.length) this.chunk = Buffer.allocUnsafe(most);
    }
    this.used += this.chunk.write(text, this.used, 'utf8');
    this.chunk[this.used++] = 0x0a;
    if (this.used >= this.batchBytes) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.used === 0 || this.closed) return;
    // The stream keeps the written bytes until it has sent them: hand it this chunk, start a new one.
    const bytes = this.chunk.subarray(0, this.used);
    this.chunk = Buffer.allocUnsafe(Math.max(this.batchBytes, 1 << 10));
    this.used = 0;
    if (!this.out.write(bytes)) await once(this.out, 'drain');
  }

  async end(): Promise<void> {
    await this.flush();
  }
}
