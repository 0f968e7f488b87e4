// A string → integer map for the identifiers of every line of a long transcript (a million lines
// of 1 GB). A canonical lowercase UUID is held as four 32-bit words in append-only chunks with its
// value, found through an open-addressing table of entry numbers: about 28 bytes an entry, where a
// string key in an object or a Map takes about 140. Any other string (or a value that is not a
// small non-negative integer) goes in a plain Map. Entry numbers are insertion order, so
// `toRecord` rebuilds the object a Record<string, number> would have been, key for key.

const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
/** Words per entry: four of the UUID, one of the value. */
const STRIDE = 5;
const EMPTY = -1;

export class UuidMap {
  private readonly chunks: Int32Array[] = [];
  private count = 0;
  private slots = new Int32Array(1 << 10).fill(EMPTY);
  /** Entries whose key is not a canonical UUID (or whose value does not fit a word): entry number by key. */
  private readonly other = new Map<string, { entry: number; value: number }>();
  private readonly otherKeys = new Map<number, string>();
  private readonly words = new Int32Array(4);

  /** A map holding a Record's entries, in its key order. */
  static from(record: Record<string, number>): UuidMap {
    const map = new UuidMap();
    for (const key of Object.keys(record)) map.set(key, record[key]);
    return map;
  }

  get(key: string): number | undefined {
    if (parseUuid(key, this.words)) {
      const entry = this.find(this.words);
      if (entry !== EMPTY && !this.otherKeys.has(entry)) return this.chunks[entry >>> CHUNK_BITS][(entry & (CHUNK - 1)) * STRIDE + 4];
    }
    return this.other.get(key)?.value;
  }

  set(key: string, value: number): void {
    const small = Number.isInteger(value) && value >= 0 && value <= 0x7fffffff;
    if (parseUuid(key, this.words)) {
      const entry = this.find(this.words);
      if (entry !== EMPTY && !this.otherKeys.has(entry)) {
        if (small) {
          this.chunks[entry >>> CHUNK_BITS][(entry & (CHUNK - 1)) * STRIDE + 4] = value;
          return;
        }
        // A value that does not fit a word: the key moves to `other`, keeping its place in the order.
        this.other.set(key, { entry, value });
        this.otherKeys.set(entry, key);
        return;
      }
      if (entry === EMPTY && small && !this.other.has(key)) {
        this.insert(this.words, value);
        return;
      }
    }
    const known = this.other.get(key);
    if (known) known.value = value;
    else {
      const entry = this.reserve();
      this.other.set(key, { entry, value });
      this.otherKeys.set(entry, key);
    }
  }

  /** The entries as a plain object, in insertion order (what JSON.stringify of the old Record gave). */
  toRecord(): Record<string, number> {
    const out: Record<string, number> = {};
    for (let entry = 0; entry < this.count; entry++) {
      const key = this.otherKeys.get(entry);
      if (key !== undefined) {
        out[key] = this.other.get(key)!.value;
        continue;
      }
      const chunk = this.chunks[entry >>> CHUNK_BITS];
      const at = (entry & (CHUNK - 1)) * STRIDE;
      out[formatUuid(chunk, at)] = chunk[at + 4];
    }
    return out;
  }

  /** A new entry number (its chunk allocated when it starts one). */
  private reserve(): number {
    const entry = this.count++;
    if ((entry & (CHUNK - 1)) === 0) this.chunks.push(new Int32Array(CHUNK * STRIDE));
    return entry;
  }

  private insert(words: Int32Array, value: number): void {
    const entry = this.reserve();
    const chunk = this.chunks[entry >>> CHUNK_BITS];
    const at = (entry & (CHUNK - 1)) * STRIDE;
    chunk[at] = words[0];
    chunk[at + 1] = words[1];
    chunk[at + 2] = words[2];
    chunk[at + 3] = words[3];
    chunk[at + 4] = value;
    // Grown at three quarters full: linear probing stays short for random keys.
    if (this.count * 4 > this.slots.length * 3) this.grow();
    else this.place(entry, words);
  }

  private place(entry: number, words: Int32Array | ArrayLike<number>): void {
    const mask = this.slots.length - 1;
    let slot = hash(words[0], words[1], words[2], words[3]) & mask;
    while (this.slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.slots[slot] = entry;
  }

  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(EMPTY);
    const w = new Int32Array(4);
    for (let entry = 0; entry < this.count; entry++) {
      if (this.otherKeys.has(entry)) continue;
      const chunk = this.chunks[entry >>> CHUNK_BITS];
      const at = (entry & (CHUNK - 1)) * STRIDE;
      w[0] = chunk[at];
      w[1] = chunk[at + 1];
      w[2] = chunk[at + 2];
      w[3] = chunk[at + 3];
      this.place(entry, w);
    }
  }

  private find(words: Int32Array): number {
    const mask = this.slots.length - 1;
    for (let slot = hash(words[0], words[1], words[2], words[3]) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot];
      if (entry === EMPTY) return EMPTY;
      const chunk = this.chunks[entry >>> CHUNK_BITS];
      const at = (entry & (CHUNK - 1)) * STRIDE;
      if (chunk[at] === words[0] && chunk[at + 1] === words[1] && chunk[at + 2] === words[2] && chunk[at + 3] === words[3]) return entry;
    }
  }
}

function hash(a: number, b: number, c: number, d: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b) ^ Math.imul(c, 0xc2b2ae35) ^ Math.imul(d, 0x27d4eb2f);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 13);
}

/** Fills `words` from a canonical lowercase UUID (8-4-4-4-12 hex digits); false for any other string. */
function parseUuid(s: string, words: Int32Array): boolean {
  if (s.length !== 36) return false;
  let word = 0;
  let digits = 0;
  let w = 0;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
      continue;
    }
    let v: number;
    if (c >= 48 && c <= 57) v = c - 48;
    else if (c >= 97 && c <= 102) v = c - 87;
    else return false;
    word = (word << 4) | v;
    if (++digits === 8) {
      words[w++] = word;
      word = 0;
      digits = 0;
    }
  }
  return true;
}

const HEX = '0123456789abcdef';

function formatUuid(chunk: Int32Array, at: number): string {
  let hex = '';
  for (let k = 0; k < 4; k++) {
    const word = chunk[at + k];
    for (let shift = 28; shift >= 0; shift -= 4) hex += HEX[(word >>> shift) & 15];
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
