// Event positions by seq for a writer that reads its session by position (lib/write/spool.ts
// SpooledSession). Where the seqs never decrease (the usual case, the spool sorts them) they are
// kept as runs that go up by one (a whole ordinary session is one run; a column of every seq held
// 8 bytes an event) and found by binary search; a map only for a session whose seqs do not.
import type { SpEvent } from '../core/event.js';
import { grown } from './hashed.js';

export class SeqPositions {
  /** Runs in position order: first position, first seq, length. */
  private starts = new Float64Array(16);
  private firstSeqs = new Float64Array(16);
  private lengths = new Uint32Array(16);
  private runs = 0;
  private byMap?: Map<number, number>;

  constructor(events: ArrayLike<SpEvent>) {
    let last = -Infinity;
    for (let i = 0; i < events.length; i += 1) {
      const value = events[i].seq;
      const seq = typeof value === 'number' ? value : NaN;
      if (this.byMap) {
        if (!Number.isNaN(seq)) this.byMap.set(seq, i);
        continue;
      }
      if (!(seq >= last)) {
        // Out of order (or not a number): every position so far into a map, and the map from here on.
        this.byMap = new Map();
        for (let r = 0; r < this.runs; r += 1) for (let k = 0; k < this.lengths[r]; k += 1) this.byMap.set(this.firstSeqs[r] + k, this.starts[r] + k);
        if (!Number.isNaN(seq)) this.byMap.set(seq, i);
        continue;
      }
      last = seq;
      const r = this.runs - 1;
      if (r >= 0 && Number.isSafeInteger(seq) && Number.isSafeInteger(this.firstSeqs[r]) && seq === this.firstSeqs[r] + this.lengths[r]) {
        this.lengths[r] += 1;
        continue;
      }
      if (this.runs === this.starts.length) {
        this.starts = grown(this.starts, this.runs * 2);
        this.firstSeqs = grown(this.firstSeqs, this.runs * 2);
        this.lengths = grown(this.lengths, this.runs * 2);
      }
      this.starts[this.runs] = i;
      this.firstSeqs[this.runs] = seq;
      this.lengths[this.runs] = 1;
      this.runs += 1;
    }
  }

  /** The last position of an event with this seq (undefined: none). */
  last(seq: number): number | undefined {
    if (this.byMap) return this.byMap.get(seq);
    // The last run that starts at or below seq: seqs never decrease, so no earlier run has it later.
    let lo = 0;
    let hi = this.runs - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.firstSeqs[mid] <= seq) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (at === -1) return undefined;
    const k = seq - this.firstSeqs[at];
    return k >= 0 && k < this.lengths[at] && Number.isInteger(k) && this.firstSeqs[at] + k === seq ? this.starts[at] + k : undefined;
  }
}
