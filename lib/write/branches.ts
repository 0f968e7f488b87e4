// The branches of a session (one implementation: the relay, and every writer that writes one linear
// history under `--branch active`, choose the active branch here). For a linear target. A tree target (Pi) takes the whole tree; a target
// whose sessions are one line (Claude Code's resume, Codex, Hermes) gets the ACTIVE branch — the
// path from the root to the last message — and, with `--branches all`, each other branch as a
// session of its own: the same prefix up to the branch point, then that branch.
//
// The tree is built over the conversation's own steps (user and assistant messages, thinking, tool
// calls). A tool result belongs to its call, a derived event (file.edit …) to the call it came from,
// so parallel calls and their results never look like branches. A step's parent is its parent_seq
// where capture set one, else the step before it; a new root (parent_seq null, e.g. after a
// compaction) continues from the step before too, so a compacted session stays one branch.
//
// The split works on a BranchIndex: a few numbers per event (its seq, whether it is a step, its
// parent_seq and derived_from, the call id of a call or result), fed event by event, so a spooled
// session (lib/write/spool.ts) is split without holding its events; the answer is a set of
// POSITIONS that a second pass over the same events keeps. splitBranches(events) is the same split
// over an array, for the writers that hold their session.
import type { SpEvent } from '../core/event.js';
import { isObject } from '../core/json.js';
import { grown, indexInSorted } from './hashed.js';
import { IdTable } from './ids.js';
import { LOSS, type PlanReport } from './plan.js';

const STEPS = new Set(['message.user', 'message.assistant', 'message.thinking', 'tool.call']);

const isStep = (e: SpEvent): boolean => STEPS.has(e.type) && (e.derived_from === undefined || e.derived_from === null);
const callIdOf = (e: SpEvent): string | undefined => (isObject(e.payload) && typeof e.payload.call_id === 'string' ? e.payload.call_id : undefined);

export interface Branch {
  /** The last step of the branch (its leaf). */
  leafSeq: number;
  /** The last step it shares with the active branch (undefined: nothing shared). */
  forkSeq?: number;
  /** The session's events on this branch, in input order (steps, their results, everything off the tree). */
  events: SpEvent[];
  /** Steps only this branch has (not on the active branch). */
  own: Set<number>;
}

export interface Branches {
  active: Branch;
  /** The other branches, in the order their leaves appear. */
  others: Branch[];
  /** Steps (and their results) not on the active branch. */
  offActive: SpEvent[];
}

/** A branch as positions in the session's events (BranchIndex order). */
export interface BranchSelection {
  leafSeq: number;
  forkSeq?: number;
  /** Whether the event at `position` is on this branch. */
  includes(position: number): boolean;
  /** Seqs of the steps (and their results) only this branch has. */
  own: Set<number>;
}

export interface BranchPlan {
  active: BranchSelection;
  others: BranchSelection[];
  /** Positions of the events not on the active branch, ascending. */
  offActive: number[];
}

const CALL = 1;
const RESULT = 2;
const NONE = -2;

/**
 * What the split needs of each event of a session, in order: numbers and call ids, never the events
 * (about 30 bytes an event and a call id's text once). Feed it with `add`, then `split()`.
 */
export class BranchIndex {
  // Typed columns (JS arrays of numbers, booleans and call id strings held about 60 bytes an event).
  private seqs = new Float64Array(256);
  /** Bit 0: a step; bits 1–2: CALL or RESULT. */
  private flags = new Uint8Array(256);
  /** The call id of a call or result, as its IdTable entry (-1: none). */
  private callIds = new Int32Array(256);
  private parentSeqs = new Float64Array(256);
  private derivedFroms = new Float64Array(256);
  private readonly ids = new IdTable();
  private count = 0;
  private increasing = true;

  add(event: SpEvent): void {
    const at = this.count;
    if (at === this.seqs.length) this.grow();
    if (at > 0 && !(event.seq > this.seqs[at - 1])) this.increasing = false;
    this.seqs[at] = event.seq;
    const kind = event.type === 'tool.call' ? CALL : event.type === 'tool.result' ? RESULT : 0;
    this.flags[at] = (isStep(event) ? 1 : 0) | (kind << 1);
    const id = kind !== 0 ? callIdOf(event) : undefined;
    this.callIds[at] = id !== undefined ? this.ids.add(id) : -1;
    this.parentSeqs[at] = typeof event.parent_seq === 'number' ? event.parent_seq : NaN;
    this.derivedFroms[at] = typeof event.derived_from === 'number' ? event.derived_from : NaN;
    this.count = at + 1;
  }

  private grow(): void {
    const size = this.seqs.length * 2;
    this.seqs = grown(this.seqs, size);
    this.flags = grown(this.flags, size);
    this.callIds = grown(this.callIds, size);
    this.parentSeqs = grown(this.parentSeqs, size);
    this.derivedFroms = grown(this.derivedFroms, size);
  }

  get length(): number {
    return this.count;
  }

  seqAt(position: number): number {
    return this.seqs[position];
  }

  /** Positions by seq: `last` the last position with that seq, `upTo` the last one at or before `limit`. */
  private seqLookup(): { last: (seq: number) => number | undefined; upTo: (seq: number, limit: number) => number | undefined } {
    if (this.increasing) {
      // Strictly increasing seqs (the usual case): a binary search, no map.
      const find = (seq: number): number | undefined => {
        const at = indexInSorted(this.seqs, this.count, seq);
        return at === -1 ? undefined : at;
      };
      return { last: find, upTo: (seq, limit) => {
        const at = find(seq);
        return at !== undefined && at <= limit ? at : undefined;
      } };
    }
    const positions = new Map<number, number[]>();
    for (let i = 0; i < this.count; i += 1) {
      const seq = this.seqs[i];
      const list = positions.get(seq);
      if (list) list.push(i);
      else positions.set(seq, [i]);
    }
    return {
      last: (seq) => positions.get(seq)?.at(-1),
      upTo: (seq, limit) => {
        const list = positions.get(seq);
        if (!list) return undefined;
        for (let k = list.length - 1; k >= 0; k -= 1) if (list[k] <= limit) return list[k];
        return undefined;
      },
    };
  }

  /** Splits the session into its active branch and the others (see the file comment). */
  split(): BranchPlan {
    const n = this.count;
    const lookup = this.seqLookup();
    const { flags, callIds, parentSeqs, derivedFroms, seqs } = this;
    const isStepAt = (i: number): boolean => (flags[i] & 1) === 1;
    const kindAt = (i: number): number => flags[i] >> 1;

    // The parent step of every step (-1 the root; NONE: not a step).
    const parents = new Int32Array(n).fill(NONE);
    {
      const callIndex = new Int32Array(this.ids.size).fill(NONE);
      const stepAt = new Int32Array(n).fill(NONE);
      let previousStep = -1;
      for (let i = 0; i < n; i += 1) {
        if (isStepAt(i)) {
          let parent = previousStep;
          if (!Number.isNaN(parentSeqs[i])) {
            const at = lookup.last(parentSeqs[i]);
            if (at !== undefined && at < i) parent = stepAt[at] !== NONE ? stepAt[at] : previousStep;
          }
          parents[i] = parent;
          stepAt[i] = i;
          previousStep = i;
          if (kindAt(i) === CALL && callIds[i] !== -1) callIndex[callIds[i]] = i;
          continue;
        }
        const id = kindAt(i) === RESULT ? callIds[i] : -1;
        const derived = Number.isNaN(derivedFroms[i]) ? undefined : lookup.last(derivedFroms[i]);
        const fromCall = id !== -1 && callIndex[id] !== NONE ? callIndex[id] : undefined;
        const fromDerived = derived !== undefined && stepAt[derived] !== NONE ? stepAt[derived] : undefined;
        stepAt[i] = fromCall ?? fromDerived ?? previousStep;
      }
    }
    const children = new Int32Array(n + 1);
    for (let i = 0; i < n; i += 1) if (parents[i] !== NONE) children[parents[i] + 1] += 1;
    const leaves: number[] = [];
    for (let i = 0; i < n; i += 1) if (parents[i] !== NONE && children[i + 1] === 0) leaves.push(i);
    const activeLeaf = leaves.length ? leaves[leaves.length - 1] : -1;

    // A path as a mark per position (a Set of a large session's steps held dozens of bytes each, through the write).
    const pathOf = (leaf: number): Uint8Array => {
      const path = new Uint8Array(n);
      for (let at = leaf; at >= 0 && path[at] === 0; at = parents[at] !== NONE ? parents[at] : -1) path[at] = 1;
      return path;
    };
    const activePath = pathOf(activeLeaf);

    // What belongs to a path: its steps, the results of its calls and what derives from them, and
    // every event that is no part of the tree (session.start, meta, todo state …).
    const owners = new Int32Array(n).fill(NONE);
    {
      const callIndex = new Int32Array(this.ids.size).fill(NONE);
      for (let i = 0; i < n; i += 1) {
        if (isStepAt(i) && kindAt(i) === CALL && callIds[i] !== -1) callIndex[callIds[i]] = i;
        if (kindAt(i) === RESULT && !isStepAt(i)) {
          const id = callIds[i];
          if (id !== -1 && callIndex[id] !== NONE) owners[i] = callIndex[id];
        } else if (!Number.isNaN(derivedFroms[i])) {
          const at = lookup.upTo(derivedFroms[i], i);
          if (at !== undefined) owners[i] = owners[at] !== NONE ? owners[at] : at;
        }
      }
    }
    const onPath = (path: Uint8Array, i: number): boolean => {
      if (parents[i] !== NONE) return path[i] === 1;
      return owners[i] === NONE || path[owners[i]] === 1;
    };
    const branch = (leaf: number): BranchSelection => {
      const path = leaf === activeLeaf ? activePath : pathOf(leaf);
      let fork: number | undefined;
      for (let at = n - 1; at >= 0 && fork === undefined; at -= 1) if (path[at] === 1 && activePath[at] === 1) fork = at;
      const own = new Set<number>();
      if (leaf !== activeLeaf) for (let i = 0; i < n; i += 1) if (onPath(path, i) && !onPath(activePath, i)) own.add(seqs[i]);
      const on = new Uint8Array((n + 7) >> 3);
      for (let i = 0; i < n; i += 1) if (onPath(path, i)) on[i >> 3] |= 1 << (i & 7);
      return { leafSeq: leaf >= 0 ? seqs[leaf] : -1, forkSeq: fork !== undefined ? seqs[fork] : undefined, includes: bitTest(on), own };
    };

    const active = branch(activeLeaf);
    const others = leaves.filter((leaf) => leaf !== activeLeaf).map(branch);
    const offActive: number[] = [];
    for (let i = 0; i < n; i += 1) if (!onPath(activePath, i)) offActive.push(i);
    return { active, others, offActive };
  }
}

/**
 * `includes` of a branch as a bit per position, made outside split(): a closure made in there kept
 * split's context alive through the write (the index's seqs and flags, parents and owners: about 18
 * bytes an event of a 1 GB session), where this keeps an eighth of a byte.
 */
const bitTest =
  (bits: Uint8Array) =>
  (position: number): boolean =>
    Number.isInteger(position) && position >= 0 && (bits[position >> 3] & (1 << (position & 7))) !== 0;

/** Splits a session held in memory into its active branch and the others (see the file comment). */
export function splitBranches(events: SpEvent[]): Branches {
  const index = new BranchIndex();
  for (const event of events) index.add(event);
  const plan = index.split();
  const branch = (selection: BranchSelection): Branch => ({ leafSeq: selection.leafSeq, forkSeq: selection.forkSeq, events: events.filter((_, i) => selection.includes(i)), own: selection.own });
  return { active: branch(plan.active), others: plan.others.map(branch), offActive: plan.offActive.map((i) => events[i]) };
}

/** How a writer reports a change (LossLedger.report). */
export type BranchReport = PlanReport;

/**
 * `--branch active` for a writer of one linear history: the events of the active branch (see
 * splitBranches); every step or result off it is reported `dropped other-branch`. Derived events of
 * an off-branch call go with it unreported (a writer never writes them: their call carries them).
 */
export function activeBranch(events: SpEvent[], report: BranchReport, reason = 'not on the active branch (--branch active): not written'): SpEvent[] {
  const { active, offActive } = splitBranches(events);
  for (const event of offActive) if (event.derived_from === undefined || event.derived_from === null) report('dropped', LOSS.otherBranch, reason, event);
  return active.events;
}

/**
 * `--branch active` over a re-readable session (a spool pass): one pass indexes, and the returned
 * filter keeps the active branch's positions on the next pass; events off it are reported as by
 * activeBranch, in a pass of their own. `events()` must give the same events in the same order each time.
 */
export async function activeBranchOf(events: () => AsyncIterable<SpEvent>, report: BranchReport, reason = 'not on the active branch (--branch active): not written'): Promise<() => AsyncGenerator<SpEvent>> {
  const index = new BranchIndex();
  for await (const event of events()) index.add(event);
  const { active, offActive } = index.split();
  if (offActive.length > 0) {
    const off = new Set(offActive);
    let at = 0;
    for await (const event of events()) {
      if (off.has(at++) && (event.derived_from === undefined || event.derived_from === null)) report('dropped', LOSS.otherBranch, reason, event);
    }
  }
  return async function* kept() {
    let at = 0;
    for await (const event of events()) if (active.includes(at++)) yield event;
  };
}

/**
 * activeBranch for a session read by position (a SpooledSession's view): the same events and the
 * same reports, given as a view that reads each kept event where it stands, so the split holds a
 * few numbers per event and never the events. (All on the active branch: `events` itself.)
 */
export function activeBranchView(events: readonly SpEvent[], report: BranchReport, reason = 'not on the active branch (--branch active): not written'): readonly SpEvent[] {
  const index = new BranchIndex();
  for (let i = 0; i < events.length; i += 1) index.add(events[i]);
  const { active, offActive } = index.split();
  if (offActive.length === 0) return events;
  for (const at of offActive) {
    const event = events[at];
    if (event.derived_from === undefined || event.derived_from === null) report('dropped', LOSS.otherBranch, reason, event);
  }
  const kept: number[] = [];
  for (let i = 0; i < events.length; i += 1) if (active.includes(i)) kept.push(i);
  return atPositions(events, kept);
}

/** A read-only array-like view of `events` at `positions` (index i reads events[positions[i]]). */
function atPositions(events: readonly SpEvent[], positions: readonly number[]): readonly SpEvent[] {
  const n = positions.length;
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
      if (i !== undefined) return events[positions[i]];
      return prop === 'length' ? n : Reflect.get(t, prop, receiver);
    },
    has: (t, prop) => indexOf(prop) !== undefined || Reflect.has(t, prop),
    set: () => false,
    deleteProperty: () => false,
  });
}
