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

export class RelayLedger {
  /** Source events in input order: session, seq, type. */
  private readonly sources: Array<{ session: string; seq: number; type: string }> = [];
  /** Entries per source event, keyed `session\0seq`. */
  private readonly entries = new Map<string, LossEntry[]>();
  /** Entries that name no source event. */
  readonly unattached: SessionEntry[] = [];

  private static key(session: string, seq: number): string {
    return `${session}\0${seq}`;
  }

  /** Notes a source event (every event of the input, once). */
  source(event: SpEvent): void {
    this.sources.push({ session: String(event.session), seq: event.seq, type: event.type });
  }

  /**
   * An entry for a source event of `session`. `seq` of the entry is the SOURCE seq (callers that
   * renumbered map it back first); an entry without one is kept as a session-level change.
   */
  add(session: string, entry: LossEntry): void {
    if (typeof entry.seq !== 'number') {
      this.unattached.push({ ...entry, session });
      return;
    }
    const key = RelayLedger.key(session, entry.seq);
    const list = this.entries.get(key);
    if (list) list.push(entry);
    else this.entries.set(key, [entry]);
  }

  /** Marks every event of `session` in `seqs` with the same entry (other sessions, summarized turns). */
  addAll(session: string, seqs: Iterable<{ seq: number; type: string }>, entry: Omit<LossEntry, 'seq' | 'type'>): void {
    for (const { seq, type } of seqs) this.add(session, { ...entry, seq, type });
  }

  /** Entries of one source event. */
  entriesOf(session: string, seq: number): LossEntry[] {
    return this.entries.get(RelayLedger.key(session, seq)) ?? [];
  }

  /** One row per source event, in input order. */
  *rows(): Generator<LedgerRow> {
    for (const { session, seq, type } of this.sources) {
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
