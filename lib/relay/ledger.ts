// The relay's loss ledger: one row per SOURCE event saying what happened to it on the way to the
// target (docs/design.md §3: nothing disappears without a line). Writers and the relay transform report
// only what they changed (through onLoss); every source event nobody reported on was carried as
// it was. An event with several entries (a call translated and its id repaired) is counted once,
// under its most significant action (dropped only when no entry says it was written in some form);
// all its entries stay in the row.
import type { LossEntry } from '../adapter/interface.js';
import type { SpEvent } from '../core/event.js';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir, type ScratchDir } from '../fs/private.js';
import { grown } from '../write/hashed.js';

/**
 * The actions of a ledger row, most significant first (a row takes the first its entries have): a
 * call translated whose missing result was stubbed counts as translated, a message whose missing
 * model was filled in as stubbed.
 */
export const ACTIONS = ['dropped', 'rendered', 'translated', 'transformed', 'stubbed', 'carried'] as const;
export type LedgerAction = (typeof ACTIONS)[number];

export interface LedgerRow {
  /** The source event: its canonical session, seq and type. */
  session: string;
  seq: number;
  type: string;
  action: LedgerAction;
  /** The entry that decided the action (absent for an unreported, carried event). */
  code?: string;
  reason?: string;
  from?: string;
  to?: string;
  /** Every entry reported for the event, when there was more than one. */
  entries?: LossEntry[];
}

/** An entry that names no source event (a change to the session as a whole). */
export interface SessionEntry extends LossEntry {
  session?: string;
}

export type LedgerTotals = Record<LedgerAction, number> & { summarized: number; events: number };

const rank = (action: string): number => {
  const at = (ACTIONS as readonly string[]).indexOf(action);
  return at === -1 ? ACTIONS.indexOf('transformed') : at;
};

/** One copy of each value seen often (a session id, an event type), as a small number. */
class Interned<T> {
  private readonly ids = new Map<T, number>();
  readonly values: T[] = [];

  id(value: T): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      this.ids.set(value, (id = this.values.length));
      this.values.push(value);
    }
    return id;
  }

  find(value: T): number | undefined {
    return this.ids.get(value);
  }
}

/** Positions a bucket of the entry index covers (its entries are sorted in memory when read). */
const BUCKET_SHIFT = 12;
/** Bytes written to the entry files at once (and read back at once). */
const BLOCK = 1 << 16;
/** A key record (entries.keys): session id (u32), seq (f64), line offset (f64), line length (u32). */
const KEY_BYTES = 24;
/** An index record (entries.index): position (u32), line length (u32), line offset (f64). */
const INDEX_BYTES = 16;
/** Index records a bucket holds before they are written. */
const BUCKET_BUFFER = 64;

/**
 * The source events, in input order, in a few bytes an event: the type as an interned id (a byte
 * while there are fewer than 256 types), session and seq as runs (events of one session whose seqs
 * go up by one: a whole ordinary stream is one run). Three number columns of 8 bytes an event were
 * the largest thing a writer of a 1 GB session held (issue #19 item 4).
 */
class Sources {
  readonly sessions = new Interned<string>();
  readonly types = new Interned<unknown>();
  private typeIds: Uint8Array | Uint16Array | Uint32Array = new Uint8Array(1024);
  length = 0;
  /** Runs in input order: first position, session id, first seq, length. */
  private runStart = new Float64Array(64);
  private runSession = new Uint32Array(64);
  private runSeq = new Float64Array(64);
  private runLength = new Uint32Array(64);
  runs = 0;
  /** A seq that is not a number (a malformed event), by position: given back as it was, found by no entry. */
  private readonly unnumbered = new Map<number, unknown>();
  /** Per session id: its runs of numbered events (indices, in input order) and its last seq. */
  private readonly sessionRuns: number[][] = [];
  private readonly lastSeq: number[] = [];
  /** Sessions whose seqs did not only go up (repeats, NaN): looked up through a sorted copy instead. */
  private readonly unordered = new Set<number>();
  private sorted = new Map<number, { seqs: Float64Array; positions: Float64Array }>();

  add(session: string, type: unknown, seq: unknown): void {
    const position = this.length++;
    this.setType(position, this.types.id(type));
    const id = this.sessions.id(session);
    if (typeof seq !== 'number') {
      this.unnumbered.set(position, seq);
      this.newRun(position, id, NaN);
      return;
    }
    const last = this.lastSeq[id];
    if (last !== undefined && !(seq > last)) this.unordered.add(id);
    if (Number.isNaN(seq)) this.unordered.add(id);
    this.lastSeq[id] = seq;
    if (this.sorted.size > 0) this.sorted.clear();
    const r = this.runs - 1;
    // The run goes on: the previous event, of this session, its seq one less (whole numbers only: exact arithmetic).
    if (r >= 0 && this.runSession[r] === id && this.runStart[r] + this.runLength[r] === position && Number.isSafeInteger(seq) && Number.isSafeInteger(this.runSeq[r]) && seq === this.runSeq[r] + this.runLength[r]) {
      this.runLength[r] += 1;
      return;
    }
    (this.sessionRuns[id] ??= []).push(this.runs);
    this.newRun(position, id, seq);
  }

  private setType(position: number, id: number): void {
    const most = this.typeIds instanceof Uint8Array ? 0xff : this.typeIds instanceof Uint16Array ? 0xffff : Infinity;
    if (position >= this.typeIds.length || id > most) {
      const size = position >= this.typeIds.length ? this.typeIds.length * 2 : this.typeIds.length;
      const Wider = id > 0xffff || most > 0xffff ? Uint32Array : id > 0xff || most > 0xff ? Uint16Array : Uint8Array;
      const wider = new Wider(size);
      wider.set(this.typeIds);
      this.typeIds = wider;
    }
    this.typeIds[position] = id;
  }

  private newRun(position: number, session: number, seq: number): void {
    if (this.runs === this.runSeq.length) {
      const size = this.runs * 2;
      this.runStart = grown(this.runStart, size);
      this.runSession = grown(this.runSession, size);
      this.runSeq = grown(this.runSeq, size);
      this.runLength = grown(this.runLength, size);
    }
    this.runStart[this.runs] = position;
    this.runSession[this.runs] = session;
    this.runSeq[this.runs] = seq;
    this.runLength[this.runs] = 1;
    this.runs += 1;
  }

  /** Every source in input order: position, session id, seq (as it was), type. */
  *each(): Generator<[position: number, session: number, seq: unknown, type: unknown]> {
    for (let r = 0; r < this.runs; r += 1) {
      const start = this.runStart[r];
      for (let k = 0; k < this.runLength[r]; k += 1) {
        const position = start + k;
        const seq = this.unnumbered.has(position) ? this.unnumbered.get(position) : this.runSeq[r] + k;
        yield [position, this.runSession[r], seq, this.types.values[this.typeIds[position]]];
      }
    }
  }

  /** Calls `found` with each position whose event is of `session` (an id) with this seq, in input order. */
  positionsOf(session: number, seq: number, found: (position: number) => void): void {
    const runs = this.sessionRuns[session];
    if (runs === undefined) return;
    if (this.unordered.has(session)) {
      const { seqs, positions } = this.sortedOf(session);
      let lo = 0;
      let hi = seqs.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (seqs[mid] < seq) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < seqs.length && seqs[i] === seq; i += 1) found(positions[i]);
      return;
    }
    // Seqs only go up: the run that starts at or before `seq`, found by binary search.
    let lo = 0;
    let hi = runs.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.runSeq[runs[mid]] <= seq) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (at === -1) return;
    const r = runs[at];
    const k = seq - this.runSeq[r];
    if (Number.isInteger(k) && k < this.runLength[r] && this.runSeq[r] + k === seq) found(this.runStart[r] + k);
  }

  /** A session's numbered events sorted by seq (then position; NaN, which no entry finds, left out): 16 bytes an event, only for a session out of order. */
  private sortedOf(session: number): { seqs: Float64Array; positions: Float64Array } {
    let sorted = this.sorted.get(session);
    if (sorted) return sorted;
    const pairs: [number, number][] = [];
    for (const r of this.sessionRuns[session]) for (let k = 0; k < this.runLength[r]; k += 1) if (!Number.isNaN(this.runSeq[r])) pairs.push([this.runSeq[r] + k, this.runStart[r] + k]);
    pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    sorted = { seqs: Float64Array.from(pairs, (p) => p[0]), positions: Float64Array.from(pairs, (p) => p[1]) };
    this.sorted.set(session, sorted);
    return sorted;
  }
}

/** The entries of the positions of one bucket, sorted by position (then as added). */
interface LoadedBucket {
  bucket: number;
  /** Per position of the bucket (and one past the last): where its entries start in offsets/lengths. */
  starts: Uint32Array;
  offsets: Float64Array;
  lengths: Uint32Array;
}

/**
 * The entries of source events, on disk: a relay reports one for most events of a session, and
 * held as objects with their per-event reasons they grew with the session (about 250 bytes each);
 * an index of them in memory still held about 40 bytes an entry. Each entry is a line `[session,
 * entry]` in a private temp file (lib/fs/private.ts), made at the first entry, with a key record
 * (session, seq, where its line is) in a second file. The first query sorts the key records by the
 * position of their source event into an index file, in buckets of 4096 positions; a pass in input
 * order then reads one bucket at a time. Entries added after that (the relay's branch sessions)
 * are kept by key in memory until the next query after a new source. `remove()` deletes the files
 * (also on exit and on signals, as the spools of lib/write/spool.ts).
 */
class EntryFile {
  private dir: ScratchDir | undefined;
  private lineFd: number | undefined;
  private keyFd: number | undefined;
  private indexFd: number | undefined;
  private size = 0;
  private count = 0;
  private pending = '';
  private pendingFrom = 0;
  private keys = Buffer.allocUnsafeSlow(BLOCK - (BLOCK % KEY_BYTES));
  private keysUsed = 0;
  private removed = false;
  private block = Buffer.alloc(0);
  private blockStart = 0;
  /** Set by the first query after a change: where each bucket's records start in the index, and how many. */
  private indexed: { from: Float64Array; counts: Uint32Array } | undefined;
  /** Entries naming no source event, and entries added after the index was made: by key, where their lines are. */
  private unplaced = new Map<string, number[]>();
  private late = new Map<string, number[]>();
  private loaded: LoadedBucket | undefined;

  constructor(private readonly sources: Sources) {}

  add(session: string, entry: LossEntry & { seq: number }): void {
    if (this.removed) throw new Error('the relay ledger was removed');
    if (this.lineFd === undefined) this.open();
    const line = JSON.stringify([session, entry]);
    const bytes = Buffer.byteLength(line);
    // (An entry whose seq is NaN is kept but found by no query: NaN equals no seq.)
    if (this.indexed && !Number.isNaN(entry.seq)) push(this.late, key(session, entry.seq), this.size, bytes);
    if (this.keysUsed + KEY_BYTES > this.keys.length) this.flushKeys();
    const at = this.keysUsed;
    this.keys.writeUInt32LE(this.sources.sessions.id(session), at);
    this.keys.writeDoubleLE(entry.seq, at + 4);
    this.keys.writeDoubleLE(this.size, at + 12);
    this.keys.writeUInt32LE(bytes, at + 20);
    this.keysUsed += KEY_BYTES;
    this.count += 1;
    this.size += bytes + 1;
    this.pending += `${line}\n`;
    if (this.pending.length >= BLOCK) this.flush();
  }

  /** A new source event: positions may change meaning for entries not yet placed, so the index is made again. */
  sourceAdded(): void {
    if (this.indexed === undefined) return;
    this.indexed = undefined;
    this.loaded = undefined;
    this.late.clear();
  }

  /** The entries of one source event, in the order they were added. */
  entriesOf(session: string, seq: number): LossEntry[] {
    if (this.lineFd === undefined) return [];
    this.index();
    const id = this.sources.sessions.find(session);
    let first = -1;
    if (id !== undefined) this.sources.positionsOf(id, seq, (position) => (first = first === -1 ? position : first));
    const where: number[] = [];
    if (first !== -1) {
      const bucket = this.bucket(first >> BUCKET_SHIFT);
      const slot = first - (bucket.bucket << BUCKET_SHIFT);
      for (let i = bucket.starts[slot]; i < bucket.starts[slot + 1]; i += 1) where.push(bucket.offsets[i], bucket.lengths[i]);
    } else where.push(...(this.unplaced.get(key(session, seq)) ?? []));
    where.push(...(this.late.get(key(session, seq)) ?? []));
    return this.parsed(where);
  }

  /** The entries of each source event in input order (`rows` asks for each position in turn). */
  entriesAt(position: number, session: string, seq: unknown): LossEntry[] {
    if (this.lineFd === undefined) return [];
    this.index();
    const where: number[] = [];
    if (typeof seq === 'number' && !Number.isNaN(seq)) {
      const bucket = this.bucket(position >> BUCKET_SHIFT);
      const slot = position - (bucket.bucket << BUCKET_SHIFT);
      for (let i = bucket.starts[slot]; i < bucket.starts[slot + 1]; i += 1) where.push(bucket.offsets[i], bucket.lengths[i]);
      if (this.late.size > 0) where.push(...(this.late.get(key(session, seq)) ?? []));
    }
    return where.length === 0 ? [] : this.parsed(where);
  }

  remove(): void {
    if (this.removed) return;
    this.removed = true;
    this.pending = '';
    for (const fd of [this.lineFd, this.keyFd, this.indexFd]) if (fd !== undefined) closeSync(fd);
    this.dir?.remove();
  }

  get path(): string | undefined {
    return this.dir?.path;
  }

  private parsed(where: number[]): LossEntry[] {
    const found: LossEntry[] = [];
    for (let i = 0; i < where.length; i += 2) found.push((JSON.parse(this.read(where[i], where[i + 1])) as [string, LossEntry])[1]);
    return found;
  }

  private open(): void {
    this.dir = scratchDir('sp-ledger');
    this.lineFd = openSync(join(this.dir.path, 'entries.ndjson'), 'wx+', 0o600);
    this.keyFd = openSync(join(this.dir.path, 'entries.keys'), 'wx+', 0o600);
    this.indexFd = openSync(join(this.dir.path, 'entries.index'), 'wx+', 0o600);
  }

  private flush(): void {
    if (this.pending === '' || this.lineFd === undefined) return;
    writeSync(this.lineFd, this.pending, this.pendingFrom);
    this.pendingFrom = this.size;
    this.pending = '';
  }

  private flushKeys(): void {
    if (this.keysUsed === 0 || this.keyFd === undefined) return;
    writeSync(this.keyFd, this.keys, 0, this.keysUsed, (this.count - this.keysUsed / KEY_BYTES) * KEY_BYTES);
    this.keysUsed = 0;
  }

  /** Each key record in the order added: session id, seq, line offset and length. */
  private eachKey(use: (session: number, seq: number, offset: number, length: number) => void): void {
    const buffer = Buffer.allocUnsafe(this.keys.length);
    for (let record = 0; record < this.count; ) {
      const want = Math.min(this.count - record, buffer.length / KEY_BYTES) * KEY_BYTES;
      let got = 0;
      while (got < want) {
        const n = readSync(this.keyFd!, buffer, got, want - got, record * KEY_BYTES + got);
        if (n === 0) throw new Error('the relay ledger\'s entries are shorter than written');
        got += n;
      }
      for (let at = 0; at < want; at += KEY_BYTES) use(buffer.readUInt32LE(at), buffer.readDoubleLE(at + 4), buffer.readDoubleLE(at + 12), buffer.readUInt32LE(at + 20));
      record += want / KEY_BYTES;
    }
  }

  /** Sorts the key records into the index by source position (two passes: count per bucket, then place). */
  private index(): void {
    if (this.removed) throw new Error('the relay ledger was removed');
    if (this.indexed) return;
    this.flush();
    this.flushKeys();
    this.unplaced.clear();
    const buckets = (this.sources.length >> BUCKET_SHIFT) + 1;
    const counts = new Uint32Array(buckets);
    const sessions = this.sources.sessions.values;
    this.eachKey((session, seq, offset, length) => {
      let placed = false;
      this.sources.positionsOf(session, seq, (position) => {
        counts[position >> BUCKET_SHIFT] += 1;
        placed = true;
      });
      if (!placed && !Number.isNaN(seq)) push(this.unplaced, key(sessions[session], seq), offset, length);
    });
    const from = new Float64Array(buckets);
    for (let b = 1; b < buckets; b += 1) from[b] = from[b - 1] + counts[b - 1];
    const written = new Uint32Array(buckets);
    const filled = new Uint8Array(buckets);
    const staged = Buffer.allocUnsafe(buckets * BUCKET_BUFFER * INDEX_BYTES);
    const write = (b: number): void => {
      const bytes = filled[b] * INDEX_BYTES;
      writeSync(this.indexFd!, staged, b * BUCKET_BUFFER * INDEX_BYTES, bytes, (from[b] + written[b]) * INDEX_BYTES);
      written[b] += filled[b];
      filled[b] = 0;
    };
    this.eachKey((session, seq, offset, length) => {
      this.sources.positionsOf(session, seq, (position) => {
        const b = position >> BUCKET_SHIFT;
        const at = (b * BUCKET_BUFFER + filled[b]) * INDEX_BYTES;
        staged.writeUInt32LE(position, at);
        staged.writeUInt32LE(length, at + 4);
        staged.writeDoubleLE(offset, at + 8);
        if (++filled[b] === BUCKET_BUFFER) write(b);
      });
    });
    for (let b = 0; b < buckets; b += 1) if (filled[b] > 0) write(b);
    this.indexed = { from, counts };
    this.loaded = undefined;
  }

  /** One bucket's records read back, sorted by position (a counting sort: as added within a position). */
  private bucket(bucket: number): LoadedBucket {
    if (this.loaded?.bucket === bucket) return this.loaded;
    const { from, counts } = this.indexed!;
    const n = bucket < counts.length ? counts[bucket] : 0;
    const raw = Buffer.allocUnsafe(n * INDEX_BYTES);
    let got = 0;
    while (got < raw.length) {
      const read = readSync(this.indexFd!, raw, got, raw.length - got, from[bucket] * INDEX_BYTES + got);
      if (read === 0) throw new Error('the relay ledger\'s index is shorter than written');
      got += read;
    }
    const base = bucket << BUCKET_SHIFT;
    const starts = new Uint32Array((1 << BUCKET_SHIFT) + 1);
    for (let i = 0; i < n; i += 1) starts[raw.readUInt32LE(i * INDEX_BYTES) - base + 1] += 1;
    for (let s = 1; s < starts.length; s += 1) starts[s] += starts[s - 1];
    const next = starts.slice();
    const offsets = new Float64Array(n);
    const lengths = new Uint32Array(n);
    for (let i = 0; i < n; i += 1) {
      const at = next[raw.readUInt32LE(i * INDEX_BYTES) - base]++;
      lengths[at] = raw.readUInt32LE(i * INDEX_BYTES + 4);
      offsets[at] = raw.readDoubleLE(i * INDEX_BYTES + 8);
    }
    return (this.loaded = { bucket, starts, offsets, lengths });
  }

  /** One line's text: from the block read last when it holds it (a pass in order reads each block once). */
  private read(offset: number, length: number): string {
    if (this.removed || this.lineFd === undefined) throw new Error('the relay ledger was removed');
    this.flush();
    if (offset < this.blockStart || offset + length > this.blockStart + this.block.length) {
      const room = Math.max(length, BLOCK);
      const buffer = this.block.buffer.byteLength >= room && this.block.byteOffset === 0 ? Buffer.from(this.block.buffer, 0, this.block.buffer.byteLength) : Buffer.allocUnsafeSlow(room);
      let got = 0;
      while (got < length) {
        const n = readSync(this.lineFd, buffer, got, buffer.length - got, offset + got);
        if (n === 0) break;
        got += n;
      }
      this.block = buffer.subarray(0, got);
      this.blockStart = offset;
    }
    const at = offset - this.blockStart;
    return this.block.toString('utf8', at, at + length);
  }
}

const key = (session: string, seq: number): string => `${seq}\u0000${session}`;

function push(map: Map<string, number[]>, name: string, offset: number, length: number): void {
  const list = map.get(name);
  if (list) list.push(offset, length);
  else map.set(name, [offset, length]);
}

// A ledger row per source event, for sessions of a million events: the sources a byte or so an
// event (Sources), the entries files on disk (EntryFile).
export class RelayLedger {
  private readonly sources = new Sources();
  /** Entries per source event (by session and seq). */
  private readonly entries = new EntryFile(this.sources);
  /** Entries that name no source event. */
  readonly unattached: SessionEntry[] = [];

  /** Notes a source event (every event of the input, once). */
  source(event: SpEvent): void {
    this.sources.add(String(event.session), event.type, event.seq);
    this.entries.sourceAdded();
  }

  /**
   * An entry for a source event of `session`. `seq` of the entry is the SOURCE seq (callers that
   * renumbered map it back first); an entry without one is kept as a session-level change.
   */
  add(session: string, entry: LossEntry): void {
    if (typeof entry.seq !== 'number') this.unattached.push({ ...entry, session });
    else this.entries.add(session, entry as LossEntry & { seq: number });
  }

  /** Marks every event of `session` in `seqs` with the same entry (other sessions, summarized turns). */
  addAll(session: string, seqs: Iterable<{ seq: number; type: string }>, entry: Omit<LossEntry, 'seq' | 'type'>): void {
    for (const { seq, type } of seqs) this.add(session, { ...entry, seq, type });
  }

  /** Entries of one source event. */
  entriesOf(session: string, seq: number): LossEntry[] {
    return typeof seq === 'number' && !Number.isNaN(seq) ? this.entries.entriesOf(session, seq) : [];
  }

  /** Deletes the entries' temp files, when whoever holds the relay's outcome is done with its rows. */
  remove(): void {
    this.entries.remove();
  }

  /** The entries' temp folder, once the first entry made it (tests check it goes). */
  get path(): string | undefined {
    return this.entries.path;
  }

  /** One row per source event, in input order. */
  *rows(): Generator<LedgerRow> {
    const sessions = this.sources.sessions.values;
    for (const [position, id, seq, type] of this.sources.each()) {
      const session = sessions[id];
      const list = this.entries.entriesAt(position, session, seq);
      if (list.length === 0) {
        yield { session, seq: seq as number, type: type as string, action: 'carried' };
        continue;
      }
      // A dropped part of an event that was written (the UI data of a result) does not make the
      // event dropped: the written form decides, dropped only when nothing of it was written.
      const written = list.filter((entry) => entry.action !== 'dropped');
      const candidates = written.length ? written : list;
      let top = candidates[0];
      for (const entry of candidates) if (rank(entry.action) < rank(top.action)) top = entry;
      const action = (ACTIONS as readonly string[]).includes(top.action) ? (top.action as LedgerAction) : 'transformed';
      const row: LedgerRow = { session, seq: seq as number, type: type as string, action, code: top.code, reason: top.reason };
      if (top.from !== undefined) row.from = top.from;
      if (top.to !== undefined) row.to = top.to;
      if (list.length > 1) row.entries = list;
      yield row;
    }
  }

  totals(): LedgerTotals {
    const totals: LedgerTotals = { carried: 0, translated: 0, rendered: 0, transformed: 0, stubbed: 0, dropped: 0, summarized: 0, events: 0 };
    for (const row of this.rows()) {
      totals.events += 1;
      totals[row.action] += 1;
      if (row.action === 'dropped' && row.code === 'summarized') totals.summarized += 1;
    }
    return totals;
  }
}

/** `120 carried, 14 translated, 2 rendered, 1 stubbed, 3 dropped (40 summarized)`: zero counts of the rarer actions left out. */
export function totalsLine(totals: LedgerTotals): string {
  const parts = [`${totals.carried} carried`, `${totals.translated} translated`, `${totals.rendered} rendered`];
  if (totals.transformed) parts.push(`${totals.transformed} transformed`);
  parts.push(`${totals.stubbed} stubbed`, `${totals.dropped} dropped${totals.summarized ? ` (${totals.summarized} summarized)` : ''}`);
  return parts.join(', ');
}

/** Entries counted per `action code`, with the first of each (what sp-materialize's stderr summary says), in order of first report. */
export class LossSummary {
  private readonly byCode = new Map<string, { count: number; first: LossEntry }>();

  add(entry: LossEntry): void {
    const key = `${entry.action} ${entry.code}`;
    const seen = this.byCode.get(key);
    if (seen) seen.count += 1;
    else this.byCode.set(key, { count: 1, first: entry });
  }

  /** `[action code, count, first entry]` per code. */
  *codes(): Generator<[key: string, count: number, first: LossEntry]> {
    for (const [key, { count, first }] of this.byCode) yield [key, count, first];
  }
}
