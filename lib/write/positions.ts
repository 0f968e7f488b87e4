// Event positions by seq for a writer that reads its session by position (lib/write/spool.ts
// SpooledSession): 8 bytes an event and a binary search where the seqs increase (the usual
// case, the spool sorts them), a map only for a session whose seqs do not.
import type { SpEvent } from '../core/event.js';

export class SeqPositions {
  private readonly seqs: Float64Array;
  private readonly byMap?: Map<number, number>;

  constructor(events: ArrayLike<SpEvent>) {
    this.seqs = new Float64Array(events.length);
    let sorted = true;
    for (let i = 0; i < events.length; i += 1) {
      const seq = events[i].seq;
      this.seqs[i] = typeof seq === 'number' ? seq : NaN;
      if (!(this.seqs[i] >= (i > 0 ? this.seqs[i - 1] : -Infinity))) sorted = false;
    }
    if (sorted) return;
    this.byMap = new Map();
    for (let i = 0; i < this.seqs.length; i += 1) if (!Number.isNaN(this.seqs[i])) this.byMap.set(this.seqs[i], i);
  }

  /** The last position of an event with this seq (undefined: none). */
  last(seq: number): number | undefined {
    if (this.byMap) return this.byMap.get(seq);
    let lo = 0;
    let hi = this.seqs.length - 1;
    let found: number | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.seqs[mid] <= seq) {
        if (this.seqs[mid] === seq) found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }
}
