// OpenCode's ids (docs/formats/opencode.md §2 "Ids"): `<prefix>_<12 hex><14 random base62>`, the hex
// the low 48 bits of `ms * 4096 + counter` (the counter restarts each millisecond), so message and
// part ids ascend with time; session ids invert those bits so newer sessions sort first.
import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const MASK = (1n << 48n) - 1n;

function random62(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i += 1) out += BASE62[bytes[i] % 62];
  return out;
}

/** Ids in the client's style, strictly ascending in the order they are made (times never go back). */
export class IdMaker {
  private lastMs = -1;
  private counter = 0;

  /** The next id for `prefix` at `ms` (or just after the previous id when `ms` is not later). */
  next(prefix: 'msg' | 'prt' | 'ses', ms: number): string {
    let at = Math.floor(ms);
    if (at > this.lastMs) {
      this.lastMs = at;
      this.counter = 1;
    } else {
      at = this.lastMs;
      this.counter += 1;
      if (this.counter > 4095) {
        this.lastMs += 1;
        at = this.lastMs;
        this.counter = 1;
      }
    }
    let value = (BigInt(at) * 4096n + BigInt(this.counter)) & MASK;
    if (prefix === 'ses') value = ~value & MASK;
    return `${prefix}_${value.toString(16).padStart(12, '0')}${random62(14)}`;
  }
}

/** The time (epoch ms, modulo 2^36) an ascending id encodes; undefined for ids of another shape. */
export function idTime(id: string): number | undefined {
  const m = /^(?:msg|prt|evt)_([0-9a-f]{12})/.exec(id);
  return m ? Number(BigInt(`0x${m[1]}`) >> 12n) : undefined;
}
