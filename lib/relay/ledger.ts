// The relay's loss ledger: one row per SOURCE event saying what happened to it on the way to the
// target (docs/design.md §3: nothing disappears without a line). Writers and the relay transform report
// only what they changed (through onLoss); every source event nobody reported on was carried as
// it was. An event with several entries (a call translated and its id repaired) is counted once,
// under its most significant action (dropped only when no entry says it was written in some form);
// all its entries stay in the row.
import type { LossEntry } from '../adapter/interface.js';
import type { SpEvent } from '../core/event.js';

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

/** One copy of each string seen often (a session id, an event type, a reason written per event). */
class Interned {
  private readonly ids = new Map<string, number>();
  readonly values: string[] = [];

  /** `limit`: past that many strings, `same` stops remembering new ones (reasons unique per event would only cost). */
  constructor(private readonly limit = Infinity) {}

  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      this.ids.set(value, (id = this.values.length));
      this.values.push(value);
    }
    return id;
  }

  /** `value`, or the equal string kept already. */
  same(value: string): string {
    const id = this.ids.get(value);
    if (id !== undefined) return this.values[id];
    return this.values.length < this.limit ? this.values[this.id(value)] : value;
  }
}

/** Distinct entry strings shared at most: a few hundred templates in practice. */
const SHARED_ENTRY_STRINGS = 4096;

/** A column of numbers that grows by doubling: 8 bytes a row, no object per row. */
class NumberColumn {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  at(index: number): number {
    return this.data[index];
  }
}

// A ledger row per source event, for sessions of a million events: the sources are three number
// columns (session and type as ids of interned strings) and an entry's strings are shared with
// every equal one, so the ledger costs a few dozen bytes an event, not an object and its strings.
export class RelayLedger {
  /** Source events in input order: session and type (interned ids) and seq. */
  private readonly sourceSessions = new NumberColumn();
  private readonly sourceTypes = new NumberColumn();
  private readonly sourceSeqs = new NumberColumn();
  /** Sessions and types (ids in the columns). */
  private readonly strings = new Interned();
  /** Codes and reasons of entries. */
  private readonly entryStrings = new Interned(SHARED_ENTRY_STRINGS);
  /** A source seq that is not a number (a malformed event), by position: given back as it was. */
  private readonly unnumbered = new Map<number, unknown>();
  /** Entries per source event: per session, by seq (one entry as it is, several in a list). */
  private readonly entries = new Map<string, Map<number, LossEntry | LossEntry[]>>();
  /** Entries that name no source event. */
  readonly unattached: SessionEntry[] = [];

  /** Notes a source event (every event of the input, once). */
  source(event: SpEvent): void {
    this.sourceSessions.push(this.strings.id(String(event.session)));
    this.sourceTypes.push(this.strings.id(event.type));
    this.sourceSeqs.push(event.seq);
    if (typeof event.seq !== 'number') this.unnumbered.set(this.sourceSeqs.length - 1, event.seq);
  }

  /** `entry` with its repeated strings shared (reasons repeat across events of a large session). */
  private compact(entry: LossEntry): LossEntry {
    const kept: LossEntry = { ...entry, code: this.entryStrings.same(entry.code), reason: this.entryStrings.same(entry.reason) };
    if (typeof entry.type === 'string') kept.type = this.entryStrings.same(entry.type);
    return kept;
  }

  /**
   * An entry for a source event of `session`. `seq` of the entry is the SOURCE seq (callers that
   * renumbered map it back first); an entry without one is kept as a session-level change.
   * Returns the entry as kept (its strings shared), for a caller that lists entries too.
   */
  add(session: string, entry: LossEntry): LossEntry {
    if (typeof entry.seq !== 'number') {
      this.unattached.push({ ...entry, session });
      return entry;
    }
    const name = this.strings.same(session);
    let bySeq = this.entries.get(name);
    if (!bySeq) this.entries.set(name, (bySeq = new Map()));
    const kept = this.compact(entry);
    const before = bySeq.get(entry.seq);
    if (before === undefined) bySeq.set(entry.seq, kept);
    else if (Array.isArray(before)) before.push(kept);
    else bySeq.set(entry.seq, [before, kept]);
    return kept;
  }

  /** Marks every event of `session` in `seqs` with the same entry (other sessions, summarized turns). */
  addAll(session: string, seqs: Iterable<{ seq: number; type: string }>, entry: Omit<LossEntry, 'seq' | 'type'>): void {
    for (const { seq, type } of seqs) this.add(session, { ...entry, seq, type });
  }

  /** Entries of one source event. */
  entriesOf(session: string, seq: number): LossEntry[] {
    const found = this.entries.get(session)?.get(seq);
    return found === undefined ? [] : Array.isArray(found) ? found : [found];
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
