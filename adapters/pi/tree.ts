// The tree a Pi session is written as: canonical events grouped into units (one per Pi entry: an
// assistant message is every thinking/text/tool.call event of one message_id), each unit's parent
// found from its first event's parent (parent_seq, else seq - 1, passing through events that write
// nothing), tool results chained right after their call's message, stubs for unanswered calls, the
// active leaf, and the file order that puts the active branch last.
//
// The session is read by position (a SpooledSession's view, lib/write/spool.ts), so the tree holds
// numbers, never events: per event its seq, parent_seq and unit; per unit a few typed columns (a
// unit is a number); per tool call its unit and a hash of its id (lib/write/hashed.ts), re-checked
// against the spooled event. An event is read back when an entry is written or a rare case needs it.
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { HashChains, grown, hashString } from '../../lib/write/hashed.js';
import { isDerived, payloadOf } from '../../lib/write/writer.js';
import { reportOrphan, reportStub } from '../../lib/write/plan.js';

export type PiLossEntry = LossEntry;

export type Report = (action: PiLossEntry['action'], code: string, reason: string, event?: SpEvent) => void;

export function fromPi(event: SpEvent): boolean {
  return (event.origin?.agent ?? event.agent) === 'pi';
}

export type Kind = 'user' | 'assistant' | 'toolResult' | 'compaction' | 'native' | 'stub' | 'added';
const KINDS: readonly Kind[] = ['user', 'assistant', 'toolResult', 'compaction', 'native', 'stub', 'added'];
const ASSISTANT = 1;
const RESULT = 2;
const STUB = 5;
const ADDED = 6;

/** No unit (a root's parent), no call, no event. */
export const NONE = -1;

// Unit flags.
const DROPPED = 1;
const ABORTED = 2; // an assistant message whose stop reason is error/aborted (the client never replays it)
const WRITTEN = 4;
const WALKING = 8;
const DONE = 16;
const ON_PATH = 32;
const HAS_CHILD = 64;
// Call flags.
const ANSWERED = 1;

/** A unit as the entry writer sees it: its events read back from the spool, its calls by slot. */
export interface UnitView {
  unit: number;
  kind: Kind;
  events: SpEvent[];
  /** stub: the time it is written at. */
  ts?: number;
  /** added: what to write. */
  body?: Json;
  /** toolResult: the result's call id; stub: the call's. */
  callId?: string;
  /** toolResult / stub: the call slot it answers (NONE: none). */
  slot: number;
  /** assistant: its calls, call id → slot. */
  calls?: Map<string, number>;
}

/** Seq → positions, for a session whose positions may not be in seq order (then sorted once). */
class SeqIndex {
  private readonly byOrder: Int32Array | undefined;
  private readonly size: number;

  constructor(private readonly seqs: Float64Array) {
    let increasing = true;
    for (let i = 0; i < seqs.length && increasing; i += 1) if (!(seqs[i] >= (i > 0 ? seqs[i - 1] : -Infinity))) increasing = false;
    if (increasing) {
      this.size = seqs.length;
      return;
    }
    const numbered: number[] = [];
    for (let i = 0; i < seqs.length; i += 1) if (!Number.isNaN(seqs[i])) numbered.push(i);
    this.byOrder = Int32Array.from(numbered).sort((a, b) => seqs[a] - seqs[b] || a - b);
    this.size = this.byOrder.length;
  }

  private seqAt(k: number): number {
    return this.seqs[this.byOrder ? this.byOrder[k] : k];
  }

  position(k: number): number {
    return this.byOrder ? this.byOrder[k] : k;
  }

  /** [from, to): the sorted range of events with this seq. */
  range(seq: number): [number, number] {
    if (Number.isNaN(seq)) return [0, 0];
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.seqAt(mid) < seq) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    hi = this.size;
    while (end < hi) {
      const mid = (end + hi) >> 1;
      if (this.seqAt(mid) <= seq) end = mid + 1;
      else hi = mid;
    }
    return [lo, end];
  }

  has(seq: number): boolean {
    const [from, to] = this.range(seq);
    return to > from;
  }

  /** The last position with this seq (NONE: none). */
  last(seq: number): number {
    const [from, to] = this.range(seq);
    return to > from ? this.position(to - 1) : NONE;
  }
}

export class TreeBuilder {
  private readonly n: number;
  private readonly seqs: Float64Array;
  /** Per event: its parent_seq (NaN: none given, -Infinity: null). */
  private readonly parentSeqs: Float64Array;
  private readonly index: SeqIndex;
  /** Per event: the unit it belongs to (NONE: none). */
  private readonly owner: Int32Array;

  /** Units made. */
  count = 0;
  private kinds = new Uint8Array(256);
  private flags = new Uint8Array(256);
  /** First and last event of each unit (an assistant's events are its own between them). */
  private firsts = new Int32Array(256);
  private lasts = new Int32Array(256);
  private parents = new Int32Array(256);
  /** assistant: the last unit of its result chain. */
  private tails = new Int32Array(256);
  /** assistant: its first call slot; toolResult: the slot it answers (before link: the slots made before it); stub: its slot. */
  private callRefs = new Int32Array(256);
  private readonly stubTs = new Map<number, number | undefined>();
  private readonly stubSeq = new Map<number, number>();
  private readonly bodies = new Map<number, { body: Json; ts?: number }>();
  /** Units in the source's order, stubs right after the unit they follow (set by `stubs`, else every unit made). */
  private sequence: Int32Array | undefined;

  /** Calls: one slot per distinct call id of an assistant message. */
  private slots = 0;
  private slotUnits = new Int32Array(256);
  private slotEvents = new Int32Array(256);
  /** The event whose name the call is written with (the last of a message's calls with that id). */
  private slotNames = new Int32Array(256);
  private slotFlags = new Uint8Array(256);
  private readonly callIds = new HashChains();
  /** Native Pi entry ids, first unit wins (re-checked from the spool). */
  private readonly uuids = new HashChains();
  private uuidUnits = new Int32Array(64);

  constructor(
    private readonly events: readonly SpEvent[],
    private readonly safety: boolean,
    private readonly report: Report,
  ) {
    this.n = events.length;
    this.seqs = new Float64Array(this.n);
    this.parentSeqs = new Float64Array(this.n);
    for (let i = 0; i < this.n; i += 1) {
      const event = events[i];
      this.seqs[i] = typeof event.seq === 'number' ? event.seq : NaN;
      this.parentSeqs[i] = event.parent_seq === null ? -Infinity : typeof event.parent_seq === 'number' ? event.parent_seq : NaN;
    }
    this.index = new SeqIndex(this.seqs);
    this.owner = new Int32Array(this.n).fill(NONE);
  }

  // ---- columns ------------------------------------------------------------------------------------

  kindOf(unit: number): Kind {
    return KINDS[this.kinds[unit]];
  }

  parentOf(unit: number): number {
    return this.parents[unit];
  }

  setParent(unit: number, parent: number): void {
    this.parents[unit] = parent;
  }

  isDropped(unit: number): boolean {
    return (this.flags[unit] & DROPPED) !== 0;
  }

  drop(unit: number): void {
    this.flags[unit] |= DROPPED;
  }

  isWritten(unit: number): boolean {
    return (this.flags[unit] & WRITTEN) !== 0;
  }

  markWritten(unit: number): void {
    this.flags[unit] |= WRITTEN;
  }

  /** Notes that a written unit is the parent of another (the leaves are the units that are not). */
  markParent(unit: number): void {
    this.flags[unit] |= HAS_CHILD;
  }

  hasChild(unit: number): boolean {
    return (this.flags[unit] & HAS_CHILD) !== 0;
  }

  /** The unit's seq: its first event's (a stub: the unit it follows). */
  seqOf(unit: number): number {
    const kind = this.kinds[unit];
    if (kind === STUB) return this.stubSeq.get(unit)!;
    if (kind === ADDED) return Number.MAX_SAFE_INTEGER;
    return this.seqs[this.firsts[unit]];
  }

  /** The unit's first event (undefined: a stub or an added entry). */
  firstEvent(unit: number): SpEvent | undefined {
    const kind = this.kinds[unit];
    return kind === STUB || kind === ADDED ? undefined : this.events[this.firsts[unit]];
  }

  /** The units in the source's order (stubs after the unit they follow, added entries last). */
  order(): Int32Array {
    if (!this.sequence || this.sequence.length !== this.count) {
      const sequence = new Int32Array(this.count);
      const known = this.sequence?.length ?? 0;
      if (this.sequence) sequence.set(this.sequence);
      for (let i = known; i < this.count; i += 1) sequence[i] = i;
      this.sequence = sequence;
    }
    return this.sequence;
  }

  private grow(): void {
    if (this.count < this.kinds.length) return;
    const size = this.kinds.length * 2;
    this.kinds = grown(this.kinds, size);
    this.flags = grown(this.flags, size);
    this.firsts = grown(this.firsts, size);
    this.lasts = grown(this.lasts, size);
    this.parents = grown(this.parents, size);
    this.tails = grown(this.tails, size);
    this.callRefs = grown(this.callRefs, size);
  }

  private makeUnit(kind: number, first: number): number {
    this.grow();
    const unit = this.count++;
    this.kinds[unit] = kind;
    this.flags[unit] = 0;
    this.firsts[unit] = first;
    this.lasts[unit] = first;
    this.parents[unit] = NONE;
    this.tails[unit] = NONE;
    this.callRefs[unit] = NONE;
    return unit;
  }

  private newUnit(kind: Kind, at: number, event: SpEvent): number {
    const unit = this.makeUnit(KINDS.indexOf(kind), at);
    this.owner[at] = unit;
    const uuid = event.origin?.native_uuid;
    if (typeof uuid === 'string' && fromPi(event) && this.unitOfUuid(uuid) === NONE) {
      const entry = this.uuids.add(hashString(uuid));
      if (entry >= this.uuidUnits.length) this.uuidUnits = grown(this.uuidUnits, this.uuidUnits.length * 2);
      this.uuidUnits[entry] = unit;
    }
    return unit;
  }

  /** An entry the writer adds (a model_change or session_info) after `parent`. */
  addUnit(parent: number, body: Json, ts?: number): number {
    const unit = this.makeUnit(ADDED, NONE);
    this.parents[unit] = parent;
    this.bodies.set(unit, { body, ts });
    return unit;
  }

  /** The unit whose native Pi id this is (NONE: none). */
  private unitOfUuid(uuid: string): number {
    for (let entry = this.uuids.newest(hashString(uuid)); entry !== NONE; entry = this.uuids.previous(entry)) {
      const unit = this.uuidUnits[entry];
      if (this.events[this.firsts[unit]].origin?.native_uuid === uuid) return unit;
    }
    return NONE;
  }

  // ---- calls --------------------------------------------------------------------------------------

  private callIdAt(at: number): string {
    const event = this.events[at];
    return str(payloadOf(event).call_id) ?? `call_${event.seq}`;
  }

  /** A slot's call id (from its spooled event). */
  callIdOf(slot: number): string {
    return this.callIdAt(this.slotEvents[slot]);
  }

  /** The name a slot's call is written with. */
  callNameOf(slot: number): string {
    return str(payloadOf(this.events[this.slotNames[slot]]).name) ?? 'unknown';
  }

  /** The unit whose call a slot is. */
  callUnitOfSlot(slot: number): number {
    return this.slotUnits[slot];
  }

  /** toolResult / stub: the assistant whose call it answers (NONE: none). */
  callUnitOf(unit: number): number {
    const kind = this.kinds[unit];
    if (kind !== RESULT && kind !== STUB) return NONE;
    const slot = this.callRefs[unit];
    return slot === NONE ? NONE : this.slotUnits[slot];
  }

  private addCall(unit: number, at: number, callId: string): void {
    const hash = hashString(callId);
    // A message that names one call id twice keeps one call (the name of the later).
    for (let slot = this.callIdsNewest(hash); slot !== NONE && slot >= this.callRefs[unit]; slot = this.callIds.previous(slot)) {
      if (this.callIdOf(slot) === callId) {
        this.slotNames[slot] = at;
        return;
      }
    }
    const slot = this.slots++;
    if (slot >= this.slotUnits.length) {
      const size = this.slotUnits.length * 2;
      this.slotUnits = grown(this.slotUnits, size);
      this.slotEvents = grown(this.slotEvents, size);
      this.slotNames = grown(this.slotNames, size);
      this.slotFlags = grown(this.slotFlags, size);
    }
    this.slotUnits[slot] = unit;
    this.slotEvents[slot] = at;
    this.slotNames[slot] = at;
    this.slotFlags[slot] = 0;
    this.callIds.add(hash);
  }

  private callIdsNewest(hash: number): number {
    return this.callIds.newest(hash);
  }

  /** The slot of the last call with this id among the first `limit` slots (NONE: none). */
  private latestCall(callId: string, limit: number): number {
    for (let slot = this.callIds.newest(hashString(callId)); slot !== NONE; slot = this.callIds.previous(slot)) {
      if (slot < limit && this.callIdOf(slot) === callId) return slot;
    }
    return NONE;
  }

  /** An assistant's slots: [first, end). */
  private slotRange(unit: number): [number, number] {
    const first = this.callRefs[unit];
    let end = first;
    while (end < this.slots && this.slotUnits[end] === unit) end += 1;
    return [first, end];
  }

  // ---- parents ------------------------------------------------------------------------------------

  /** The event an event follows: parent_seq, else seq - 1 (null: a root). */
  private parentSeqOf(at: number): number | null {
    const parentSeq = this.parentSeqs[at];
    const seq = this.seqs[at];
    if (parentSeq === -Infinity) return null;
    if (!Number.isNaN(parentSeq)) {
      if (parentSeq < seq && this.index.has(parentSeq)) return parentSeq;
      this.report('transformed', 'bad-parent', `parent_seq ${parentSeq} is not an earlier event: written as a root`, this.events[at]);
      return null;
    }
    return this.index.has(seq - 1) ? seq - 1 : null;
  }

  /** The unit that last took an event with this seq (NONE: none). */
  private ownerOfSeq(seq: number): number {
    const [from, to] = this.index.range(seq);
    for (let k = to - 1; k >= from; k -= 1) {
      const unit = this.owner[this.index.position(k)];
      if (unit !== NONE) return unit;
    }
    return NONE;
  }

  /** The written unit an event belongs to, or the nearest one above it (through events that write nothing). */
  private unitAt(seq: number | null): number {
    let at = seq;
    for (let guard = 0; at !== null && guard <= this.n; guard += 1) {
      const unit = this.ownerOfSeq(at);
      if (unit !== NONE && !this.isDropped(unit)) return unit;
      const position = this.index.last(at);
      if (position === NONE) return NONE;
      at = this.parentSeqOf(position);
    }
    return NONE;
  }

  // ---- the passes ---------------------------------------------------------------------------------

  /** Pass 1: events → units (entries to write); what has no Pi entry is reported. */
  build(): void {
    let open = NONE;
    let openMessageId: string | undefined;
    for (let at = 0; at < this.n; at += 1) {
      const event = this.events[at];
      const p = payloadOf(event);
      if (isDerived(event)) continue; // the call that made it is written
      switch (event.type) {
        case 'session.start':
          break;
        case 'message.thinking':
        case 'message.assistant':
        case 'tool.call': {
          const messageId = str(p.message_id);
          const parentUnit = this.unitAt(this.parentSeqOf(at));
          if (open !== NONE && this.count - 1 === open && openMessageId === messageId && parentUnit === open) {
            this.lasts[open] = at;
            this.owner[at] = open;
          } else {
            open = this.newUnit('assistant', at, event);
            openMessageId = messageId;
            this.callRefs[open] = this.slots;
          }
          if (event.type === 'tool.call') this.addCall(open, at, str(p.call_id) ?? `call_${event.seq}`);
          const reason = p.stop_reason;
          if (reason !== undefined && reason !== null) {
            if (['error', 'aborted'].includes(String(reason))) this.flags[open] |= ABORTED;
            else this.flags[open] &= ~ABORTED;
          }
          break;
        }
        case 'tool.result': {
          // Until link(): the calls made before it, the only ones it can answer.
          const unit = this.newUnit('toolResult', at, event);
          this.callRefs[unit] = this.slots;
          break;
        }
        case 'message.user':
          this.newUnit('user', at, event);
          break;
        case 'checkpoint':
          // Another agent's compaction keeps other things than Pi's would (Codex: a replacement
          // history), so only Pi's own become compaction entries; the full history before is written.
          if (fromPi(event) && typeof p.summary === 'string') this.newUnit('compaction', at, event);
          else this.report('dropped', 'checkpoint', `checkpoint from ${event.agent} has no Pi entry: not written (the full history before it is)`, event);
          break;
        case 'meta':
          this.meta(at, event, p);
          break;
        case 'command.run':
          // A `!cmd` run captured from Pi: its message.user carries the entry.
          if (fromPi(event) && p.via === 'bashExecution') break;
          this.report('dropped', 'no-pi-entry', 'command.run that no tool call made has no Pi entry: not written', event);
          break;
        default:
          this.report('dropped', 'no-pi-entry', `${event.type} has no Pi entry: not written`, event);
      }
    }
  }

  private meta(at: number, event: SpEvent, p: Json): void {
    const key = String(p.key ?? '');
    const raw = isObject(p.raw) ? p.raw : undefined;
    if (fromPi(event) && raw && key.startsWith('pi.') && !['pi.session', 'pi.blank-line'].includes(key) && typeof raw.type === 'string') {
      this.newUnit('native', at, event);
      return;
    }
    if (key === 'pi.blank-line') {
      this.report('dropped', 'blank-line', 'a blank line (the client skips it): not written', event);
      return;
    }
    if (key === 'unparseable') {
      this.report('dropped', 'unparseable', 'a line that was not JSON (the client skips it): not written', event);
      return;
    }
    this.report('dropped', fromPi(event) ? 'meta' : 'foreign-meta', `meta ${key || '(no key)'} from ${event.agent} has no Pi entry: not written`, event);
  }

  /** Pass 2: tool results to their calls (the last earlier message with a call of that id). */
  link(): void {
    for (let unit = 0; unit < this.count; unit += 1) {
      const kind = this.kinds[unit];
      if (kind === ASSISTANT) {
        this.tails[unit] = unit;
        continue;
      }
      if (kind !== RESULT) continue;
      const event = this.events[this.firsts[unit]];
      const callId = str(payloadOf(event).call_id);
      const slot = callId !== undefined ? this.latestCall(callId, this.callRefs[unit]) : NONE;
      const callUnit = slot === NONE ? NONE : this.slotUnits[slot];
      const replayed = callUnit !== NONE && (this.flags[callUnit] & ABORTED) === 0;
      this.callRefs[unit] = NONE;
      if (callUnit === NONE || (!replayed && this.safety)) {
        if (this.safety) {
          this.drop(unit);
          const why = callUnit !== NONE ? 'its call is in an aborted turn, which the client never replays' : 'no tool call with its id comes before it';
          this.report('dropped', 'orphan-result', `tool result ${callId ?? '(no id)'} dropped: ${why} (a real API rejects it)`, event);
        }
        continue;
      }
      this.callRefs[unit] = slot;
      if ((this.slotFlags[slot] & ANSWERED) !== 0 && this.safety) {
        this.drop(unit);
        reportOrphan(this.report, event, 'duplicate', 'a real API rejects it');
        continue;
      }
      this.slotFlags[slot] |= ANSWERED;
    }
  }

  /** Pass 3: parents. */
  parentsPass(): void {
    for (let unit = 0; unit < this.count; unit += 1) {
      if (this.isDropped(unit)) continue;
      const at = this.firsts[unit];
      let parent = this.unitAt(this.parentSeqOf(at));
      if (parent === NONE) {
        const first = this.events[at];
        const nativeParent = first.origin?.native_parent;
        if (typeof nativeParent === 'string' && fromPi(first)) {
          // A parent that the capture could not link (it came later in the file): the client links by id.
          const later = this.unitOfUuid(nativeParent);
          if (later !== NONE && later !== unit && !this.isDropped(later)) parent = later;
        }
      }
      const callUnit = this.kinds[unit] === RESULT ? this.callUnitOf(unit) : NONE;
      if (callUnit !== NONE) {
        const family = parent === callUnit || (parent !== NONE && this.callUnitOf(parent) === callUnit);
        if (!family && this.safety) {
          const first = this.events[at];
          this.report('transformed', 'result-moved', `tool result ${str(payloadOf(first).call_id)} moved right after its call (a real API requires it there)`, first);
        }
        if (family || this.safety) {
          parent = this.tails[callUnit];
          this.tails[callUnit] = unit;
        }
      }
      this.parents[unit] = parent;
    }
    this.breakCycles();
  }

  /** Parents from forward links can make a loop; the client would walk it forever. One pass: each unit is walked once. */
  private breakCycles(): void {
    const walked: number[] = [];
    for (let unit = 0; unit < this.count; unit += 1) {
      walked.length = 0;
      for (let at = unit; at !== NONE && (this.flags[at] & DONE) === 0; at = this.parents[at]) {
        if ((this.flags[at] & WALKING) !== 0) {
          this.report('transformed', 'cycle', 'entries whose parents form a loop: one is written as a root', this.firstEvent(at));
          this.parents[at] = NONE;
          break;
        }
        this.flags[at] |= WALKING;
        walked.push(at);
      }
      for (const at of walked) this.flags[at] = (this.flags[at] & ~WALKING) | DONE;
    }
  }

  /** Pass 4 (safety): a stub result for each call that has none, chained after the call's results. */
  stubs(): void {
    const made = this.count;
    const added: Array<{ after: number; stub: number }> = [];
    for (let unit = 0; unit < made; unit += 1) {
      if (this.kinds[unit] !== ASSISTANT || this.isDropped(unit)) continue;
      if ((this.flags[unit] & ABORTED) !== 0) continue; // never replayed, so never answered
      const [from, to] = this.slotRange(unit);
      for (let slot = from; slot < to; slot += 1) {
        if ((this.slotFlags[slot] & ANSWERED) !== 0) continue;
        const oldTail = this.tails[unit];
        const callId = this.callIdOf(slot);
        const events = this.eventsOf(unit);
        const callEvent = events.find((e) => e.type === 'tool.call' && payloadOf(e).call_id === callId) ?? events[0];
        const stub = this.makeUnit(STUB, NONE);
        this.parents[stub] = oldTail;
        this.callRefs[stub] = slot;
        this.stubSeq.set(stub, this.seqOf(oldTail));
        this.stubTs.set(stub, this.lastTsOf(oldTail));
        // What followed the call's message now follows the stub.
        for (let other = 0; other < this.count; other += 1) if (this.parents[other] === oldTail && other !== stub && !this.isDropped(other)) this.parents[other] = stub;
        this.tails[unit] = stub;
        this.slotFlags[slot] |= ANSWERED;
        added.push({ after: oldTail, stub });
        reportStub(this.report, callEvent, 'a stub result (isError) was added', { id: callId });
      }
    }
    if (added.length > 0) this.placeStubs(made, added);
  }

  /** The source order with each stub right after the unit it follows (and after stubs already placed there). */
  private placeStubs(made: number, added: Array<{ after: number; stub: number }>): void {
    const next = new Int32Array(this.count).fill(NONE);
    for (let unit = 0; unit + 1 < made; unit += 1) next[unit] = unit + 1;
    for (const { after, stub } of added) {
      let at = after;
      while (next[at] !== NONE && this.kinds[next[at]] === STUB && this.seqOf(next[at]) === this.seqOf(stub)) at = next[at];
      next[stub] = next[at];
      next[at] = stub;
    }
    const sequence = new Int32Array(this.count);
    let k = 0;
    for (let unit = made > 0 ? 0 : NONE; unit !== NONE; unit = next[unit]) sequence[k++] = unit;
    this.sequence = sequence;
  }

  /** The time of a unit's last event (a stub: its own). */
  private lastTsOf(unit: number): number | undefined {
    if (this.kinds[unit] === STUB) return this.stubTs.get(unit);
    if (this.kinds[unit] === ADDED) return this.bodies.get(unit)?.ts;
    return this.events[this.lasts[unit]].ts ?? undefined;
  }

  /** A unit's events, read from the spool. */
  eventsOf(unit: number): SpEvent[] {
    const kind = this.kinds[unit];
    if (kind === STUB || kind === ADDED) return [];
    const events: SpEvent[] = [];
    for (let at = this.firsts[unit]; at <= this.lasts[unit]; at += 1) if (this.owner[at] === unit) events.push(this.events[at]);
    return events;
  }

  /** What the entry writer needs of a unit. */
  view(unit: number): UnitView {
    const kind = this.kindOf(unit);
    const events = this.eventsOf(unit);
    const view: UnitView = { unit, kind, events, slot: NONE };
    if (kind === 'assistant') {
      view.calls = new Map();
      let slot = this.callRefs[unit];
      for (const event of events) {
        if (event.type !== 'tool.call') continue;
        const callId = str(payloadOf(event).call_id) ?? `call_${event.seq}`;
        if (!view.calls.has(callId)) view.calls.set(callId, slot++);
      }
    } else if (kind === 'toolResult') {
      view.callId = str(payloadOf(events[0]).call_id);
      view.slot = this.callRefs[unit];
    } else if (kind === 'stub') {
      view.slot = this.callRefs[unit];
      view.callId = this.callIdOf(view.slot);
      view.ts = this.stubTs.get(unit);
    } else if (kind === 'added') {
      const added = this.bodies.get(unit)!;
      view.body = added.body;
      view.ts = added.ts;
    }
    return view;
  }

  /**
   * The active leaf: the unit of the last event that came from the source (a Pi file's last entry
   * line; any other agent's last record), moved to the end of its stub chain.
   */
  leaf(): number {
    let leaf = NONE;
    for (let at = this.n - 1; at >= 0 && leaf === NONE; at -= 1) {
      const event = this.events[at];
      if (isDerived(event) || event.type === 'session.start') continue;
      leaf = this.unitAt(this.seqs[at]);
    }
    if (leaf === NONE) return NONE;
    const family = this.kinds[leaf] === ASSISTANT ? leaf : this.callUnitOf(leaf);
    const tail = family !== NONE ? this.tails[family] : NONE;
    if (tail !== NONE && this.kinds[tail] === STUB && (leaf === family || this.isAncestor(leaf, tail))) leaf = tail;
    return leaf;
  }

  isAncestor(ancestor: number, unit: number): boolean {
    for (let at = unit; at !== NONE; at = this.parents[at]) if (at === ancestor) return true;
    return false;
  }

  /** The path root → leaf. */
  pathTo(leaf: number): Int32Array {
    let depth = 0;
    for (let at = leaf; at !== NONE; at = this.parents[at]) depth += 1;
    const path = new Int32Array(depth);
    for (let at = leaf; at !== NONE; at = this.parents[at]) path[--depth] = at;
    return path;
  }

  /** Marks the path root → leaf (onPath). */
  markPath(leaf: number): void {
    for (let unit = 0; unit < this.count; unit += 1) this.flags[unit] &= ~ON_PATH;
    for (let at = leaf; at !== NONE; at = this.parents[at]) this.flags[at] |= ON_PATH;
  }

  onPath(unit: number): boolean {
    return (this.flags[unit] & ON_PATH) !== 0;
  }

  /** Written units in file order: source order when it already ends with the leaf, else depth first with the active branch last. */
  fileOrder(leaf: number): Int32Array {
    const sequence = this.order();
    let live = 0;
    for (const unit of sequence) if (!this.isDropped(unit)) live += 1;
    const lives = new Int32Array(live);
    let k = 0;
    for (const unit of sequence) if (!this.isDropped(unit)) lives[k++] = unit;
    if (leaf === NONE || lives[live - 1] === leaf) return lives;
    return this.depthFirst(lives, leaf);
  }

  /** The depth-first order of fileOrder: among siblings the one on the active path goes last. */
  private depthFirst(lives: Int32Array, leaf: number): Int32Array {
    this.markPath(leaf);
    // Children of each unit (index unit + 1; 0: the roots), in source order.
    const starts = new Int32Array(this.count + 2);
    const keyOf = (unit: number): number => {
      const parent = this.parents[unit];
      return parent !== NONE && !this.isDropped(parent) ? parent + 1 : 0;
    };
    for (const unit of lives) starts[keyOf(unit) + 1] += 1;
    for (let i = 1; i < starts.length; i += 1) starts[i] += starts[i - 1];
    const fill = starts.slice();
    const children = new Int32Array(lives.length);
    for (const unit of lives) children[fill[keyOf(unit)]++] = unit;

    const out: number[] = [];
    const leafDescendants: number[] = [];
    const stack: number[] = [];
    const inLeafStack: boolean[] = [];
    const push = (key: number, inLeaf: boolean): void => {
      const kids = Array.from(children.subarray(starts[key], starts[key + 1])).sort((a, b) => Number(this.onPath(a)) - Number(this.onPath(b)) || this.seqOf(a) - this.seqOf(b));
      for (let i = kids.length - 1; i >= 0; i -= 1) {
        stack.push(kids[i]);
        inLeafStack.push(inLeaf);
      }
    };
    push(0, false);
    while (stack.length > 0) {
      const unit = stack.pop()!;
      const inLeaf = inLeafStack.pop()!;
      if (unit === leaf) {
        push(unit + 1, true);
        continue;
      }
      (inLeaf ? leafDescendants : out).push(unit);
      push(unit + 1, inLeaf);
    }
    if (leafDescendants.length > 0) {
      this.report('transformed', 'leaf-descendants', `${leafDescendants.length} entries below the active leaf are written before it (the client resumes from the last line)`, this.firstEvent(leaf));
    }
    const order = new Int32Array(out.length + leafDescendants.length + 1);
    order.set(out);
    order.set(leafDescendants, out.length);
    order[order.length - 1] = leaf;
    return order;
  }

  /** Units (made from events) that hold an event with this seq. */
  unitsWithSeq(seq: number): number[] {
    const [from, to] = this.index.range(seq);
    const units: number[] = [];
    for (let k = from; k < to; k += 1) {
      const unit = this.owner[this.index.position(k)];
      if (unit !== NONE) units.push(unit);
    }
    return units;
  }
}
