// Seq → number (or null) for state kept per event of a long session (the relay's per-call and
// per-removed-event notes): a Map of them held about 40 bytes an entry; keys that come in increasing
// order (a session's seqs) go into two typed columns, 17 bytes an entry, found by binary search;
// a key that comes out of order goes into a Map beside them, so the answers are a Map's.
import { grown, indexInSorted } from './hashed.js';

export class SeqMap {
  private keys = new Float64Array(64);
  private values = new Float64Array(64);
  private nulls = new Uint8Array(64);
  private count = 0;
  /** Keys set below the last column key (out of order): set after it, so they win. */
  private readonly late = new Map<number, number | null>();

  set(key: number, value: number | null): void {
    const last = this.count - 1;
    if (last >= 0 && key === this.keys[last]) return this.put(last, value);
    if (last >= 0 && !(key > this.keys[last])) {
      this.late.set(key, value);
      return;
    }
    if (this.count === this.keys.length) {
      const size = this.count * 2;
      this.keys = grown(this.keys, size);
      this.values = grown(this.values, size);
      this.nulls = grown(this.nulls, size);
    }
    this.keys[this.count] = key;
    this.put(this.count++, value);
  }

  has(key: number): boolean {
    return this.late.has(key) || this.indexOf(key) !== -1;
  }

  get(key: number): number | null | undefined {
    if (this.late.has(key)) return this.late.get(key);
    const at = this.indexOf(key);
    if (at === -1) return undefined;
    return this.nulls[at] === 1 ? null : this.values[at];
  }

  private put(at: number, value: number | null): void {
    this.nulls[at] = value === null ? 1 : 0;
    this.values[at] = value ?? 0;
  }

  private indexOf(key: number): number {
    return indexInSorted(this.keys, this.count, key);
  }
}
