// lib/write/seq-map.ts: the seq map answers as a Map does, keys in order or not, values null or not.
import { describe, expect, it } from 'vitest';
import { SeqMap } from '../lib/write/seq-map.js';
import { random } from '../lib/core/random.js';

describe('SeqMap', () => {
  it('agrees with a Map on set, has and get (increasing keys, repeats, keys out of order, null, NaN, -0)', () => {
    const rand = random(9);
    const seqs = new SeqMap();
    const plain = new Map<number, number | null>();
    let next = 0;
    const probes: number[] = [NaN, -0, 0.5, -1];
    for (let i = 0; i < 50_000; i += 1) {
      const r = rand();
      // Mostly the next seq (fractional parts too, as split results have), sometimes an earlier or a repeated one.
      const key = r < 0.7 ? (next += rand() < 0.2 ? 0.001 : 1) : r < 0.8 ? next : r < 0.95 ? Math.floor(rand() * next) : [NaN, -0, 0][Math.floor(rand() * 3)];
      const value = rand() < 0.2 ? null : Math.floor(rand() * 1000) - 500;
      seqs.set(key, value);
      plain.set(key, value);
      probes.push(key, key + 0.5);
    }
    for (const key of probes) {
      expect(seqs.has(key)).toBe(plain.has(key));
      expect(seqs.get(key)).toBe(plain.get(key));
    }
  });
});
