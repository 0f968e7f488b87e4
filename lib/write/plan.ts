// The resume-safety pass every writer runs, once: a client resumes a session only when every tool
// call is answered, every answer has its call, and every tool id is one its provider API accepts.
// The pass pairs calls with results, stubs unanswered calls, drops orphan results, and repairs or
// mints ids; the adapter only spells the native records (and says which ids its API accepts).
//
// ## The loss codes of the pass (one list; every writer reports these, and only these, for it)
//
//   stubbed     stub-result    a call with no result: a stub result is written after it (the
//                              provider APIs refuse an unanswered call)
//   dropped     orphan-result  a result that answers no earlier unanswered call: no call with its
//                              id comes before it, or its call was answered already (a second
//                              result); the reason says which. (Gemini writes it as user text
//                              instead: `rendered orphan-result`; ATIF keeps it without a call id:
//                              `transformed orphan-result`.)
//   transformed tool-id        a call id written differently (empty, a clash with an earlier call,
//                              or characters the API refuses), for the call and its result alike
//   dropped     other-branch   a step not on the active branch (--branch active, or a linear target
//                              in the relay); branches.ts chooses the branch
//
// Names that drifted and are now these (behaviour changes, named in the commit): Codex's
// `stub-output` → stub-result, `orphan-output` → orphan-result, `call-id` (Codex, Copilot,
// OpenCode) → tool-id; Claude's `branch` and Gemini's session-level `branch` → other-branch; Pi's
// `duplicate-result` → orphan-result (a second result, said in the reason).
//
// The pairing rule is one: results pair with calls of the same id first come, first served. In
// `stream` order (Claude, Codex, Pi) a result answers only a call before it — what the clients
// themselves accept; in `anywhere` order (the linear-chat writers: Copilot, OpenCode, Hermes) a
// result is moved to its call wherever it stands, since those targets store the pair together.
import type { LossEntry } from '../adapter/interface.js';
import type { SpEvent } from '../core/event.js';
import { randomBytes } from 'node:crypto';
import { isObject } from '../core/json.js';
import { grown } from './hashed.js';
import { IdSet, IdTable } from './ids.js';

/** The resume-safety pass's loss codes (see the header). */
export const LOSS = {
  stubResult: 'stub-result',
  orphanResult: 'orphan-result',
  toolId: 'tool-id',
  otherBranch: 'other-branch',
} as const;

/** The writer's report (LossLedger.report, or the relay's). */
export type PlanReport = (action: Exclude<LossEntry['action'], 'translated'>, code: string, reason: string, event?: SpEvent) => void;

const isDerived = (e: SpEvent): boolean => e.derived_from !== undefined && e.derived_from !== null;
const callIdOf = (e: SpEvent): string => (isObject(e.payload) && e.payload.call_id !== undefined && e.payload.call_id !== null ? String(e.payload.call_id) : '');
const nameOf = (e: SpEvent): string => (isObject(e.payload) && e.payload.name !== undefined ? String(e.payload.name) : '?');

/** Why a result is not written: no call before it (`orphan`), no call with its id at all (`unknown`), or its call has an answer already. */
export type SkippedResult = 'orphan' | 'unknown' | 'duplicate';

/**
 * Calls and results paired, by POSITION in the session's events (an index the writer can count
 * again on a second pass over a spool, so the plan holds numbers, never events).
 */
export interface Pairing {
  /** Call position → the position of its result. */
  resultOf: PositionMap;
  /** Result position → the position of its call. */
  callOf: PositionMap;
  /** Results that answer no call (not written when safety is on). */
  skipped: Map<number, SkippedResult>;
}

/**
 * Position → position, as a column of 4 bytes a position (a Map of a large session's pairs held
 * dozens of bytes each, and the pass keeps them through the write).
 */
export class PositionMap {
  private data = new Int32Array(256).fill(-1);

  set(at: number, value: number): void {
    if (at >= this.data.length) {
      const size = Math.max(at + 1, this.data.length * 2);
      const old = this.data.length;
      this.data = grown(this.data, size);
      this.data.fill(-1, old);
    }
    this.data[at] = value;
  }

  get(at: number): number | undefined {
    const value = at < this.data.length ? this.data[at] : -1;
    return value === -1 || value === undefined ? undefined : value;
  }

  has(at: number): boolean {
    return this.get(at) !== undefined;
  }
}

/**
 * Pass 1 of the resume-safety pass, fed event by event in the session's order (a spooled writer
 * keeps no events): which call each result answers. Derived events are no calls or results of
 * their own. `order` is the pairing rule of the header.
 */
export class CallPairing {
  /** Every call id seen, numbered (an IdTable: a Map and a Set of id strings grew by about 100 bytes a call). */
  private readonly ids: IdTable;
  /** Per id: its unanswered calls as a queue, first and last position (-1 none), linked through `nextOpen`. */
  private openFirst = new Int32Array(64).fill(-1);
  private openLast = new Int32Array(64).fill(-1);
  private readonly nextOpen = new PositionMap();
  /** Per id: 1 once a call with it is answered. */
  private answered = new Uint8Array(64);
  private readonly waiting = new Map<string, number[]>();
  private readonly pairing: Pairing = { resultOf: new PositionMap(), callOf: new PositionMap(), skipped: new Map() };
  private position = 0;

  /** `hash` is for tests that force every id onto one hash. */
  constructor(
    private readonly order: 'stream' | 'anywhere' = 'stream',
    hash?: (text: string) => number,
  ) {
    this.ids = new IdTable(hash);
  }

  /** Notes the next event of the session; returns its position. */
  add(event: SpEvent): number {
    const at = this.position++;
    if (isDerived(event)) return at;
    if (event.type === 'tool.call') {
      const id = callIdOf(event);
      // (waiting keeps its keys: done() reports what is left in their order)
      const early = this.order === 'anywhere' ? this.waiting.get(id)?.shift() : undefined;
      if (early !== undefined) this.pair(at, early, this.entry(id));
      else this.queue(this.entry(id), at);
    } else if (event.type === 'tool.result') {
      const id = callIdOf(event);
      const entry = this.ids.find(id);
      const call = entry !== -1 ? this.dequeue(entry) : undefined;
      if (call !== undefined) this.pair(call, at, entry);
      else if (this.order === 'anywhere') push(this.waiting, id, at);
      else this.pairing.skipped.set(at, this.isAnswered(entry) ? 'duplicate' : 'orphan');
    }
    return at;
  }

  /** The id's entry, added (with room in the per-id columns) when new. */
  private entry(id: string): number {
    const entry = this.ids.add(id);
    if (entry >= this.answered.length) {
      const size = this.answered.length * 2;
      this.openFirst = grown(this.openFirst, size).fill(-1, this.openFirst.length);
      this.openLast = grown(this.openLast, size).fill(-1, this.openLast.length);
      this.answered = grown(this.answered, size);
    }
    return entry;
  }

  private queue(entry: number, at: number): void {
    if (this.openLast[entry] === -1) this.openFirst[entry] = at;
    else this.nextOpen.set(this.openLast[entry], at);
    this.openLast[entry] = at;
  }

  private dequeue(entry: number): number | undefined {
    const first = this.openFirst[entry];
    if (first === -1) return undefined;
    const next = this.nextOpen.get(first);
    this.openFirst[entry] = next ?? -1;
    if (next === undefined) this.openLast[entry] = -1;
    return first;
  }

  private isAnswered(entry: number): boolean {
    return entry !== -1 && this.answered[entry] === 1;
  }

  private pair(call: number, result: number, entry: number): void {
    this.pairing.resultOf.set(call, result);
    this.pairing.callOf.set(result, call);
    this.answered[entry] = 1;
  }

  /** The pairing of everything noted. */
  done(): Pairing {
    for (const [id, results] of this.waiting) for (const at of results) this.pairing.skipped.set(at, this.isAnswered(this.ids.find(id)) ? 'duplicate' : 'unknown');
    this.waiting.clear();
    return this.pairing;
  }
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The pairing of a session held in memory (positions are indices into `events`). */
export function pairCalls(events: readonly SpEvent[], order: 'stream' | 'anywhere' = 'stream'): Pairing {
  const pairing = new CallPairing(order);
  for (const event of events) pairing.add(event);
  return pairing.done();
}

/**
 * The one `stub-result` entry. `wrote` is what the writer put in the stub's place, `noun` what the
 * target calls a call (`tool_use` …), `id` the id written.
 */
export function reportStub(report: PlanReport, call: SpEvent, wrote: string, options: { noun?: string; id?: string } = {}): void {
  report('stubbed', LOSS.stubResult, `${options.noun ?? 'tool call'} ${options.id ?? callIdOf(call)} (${nameOf(call)}) had no result: ${wrote}`, call);
}

/** The one `orphan-result` entry. `consequence` says what the client would do with the result. */
export function reportOrphan(report: PlanReport, result: SpEvent, skipped: SkippedResult, consequence: string, noun = 'tool result'): void {
  const why = skipped === 'duplicate' ? 'a second result for a call that already has one' : skipped === 'unknown' ? 'no call has its id' : 'no call with its id comes before it';
  report('dropped', LOSS.orphanResult, `${noun} ${JSON.stringify(callIdOf(result))} dropped: ${why} (${consequence})`, result);
}

/** The ids an adapter's API accepts, and how it makes new ones: the spelling; ToolIds does the rest. */
export interface ToolIdSpelling {
  /** The ids the API accepts (anchored). */
  valid: RegExp;
  /** An invalid id made valid (may give '': then a new one is minted). */
  repair?: (id: string) => string;
  /** A new id for a call that has none (or none left after repair). */
  mint: () => string;
  /** The id made unique: the n-th (2, 3 …) call that wants `id` (default `<id>_<n>`). */
  numbered?: (id: string, n: number) => string;
  /** What the API accepts, in words, for the reason. */
  accepts: string;
}

/**
 * Tool ids valid for the API and unique in the written session: every call's id goes through `id`
 * once; a changed one is reported `transformed tool-id` (its result is written with the new id).
 * With safety off ids are written as they are.
 */
export class ToolIds {
  /** Every id written (an IdSet: a Set of strings held about 60 bytes an id more). */
  private readonly used = new IdSet();

  constructor(
    private readonly spelling: ToolIdSpelling,
    private readonly report: PlanReport,
    private readonly safety = true,
  ) {}

  id(original: string, event: SpEvent): string {
    if (!this.safety) {
      this.used.add(original);
      return original;
    }
    const { valid, repair, mint } = this.spelling;
    let id = valid.test(original) ? original : repair ? repair(original) : '';
    if (id === '') id = mint();
    const clash = this.used.has(id);
    if (clash) {
      const numbered = this.spelling.numbered ?? ((base: string, n: number) => `${base}_${n}`);
      let n = 2;
      while (this.used.has(numbered(id, n))) n += 1;
      id = numbered(id, n);
    }
    this.used.add(id);
    if (id !== original) {
      const why = original === '' ? 'the call had no id' : clash ? 'an earlier call has this id' : `the API accepts ${this.spelling.accepts}`;
      this.report('transformed', LOSS.toolId, `tool id ${JSON.stringify(original)} written as ${JSON.stringify(id)} (${why}), for the call and its result`, event);
    }
    return id;
  }

  /** Whether an id is written already (a writer that adds ids of its own keeps them apart). */
  has(id: string): boolean {
    return this.used.has(id);
  }
}

/**
 * The ids the provider APIs accept ([A-Za-z0-9_-]{1,64}), as the writers of linear chats (Copilot,
 * OpenCode) spell a repaired one: `call_` and the id's valid characters, a random tail when taken.
 */
export const PROVIDER_TOOL_ID: ToolIdSpelling = {
  valid: /^[A-Za-z0-9_-]{1,64}$/,
  repair: (id) => `call_${id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || 'x'}`,
  mint: () => 'call_x',
  numbered: (id) => `${id.slice(0, 56)}_${randomBytes(3).toString('hex')}`,
  accepts: 'only unique ids of [A-Za-z0-9_-]',
};
