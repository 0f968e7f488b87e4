// SeqPositions (lib/write/positions.ts): the last position of a seq, by binary search over increasing
// seqs and by a map otherwise; the same answers as a scan.
import { describe, expect, it } from 'vitest';
import type { SpEvent } from '../lib/core/event.js';
import { SeqPositions } from '../lib/write/positions.js';

const events = (seqs: unknown[]): SpEvent[] => seqs.map((seq) => ({ session: 's', seq, ts: 0, agent: 'a', type: 'meta', actor: 'system', payload: {} }) as unknown as SpEvent);

/** What a Map from seq to position, filled in order, answers (the writer's former lookup). */
function scan(seqs: unknown[], seq: number): number | undefined {
  const map = new Map<number, number>();
  seqs.forEach((s, i) => typeof s === 'number' && map.set(s, i));
  return map.get(seq);
}

describe('SeqPositions', () => {
  const cases: Array<[string, unknown[]]> = [
    ['increasing', [0, 1, 2, 5, 9]],
    ['repeated seqs: the last position', [0, 1, 1, 1, 2, 3, 3]],
    ['out of order', [3, 1, 2, 1, 0]],
    ['a seq that is not a number', [0, 1, 'x', 3]],
    ['empty', []],
  ];
  for (const [name, seqs] of cases) {
    it(name, () => {
      const positions = new SeqPositions(events(seqs));
      for (const seq of [-1, 0, 1, 2, 3, 4, 5, 9, 10, 1.5]) expect(positions.last(seq), `seq ${seq}`).toBe(scan(seqs, seq));
    });
  }
});
