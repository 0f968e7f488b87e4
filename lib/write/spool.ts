// One copy of a stream on disk, so that a pass over a large session holds one event at a time: the
// events are written once, as NDJSON, to a private temp file (a folder 0700 under the OS temp dir,
// the file 0600: a session may hold what the redactor missed), and read back as often as a pass
// needs, all of them or one session's. The picker (select.ts) sees every event on the way in, so
// the session to write is chosen without another read. The folder goes when `remove()` is called,
// when the process exits, or on SIGINT/SIGTERM/SIGHUP (lib/fs/private.ts scratchDir).
import { closeSync, createReadStream, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { SpEvent } from '../core/event.js';
import { READ_CHUNK, splitLines } from '../core/lines.js';
import { scratchDir, type ScratchDir } from '../fs/private.js';
import { grown } from './hashed.js';
import { SessionPicker, nativeIdOf } from './select.js';

// Text is written at this many characters. Not more: a string flattened for the write above about
// 128 KB is a large object, which no young collection frees; at 1 MB the spool's writes left 113 MB
// of them in the heap at Gemini's 600 MiB peak (414 MB RSS), freed only by the next full collection.
const FLUSH_AT = 1 << 15;

export class SessionSpool {
  /** Every session of the stream, in order of appearance, with its session.start. */
  readonly picker = new SessionPicker();
  /** Events per canonical session. */
  readonly counts = new Map<string, number>();
  /** Events in all. */
  count = 0;
  /** The stream's last event (a compiled handoff closes the stream it hands off). */
  last: SpEvent | undefined;
  private readonly dir: ScratchDir;
  private readonly file: string;
  private removed = false;

  private constructor(prefix: string) {
    this.dir = scratchDir(prefix);
    this.file = join(this.dir.path, 'events.ndjson');
  }

  /**
   * Spools `events` (read once, to the end). `onEvent` sees each event as it goes by, for what a
   * caller counts on the way (the relay's ledger, a writer's index); an error there, or in the
   * input, removes the spool and is thrown.
   */
  static async create(events: AsyncIterable<SpEvent>, options: { prefix?: string; onEvent?: (event: SpEvent) => void } = {}): Promise<SessionSpool> {
    const spool = new SessionSpool(options.prefix ?? 'sp-spool');
    try {
      const fd = openSync(spool.file, 'wx', 0o600);
      let buffer = '';
      try {
        for await (const event of events) {
          const session = spool.picker.add(event);
          spool.counts.set(session, (spool.counts.get(session) ?? 0) + 1);
          spool.count += 1;
          spool.last = event;
          options.onEvent?.(event);
          buffer += `${JSON.stringify(event)}\n`;
          if (buffer.length >= FLUSH_AT) {
            writeSync(fd, buffer);
            buffer = '';
          }
        }
        if (buffer) writeSync(fd, buffer);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      spool.remove();
      throw err;
    }
    return spool;
  }

  /** The spooled events in stream order: all of them, or those of `session` (and `keep` them). */
  async *events(session?: string, keep?: (event: SpEvent) => boolean): AsyncGenerator<SpEvent> {
    if (this.removed) throw new Error('the session spool was removed');
    for await (const line of splitLines(createReadStream(this.file, { highWaterMark: READ_CHUNK }))) {
      if (line.text === '') continue;
      const event = JSON.parse(line.text) as SpEvent;
      if (session !== undefined && String(event.session ?? '') !== session) continue;
      if (keep && !keep(event)) continue;
      yield event;
    }
  }

  /** Removes the temp folder (again: nothing). */
  remove(): void {
    this.removed = true;
    this.dir.remove();
  }

  /** The temp folder (tests check it is private and gone). */
  get path(): string {
    return this.dir.path;
  }
}

/** Runs `use` over a spool of `events`, removing the spool after, whatever happens. */
export async function withSpool<T>(events: AsyncIterable<SpEvent>, use: (spool: SessionSpool) => Promise<T>, options: { prefix?: string; onEvent?: (event: SpEvent) => void } = {}): Promise<T> {
  const spool = await SessionSpool.create(events, options);
  try {
    return await use(spool);
  } finally {
    spool.remove();
  }
}

// ---- a session on disk, read by position ----------------------------------------------------------

/**
 * A SpooledSession's columns while it fills: 12 bytes an event (offset and session), grown by
 * doubling. A line's length is the distance to the next offset (the lines follow each other in the
 * file); whether a session's seqs never decrease is noted as they come, so no seq is kept.
 */
class SpoolRows {
  /** One more than the rows: the end of the last line. */
  offsets = new Float64Array(1025);
  sessions = new Uint32Array(1024);
  length = 0;
  /** Per session: its last seq (NaN before the first), whether every seq was a number, whether none decreased. */
  private readonly lastSeq: number[] = [];
  private readonly started: boolean[] = [];
  readonly numbered: boolean[] = [];
  readonly increasing: boolean[] = [];

  push(offset: number, end: number, session: number, seq: unknown): void {
    if (this.length === this.sessions.length) {
      const size = this.length * 2;
      this.offsets = grown(this.offsets, size + 1);
      this.sessions = grown(this.sessions, size);
    }
    this.offsets[this.length] = offset;
    this.offsets[this.length + 1] = end;
    this.sessions[this.length] = session;
    this.length += 1;
    if (session === this.lastSeq.length) {
      this.lastSeq.push(NaN);
      this.numbered.push(true);
      this.increasing.push(true);
      this.started.push(false);
    }
    // A session with a seq that is not a number is never sorted: its order does not matter.
    if (typeof seq !== 'number') {
      this.numbered[session] = false;
      return;
    }
    // As the comparison of neighbours was: a NaN seq breaks the order.
    if (this.started[session] && !(seq >= this.lastSeq[session])) this.increasing[session] = false;
    this.started[session] = true;
    this.lastSeq[session] = seq;
  }

  /** The length of row `i`'s line, without its newline. */
  lengthOf(i: number): number {
    return this.offsets[i + 1] - this.offsets[i] - 1;
  }
}

/** Events kept in memory by a SpooledSession (the most recently read, for a writer's look-back). */
const CACHED_EVENTS = 512;

/**
 * The session to write, spooled, for a writer whose plan reads its events by position (results
 * placed after their call, a parent looked up): `events` reads like an array (length, index,
 * forEach, filter …) but holds only each event's offset in the spool file, and reads an event from
 * disk when it is asked for (the last few hundred stay cached). Output the same as selectSession's
 * (select.ts): the session `selector` names, else the first session.start's, in seq order; the
 * others counted. `remove()` deletes the file (also on exit and on signals, as SessionSpool).
 */
export class SpooledSession {
  readonly picker = new SessionPicker();
  /** The chosen session's events: an array-like view over the spool (never spread it: that reads them all). */
  events: SpEvent[] = [];
  session = '';
  start: SpEvent | undefined;
  others = new Map<string, { count: number; nativeId?: string }>();
  private readonly dir: ScratchDir;
  private readonly file: string;
  private fd: number | undefined;
  private removed = false;
  private readonly cache = new Map<number, SpEvent>();
  private scratch = Buffer.allocUnsafeSlow(1 << 16);
  /** The part of the file `scratch` holds: from blockStart, blockLength bytes. */
  private blockStart = 0;
  private blockLength = 0;

  private constructor() {
    this.dir = scratchDir('sp-session');
    this.file = join(this.dir.path, 'events.ndjson');
  }

  static async create(events: AsyncIterable<SpEvent>, selector?: string): Promise<SpooledSession> {
    const spooled = new SpooledSession();
    try {
      await spooled.fill(events, selector);
    } catch (err) {
      spooled.remove();
      throw err;
    }
    return spooled;
  }

  private async fill(events: AsyncIterable<SpEvent>, selector: string | undefined): Promise<void> {
    // Per event: its byte offset in the file and its session (a small number), in typed columns
    // grown by doubling (JS number arrays held ~40 bytes an event and a copy on growth).
    const rows = new SpoolRows();
    const sessionIds = new Map<string, number>();
    const counts: number[] = [];
    const fd = openSync(this.file, 'wx', 0o600);
    try {
      let buffer = '';
      let at = 0;
      for await (const event of events) {
        const session = this.picker.add(event);
        let id = sessionIds.get(session);
        if (id === undefined) {
          sessionIds.set(session, (id = sessionIds.size));
          counts.push(0);
        }
        counts[id] += 1;
        const line = `${JSON.stringify(event)}\n`;
        const bytes = Buffer.byteLength(line);
        rows.push(at, at + bytes, id, event.seq);
        at += bytes;
        buffer += line;
        if (buffer.length >= FLUSH_AT) {
          writeSync(fd, buffer);
          buffer = '';
        }
      }
      if (buffer) writeSync(fd, buffer);
    } finally {
      closeSync(fd);
    }
    this.session = this.picker.pick(selector);
    this.start = this.picker.startOf(this.session);
    const chosen = sessionIds.get(this.session)!;
    for (const [id, n] of sessionIds) if (n !== chosen) this.others.set(id, { count: counts[n], nativeId: nativeIdOf(this.picker.startOf(id)) });
    this.fd = openSync(this.file, 'r');
    const n = counts[chosen] ?? 0;
    // Seq order is the stream's order; a stable sort only repairs streams that were interleaved.
    const sort = n > 0 && rows.numbered[chosen] && !rows.increasing[chosen];
    if (n === rows.length && !sort) {
      // The stream is the session, in order (what the relay hands a writer): the offsets are the view.
      this.events = this.view(n, rows.offsets.slice(0, n + 1));
      return;
    }
    const positions = new Uint32Array(n);
    for (let i = 0, k = 0; i < rows.length; i += 1) if (rows.sessions[i] === chosen) positions[k++] = i;
    if (sort) {
      // The seqs are read back (only here: an interleaved stream).
      const seqs = new Float64Array(n);
      for (let k = 0; k < n; k += 1) seqs[k] = this.parse(rows.offsets[positions[k]], rows.lengthOf(positions[k])).seq;
      const order = Array.from(positions.keys()).sort((a, b) => seqs[a] - seqs[b] || a - b);
      positions.set(order.map((k) => positions[k]));
    }
    const where = new Float64Array(n);
    const size = new Uint32Array(n);
    for (let k = 0; k < n; k += 1) {
      where[k] = rows.offsets[positions[k]];
      size[k] = rows.lengthOf(positions[k]);
    }
    this.events = this.view(n, where, size);
  }

  private read(index: number, offset: number, length: number): SpEvent {
    const cached = this.cache.get(index);
    if (cached) return cached;
    const event = this.parse(offset, length);
    if (this.cache.size >= CACHED_EVENTS) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(index, event);
    return event;
  }

  /** The event whose line is at `offset`, `length` bytes long. */
  private parse(offset: number, length: number): SpEvent {
    if (this.removed || this.fd === undefined) throw new Error('the session spool was removed');
    // One buffer for every read (a new one per event left the allocator holding hundreds of MB),
    // filled as far as it goes: a pass in file order then reads the next events from memory, not
    // with a system call each.
    if (offset < this.blockStart || offset + length > this.blockStart + this.blockLength) {
      if (this.scratch.length < length) this.scratch = Buffer.allocUnsafeSlow(Math.max(length, this.scratch.length * 2));
      let got = 0;
      while (got < length) {
        const read = readSync(this.fd, this.scratch, got, this.scratch.length - got, offset + got);
        if (read === 0) break;
        got += read;
      }
      this.blockStart = offset;
      this.blockLength = got;
    }
    const at = offset - this.blockStart;
    return JSON.parse(this.scratch.toString('utf8', at, at + length)) as SpEvent;
  }

  /**
   * An array-like, read-only view of `n` events: index reads go to the file. Event i's line is at
   * offsets[i], lengths[i] bytes long; without lengths the lines follow each other (offsets has n + 1
   * entries, the last the end of the last line) and a length is the distance to the next offset.
   */
  private view(n: number, offsets: Float64Array, lengths?: Uint32Array): SpEvent[] {
    const indexOf = (prop: string | symbol): number | undefined => {
      if (typeof prop !== 'string' || prop === '' || prop.length > 15) return undefined;
      const i = Number(prop);
      return Number.isInteger(i) && i >= 0 && i < n && String(i) === prop ? i : undefined;
    };
    // An empty target that says its length (setting the length of an array of a million holes gave it
    // a backing store of 8 bytes an event).
    const target: SpEvent[] = [];
    return new Proxy(target, {
      get: (t, prop, receiver) => {
        const i = indexOf(prop);
        if (i !== undefined) return this.read(i, offsets[i], lengths ? lengths[i] : offsets[i + 1] - offsets[i] - 1);
        if (prop === 'length') return n;
        return Reflect.get(t, prop, receiver);
      },
      has: (t, prop) => indexOf(prop) !== undefined || Reflect.has(t, prop),
      set: () => false,
      deleteProperty: () => false,
    });
  }

  remove(): void {
    if (this.removed) return;
    this.removed = true;
    this.cache.clear();
    if (this.fd !== undefined) closeSync(this.fd);
    this.dir.remove();
  }

  get path(): string {
    return this.dir.path;
  }
}

/**
 * Lines of a native file as they are made, spooled to a private temp file (a writer of a large
 * session keeps none in memory): `push` appends, `length` counts, `lines()` reads them back and
 * `chunks()` gives the file's bytes (every line followed by "\n") for createFileAtomic.
 */
export class SpooledLines {
  length = 0;
  private readonly dir = scratchDir('sp-lines');
  private readonly fd = openSync(join(this.dir.path, 'lines'), 'wx+', 0o600);
  private buffer = '';
  private removed = false;

  push(line: string): void {
    this.buffer += `${line}\n`;
    this.length += 1;
    if (this.buffer.length >= FLUSH_AT) this.flush();
  }

  private flush(): void {
    if (this.buffer) writeSync(this.fd, this.buffer);
    this.buffer = '';
  }

  /** The file's bytes in chunks (each line followed by "\n"). */
  *chunks(): Generator<Buffer> {
    this.flush();
    const chunk = Buffer.allocUnsafe(FLUSH_AT);
    for (let at = 0; ; ) {
      const got = readSync(this.fd, chunk, 0, chunk.length, at);
      if (got === 0) return;
      at += got;
      yield Buffer.from(chunk.subarray(0, got));
    }
  }

  /** The lines, in order. */
  *lines(): Generator<string> {
    let rest = '';
    const decoder = new TextDecoder();
    for (const chunk of this.chunks()) {
      const text = rest + decoder.decode(chunk, { stream: true });
      const parts = text.split('\n');
      rest = parts.pop()!;
      yield* parts;
    }
  }

  remove(): void {
    if (this.removed) return;
    this.removed = true;
    closeSync(this.fd);
    this.dir.remove();
  }
}
