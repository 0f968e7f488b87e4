// The converged view of a session (docs/design.md "Sync and convergence"): a deterministic
// function of the set of per-machine chains a store holds for it (its own chain and the verified
// origin mirrors), so every machine that holds the same chains computes the same events, head,
// owner and owner history, whatever order it pulled them in.
import { Chainer } from '../core/chain.js';
import type { SpEvent } from '../core/event.js';
import { isObject, parseJsonObject } from '../core/json.js';
import { applyEvent, emptySummary, eventKey } from './derive.js';
import { mirrorDir, mirroredEvents, mirroredOrigins } from './origins.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from './store.js';
import { machineId } from './paths.js';

/** The machine id whose chain a store's own events form (a read-only store knows it from its SP_HOME). */
function selfOf(store: Store): string {
  return store.machine || machineId(store.home);
}

/** Own events from `index` on were written after the machine had merged `seen[m]` events of machine m's chain. */
export type SeenMark = [index: number, seen: Record<string, number>];

/** One machine's chain of a session: its own events, numbered 0.. (as published), and its causal marks. */
export interface MachineChain {
  machine: string;
  events: SpEvent[];
  seen: SeenMark[];
}

export interface OwnerGrant {
  agent: string;
  granted_at?: number;
  receipt?: string;
}

export interface ConvergedView {
  events: SpEvent[];
  head: string | null;
  owner: string | null;
  owner_history: OwnerGrant[];
  deleted: boolean;
  /** Which machine's chain each merged event came from (index = merged seq). */
  from: string[];
}

/** The marks as published, keeping only well-formed ones (a hostile manifest may hold anything). */
export function parseSeen(value: unknown): SeenMark[] {
  if (!Array.isArray(value)) return [];
  const out: SeenMark[] = [];
  for (const mark of value) {
    if (!Array.isArray(mark) || mark.length !== 2 || !Number.isInteger(mark[0]) || mark[0] < 0 || !isObject(mark[1])) continue;
    const seen: Record<string, number> = {};
    for (const [m, n] of Object.entries(mark[1])) if (Number.isInteger(n) && (n as number) > 0) seen[m] = n as number;
    out.push([mark[0] as number, seen]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The logical clock of every event of chains sorted by machine: one past the clock of the event
 * before it in its chain and of the chain prefixes its mark has seen (capped to what is held).
 * A cycle of marks (a forged publisher) is broken at the smallest machine id still waiting.
 */
function logicalClocks(machines: string[], lengths: number[], seen: SeenMark[][]): Float64Array[] {
  const at = new Map(machines.map((m, i) => [m, i]));
  const clocks = lengths.map((n) => new Float64Array(n));
  const done = lengths.map(() => 0);
  const marks = seen.map((s) => [...s].sort((a, b) => a[0] - b[0]));
  const markIdx = lengths.map(() => -1);
  // What event i of chain c depends on: chain → count.
  const depsOf = (c: number, i: number): Array<[number, number]> => {
    while (markIdx[c] + 1 < marks[c].length && marks[c][markIdx[c] + 1][0] <= i) markIdx[c] += 1;
    if (markIdx[c] < 0) return [];
    const deps: Array<[number, number]> = [];
    for (const [m, n] of Object.entries(marks[c][markIdx[c]][1])) {
      const other = at.get(m);
      if (other === undefined || other === c) continue;
      const count = Math.min(n, lengths[other]);
      if (count > 0) deps.push([other, count]);
    }
    return deps;
  };
  const place = (c: number, force: boolean): boolean => {
    const i = done[c];
    const deps = depsOf(c, i);
    if (!force && deps.some(([o, n]) => done[o] < n)) return false;
    let clock = i > 0 ? clocks[c][i - 1] : 0;
    for (const [o, n] of deps) {
      const seenCount = Math.min(n, done[o]);
      if (seenCount > 0) clock = Math.max(clock, clocks[o][seenCount - 1]);
    }
    clocks[c][i] = clock + 1;
    done[c] += 1;
    return true;
  };
  const total = lengths.reduce((n, l) => n + l, 0);
  let placed = 0;
  while (placed < total) {
    let progress = false;
    for (let c = 0; c < lengths.length; c++) {
      while (done[c] < lengths[c] && place(c, false)) {
        placed += 1;
        progress = true;
      }
    }
    if (progress) continue;
    place(done.findIndex((d, k) => d < lengths[k]), true);
    placed += 1;
  }
  return clocks;
}

/** Applies a merged event to the summary, and notes a change of owner (with its receipt, for a handoff). */
function applyOwned(summary: ReturnType<typeof emptySummary>, history: OwnerGrant[], chained: SpEvent): void {
  const before = summary.owner;
  applyEvent(summary, chained);
  if (summary.owner !== null && summary.owner !== before) {
    const p = isObject(chained.payload) ? chained.payload : {};
    history.push({ agent: summary.owner, granted_at: chained.ts, ...(chained.type === 'handoff' && typeof p.receipt_id === 'string' ? { receipt: p.receipt_id } : {}) });
  }
}

/**
 * Merges chains into one session: each event gets a logical clock one past the clocks of the event
 * before it in its chain and of the chain prefixes its mark has seen; the order is (clock, machine,
 * index); an event key seen earlier is dropped; the result is renumbered and chained from ''.
 */
export function mergeChains(id: string, input: MachineChain[]): ConvergedView {
  const chains = [...input].sort((a, b) => byString(a.machine, b.machine));
  const clocks = logicalClocks(chains.map((c) => c.machine), chains.map((c) => c.events.length), chains.map((c) => c.seen));
  const order: Array<[number, number]> = [];
  chains.forEach((ch, c) => ch.events.forEach((_e, i) => order.push([c, i])));
  order.sort((x, y) => clocks[x[0]][x[1]] - clocks[y[0]][y[1]] || x[0] - y[0] || x[1] - y[1]);

  const seqOf = chains.map(() => new Map<number, number>());
  const keyAt = new Map<string, number>();
  const kept: Array<[number, SpEvent]> = [];
  for (const [c, i] of order) {
    const event = chains[c].events[i];
    const key = eventKey(event);
    const earlier = keyAt.get(key);
    if (earlier !== undefined) {
      seqOf[c].set(i, earlier);
      continue;
    }
    keyAt.set(key, kept.length);
    seqOf[c].set(i, kept.length);
    kept.push([c, event]);
  }
  const chainer = new Chainer();
  const events: SpEvent[] = [];
  const from: string[] = [];
  const summary = emptySummary(id);
  const history: OwnerGrant[] = [];
  for (const [c, event] of kept) {
    const { checksum: _c, parent_seq, derived_from, ...rest } = event;
    const out = { ...rest, session: id, seq: events.length } as SpEvent;
    if (typeof parent_seq === 'number' && seqOf[c].has(parent_seq)) out.parent_seq = seqOf[c].get(parent_seq);
    else if (parent_seq === null) out.parent_seq = null;
    if (typeof derived_from === 'number' && seqOf[c].has(derived_from)) out.derived_from = seqOf[c].get(derived_from);
    const chained = chainer.chain(out);
    applyOwned(summary, history, chained);
    events.push(chained);
    from.push(chains[c].machine);
  }
  return { events, head: summary.head, owner: summary.owner, owner_history: history, deleted: summary.deleted, from };
}

/**
 * This store's own chain of a session: the events of its local log that no origin mirror holds,
 * numbered 0.. and chained from '' (pointers to pulled events are left out), and the causal marks
 * (which origin events came before each own event in the local log). A session no one else wrote
 * to is its local log as it is, lines verbatim.
 */
export function ownChain(store: Store, id: string): MachineChain & { lines: string[]; head: string | null } {
  const origins = mirroredOrigins(store.dir, id);
  const stored = store.session(id);
  if (origins.length === 0) {
    const lines: string[] = [];
    const events: SpEvent[] = [];
    if (stored && stored.events > 0) {
      for (const { text } of store.rawLines(id)) {
        lines.push(text);
        events.push(JSON.parse(text) as SpEvent);
      }
    }
    return { machine: selfOf(store), events, seen: [], lines, head: events.length ? events[events.length - 1].checksum! : null };
  }
  const own = ownSource(store, id, origins, foreignKeys(store.dir, id, origins).foreign);
  const events = [...own.events()];
  const lines = events.map((e) => JSON.stringify(e));
  return { machine: selfOf(store), events, seen: own.seen, lines, head: events.length ? events[events.length - 1].checksum! : null };
}

/** A mirrored origin's chain and the marks its signed manifest carries. */
export function mirroredChain(storeDir: string, machine: string, id: string): MachineChain {
  const path = join(mirrorDir(storeDir, machine, id), 'manifest.json');
  const manifest = existsSync(path) ? parseJsonObject(readFileSync(path, 'utf8')).value : undefined;
  return { machine, events: [...mirroredEvents(storeDir, machine, id)], seen: parseSeen(manifest?.seen) };
}

/** The converged view of a stored session (its local log alone when no other machine wrote to it). */
export function convergedView(store: Store, id: string): ConvergedView & { local: boolean } {
  const own = ownChain(store, id);
  const origins = mirroredOrigins(store.dir, id).filter((m) => m !== selfOf(store));
  if (origins.length === 0) {
    const summary = emptySummary(id);
    const history: OwnerGrant[] = [];
    for (const e of own.events) {
      const before = summary.owner;
      applyEvent(summary, e);
      if (summary.owner !== null && summary.owner !== before) {
        const p = isObject(e.payload) ? e.payload : {};
        history.push({ agent: summary.owner, granted_at: e.ts, ...(e.type === 'handoff' && typeof p.receipt_id === 'string' ? { receipt: p.receipt_id } : {}) });
      }
    }
    return { events: own.events, head: own.head, owner: summary.owner, owner_history: history, deleted: summary.deleted, from: own.events.map(() => own.machine), local: true };
  }
  const chains: MachineChain[] = [own, ...origins.map((m) => mirroredChain(store.dir, m, id))];
  return { ...mergeChains(id, chains), local: false };
}

/** What a store's manifest records of a session's converged view (handoff.ts refreshConverged). */
export interface ConvergedSummary {
  local: boolean;
  event_count: number;
  head: string | null;
  owner: string | null;
  owner_history: OwnerGrant[];
  deleted: boolean;
  /** The machines whose chains the merged events came from, sorted. */
  machines: string[];
}

/** One chain as convergedSummary reads it: its event keys in order, and its events read again on demand. */
interface ChainSource {
  machine: string;
  keys: string[];
  seen: SeenMark[];
  events(): Iterable<SpEvent>;
}

/**
 * convergedView's head, owner and counts without holding the session: the same merge, but each chain
 * is kept as its event keys (and logical clocks, a number an event) and read again, in merge order,
 * to chain the result. A pull of 100k events no longer holds them all (three times) to sign its manifest.
 */
export function convergedSummary(store: Store, id: string): ConvergedSummary {
  const origins = mirroredOrigins(store.dir, id);
  if (origins.filter((m) => m !== selfOf(store)).length === 0) {
    return { local: true, event_count: 0, head: null, owner: null, owner_history: [], deleted: false, machines: [] };
  }
  const { foreign, keysOf: mirrored } = foreignKeys(store.dir, id, origins);
  const chains: ChainSource[] = [ownSource(store, id, origins, foreign)];
  for (const machine of origins) {
    if (machine === selfOf(store)) continue;
    const path = join(mirrorDir(store.dir, machine, id), 'manifest.json');
    const manifest = existsSync(path) ? parseJsonObject(readFileSync(path, 'utf8')).value : undefined;
    chains.push({ machine, keys: mirrored.get(machine)!, seen: parseSeen(manifest?.seen), events: () => mirroredEvents(store.dir, machine, id) });
  }
  return { local: false, ...mergeSources(id, chains) };
}

/**
 * The mirrored origins' event keys, each chain in order, and the first place each key stands:
 * [origin index, event index] as one number, origin × 2^32 + index (the local log events an origin holds).
 */
function foreignKeys(storeDir: string, id: string, origins: string[]): { foreign: Map<string, number>; keysOf: Map<string, string[]> } {
  const keysOf = new Map<string, string[]>();
  const foreign = new Map<string, number>();
  origins.forEach((machine, m) => {
    const keys: string[] = [];
    for (const e of mirroredEvents(storeDir, machine, id)) {
      const key = eventKey(e);
      if (!foreign.has(key)) foreign.set(key, m * 2 ** 32 + keys.length);
      keys.push(key);
    }
    keysOf.set(machine, keys);
  });
  return { foreign, keysOf };
}

/**
 * This store's own chain as a source: one pass finds which local log lines are this store's own
 * (and the causal marks); events() renumbers and chains those lines only, from ''.
 */
function ownSource(store: Store, id: string, origins: string[], foreign: Map<string, number>): ChainSource {
  const stored = store.session(id);
  const keys: string[] = [];
  const seen: SeenMark[] = [];
  const ownSeqs: number[] = [];
  const merged: Record<string, number> = {};
  let changed = false;
  if (stored && stored.events > 0) {
    for (const { seq, text } of store.rawLines(id)) {
      const key = eventKey(JSON.parse(text) as SpEvent);
      const origin = foreign.get(key);
      if (origin !== undefined) {
        const machine = origins[Math.floor(origin / 2 ** 32)];
        const index = origin % 2 ** 32;
        if ((merged[machine] ?? 0) < index + 1) {
          merged[machine] = index + 1;
          changed = true;
        }
        continue;
      }
      if (changed) {
        seen.push([keys.length, { ...merged }]);
        changed = false;
      }
      keys.push(key);
      ownSeqs.push(seq);
    }
  }
  function* events(): Generator<SpEvent> {
    if (ownSeqs.length === 0) return;
    const renumbered = new Map<number, number>();
    const chainer = new Chainer();
    let k = 0;
    for (const { seq, text } of store.rawLines(id, ownSeqs[0])) {
      if (k === ownSeqs.length) break;
      if (seq !== ownSeqs[k]) continue;
      const event = JSON.parse(text) as SpEvent;
      const { checksum: _c, parent_seq, derived_from, ...rest } = event;
      const out = { ...rest, seq: k } as SpEvent;
      if (typeof parent_seq === 'number' && renumbered.has(parent_seq)) out.parent_seq = renumbered.get(parent_seq);
      if (typeof derived_from === 'number' && renumbered.has(derived_from)) out.derived_from = renumbered.get(derived_from);
      renumbered.set(event.seq, k);
      k += 1;
      yield chainer.chain(out);
    }
  }
  return { machine: selfOf(store), keys, seen, events };
}

/** mergeChains over sources: the same clocks, order, de-duplication and chaining (see there). */
function mergeSources(id: string, input: ChainSource[]): Omit<ConvergedSummary, 'local'> {
  const chains = [...input].sort((a, b) => byString(a.machine, b.machine));
  const lengths = chains.map((c) => c.keys.length);
  const clocks = logicalClocks(chains.map((c) => c.machine), lengths, chains.map((c) => c.seen));
  const total = lengths.reduce((n, l) => n + l, 0);
  // The order (clock, chain, index): a chain's clocks rise with its index, so a merge of the chains.
  const inOrder = function* (): Generator<[number, number]> {
    const next = chains.map(() => 0);
    for (let n = 0; n < total; n += 1) {
      let best = -1;
      for (let c = 0; c < chains.length; c++) if (next[c] < lengths[c] && (best < 0 || clocks[c][next[c]] < clocks[best][next[best]])) best = c;
      yield [best, next[best]++];
    }
  };
  // Merged seq of each chain event (-1: none yet); an event whose key came earlier takes that seq and is dropped.
  const seqOf = lengths.map((n) => new Float64Array(n).fill(-1));
  const dropped = lengths.map((n) => new Uint8Array(n));
  const keyAt = new Map<string, number>();
  let count = 0;
  for (const [c, i] of inOrder()) {
    const key = chains[c].keys[i];
    const earlier = keyAt.get(key);
    if (earlier !== undefined) {
      seqOf[c][i] = earlier;
      dropped[c][i] = 1;
      continue;
    }
    keyAt.set(key, count);
    seqOf[c][i] = count++;
  }
  keyAt.clear();
  // Every event of a chain has a merged seq: a pointer maps when it names one of them.
  const mapped = (c: number, p: number): number | undefined => (Number.isInteger(p) && p >= 0 && p < lengths[c] ? seqOf[c][p] : undefined);
  const readers = chains.map((ch) => ch.events()[Symbol.iterator]());
  const chainer = new Chainer();
  const summary = emptySummary(id);
  const history: OwnerGrant[] = [];
  const machines = new Set<string>();
  let seq = 0;
  for (const [c, i] of inOrder()) {
    const event = readers[c].next().value as SpEvent;
    if (dropped[c][i]) continue;
    const { checksum: _c, parent_seq, derived_from, ...rest } = event;
    const out = { ...rest, session: id, seq: seq++ } as SpEvent;
    const parent = typeof parent_seq === 'number' ? mapped(c, parent_seq) : undefined;
    if (parent !== undefined) out.parent_seq = parent;
    else if (parent_seq === null) out.parent_seq = null;
    const derived = typeof derived_from === 'number' ? mapped(c, derived_from) : undefined;
    if (derived !== undefined) out.derived_from = derived;
    const chained = chainer.chain(out);
    applyOwned(summary, history, chained);
    machines.add(chains[c].machine);
  }
  return { event_count: seq, head: summary.head, owner: summary.owner, owner_history: history, deleted: summary.deleted, machines: [...machines].sort() };
}
