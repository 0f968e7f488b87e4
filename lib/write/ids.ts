// Ids a writer must remember for the whole session (tool ids written, calls answered, message ids):
// a Set of strings held each id as its own string plus a table entry, about 60–120 bytes an id, and
// a large session has hundreds of thousands. Here each id's text is copied into one byte column
// (a byte a character when every code unit fits in one, else two), found again through a 32-bit
// hash (HashChains) and compared in full, so the answer is exact however many ids share a hash.
import { HashChains, grown, hashString } from './hashed.js';

/**
 * Distinct strings numbered 0, 1, 2 … in the order they are first added (about 20 bytes an entry
 * besides its text). `hash` is for tests that force every id onto one hash.
 */
export class IdTable {
  private readonly chains = new HashChains();
  private text = new Uint8Array(1024);
  /** Entry e's text is text[starts[e] … starts[e + 1]). */
  private starts = new Float64Array(65);
  /** 1: two bytes a code unit (little-endian). */
  private wide = new Uint8Array(64);

  constructor(private readonly hash: (text: string) => number = hashString) {}

  /** Entries added. */
  get size(): number {
    return this.chains.count;
  }

  /** The entry of `id` (-1: not added). */
  find(id: string): number {
    return this.lookup(id, this.hash(id));
  }

  /** The entry of `id`, added when new. */
  add(id: string): number {
    const hash = this.hash(id);
    const known = this.lookup(id, hash);
    return known !== -1 ? known : this.append(id, hash);
  }

  has(id: string): boolean {
    return this.find(id) !== -1;
  }

  private lookup(id: string, hash: number): number {
    for (let entry = this.chains.newest(hash); entry !== -1; entry = this.chains.previous(entry)) if (this.equals(entry, id)) return entry;
    return -1;
  }

  private equals(entry: number, id: string): boolean {
    const start = this.starts[entry];
    const bytes = this.starts[entry + 1] - start;
    if (this.wide[entry] === 1) {
      if (bytes !== id.length * 2) return false;
      for (let i = 0; i < id.length; i += 1) if (this.text[start + 2 * i] + (this.text[start + 2 * i + 1] << 8) !== id.charCodeAt(i)) return false;
      return true;
    }
    if (bytes !== id.length) return false;
    for (let i = 0; i < id.length; i += 1) if (this.text[start + i] !== id.charCodeAt(i)) return false;
    return true;
  }

  private append(id: string, hash: number): number {
    const entry = this.chains.add(hash);
    let wide = false;
    for (let i = 0; i < id.length && !wide; i += 1) if (id.charCodeAt(i) > 0xff) wide = true;
    const start = this.starts[entry];
    const end = start + (wide ? id.length * 2 : id.length);
    if (end > this.text.length) this.text = grown(this.text, Math.max(end, this.text.length * 2));
    if (entry + 2 > this.starts.length) {
      this.starts = grown(this.starts, this.starts.length * 2);
      this.wide = grown(this.wide, this.starts.length);
    }
    if (wide) {
      for (let i = 0; i < id.length; i += 1) {
        const unit = id.charCodeAt(i);
        this.text[start + 2 * i] = unit & 0xff;
        this.text[start + 2 * i + 1] = unit >>> 8;
      }
    } else {
      for (let i = 0; i < id.length; i += 1) this.text[start + i] = id.charCodeAt(i);
    }
    this.wide[entry] = wide ? 1 : 0;
    this.starts[entry + 1] = end;
    return entry;
  }
}

/** A set of ids over an IdTable (has/add, as a Set<string> is used). */
export class IdSet {
  private readonly table: IdTable;

  constructor(hash?: (text: string) => number) {
    this.table = new IdTable(hash);
  }

  get size(): number {
    return this.table.size;
  }

  has(id: string): boolean {
    return this.table.has(id);
  }

  add(id: string): this {
    this.table.add(id);
    return this;
  }
}
