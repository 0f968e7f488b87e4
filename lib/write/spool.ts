// One copy of a stream on disk, so that a pass over a large session holds one event at a time: the
// events are written once, as NDJSON, to a private temp file (a folder 0700 under the OS temp dir,
// the file 0600: a session may hold what the redactor missed), and read back as often as a pass
// needs, all of them or one session's. The picker (select.ts) sees every event on the way in, so
// the session to write is chosen without another read. The folder goes when `remove()` is called,
// when the process exits, or on SIGINT/SIGTERM/SIGHUP (lib/fs/private.ts removeOnInterrupt).
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpEvent } from '../core/event.js';
import { splitLines } from '../core/lines.js';
import { removeOnInterrupt } from '../fs/private.js';
import { SessionPicker } from './select.js';

const FLUSH_AT = 1 << 20;
const live = new Set<SessionSpool>();
let exitHook = false;

export class SessionSpool {
  /** Every session of the stream, in order of appearance, with its session.start. */
  readonly picker = new SessionPicker();
  /** Events per canonical session. */
  readonly counts = new Map<string, number>();
  /** Events in all. */
  count = 0;
  /** The stream's last event (a compiled handoff closes the stream it hands off). */
  last: SpEvent | undefined;
  private readonly dir: string;
  private readonly file: string;
  private readonly settle: () => void;
  private removed = false;

  private constructor(prefix: string) {
    this.dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
    this.file = join(this.dir, 'events.ndjson');
    this.settle = removeOnInterrupt(this.dir);
    live.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const spool of live) spool.remove();
      });
    }
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
    for await (const line of splitLines(createReadStream(this.file, { highWaterMark: FLUSH_AT }))) {
      if (line.text === '') continue;
      const event = JSON.parse(line.text) as SpEvent;
      if (session !== undefined && String(event.session ?? '') !== session) continue;
      if (keep && !keep(event)) continue;
      yield event;
    }
  }

  /** Removes the temp folder (again: nothing). */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    live.delete(this);
    rmSync(this.dir, { recursive: true, force: true });
    this.settle();
  }

  /** The temp folder (tests check it is private and gone). */
  get path(): string {
    return this.dir;
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
