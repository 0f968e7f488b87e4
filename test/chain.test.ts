import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { Chainer, chainBody, computeChecksum, rechain, CHECKSUM_PATTERN } from '../lib/core/chain.js';
import { canonicalize } from '../lib/core/jcs.js';
import { syntheticEvents } from '../adapters/claude/synthetic.js';
import type { SpEvent } from '../lib/core/event.js';

const event = (seq: number, session = 'sess_a', text = `hello ${seq}`): SpEvent => ({
  session,
  seq,
  ts: 1790000000 + seq,
  agent: 'claude',
  type: 'message.user',
  payload: { content: [{ type: 'text', text }] },
});

describe('hash chain', () => {
  it('is SHA-256 over the previous checksum, then the JCS text of the event without its checksum', () => {
    const e = event(0);
    const expected = 'sha256:' + createHash('sha256').update('').update(canonicalize(e)).digest('hex');
    expect(computeChecksum('', e)).toBe(expected);
    const chained = new Chainer().chain(e);
    expect(chained.checksum).toBe(expected);
    expect(chainBody(chained)).toBe(canonicalize(e));
    expect(chained.checksum).toMatch(CHECKSUM_PATTERN);
  });

  it('links each event to the previous one of the same session, sessions independent', () => {
    const chainer = new Chainer();
    const a0 = chainer.chain(event(0, 'sess_a'));
    const b0 = chainer.chain(event(0, 'sess_b'));
    const a1 = chainer.chain(event(1, 'sess_a'));
    expect(a1.checksum).toBe(computeChecksum(a0.checksum!, event(1, 'sess_a')));
    expect(b0.checksum).toBe(computeChecksum('', event(0, 'sess_b')));
  });

  it('does not depend on key order or on a stale checksum', () => {
    const e = event(0);
    const shuffled = { payload: e.payload, type: e.type, ts: e.ts, seq: e.seq, session: e.session, agent: e.agent, checksum: 'sha256:stale' } as SpEvent;
    expect(new Chainer().chain(shuffled).checksum).toBe(computeChecksum('', e));
  });

  it('re-chains a changed stream so that it verifies again', async () => {
    const original = [...syntheticEvents({ events: 50 })];
    const chainer = new Chainer();
    const chained = original.map((e) => chainer.chain(e));
    const changed = chained.map((e) => (e.seq === 10 ? { ...e, payload: { ...e.payload, note: 'edited' } } : e));
    const out: SpEvent[] = [];
    for await (const e of rechain(changed)) out.push(e);
    let previous = '';
    for (const e of out) {
      expect(e.checksum).toBe(computeChecksum(previous, e));
      previous = e.checksum!;
    }
    expect(out[9].checksum).toBe(chained[9].checksum);
    expect(out[10].checksum).not.toBe(chained[10].checksum);
  });

  it('continues a stored chain from its tail when seeded', () => {
    const first = new Chainer();
    const a0 = first.chain(event(0));
    const second = new Chainer();
    second.seed('sess_a', a0.checksum!);
    const a1 = second.chain(event(1));
    expect(a1.checksum).toBe(computeChecksum(a0.checksum!, event(1)));
  });

  it('chainLine is the canonical text of chain(), checksums alike, on every event of recorded sessions', async () => {
    const { adapters } = await import('../adapters/index.js');
    const fixtures = new URL('../fixtures/', import.meta.url).pathname;
    const sessions: Array<[string, string]> = [
      ['claude', `${fixtures}claude/corpus/S3-long/.claude/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71.jsonl`],
      ['codex', `${fixtures}codex/corpus/S3-long/sessions/2026/11/30/rollout-2026-11-30T05-07-12-01a22ad9-94fc-7ae2-9539-88c29f4141fc.jsonl`],
      ['pi', `${fixtures}pi/corpus/S3-long/agent/sessions/--home-carol-acme-api--/2026-11-30T05-03-28-829Z_01a22ad6-2c3b-714c-9526-cda55a420afd.jsonl`],
    ];
    let compared = 0;
    for (const [agent, path] of sessions) {
      const adapter = adapters[agent];
      const byObject = new Chainer();
      const byLine = new Chainer();
      const byBoth = new Chainer();
      for await (const e of adapter.capture(await adapter.open(path, {}), { raw: true })) {
        const line = byLine.chainLine(e);
        const chained = byObject.chain(e);
        expect(line).toBe(canonicalize(chained));
        // chainWithLine (the store's append): the same object, and its JSON.stringify as the line.
        const both = byBoth.chainWithLine(e);
        expect(both.event).toEqual(chained);
        expect(both.line).toBe(JSON.stringify(chained));
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(300);
    // Unusual values go the canonicalizer's slow path and still agree: undefined inside an array,
    // no member before "checksum", an empty payload.
    const odd = { session: 'sess_o', seq: 0, ts: 1, type: 'meta', payload: { list: [1, undefined, 'x'] } } as unknown as SpEvent;
    expect(new Chainer().chainLine(odd)).toBe(canonicalize(new Chainer().chain(odd)));
    // Not plain JSON: chainWithLine's line is still the canonical text (here also JSON.stringify's).
    expect(new Chainer().chainWithLine(odd).line).toBe(canonicalize(new Chainer().chain(odd)));
    expect(new Chainer().chainWithLine(odd).line).toBe(JSON.stringify(new Chainer().chain(odd)));
    expect(new Chainer().chainWithLine(event(0)).line).toBe(JSON.stringify(new Chainer().chain(event(0))));
    expect(() => new Chainer().chainLine({ ...event(0), payload: { n: Number.NaN } } as SpEvent)).toThrow();
  });

  // A JavaScript object lists array-index keys first, in numeric order, whatever order they were
  // set in: {"9", "10"} cannot be laid out in JCS order ("10" < "9"), nor {"!", "1"}. The chainer
  // once hashed JSON.stringify of such a copy, and sp-verify (which canonicalizes) called its own
  // output "modified".
  it('hashes and writes the canonical text of objects with array-index keys', () => {
    const payloads = [
      { map: { '9': 'a', '10': 'b', z: 1 } },
      { map: { '!': 1, '1': 2 } },
      { lines: { '2': 'b', '1': 'a', '100': 'c' }, nested: [{ '12': { '3': true, '21': false } }] },
      { only: { '0': 'x', '1': 'y' } },
    ];
    for (const payload of payloads) {
      const e = { ...event(0), payload } as SpEvent;
      const { event: chained, line } = new Chainer().chainWithLine(e);
      expect(chained.checksum).toBe(computeChecksum('', e));
      expect(line).toBe(canonicalize(JSON.parse(line)));
      expect(new Chainer().chainLine(e)).toBe(line);
      expect(JSON.parse(line).payload).toEqual(payload);
    }
    expect(new Chainer().chainLine({ ...event(0), payload: { map: { '9': 'a', '10': 'b' } } } as SpEvent)).toContain('"map":{"10":"b","9":"a"}');
  });

  // JSON.parse makes "__proto__" an ordinary member; assigning it on a copy would set the copy's
  // prototype instead and drop the member from the text and the hash.
  it('keeps a "__proto__" member a session file carries, in the line and the hash', () => {
    const line = '{"payload":{"input":{"__proto__":{"polluted":1},"a":2}},"seq":0,"session":"sess_p","ts":1,"type":"message.user"}';
    const e = JSON.parse(line) as SpEvent;
    const chained = new Chainer().chainWithLine(e);
    expect(chained.line).toContain('"input":{"__proto__":{"polluted":1},"a":2}');
    expect(chained.event.checksum).toBe(computeChecksum('', e));
    expect(Object.getPrototypeOf((chained.event.payload as { input: object }).input)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
