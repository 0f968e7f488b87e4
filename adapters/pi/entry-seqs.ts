// Entry key → [seq of its first event, seq of its last event]: what the mapper looks parents,
// labels, compactions and branch summaries up in. Every entry of a session is kept (any later line
// may name any earlier id), so the cost per entry decides the memory of a long capture.
//
// Two forms. An incremental capture keeps the plain JSON record of its cursor (PiState.entries),
// read and written as own members only (an id such as "constructor" or "__proto__" is data).
// A one-shot capture, whose state nobody continues, packs the keys Pi itself writes (8 lowercase
// hex digits) into typed columns: about 20 bytes an entry instead of about 100 for the record.
export interface EntrySeqs {
  get(key: string): [number, number] | undefined;
  set(key: string, first: number, last: number): void;
}

/** The cursor's own record (plain JSON), read and written as own members. */
export class RecordSeqs implements EntrySeqs {
  constructor(readonly record: Record<string, [number, number]>) {}

  get(key: string): [number, number] | undefined {
    return Object.hasOwn(this.record, key) ? this.record[key] : undefined;
  }

  set(key: string, first: number, last: number): void {
    // A plain assignment to "__proto__" would set the prototype, not a member.
    if (key === '__proto__') Object.defineProperty(this.record, key, { value: [first, last], enumerable: true, writable: true, configurable: true });
    else this.record[key] = [first, last];
  }
}

const HEX8 = /^[0-9a-f]{8}$/;
const EMPTY = 0;
/** A first/last that does not fit 32 bits: the pair is in `wide`. */
const WIDE = 0xffffffff;
/** Rows per chunk (key, first, last: 12 bytes a row); chunks are added, never copied, as a session grows. */
const CHUNK_BITS = 16;
const CHUNK_ROWS = 1 << CHUNK_BITS;

/** Keys in typed columns (8-hex ids packed into 32 bits), other keys in a Map; rows in first-seen order. */
export class PackedSeqs implements EntrySeqs {
  private rows = 0;
  /** Per row at 3 × (row % CHUNK_ROWS) of its chunk: the packed key, the first seq, the last seq. */
  private readonly chunks: Uint32Array[] = [];
  /** Open addressing over hex rows: row + 1 (0: empty), at most three quarters full. */
  private table = new Int32Array(1024);
  private hexRows = 0;
  /** A random odd multiplier: ids chosen to collide under a fixed hash cannot make lookups quadratic. */
  private readonly mix = (Math.floor(Math.random() * 0x7fffffff) * 2 + 1) >>> 0;
  /** Rows whose key is not 8 hex digits: key → row, and row → key. */
  private readonly otherRows = new Map<string, number>();
  private readonly otherKeys = new Map<number, string>();
  private readonly wide = new Map<number, [number, number]>();

  get(key: string): [number, number] | undefined {
    const row = this.rowOf(key);
    if (row < 0) return undefined;
    const chunk = this.chunks[row >>> CHUNK_BITS];
    const at = (row & (CHUNK_ROWS - 1)) * 3;
    if (chunk[at + 1] === WIDE) return this.wide.get(row);
    return [chunk[at + 1], chunk[at + 2]];
  }

  set(key: string, first: number, last: number): void {
    let row = this.rowOf(key);
    if (row < 0) row = this.add(key);
    const chunk = this.chunks[row >>> CHUNK_BITS];
    const at = (row & (CHUNK_ROWS - 1)) * 3;
    if (fits(first) && fits(last)) {
      chunk[at + 1] = first;
      chunk[at + 2] = last;
      this.wide.delete(row);
    } else {
      chunk[at + 1] = WIDE;
      this.wide.set(row, [first, last]);
    }
  }

  /** The plain record (as the incremental form keeps it), in first-seen order. */
  toJSON(): Record<string, [number, number]> {
    const record = new RecordSeqs({});
    for (let row = 0; row < this.rows; row += 1) {
      const key = this.otherKeys.get(row) ?? this.keyOf(row).toString(16).padStart(8, '0');
      record.set(key, ...this.get(key)!);
    }
    return record.record;
  }

  private keyOf(row: number): number {
    return this.chunks[row >>> CHUNK_BITS][(row & (CHUNK_ROWS - 1)) * 3];
  }

  private rowOf(key: string): number {
    if (!HEX8.test(key)) return this.otherRows.get(key) ?? -1;
    const packed = parseInt(key, 16) >>> 0;
    const mask = this.table.length - 1;
    for (let slot = this.slotOf(packed, mask); ; slot = (slot + 1) & mask) {
      const at = this.table[slot];
      if (at === EMPTY) return -1;
      if (this.keyOf(at - 1) === packed) return at - 1;
    }
  }

  private add(key: string): number {
    const row = this.rows++;
    if (row >>> CHUNK_BITS >= this.chunks.length) this.chunks.push(new Uint32Array(CHUNK_ROWS * 3));
    if (!HEX8.test(key)) {
      this.otherRows.set(key, row);
      this.otherKeys.set(row, key);
      return row;
    }
    this.chunks[row >>> CHUNK_BITS][(row & (CHUNK_ROWS - 1)) * 3] = parseInt(key, 16) >>> 0;
    this.hexRows += 1;
    if (this.hexRows * 4 > this.table.length * 3) this.rehash();
    else this.place(row, this.table, this.table.length - 1);
    return row;
  }

  /** The top bits of a multiplicative hash (the low bits of a product see only the low bits of the key). */
  private slotOf(packed: number, mask: number): number {
    return Math.imul(packed ^ (packed >>> 16), this.mix) >>> Math.clz32(mask);
  }

  private place(row: number, table: Int32Array, mask: number): void {
    let slot = this.slotOf(this.keyOf(row), mask);
    while (table[slot] !== EMPTY) slot = (slot + 1) & mask;
    table[slot] = row + 1;
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let row = 0; row < this.rows; row += 1) if (!this.otherKeys.has(row)) this.place(row, table, mask);
    this.table = table;
  }
}

function fits(seq: number): boolean {
  return Number.isInteger(seq) && seq >= 0 && seq < WIDE;
}
