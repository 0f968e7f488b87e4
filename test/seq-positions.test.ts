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
    ['runs with gaps and repeats', [0, 1, 2, 3, 7, 8, 8, 9, 20, 21]],
    ['fractions between whole numbers', [0, 0.5, 1, 1.5, 2, 3, 4]],
    ['in order, then out of order after a run', [0, 1, 2, 3, 4, 5, 2, 9, 4]],
    ['past the safe integers', [2 ** 53 - 2, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2]],
  ];
  for (const [name, seqs] of cases) {
    it(name, () => {
      const positions = new SeqPositions(events(seqs));
      for (const seq of [-1, 0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 20, 21, 22, 0.5, 1.5, 2 ** 53 - 2, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1, 2 ** 53 + 2]) expect(positions.last(seq), `seq ${seq}`).toBe(scan(seqs, seq));
    });
  }

  it('answers as the map does over random sessions (mostly runs, with gaps, repeats and steps back)', () => {
    let state = 7;
    const next = (): number => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 50; round += 1) {
      const seqs: number[] = [];
      let seq = 0;
      for (let i = 0; i < 300; i += 1) {
        const r = next();
        seq = r < 0.85 ? seq + 1 : r < 0.93 ? seq + 2 : r < 0.97 || round % 2 === 0 ? seq : seq - 4;
        seqs.push(seq);
      }
      const positions = new SeqPositions(events(seqs));
      for (let probe = -5; probe < seq + 5; probe += 1) expect(positions.last(probe), `round ${round} seq ${probe}`).toBe(scan(seqs, probe));
    }
  });
});
