// The relay behind `sp-materialize <target>`: input events → the session to write (history mode:
// the session as it is; context mode: the compiled handoff and the newest turns) → its branches (a
// linear target gets the active one, and with `--branches all` every other one as its own session)
// → the relay transform (tool vocabulary, thinking, images, header) → the target's writer. Every
// source event gets a ledger row (ledger.ts). The adapter is passed in: lib/ does not import adapters/.
import type { Adapter, LossEntry, MaterializeOptions, MaterializeResult } from '../adapter/interface.js';
import { UserError } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';
import { isObject } from '../core/json.js';
import { SessionSpool } from '../write/spool.js';
import { grown } from '../write/hashed.js';
import { boundHeapGrowth } from '../write/heap-growth.js';
import { BranchIndex, type BranchPlan, type BranchSelection } from '../write/branches.js';
import { compiledOf, contextSession, type ContextSession } from './context.js';
import { LossSummary, RelayLedger } from './ledger.js';
import { relayTransformPasses } from './translate.js';


export type ThinkingMode = 'keep-text' | 'drop';

export interface RelayOptions extends Omit<MaterializeOptions, 'onLoss' | 'branch'> {
  thinking?: ThinkingMode;
  /** A relay header as the first user message (history mode; a compiled handoff has its own). */
  header?: boolean;
  /** Linear targets: the active branch only, or every branch as a session. */
  branches?: 'active' | 'all';
  /** The writer's own `--branch` (tree kept in one file, or only the active path); set: no splitting here. */
  branch?: 'all' | 'active';
  /** Called before each session is written (dry-run previews group their lines by it). */
  onSession?: () => void;
}

export interface RelayResult extends MaterializeResult {
  mode?: 'history' | 'context';
  /** For a session written for another branch: where it leaves the active one. */
  branch?: { leaf_seq: number; fork_seq?: number; of?: string };
  [extra: string]: unknown;
}

export interface RelayOutcome {
  mode: 'history' | 'context';
  /** The active (or only) session first, then one per other branch. */
  results: RelayResult[];
  ledger: RelayLedger;
  /** Every entry as reported (writer, transform, relay), counted per code, for the stderr summary. */
  summary: LossSummary;
  /** The source session written. */
  session: string;
  context?: Pick<ContextSession, 'turns' | 'turnTokens' | 'room'> & { summarized: number };
}

async function* fromArray(events: SpEvent[]): AsyncGenerator<SpEvent> {
  yield* events;
}

/**
 * An event whose parent is not in the stream any more (the transform folded a result into the text of
 * its call) follows the event before it instead — also where the parent was implicit (seq - 1) — so a
 * tree writer never starts a new root there.
 */
async function* knownParents(events: AsyncIterable<SpEvent>): AsyncGenerator<SpEvent> {
  const seen = new SeqSet();
  let previous: number | undefined;
  for await (const event of events) {
    const explicit = typeof event.parent_seq === 'number';
    const lost = explicit ? !seen.has(event.parent_seq as number) : event.parent_seq === undefined && previous !== undefined && previous !== event.seq - 1 && !seen.has(event.seq - 1);
    if (lost && previous !== undefined) yield { ...event, parent_seq: previous };
    else yield event;
    seen.add(event.seq);
    previous = event.seq;
  }
}

/**
 * The seqs seen, as bits: a Set of every seq of a large session held a few dozen bytes an event.
 * Seqs are small whole numbers in practice (a bit each); any other (a gap 64 times the count, a
 * fraction, a negative) goes into a Set beside the bits, alone: the relay header's seq (the first
 * seq - 0.5) once turned the whole set into a Set, 20 MB of it at a 1 GB session.
 */
export class SeqSet {
  private bits = new Uint8Array(1024);
  private count = 0;
  private other: Set<number> | undefined;

  add(seq: number): void {
    this.count += 1;
    if (Number.isInteger(seq) && seq >= 0 && seq < (this.count + 8192) * 64) {
      const byte = Math.floor(seq / 8);
      if (byte >= this.bits.length) this.bits = grown(this.bits, Math.max(byte + 1, this.bits.length * 2));
      this.bits[byte] |= 1 << (seq % 8);
      return;
    }
    (this.other ??= new Set()).add(seq);
  }

  has(seq: number): boolean {
    if (Number.isInteger(seq) && seq >= 0) {
      const byte = Math.floor(seq / 8);
      if (byte < this.bits.length && (this.bits[byte] & (1 << (seq % 8))) !== 0) return true;
    }
    return this.other?.has(seq) ?? false;
  }
}

/** Seq order, stable: only streams that were interleaved change. */
const bySeq = (events: SpEvent[]): SpEvent[] => (events.every((e, i) => i === 0 || e.seq >= events[i - 1].seq) ? events : [...events].sort((a, b) => a.seq - b.seq));

/** A re-readable stream: each call reads it again from the start (a pass over the spool). */
type Source = () => AsyncIterable<SpEvent>;

/** Only the events at the positions `keep` accepts (positions counted in `source`'s order). */
const atPositions = (source: Source, keep: (position: number) => boolean): Source =>
  async function* () {
    let at = 0;
    for await (const event of source()) if (keep(at++)) yield event;
  };

/** The session's branches; the index goes when this returns (kept in the relay's frame, it would live through the write). */
async function branchPlan(events: Source): Promise<BranchPlan> {
  const index = new BranchIndex();
  for await (const event of events()) index.add(event);
  return index.split();
}

/** Per session: whether its events come in seq order (non-decreasing), noted as the input is spooled. */
class SeqOrder {
  private readonly last = new Map<string, number>();
  private readonly unordered = new Set<string>();
  add(event: SpEvent): void {
    const session = String(event.session ?? '');
    const previous = this.last.get(session);
    if (previous !== undefined && event.seq < previous) this.unordered.add(session);
    this.last.set(session, event.seq);
  }
  ordered(session: string): boolean {
    return !this.unordered.has(session);
  }
}

export async function relay(adapter: Adapter, input: AsyncIterable<SpEvent>, options: RelayOptions): Promise<RelayOutcome> {
  if (!adapter.materialize) throw new UserError(`${adapter.displayName} sessions cannot be written`);
  const { experimental, sameId, tree } = adapter.capabilities;
  if (experimental && !options.experimental) {
    throw new UserError(`writing ${adapter.displayName} sessions is experimental and unverified (${experimental}); pass --experimental to write one anyway`);
  }
  if (options.sameId && sameId !== true) throw new UserError(`--same-id: ${sameId.whyNot} (drop --same-id)`);
  // Before the input is read: the heap's limits grow with the first reads (a writer bounding them later found them at 4× already).
  boundHeapGrowth();
  const ledger = new RelayLedger();
  const order = new SeqOrder();
  // The input is held once, on disk (docs/design.md §5.1, "One stream, held once"): every later step is a pass over this spool.
  let spool: SessionSpool | undefined;
  try {
    spool = await SessionSpool.create(input, {
      prefix: 'sp-relay',
      onEvent: (event) => {
        ledger.source(event);
        order.add(event);
      },
    });
    return await relaySpooled(adapter, spool, order, ledger, options);
  } catch (err) {
    // The outcome's holder removes the ledger's file (ledger.remove()); with no outcome it goes here.
    ledger.remove();
    throw err;
  } finally {
    spool?.remove();
  }
}

async function relaySpooled(adapter: Adapter, spool: SessionSpool, order: SeqOrder, ledger: RelayLedger, options: RelayOptions): Promise<RelayOutcome> {
  const { tree } = adapter.capabilities;
  const summary = new LossSummary();
  const last = spool.last;
  if (!last) throw new UserError('no events in the input');

  // ---- the mode and the session -------------------------------------------------------------------
  const compiled = last.type === 'context.compiled' ? compiledOf(last) : undefined;
  if (last.type === 'context.compiled' && !compiled) throw new UserError('the context.compiled event has no text or budget', `seq ${last.seq}`);
  const mode = compiled ? 'context' : 'history';
  const compiledSource = compiled && isObject(last.payload) && isObject(last.payload.source) ? last.payload.source.session : undefined;
  const session = compiled ? (typeof compiledSource === 'string' ? compiledSource : last.session) : spool.picker.pick(options.session);
  const record = (s: string, entry: LossEntry): void => {
    ledger.add(s, entry);
    summary.add(entry);
  };

  // Every event but a closing compiled handoff, in stream order, with the session it belongs to.
  const lastAt = spool.count - 1;
  const input = async function* (): AsyncGenerator<SpEvent> {
    let at = 0;
    for await (const event of spool.events()) {
      if (at++ === lastAt && compiled) continue;
      yield event;
    }
  };
  const othersCounts = new Map<string, number>();
  for (const [other, count] of spool.counts) {
    const n = compiled && other === String(last.session ?? '') ? count - 1 : count;
    if (other !== session && n > 0) othersCounts.set(other, n);
  }
  for (const [other, count] of othersCounts) {
    const reason = `another session in the stream (${count} events): not written; sp-materialize --session ${other} writes it`;
    summary.add({ action: 'dropped', code: 'other-session', reason });
  }
  if (othersCounts.size > 0) {
    for await (const event of input()) {
      const other = String(event.session ?? '');
      if (other === session) continue;
      const reason = `another session in the stream (${othersCounts.get(other)} events): not written; sp-materialize --session ${other} writes it`;
      ledger.add(other, { action: 'dropped', code: 'other-session', reason, seq: event.seq, type: event.type });
    }
  }

  // The session's own events in seq order: a pass over the spool, or (a stream whose events of this
  // session come out of seq order: rare, interleaved input) sorted once in memory.
  let own: Source = async function* () {
    for await (const event of input()) if (String(event.session ?? '') === session) yield event;
  };
  if (!order.ordered(session)) {
    const held: SpEvent[] = [];
    for await (const event of own()) held.push(event);
    const sorted = bySeq(held);
    own = () => fromArray(sorted);
  }

  let events: Source = own;
  let toSource = (seq: number): number => seq;
  let context: RelayOutcome['context'];
  if (compiled) {
    const [{ createCounter }, { tokenizerOf, conservativeTokenizer }] = await Promise.all([import('../compile/tokens.js'), import('../compile/tokenizers.js')]);
    const counter = createCounter((compiled.tokenizer === undefined ? undefined : tokenizerOf(compiled.tokenizer)) ?? conservativeTokenizer());
    // Context mode holds its session in memory (the newest turns are chosen from the end back).
    const held: SpEvent[] = [];
    for await (const event of own()) held.push(event);
    const built = contextSession(held, last, compiled, counter.count);
    const reason = `older than the turns kept verbatim: covered by the compiled handoff (seq ${last.seq})`;
    for (const e of built.summarized) record(session, { action: 'dropped', code: 'summarized', reason, seq: e.seq, type: e.type });
    record(last.session, { action: 'rendered', code: 'handoff', reason: `the compiled handoff (${compiled.tokens} tokens) is the first user message`, seq: last.seq, type: last.type });
    const kept = built.events;
    events = () => fromArray(kept);
    toSource = (seq) => built.sourceSeq.get(seq) ?? seq;
    context = { turns: built.turns, turnTokens: built.turnTokens, room: built.room, summarized: built.summarized.length };
  }

  // ---- branches -----------------------------------------------------------------------------------
  // A --same-id move keeps the native file as it was (tree and all): no splitting.
  const linear = !tree && options.branch === undefined && !options.sameId;
  let active: Source = events;
  let extra: BranchSelection[] = [];
  if (linear) {
    const split = await branchPlan(events);
    active = atPositions(events, split.active.includes);
    if (options.branches === 'all') extra = split.others;
    else if (split.offActive.length > 0) {
      const reason = 'not on the active branch; --branches all writes each other branch as its own session';
      const off = new Set(split.offActive);
      let at = 0;
      for await (const e of events()) if (off.has(at++)) record(session, { action: 'dropped', code: 'other-branch', reason, seq: toSource(e.seq), type: e.type });
    }
  }

  // ---- transform and write --------------------------------------------------------------------------
  const write = async (list: Source, keep: (sourceSeq: number | undefined) => boolean): Promise<MaterializeResult> => {
    const onLoss = (entry: LossEntry): void => {
      const mapped = typeof entry.seq === 'number' ? { ...entry, seq: toSource(entry.seq) } : entry;
      if (keep(mapped.seq)) record(session, mapped);
    };
    options.onSession?.();
    const stream = relayTransformPasses(list, { target: adapter.id, thinking: options.thinking ?? 'keep-text', header: mode === 'history' && options.header !== false, model: options.model, onLoss });
    const { thinking: _t, header: _h, branches: _b, onSession: _s, ...writerOptions } = options;
    return adapter.materialize!(knownParents(stream), { ...writerOptions, session: undefined, branch: linear ? 'active' : options.branch ?? 'all', onLoss });
  };
  const main: RelayResult = { ...(await write(active, () => true)), mode };
  const results: RelayResult[] = [main];
  for (const branch of extra) {
    // Entries for the shared prefix are the main session's; only the branch's own steps count here.
    const ownSeqs = new Set([...branch.own].map(toSource));
    const branchEvents = atPositions(events, branch.includes);
    const result: RelayResult = { ...(await write(branchEvents, (seq) => seq !== undefined && ownSeqs.has(seq))), mode };
    result.branch = { leaf_seq: toSource(branch.leafSeq), ...(branch.forkSeq !== undefined ? { fork_seq: toSource(branch.forkSeq) } : {}), of: main.session_id };
    const reason = `on another branch: written as session ${result.session_id} (prefix shared up to seq ${result.branch.fork_seq ?? '-'})`;
    for await (const e of branchEvents()) {
      const seq = toSource(e.seq);
      if (ownSeqs.has(seq) && ledger.entriesOf(session, seq).length === 0) ledger.add(session, { action: 'carried', code: 'branch-session', reason, seq, type: e.type });
    }
    results.push(result);
  }
  return { mode, results, ledger, summary, session, ...(context ? { context } : {}) };
}
