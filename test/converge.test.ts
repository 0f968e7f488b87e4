// The merged view (lib/store/converge.ts mergeChains) is a function of the set of per-machine
// chains: the same output for any order the chains come in, causal marks respected, concurrent
// events tie-broken by machine id, duplicates kept once, owner resolved by the last handoff in
// merged order with the whole history kept, and forged cyclic marks still give an answer.
import { describe, expect, it } from 'vitest';
import { Chainer } from '../lib/core/chain.js';
import type { SpEvent } from '../lib/core/event.js';
import { mergeChains, parseSeen, type MachineChain, type SeenMark } from '../lib/store/converge.js';

const ID = 'sess_converge';

function chain(machine: string, specs: Array<{ text?: string; handoff?: [string, string]; agent?: string; parent?: number }>, seen: SeenMark[] = []): MachineChain {
  const chainer = new Chainer();
  const events = specs.map((s, i) => {
    const base = { session: ID, seq: i, ts: 1_800_000_000 + i, agent: s.agent ?? 'claude', actor: 'system' };
    const e = s.handoff
      ? { ...base, type: 'handoff', payload: { from_agent: s.handoff[0], to_agent: s.handoff[1], receipt_id: `rcpt_${machine}_${i}` } }
      : { ...base, type: 'message.user', payload: { text: s.text ?? `${machine}-${i}` }, ...(s.parent !== undefined ? { parent_seq: s.parent } : {}) };
    return chainer.chain(e as SpEvent);
  });
  return { machine, events, seen };
}

const texts = (events: SpEvent[]) => events.map((e) => (e.payload as { text?: string }).text ?? e.type);

describe('mergeChains', () => {
  it('gives the same events, head and owner for every order of the chains', () => {
    const a = chain('m_a', [{ text: 'start', agent: 'claude' }, {}, { handoff: ['claude', 'pi'] }]);
    const b = chain('m_b', [{}, { handoff: ['claude', 'codex'] }], [[0, { m_a: 2 }]]);
    const c = chain('m_c', [{}, {}], [[1, { m_a: 3, m_b: 2 }]]);
    const first = mergeChains(ID, [a, b, c]);
    for (const order of [[c, b, a], [b, a, c], [c, a, b]]) {
      const other = mergeChains(ID, order);
      expect(other.events.map((e) => JSON.stringify(e))).toEqual(first.events.map((e) => JSON.stringify(e)));
      expect(other.head).toBe(first.head);
      expect(other.owner_history).toEqual(first.owner_history);
    }
    expect(first.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('respects causal marks and breaks ties between concurrent events by machine id', () => {
    // m_b's events come after m_a's first two (its mark); m_z's single event is concurrent with all.
    const a = chain('m_a', [{ text: 'a0' }, { text: 'a1' }, { text: 'a2' }]);
    const b = chain('m_b', [{ text: 'b0' }, { text: 'b1' }], [[0, { m_a: 2 }]]);
    const z = chain('m_z', [{ text: 'z0' }]);
    const view = mergeChains(ID, [z, b, a]);
    const order = texts(view.events);
    expect(order.indexOf('b0')).toBeGreaterThan(order.indexOf('a1'));
    expect(order.indexOf('b1')).toBeGreaterThan(order.indexOf('b0'));
    // clock 1: a0 and z0 (concurrent): m_a before m_z.
    expect(order.slice(0, 2)).toEqual(['a0', 'z0']);
  });

  it('resolves two concurrent handoffs the same way everywhere and keeps both in the history', () => {
    const a = chain('m_a', [{ text: 'start' }, { handoff: ['claude', 'pi'] }]);
    const b = chain('m_b', [{ handoff: ['claude', 'codex'] }], [[0, { m_a: 1 }]]);
    const view = mergeChains(ID, [b, a]);
    // Both handoffs have clock 2; m_b sorts after m_a, so codex is the last grant.
    expect(view.owner).toBe('codex');
    expect(view.owner_history.map((g) => g.agent)).toEqual(['pi', 'codex']);
    expect(view.owner_history.map((g) => g.receipt)).toEqual(['rcpt_m_a_1', 'rcpt_m_b_0']);
  });

  it('keeps an event published by two machines once, and renumbers parent pointers', () => {
    const shared = { text: 'same event' };
    const a = chain('m_a', [shared, { text: 'reply', parent: 0 }]);
    const b = chain('m_b', [shared]);
    const view = mergeChains(ID, [a, b]);
    expect(texts(view.events)).toEqual(['same event', 'reply']);
    expect(view.events[1].parent_seq).toBe(0);
  });

  it('caps marks that name events the store does not hold, and breaks forged cycles deterministically', () => {
    const a = chain('m_a', [{ text: 'a0' }, { text: 'a1' }], [[0, { m_b: 5 }]]);
    const b = chain('m_b', [{ text: 'b0' }], [[0, { m_a: 2 }]]);
    const view = mergeChains(ID, [a, b]);
    expect(view.events).toHaveLength(3);
    expect(mergeChains(ID, [b, a]).head).toBe(view.head);
  });

  it('reads only well-formed marks from a hostile manifest', () => {
    expect(parseSeen('x')).toEqual([]);
    expect(parseSeen([[2, { m_a: 3, m_b: -1, m_c: 'x' }], [-1, {}], ['0', {}], [0, { m_z: 1 }]])).toEqual([
      [0, { m_z: 1 }],
      [2, { m_a: 3 }],
    ]);
  });
});
