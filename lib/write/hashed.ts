// Lookups by string key for a writer that holds positions, not events (a spooled session, see
// spool.ts): a 32-bit hash per entry in typed arrays, a few bytes an entry, instead of a Map that
// keeps every key's text. Keys are not stored: two keys may share a hash, so the caller re-checks a
// candidate against its own data (the spooled event the key came from) and the answer stays exact.

/** FNV-1a over the UTF-16 code units of `text`. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

const EMPTY = -1;

/**
 * Entries numbered 0, 1, 2 … in the order they are added, chained by hash: `newest(hash)` gives the
 * last entry added with that hash, `previous(entry)` the one before it with the same hash. About 12
 * bytes an entry (open addressing over the distinct hashes, one link per entry).
 */
export class HashChains {
  private keys = new Uint32Array(64);
  private heads = new Int32Array(64).fill(EMPTY);
  private distinct = 0;
  private links = new Int32Array(64);
  private hashes = new Uint32Array(64);
  /** Entries added. */
  count = 0;

  /** Adds an entry with this hash; returns its number. */
  add(hash: number): number {
    const entry = this.count++;
    if (entry >= this.links.length) {
      this.links = grown(this.links, this.links.length * 2);
      this.hashes = grown(this.hashes, this.hashes.length * 2);
    }
    const slot = this.slotOf(hash);
    if (this.heads[slot] === EMPTY) {
      this.keys[slot] = hash;
      this.distinct += 1;
    }
    this.links[entry] = this.heads[slot];
    this.hashes[entry] = hash;
    this.heads[slot] = entry;
    if (this.distinct * 2 > this.keys.length) this.rehash();
    return entry;
  }

  /** The last entry added with this hash (-1: none). */
  newest(hash: number): number {
    return this.heads[this.slotOf(hash)];
  }

  /** The entry added before `entry` with the same hash (-1: none). */
  previous(entry: number): number {
    return this.links[entry];
  }

  hashOf(entry: number): number {
    return this.hashes[entry];
  }

  private slotOf(hash: number): number {
    const mask = this.keys.length - 1;
    let slot = hash & mask;
    while (this.heads[slot] !== EMPTY && this.keys[slot] !== hash) slot = (slot + 1) & mask;
    return slot;
  }

  private rehash(): void {
    const keys = this.keys;
    const heads = this.heads;
    this.keys = new Uint32Array(keys.length * 2);
    this.heads = new Int32Array(keys.length * 2).fill(EMPTY);
    for (let i = 0; i < keys.length; i += 1) {
      if (heads[i] === EMPTY) continue;
      const slot = this.slotOf(keys[i]);
      this.keys[slot] = keys[i];
      this.heads[slot] = heads[i];
    }
  }
}

/** The position of `key` among the first `count` numbers of an increasing column (binary search), or -1. */
export function indexInSorted(column: Float64Array, count: number, key: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const value = column[mid];
    if (value === key) return mid;
    if (value < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

type Typed = Int32Array | Uint32Array | Uint8Array | Float64Array;

/** A copy of `array` with room for `size` elements (the new ones zero). */
export function grown<T extends Typed>(array: T, size: number): T {
  const copy = new (array.constructor as new (n: number) => T)(size);
  copy.set(array);
  return copy;
}
