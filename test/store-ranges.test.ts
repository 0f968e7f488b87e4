// addToRanges (the seq ranges a session manifest attributes to an origin) merges spans; it must give
// what adding every seq to a set and cutting the sorted set into runs gives.
import { describe, expect, it } from 'vitest';
import { addToRanges } from '../lib/store/origins.js';
import { random as seeded } from '../lib/core/random.js';

function byDefinition(ranges: Array<[number, number]>, seqs: number[]): Array<[number, number]> {
  const all = new Set<number>();
  for (const [a, b] of ranges) for (let s = a; s <= b; s++) all.add(s);
  for (const s of seqs) all.add(s);
  const out: Array<[number, number]> = [];
  for (const s of [...all].sort((x, y) => x - y)) {
    const last = out[out.length - 1];
    if (last && last[1] + 1 === s) last[1] = s;
    else out.push([s, s]);
  }
  return out;
}

describe('addToRanges', () => {
  it('equals the seq-by-seq definition: overlaps, neighbours, repeats, empty and reversed ranges, unsorted seqs', () => {
    const random = seeded(11);
    const int = (n: number) => Math.floor(random() * n) - 5;
    for (let round = 0; round < 2000; round += 1) {
      const ranges: Array<[number, number]> = [];
      for (let k = int(8) + 5; k > 0; k -= 1) {
        const a = int(60);
        ranges.push([a, a + int(12)]);
      }
      const seqs = Array.from({ length: int(15) + 5 }, () => int(70));
      expect(addToRanges(ranges, seqs), JSON.stringify({ ranges, seqs })).toEqual(byDefinition(ranges, seqs));
    }
  });

  it('keeps the definition for values that are not whole numbers', () => {
    const ranges: Array<[number, number]> = [[0.5, 3], [7, 7]];
    expect(addToRanges(ranges, [4, 1.5])).toEqual(byDefinition(ranges, [4, 1.5]));
  });

  it('adds a batch to a long run without walking it', () => {
    expect(addToRanges([[0, 1e12]], [1e12 + 1, 1e12 + 3])).toEqual([[0, 1e12 + 1], [1e12 + 3, 1e12 + 3]]);
  });
});
