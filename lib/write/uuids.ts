// A string per event position for a writer that holds positions, not events (a spooled session,
// spool.ts): the uuid of the line an event's followers hang from. A Map of positions to uuid
// strings held about 90 bytes an entry; a canonical lowercase UUID (what randomUUID makes) is kept
// here as its 16 bytes, any other string (a native uuid kept by a same-id move) as itself.

const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Where the dashes go, as byte counts: 4-2-2-2-6. */
const GROUPS = [4, 2, 2, 2, 6];

export class UuidColumn {
  private readonly bytes: Uint8Array;
  /** Per position: 0 none, 1 packed in `bytes`, 2 in `other`. */
  private readonly state: Uint8Array;
  private readonly other = new Map<number, string>();

  /** Room for positions 0 … size - 1. */
  constructor(size: number) {
    this.bytes = new Uint8Array(size * 16);
    this.state = new Uint8Array(size);
  }

  set(position: number, uuid: string): void {
    if (!Number.isInteger(position) || position < 0 || position >= this.state.length) throw new RangeError(`UuidColumn: no position ${position}`);
    if (CANONICAL.test(uuid)) {
      const hex = uuid.replace(/-/g, '');
      for (let i = 0; i < 16; i += 1) this.bytes[position * 16 + i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
      this.state[position] = 1;
      this.other.delete(position);
    } else {
      this.other.set(position, uuid);
      this.state[position] = 2;
    }
  }

  get(position: number): string | undefined {
    const state = this.state[position];
    if (state === 2) return this.other.get(position);
    if (state !== 1) return undefined;
    let text = '';
    let at = position * 16;
    for (let g = 0; g < GROUPS.length; g += 1) {
      if (g > 0) text += '-';
      for (let i = 0; i < GROUPS[g]; i += 1) text += HEX[this.bytes[at++]];
    }
    return text;
  }
}
