// The tree a Pi session is written as: canonical events grouped into units (one per Pi entry: an
// assistant message is every thinking/text/tool.call event of one message_id), each unit's parent
// found from its first event's parent (parent_seq, else seq - 1, passing through events that write
// nothing), tool results chained right after their call's message, stubs for unanswered calls, the
// active leaf, and the file order that puts the active branch last.
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { isDerived, payloadOf } from '../../lib/write/writer.js';
import { reportOrphan, reportStub } from '../../lib/write/plan.js';

export type PiLossEntry = LossEntry;

export type Report = (action: PiLossEntry['action'], code: string, reason: string, event?: SpEvent) => void;

export function fromPi(event: SpEvent): boolean {
  return (event.origin?.agent ?? event.agent) === 'pi';
}

export type Kind = 'user' | 'assistant' | 'toolResult' | 'compaction' | 'native' | 'stub' | 'added';

export interface Unit {
  kind: Kind;
  events: SpEvent[];
  /** Seq of the first event (a stub sorts right after the unit it follows). */
  seq: number;
  parent: Unit | null;
  id: string;
  dropped?: boolean;
  messageId?: string;
  /** assistant: its tool calls (by canonical call id) and the last of its results (the chain's tail). */
  calls?: Map<string, { name: string; written: string; answered: boolean }>;
  tail?: Unit;
  /** toolResult / stub: the assistant whose call it answers. */
  callUnit?: Unit;
  callId?: string;
  /** stub / added (a model_change or session_info the writer adds): what to write. */
  body?: Json;
  ts?: number;
}

export class TreeBuilder {
  readonly units: Unit[] = [];
  private readonly bySeq = new Map<number, SpEvent>();
  private readonly owner = new Map<number, Unit>();
  private readonly byNativeUuid = new Map<string, Unit>();

  constructor(
    private readonly events: SpEvent[],
    private readonly safety: boolean,
    private readonly report: Report,
  ) {
    for (const e of events) if (typeof e.seq === 'number') this.bySeq.set(e.seq, e);
  }

  /** The event an event follows: parent_seq, else seq - 1 (null: a root). */
  private parentSeqOf(event: SpEvent): number | null {
    if (event.parent_seq === null) return null;
    if (typeof event.parent_seq === 'number') {
      if (event.parent_seq < event.seq && this.bySeq.has(event.parent_seq)) return event.parent_seq;
      this.report('transformed', 'bad-parent', `parent_seq ${event.parent_seq} is not an earlier event: written as a root`, event);
      return null;
    }
    return this.bySeq.has(event.seq - 1) ? event.seq - 1 : null;
  }

  /** The written unit an event belongs to, or the nearest one above it (through events that write nothing). */
  private unitAt(seq: number | null): Unit | null {
    let at = seq;
    for (let guard = 0; at !== null && guard <= this.events.length; guard += 1) {
      const unit = this.owner.get(at);
      if (unit && !unit.dropped) return unit;
      const event = this.bySeq.get(at);
      if (!event) return null;
      at = this.parentSeqOf(event);
    }
    return null;
  }

  private newUnit(kind: Kind, event: SpEvent): Unit {
    const unit: Unit = { kind, events: [event], seq: event.seq, parent: null, id: '' };
    this.units.push(unit);
    this.owner.set(event.seq, unit);
    const uuid = event.origin?.native_uuid;
    if (typeof uuid === 'string' && fromPi(event) && !this.byNativeUuid.has(uuid)) this.byNativeUuid.set(uuid, unit);
    return unit;
  }

  /** Pass 1: events → units (entries to write); what has no Pi entry is reported. */
  build(): void {
    let open: Unit | undefined;
    for (const event of this.events) {
      const p = payloadOf(event);
      if (isDerived(event)) continue; // the call that made it is written
      switch (event.type) {
        case 'session.start':
          break;
        case 'message.thinking':
        case 'message.assistant':
        case 'tool.call': {
          const messageId = str(p.message_id);
          const last = this.units[this.units.length - 1];
          const parentUnit = this.unitAt(this.parentSeqOf(event));
          if (open && last === open && open.messageId === messageId && parentUnit === open) {
            open.events.push(event);
            this.owner.set(event.seq, open);
          } else {
            open = this.newUnit('assistant', event);
            open.messageId = messageId;
            open.calls = new Map();
          }
          if (event.type === 'tool.call') {
            const callId = str(p.call_id) ?? `call_${event.seq}`;
            open.calls!.set(callId, { name: str(p.name) ?? 'unknown', written: callId, answered: false });
          }
          break;
        }
        case 'tool.result':
          this.newUnit('toolResult', event).callId = str(p.call_id);
          break;
        case 'message.user':
          this.newUnit('user', event);
          break;
        case 'checkpoint':
          // Another agent's compaction keeps other things than Pi's would (Codex: a replacement
          // history), so only Pi's own become compaction entries; the full history before is written.
          if (fromPi(event) && typeof p.summary === 'string') this.newUnit('compaction', event);
          else this.report('dropped', 'checkpoint', `checkpoint from ${event.agent} has no Pi entry: not written (the full history before it is)`, event);
          break;
        case 'meta':
          this.meta(event, p);
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

  private meta(event: SpEvent, p: Json): void {
    const key = String(p.key ?? '');
    const raw = isObject(p.raw) ? p.raw : undefined;
    if (fromPi(event) && raw && key.startsWith('pi.') && !['pi.session', 'pi.blank-line'].includes(key) && typeof raw.type === 'string') {
      this.newUnit('native', event);
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

  /** Pass 2: tool results to their calls; results chained right after their call's message. */
  link(): void {
    const callOwner = new Map<string, Unit>();
    for (const unit of this.units) {
      if (unit.kind === 'assistant') {
        for (const callId of unit.calls!.keys()) callOwner.set(callId, unit);
        unit.tail = unit;
        continue;
      }
      if (unit.kind !== 'toolResult') continue;
      const event = unit.events[0];
      const callUnit = unit.callId !== undefined ? callOwner.get(unit.callId) : undefined;
      const replayed = callUnit ? !['error', 'aborted'].includes(String(this.stopReasonOf(callUnit))) : false;
      if (!callUnit || (!replayed && this.safety)) {
        if (this.safety) {
          unit.dropped = true;
          const why = callUnit ? 'its call is in an aborted turn, which the client never replays' : 'no tool call with its id comes before it';
          this.report('dropped', 'orphan-result', `tool result ${unit.callId ?? '(no id)'} dropped: ${why} (a real API rejects it)`, event);
        }
        continue;
      }
      unit.callUnit = callUnit;
      const call = callUnit.calls!.get(unit.callId!)!;
      if (call.answered && this.safety) {
        unit.dropped = true;
        reportOrphan(this.report, event, 'duplicate', 'a real API rejects it');
        continue;
      }
      call.answered = true;
    }
  }

  /** A message's stop reason as its events say (the last one that says). */
  stopReasonOf(unit: Unit): unknown {
    let reason: unknown;
    for (const e of unit.events) {
      const r = payloadOf(e).stop_reason;
      if (r !== undefined && r !== null) reason = r;
    }
    return reason;
  }

  /** Pass 3: parents. */
  parents(): void {
    for (const unit of this.units) {
      if (unit.dropped) continue;
      const first = unit.events[0];
      let parent = this.unitAt(this.parentSeqOf(first));
      const nativeParent = first.origin?.native_parent;
      if (parent === null && typeof nativeParent === 'string' && fromPi(first)) {
        // A parent that the capture could not link (it came later in the file): the client links by id.
        const later = this.byNativeUuid.get(nativeParent);
        if (later && later !== unit && !later.dropped) parent = later;
      }
      if (unit.kind === 'toolResult' && unit.callUnit) {
        const family = parent === unit.callUnit || parent?.callUnit === unit.callUnit;
        if (!family && this.safety) {
          this.report('transformed', 'result-moved', `tool result ${unit.callId} moved right after its call (a real API requires it there)`, first);
        }
        if (family || this.safety) {
          parent = unit.callUnit.tail!;
          unit.callUnit.tail = unit;
        }
      }
      unit.parent = parent;
    }
    this.breakCycles();
  }

  /** Parents from forward links can make a loop; the client would walk it forever. One pass: each unit is walked once. */
  private breakCycles(): void {
    const state = new Map<Unit, 'walking' | 'done'>();
    for (const unit of this.units) {
      const walked: Unit[] = [];
      for (let at: Unit | null = unit; at && state.get(at) !== 'done'; at = at.parent) {
        if (state.get(at) === 'walking') {
          this.report('transformed', 'cycle', 'entries whose parents form a loop: one is written as a root', at.events[0]);
          at.parent = null;
          break;
        }
        state.set(at, 'walking');
        walked.push(at);
      }
      for (const at of walked) state.set(at, 'done');
    }
  }

  /** Pass 4 (safety): a stub result for each call that has none, chained after the call's results. */
  stubs(): void {
    const added: Array<{ after: Unit; stub: Unit }> = [];
    for (const unit of this.units) {
      if (unit.kind !== 'assistant' || unit.dropped) continue;
      if (['error', 'aborted'].includes(String(this.stopReasonOf(unit)))) continue; // never replayed, so never answered
      for (const [callId, call] of unit.calls!) {
        if (call.answered) continue;
        const oldTail = unit.tail!;
        const callEvent = unit.events.find((e) => e.type === 'tool.call' && payloadOf(e).call_id === callId) ?? unit.events[0];
        const stub: Unit = { kind: 'stub', events: [], seq: oldTail.seq, parent: oldTail, id: '', callUnit: unit, callId, ts: oldTail.events[oldTail.events.length - 1]?.ts ?? oldTail.ts };
        // What followed the call's message now follows the stub.
        for (const other of this.units) if (other.parent === oldTail && other !== stub && !other.dropped) other.parent = stub;
        for (const { stub: s } of added) if (s.parent === oldTail) s.parent = stub;
        unit.tail = stub;
        call.answered = true;
        added.push({ after: oldTail, stub });
        reportStub(this.report, callEvent, 'a stub result (isError) was added', { id: callId });
      }
    }
    for (const { after, stub } of added) {
      // Right after the unit it follows (and after stubs already placed there).
      let at = this.units.indexOf(after) + 1;
      while (at < this.units.length && this.units[at].kind === 'stub' && this.units[at].seq === stub.seq) at += 1;
      this.units.splice(at, 0, stub);
    }
  }

  /**
   * The active leaf: the unit of the last event that came from the source (a Pi file's last entry
   * line; any other agent's last record), moved to the end of its stub chain.
   */
  leaf(): Unit | undefined {
    let leaf: Unit | undefined;
    for (let i = this.events.length - 1; i >= 0 && !leaf; i -= 1) {
      const event = this.events[i];
      if (isDerived(event) || event.type === 'session.start') continue;
      leaf = this.unitAt(event.seq) ?? undefined;
    }
    if (!leaf) return undefined;
    const family = leaf.kind === 'assistant' ? leaf : leaf.callUnit;
    if (family?.tail && family.tail.kind === 'stub' && (leaf === family || this.isAncestor(leaf, family.tail))) leaf = family.tail;
    return leaf;
  }

  isAncestor(ancestor: Unit, unit: Unit): boolean {
    for (let at: Unit | null = unit; at; at = at.parent) if (at === ancestor) return true;
    return false;
  }

  /** The path root → leaf. */
  pathTo(leaf: Unit): Unit[] {
    const path: Unit[] = [];
    for (let at: Unit | null = leaf; at; at = at.parent) path.unshift(at);
    return path;
  }

  /** Written units in file order: source order when it already ends with the leaf, else depth first with the active branch last. */
  order(leaf: Unit | undefined): Unit[] {
    const live = this.units.filter((u) => !u.dropped);
    if (!leaf || live[live.length - 1] === leaf) return live;
    const onPath = new Set(this.pathTo(leaf));
    const children = new Map<Unit | null, Unit[]>();
    for (const unit of live) {
      const key = unit.parent && !unit.parent.dropped ? unit.parent : null;
      const list = children.get(key) ?? [];
      list.push(unit);
      children.set(key, list);
    }
    const out: Unit[] = [];
    const leafDescendants: Unit[] = [];
    // Iterative depth-first walk; among siblings the one on the active path goes last.
    const stack: Array<{ unit: Unit; inLeaf: boolean }> = [];
    const push = (parent: Unit | null, inLeaf: boolean) => {
      const kids = [...(children.get(parent) ?? [])].sort((a, b) => Number(onPath.has(a)) - Number(onPath.has(b)) || a.seq - b.seq);
      for (let i = kids.length - 1; i >= 0; i -= 1) stack.push({ unit: kids[i], inLeaf });
    };
    push(null, false);
    while (stack.length > 0) {
      const { unit, inLeaf } = stack.pop()!;
      if (unit === leaf) {
        push(unit, true);
        continue;
      }
      (inLeaf ? leafDescendants : out).push(unit);
      push(unit, inLeaf);
    }
    if (leafDescendants.length > 0) {
      this.report('transformed', 'leaf-descendants', `${leafDescendants.length} entries below the active leaf are written before it (the client resumes from the last line)`, leaf.events[0]);
    }
    return [...out, ...leafDescendants, leaf];
  }
}
