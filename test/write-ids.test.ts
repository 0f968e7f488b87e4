// lib/write/ids.ts: the compact id table answers as a Set<string> does, also when every id shares
// one hash (the text is compared in full), and the resume-safety pass built on it (CallPairing,
// ToolIds, BranchIndex) gives the same pairing, skipped results and ids under a forced collision.
import { describe, expect, it } from 'vitest';
import { IdSet, IdTable } from '../lib/write/ids.js';
import { CallPairing, ToolIds, type PlanReport } from '../lib/write/plan.js';
import { BranchIndex } from '../lib/write/branches.js';
import { random } from '../lib/core/random.js';
import type { SpEvent } from '../lib/core/event.js';

const ALL_ONE_HASH = (): number => 7;

/** Ids alike in the ways that could fool a byte compare: prefixes, one or two bytes a unit, lone surrogates, U+FFFD. */
function trickyIds(rand: () => number, n: number): string[] {
  const fixed = ['', 'a', 'ab', 'a\u0000', 'é', '\u00e9\u0000', '\u0100', '\u0001\u0001', '\ud800', '\ufffd', '\udc00\ud800', '😀', 'toolu_1', 'toolu_10', 'toolu_1\u0000'];
  const out = [...fixed];
  const alphabet = ['a', 'b', '_', '\u00ff', '\u0100', '\ud83d', '\ude00', '\u0000'];
  for (let i = 0; i < n; i += 1) {
    let id = '';
    const length = Math.floor(rand() * 6);
    for (let k = 0; k < length; k += 1) id += alphabet[Math.floor(rand() * alphabet.length)];
    out.push(id);
  }
  return out;
}

describe('IdTable', () => {
  for (const [name, hash] of [['its own hash', undefined], ['every id on one hash', ALL_ONE_HASH]] as const) {
    it(`numbers ids as a Map would and finds only those added (${name})`, () => {
      const rand = random(11);
      const table = new IdTable(hash);
      const plain = new Map<string, number>();
      const ids = trickyIds(rand, name === 'its own hash' ? 20_000 : 2_000);
      for (const id of ids) {
        if (rand() < 0.5) {
          expect(table.find(id)).toBe(plain.get(id) ?? -1);
          continue;
        }
        if (!plain.has(id)) plain.set(id, plain.size);
        expect(table.add(id)).toBe(plain.get(id));
      }
      expect(table.size).toBe(plain.size);
      for (const id of ids) expect(table.find(id)).toBe(plain.get(id) ?? -1);
      const set = new IdSet(hash);
      for (const id of plain.keys()) set.add(id);
      for (const id of ids) expect(set.has(id)).toBe(plain.has(id));
    });
  }
});

function event(seq: number, type: string, payload: Record<string, unknown>, extra: Partial<SpEvent> = {}): SpEvent {
  return { session: 's', seq, ts: seq, agent: 'claude', type, actor: 'agent', payload, ...extra } as SpEvent;
}

/** A session of calls and results with ids drawn from a few, so ids repeat, results come twice, before their call or never. */
function session(rand: () => number, n: number): SpEvent[] {
  const ids = ['a', 'b', 'c', '\u0100', '', 'toolu_1', 'toolu_10'];
  const events: SpEvent[] = [];
  for (let seq = 0; seq < n; seq += 1) {
    const id = ids[Math.floor(rand() * ids.length)];
    const r = rand();
    if (r < 0.45) events.push(event(seq, 'tool.call', { call_id: id, name: 'Bash' }));
    else if (r < 0.9) events.push(event(seq, 'tool.result', { call_id: id }));
    else if (r < 0.95) events.push(event(seq, 'tool.result', { call_id: id }, { derived_from: Math.max(0, seq - 1) }));
    else events.push(event(seq, 'message.assistant', { content: [] }, rand() < 0.5 ? { parent_seq: Math.floor(rand() * seq) } : {}));
  }
  return events;
}

/** The pairing as it was written with a Map and a Set of id strings (the rule of lib/write/plan.ts's header). */
function referencePairing(events: SpEvent[], order: 'stream' | 'anywhere'): { resultOf: Map<number, number>; skipped: Map<number, string> } {
  const open = new Map<string, number[]>();
  const waiting = new Map<string, number[]>();
  const answered = new Set<string>();
  const resultOf = new Map<number, number>();
  const skipped = new Map<number, string>();
  const idOf = (e: SpEvent): string => String((e.payload as { call_id?: unknown }).call_id ?? '');
  events.forEach((e, at) => {
    if (e.derived_from !== undefined && e.derived_from !== null) return;
    const id = idOf(e);
    if (e.type === 'tool.call') {
      const early = order === 'anywhere' ? waiting.get(id)?.shift() : undefined;
      if (early !== undefined) {
        resultOf.set(at, early);
        answered.add(id);
      } else open.set(id, [...(open.get(id) ?? []), at]);
    } else if (e.type === 'tool.result') {
      const call = open.get(id)?.shift();
      if (open.get(id)?.length === 0) open.delete(id);
      if (call !== undefined) {
        resultOf.set(call, at);
        answered.add(id);
      } else if (order === 'anywhere') waiting.set(id, [...(waiting.get(id) ?? []), at]);
      else skipped.set(at, answered.has(id) ? 'duplicate' : 'orphan');
    }
  });
  for (const [id, results] of waiting) for (const at of results) skipped.set(at, answered.has(id) ? 'duplicate' : 'unknown');
  return { resultOf, skipped };
}

describe('the resume-safety pass under a forced hash collision', () => {
  it('CallPairing pairs and skips the same (stream and anywhere order)', () => {
    for (const order of ['stream', 'anywhere'] as const) {
      const events = session(random(3), 3_000);
      const own = new CallPairing(order);
      const forced = new CallPairing(order, ALL_ONE_HASH);
      for (const e of events) {
        own.add(e);
        forced.add(e);
      }
      const a = own.done();
      const b = forced.done();
      for (let i = 0; i < events.length; i += 1) {
        expect(b.resultOf.get(i)).toBe(a.resultOf.get(i));
        expect(b.callOf.get(i)).toBe(a.callOf.get(i));
      }
      expect([...b.skipped]).toEqual([...a.skipped]);
      // And as the Map-and-Set pairing it replaced.
      const reference = referencePairing(events, order);
      for (let i = 0; i < events.length; i += 1) expect(a.resultOf.get(i)).toBe(reference.resultOf.get(i));
      expect([...a.skipped]).toEqual([...reference.skipped]);
      expect(new Set(a.skipped.values()).size).toBe(order === 'stream' ? 2 : 1);
    }
  });

  it('CallPairing answers calls first come, first served, and knows a second result', () => {
    const p = new CallPairing('stream', ALL_ONE_HASH);
    const events = [
      event(0, 'tool.call', { call_id: 'x' }),
      event(1, 'tool.call', { call_id: 'x' }),
      event(2, 'tool.call', { call_id: 'y' }),
      event(3, 'tool.result', { call_id: 'x' }),
      event(4, 'tool.result', { call_id: 'y' }),
      event(5, 'tool.result', { call_id: 'y' }),
      event(6, 'tool.result', { call_id: 'z' }),
      event(7, 'tool.result', { call_id: 'x' }),
    ];
    for (const e of events) p.add(e);
    const done = p.done();
    expect([done.resultOf.get(0), done.resultOf.get(1), done.resultOf.get(2)]).toEqual([3, 7, 4]);
    expect([...done.skipped]).toEqual([
      [5, 'duplicate'],
      [6, 'orphan'],
    ]);
  });

  it('ToolIds numbers a clash and nothing else', () => {
    const reports: string[] = [];
    const report: PlanReport = (_action, _code, reason) => reports.push(reason);
    const ids = new ToolIds({ valid: /^[a-z_0-9]+$/, mint: () => 'minted', accepts: 'test' }, report);
    expect(['a', 'a_2', 'a', 'b', 'a'].map((id) => ids.id(id, event(0, 'tool.call', {})))).toEqual(['a', 'a_2', 'a_3', 'b', 'a_4']);
    expect(ids.has('a_3')).toBe(true);
    expect(ids.has('a_5')).toBe(false);
    expect(reports).toHaveLength(2);
  });

  it('BranchIndex splits the same with call ids numbered (results follow their call, also across branches)', () => {
    const events = [
      event(0, 'message.user', {}),
      event(1, 'tool.call', { call_id: 'k' }),
      event(2, 'tool.result', { call_id: 'k' }),
      event(3, 'message.assistant', {}, { parent_seq: 0 }),
      event(4, 'tool.call', { call_id: 'k2' }),
      event(5, 'tool.result', { call_id: 'k2' }),
      event(6, 'tool.result', { call_id: 'k' }),
    ];
    const index = new BranchIndex();
    for (const e of events) index.add(e);
    expect(index.length).toBe(7);
    const plan = index.split();
    // Active: 0 → 3 → 4 (and 4's result); the call at 1 and both results with its id are off it.
    expect(plan.offActive).toEqual([1, 2, 6]);
    expect(plan.others).toHaveLength(1);
    expect([...plan.others[0].own].sort()).toEqual([1, 2, 6]);
  });
});
