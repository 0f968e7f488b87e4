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
import { HashChains, grown, hashString } from '../write/hashed.js';

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

/** One copy of each string seen often (a session id, an event type), as a small number. */
class Interned {
  private readonly ids = new Map<string, number>();
  readonly values: string[] = [];

  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      this.ids.set(value, (id = this.values.length));
      this.values.push(value);
    }
    return id;
  }
}

/** A column of numbers that grows by doubling: 8 bytes a row, no object per row. */
class NumberColumn {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) this.data = grown(this.data, this.data.length * 2);
    this.data[this.length++] = value;
  }

  at(index: number): number {
    return this.data[index];
  }
}

/** Bytes written to the entry file at once (and read back at once). */
const BLOCK = 1 << 16;

/**
 * The entries of source events, on disk: a relay reports one for most events of a session, and
 * held as objects with their per-event reasons they grew with the session (about 250 bytes each).
 * Each entry is a line `[session, entry]` in a private temp file (lib/fs/private.ts), made at the
 * first entry; memory keeps 24 bytes an entry: where its line is, and a hash of its session and
 * seq (lib/write/hashed.ts), confirmed against the line read back. `remove()` deletes the file
 * (also on exit and on signals, as the spools of lib/write/spool.ts).
 */
class EntryFile {
  private readonly chains = new HashChains();
  private offsets = new Float64Array(1024);
  private lengths = new Int32Array(1024);
  private dir: ScratchDir | undefined;
  private fd: number | undefined;
  private size = 0;
  private pending = '';
  private pendingFrom = 0;
  private removed = false;
  private block = Buffer.alloc(0);
  private blockStart = 0;

  add(session: string, entry: LossEntry & { seq: number }): void {
    if (this.removed) throw new Error('the relay ledger was removed');
    if (this.fd === undefined) this.open();
    const line = JSON.stringify([session, entry]);
    const bytes = Buffer.byteLength(line);
    const at = this.chains.add(keyHash(session, entry.seq));
    if (at >= this.offsets.length) {
      this.offsets = grown(this.offsets, this.offsets.length * 2);
      this.lengths = grown(this.lengths, this.lengths.length * 2);
    }
    this.offsets[at] = this.size;
    this.lengths[at] = bytes;
    this.size += bytes + 1;
    this.pending += `${line}\n`;
    if (this.pending.length >= BLOCK) this.flush();
  }

  /** The entries of one source event, in the order they were added. */
  entriesOf(session: string, seq: number): LossEntry[] {
    if (this.fd === undefined) return [];
    const found: LossEntry[] = [];
    for (let at = this.chains.newest(keyHash(session, seq)); at !== -1; at = this.chains.previous(at)) {
      const [s, entry] = JSON.parse(this.read(this.offsets[at], this.lengths[at])) as [string, LossEntry];
      if (s === session && entry.seq === seq) found.push(entry);
    }
    return found.reverse();
  }

  remove(): void {
    if (this.removed) return;
    this.removed = true;
    this.pending = '';
    if (this.fd !== undefined) closeSync(this.fd);
    this.dir?.remove();
  }

  get path(): string | undefined {
    return this.dir?.path;
  }

  private open(): void {
    this.dir = scratchDir('sp-ledger');
    this.fd = openSync(join(this.dir.path, 'entries.ndjson'), 'wx+', 0o600);
  }

  private flush(): void {
    if (this.pending === '' || this.fd === undefined) return;
    writeSync(this.fd, this.pending, this.pendingFrom);
    this.pendingFrom = this.size;
    this.pending = '';
  }

  /** One line's text: from the block read last when it holds it (a pass in order reads each block once). */
  private read(offset: number, length: number): string {
    if (this.removed || this.fd === undefined) throw new Error('the relay ledger was removed');
    this.flush();
    if (offset < this.blockStart || offset + length > this.blockStart + this.block.length) {
      const room = Math.max(length, BLOCK);
      const buffer = this.block.buffer.byteLength >= room && this.block.byteOffset === 0 ? Buffer.from(this.block.buffer, 0, this.block.buffer.byteLength) : Buffer.allocUnsafeSlow(room);
      let got = 0;
      while (got < length) {
        const n = readSync(this.fd, buffer, got, buffer.length - got, offset + got);
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

const keyHash = (session: string, seq: number): number => hashString(`${seq}\u0000${session}`);

// A ledger row per source event, for sessions of a million events: the sources are three number
// columns (session and type as ids of interned strings), the entries a file on disk (EntryFile).
export class RelayLedger {
  /** Source events in input order: session and type (interned ids) and seq. */
  private readonly sourceSessions = new NumberColumn();
  private readonly sourceTypes = new NumberColumn();
  private readonly sourceSeqs = new NumberColumn();
  /** Sessions and types (ids in the columns). */
  private readonly strings = new Interned();
  /** A source seq that is not a number (a malformed event), by position: given back as it was. */
  private readonly unnumbered = new Map<number, unknown>();
  /** Entries per source event (by session and seq). */
  private readonly entries = new EntryFile();
  /** Entries that name no source event. */
  readonly unattached: SessionEntry[] = [];

  /** Notes a source event (every event of the input, once). */
  source(event: SpEvent): void {
    this.sourceSessions.push(this.strings.id(String(event.session)));
    this.sourceTypes.push(this.strings.id(event.type));
    this.sourceSeqs.push(event.seq);
    if (typeof event.seq !== 'number') this.unnumbered.set(this.sourceSeqs.length - 1, event.seq);
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
    return typeof seq === 'number' ? this.entries.entriesOf(session, seq) : [];
  }

  /** Deletes the entries' temp file, when whoever holds the relay's outcome is done with its rows. */
  remove(): void {
    this.entries.remove();
  }

  /** The entries' temp folder, once the first entry made it (tests check it goes). */
  get path(): string | undefined {
    return this.entries.path;
  }

  /** One row per source event, in input order. */
  *rows(): Generator<LedgerRow> {
    for (let i = 0; i < this.sourceSeqs.length; i += 1) {
      const session = this.strings.values[this.sourceSessions.at(i)];
      const type = this.strings.values[this.sourceTypes.at(i)];
      const seq = (this.unnumbered.has(i) ? this.unnumbered.get(i) : this.sourceSeqs.at(i)) as number;
      const list = this.entriesOf(session, seq);
      if (list.length === 0) {
        yield { session, seq, type, action: 'carried' };
        continue;
      }
      // A dropped part of an event that was written (the UI data of a result) does not make the
      // event dropped: the written form decides, dropped only when nothing of it was written.
      const written = list.filter((entry) => entry.action !== 'dropped');
      const candidates = written.length ? written : list;
      let top = candidates[0];
      for (const entry of candidates) if (rank(entry.action) < rank(top.action)) top = entry;
      const action = (ACTIONS as readonly string[]).includes(top.action) ? (top.action as LedgerAction) : 'transformed';
      const row: LedgerRow = { session, seq, type, action, code: top.code, reason: top.reason };
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
