// SeqSet (lib/relay/relay.ts knownParents): the seqs seen, as bits for small whole numbers and a Set
// for the rest (the relay header's seq - 0.5, negatives, huge gaps); the same answers as a Set.
import { describe, expect, it } from 'vitest';
import { SeqSet } from '../lib/relay/relay.js';

describe('SeqSet', () => {
  it('answers as a Set does, whatever the seqs', () => {
    let state = 11;
    const next = (): number => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 30; round += 1) {
      const set = new SeqSet();
      const reference = new Set<number>();
      let seq = round % 2 ? -0.5 : 0;
      for (let i = 0; i < 2000; i += 1) {
        const r = next();
        const value = r < 0.9 ? (seq += 1) : r < 0.93 ? seq - 0.5 : r < 0.95 ? -Math.floor(next() * 10) : r < 0.97 ? seq * 200 + 1e6 : r < 0.98 ? -0 : Math.floor(next() * seq);
        set.add(value);
        reference.add(value);
        for (const probe of [value, value + 1, value - 0.5, -1, 0, Math.floor(seq / 2)]) expect(set.has(probe), `round ${round} probe ${probe}`).toBe(reference.has(probe));
      }
      for (let probe = -20; probe < seq + 20; probe += 0.5) expect(set.has(probe)).toBe(reference.has(probe));
    }
  });

  it('keeps whole seqs as bits after a fraction (the relay header) comes first', () => {
    const set = new SeqSet();
    set.add(-0.5);
    for (let seq = 0; seq < 100_000; seq += 1) set.add(seq);
    expect((set as unknown as { other: Set<number> }).other.size).toBe(1);
    expect(set.has(-0.5) && set.has(99_999) && !set.has(100_000) && !set.has(0.5)).toBe(true);
  });
});
