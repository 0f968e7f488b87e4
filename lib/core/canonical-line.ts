// Hashing a canonical line as it is. sp writes every event in its canonical (JCS, RFC 8785) form,
// so the chain body of a line it wrote (docs/design.md §2: JCS of the event without `checksum`) is
// the line's own text with the top-level `checksum` member cut out. Checking that a line is
// canonical is one pass over its text, cheaper than parse → sort → stringify, and most of it runs
// in native indexOf (string contents). Any doubt (whitespace, an escape JSON.stringify would not
// write, a number in another spelling, keys out of order or repeated) answers "not canonical",
// and the caller canonicalizes the parsed event as before: the hash is the same either way.
import { MAX_JSON_DEPTH } from './json.js';

/** Where the top-level checksum member sits in a canonical line. */
export interface CanonicalLine {
  /** The chain body: the text without the checksum member and the comma that joined it. */
  body: string;
  /** The member's span in the text: `text.slice(memberStart, memberEnd)` is `"checksum":"…"`. */
  memberStart: number;
  memberEnd: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * The chain body of `text` when `text` is exactly the canonical JSON of a JSON object (so its hash
 * equals the hash of the parsed event's canonical form); undefined when it is not, or when its
 * top-level `checksum` is not a string. `text` is one line without its line ending.
 */
export function canonicalLine(text: string): CanonicalLine | undefined {
  if (text.charCodeAt(0) !== OPEN_OBJECT) return undefined;
  if (!plainText(text)) return undefined;
  const scan = new Scan(text);
  const end = scan.object(0, 1);
  if (end !== text.length) return undefined;
  if (scan.memberStart < 0) return { body: text, memberStart: -1, memberEnd: -1 };
  let from = scan.memberStart;
  let to = scan.memberEnd;
  if (text.charCodeAt(from - 1) === COMMA) from -= 1;
  else if (text.charCodeAt(to) === COMMA) to += 1;
  return {
    body: text.slice(0, from) + text.slice(to),
    memberStart: scan.memberStart,
    memberEnd: scan.memberEnd,
  };
}

/** Whether `text` is exactly the canonical (JCS) form of the JSON value it holds (objects only). */
export function isCanonicalLine(text: string): boolean {
  if (text.charCodeAt(0) !== OPEN_OBJECT || !plainText(text)) return false;
  const scan = new Scan(text, true);
  return scan.object(0, 1) === text.length;
}

const CONTROL = /[\u0000-\u001f]/;

/**
 * Characters JSON.stringify never writes raw: control characters (invalid JSON inside a string,
 * whitespace outside one) and lone surrogates (escaped). Checked natively over the whole line, so
 * the scan below can skip over string contents with indexOf.
 */
function plainText(text: string): boolean {
  return !CONTROL.test(text) && (text as string & { isWellFormed(): boolean }).isWellFormed(); // Node ≥ 20
}

/** One pass over a line; each method returns the index after what it read, or -1 (not canonical). */
class Scan {
  /** The next backslash at or after the last search, or text.length when there is none. */
  private nextBackslash = -1;
  /** The top-level checksum member (its key's opening quote, and the index after its value). */
  memberStart = -1;
  memberEnd = -1;
  /** Set by string(): whether the string just read held an escape. */
  private escaped = false;
  /** Set by escape(): the string holds a surrogate escape and needs the slow check. */
  private slow = false;

  constructor(
    private readonly s: string,
    /** Accept a top-level `checksum` of any type (isCanonicalLine). */
    private readonly anyChecksum = false,
  ) {}

  object(i: number, depth: number): number {
    const s = this.s;
    if (depth > MAX_JSON_DEPTH) return -1;
    i += 1;
    if (s.charCodeAt(i) === CLOSE_OBJECT) return i + 1;
    let prevStart = -1;
    let prevEnd = -1;
    let prevEscaped = false;
    for (;;) {
      if (s.charCodeAt(i) !== QUOTE) return -1;
      const keyEnd = this.string(i);
      if (keyEnd < 0) return -1;
      const keyEscaped = this.escaped;
      // Members in strictly increasing key order (UTF-16 code units): also rules out a repeated key.
      if (prevStart >= 0 && compareKeys(s, prevStart, prevEnd, prevEscaped, i, keyEnd, keyEscaped) >= 0) return -1;
      if (s.charCodeAt(keyEnd) !== COLON) return -1;
      const valueStart = keyEnd + 1;
      const valueEnd = this.value(valueStart, depth);
      if (valueEnd < 0) return -1;
      if (depth === 1 && keyEnd - i === 10 && !keyEscaped && s.startsWith('"checksum"', i)) {
        if (s.charCodeAt(valueStart) !== QUOTE && !this.anyChecksum) return -1;
        this.memberStart = i;
        this.memberEnd = valueEnd;
      }
      prevStart = i;
      prevEnd = keyEnd;
      prevEscaped = keyEscaped;
      const c = s.charCodeAt(valueEnd);
      if (c === CLOSE_OBJECT) return valueEnd + 1;
      if (c !== COMMA) return -1;
      i = valueEnd + 1;
    }
  }

  private array(i: number, depth: number): number {
    const s = this.s;
    if (depth > MAX_JSON_DEPTH) return -1;
    i += 1;
    if (s.charCodeAt(i) === CLOSE_ARRAY) return i + 1;
    for (;;) {
      const end = this.value(i, depth);
      if (end < 0) return -1;
      const c = s.charCodeAt(end);
      if (c === CLOSE_ARRAY) return end + 1;
      if (c !== COMMA) return -1;
      i = end + 1;
    }
  }

  private value(i: number, depth: number): number {
    const s = this.s;
    const c = s.charCodeAt(i);
    if (c === QUOTE) return this.string(i);
    if (c === OPEN_OBJECT) return this.object(i, depth + 1);
    if (c === OPEN_ARRAY) return this.array(i, depth + 1);
    if (c === 0x74) return s.startsWith('true', i) ? i + 4 : -1;
    if (c === 0x66) return s.startsWith('false', i) ? i + 5 : -1;
    if (c === 0x6e) return s.startsWith('null', i) ? i + 4 : -1;
    return this.number(i);
  }

  /** A number exactly as JSON.stringify writes it (no 1e2, 1.0, -0, +1, leading zeros). */
  private number(i: number): number {
    const s = this.s;
    let j = i;
    let simple = true; // an integer without sign problems: -?[1-9][0-9]* or 0
    for (;;) {
      const c = s.charCodeAt(j);
      if (c >= 0x30 && c <= 0x39) j++;
      else if (c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) {
        if (!(c === 0x2d && j === i)) simple = false;
        j++;
      } else break;
    }
    if (j === i) return -1;
    const digitsAt = s.charCodeAt(i) === 0x2d ? i + 1 : i;
    // Up to 15 digits an integer is exact in a double and JSON.stringify writes it as it is.
    if (simple && j - digitsAt <= 15 && j > digitsAt) {
      const first = s.charCodeAt(digitsAt);
      if (first !== 0x30) return j;
      if (j - digitsAt === 1 && digitsAt === i) return j; // "0" (but not "-0", nor "00")
      return -1;
    }
    const token = s.slice(i, j);
    const n = Number(token);
    return Number.isFinite(n) && JSON.stringify(n) === token ? j : -1;
  }

  /** A string as JSON.stringify writes it; sets `escaped`. */
  private string(i: number): number {
    const s = this.s;
    let j = i + 1;
    this.escaped = false;
    this.slow = false;
    for (;;) {
      if (this.nextBackslash < j) {
        const b = s.indexOf('\\', j);
        this.nextBackslash = b < 0 ? s.length : b;
      }
      const q = s.indexOf('"', j);
      if (q < 0) return -1;
      if (this.nextBackslash > q) {
        if (!this.slow) return q + 1;
        const token = s.slice(i, q + 1);
        try {
          return JSON.stringify(JSON.parse(token)) === token ? q + 1 : -1;
        } catch {
          return -1;
        }
      }
      this.escaped = true;
      j = this.escape(this.nextBackslash);
      if (j < 0) return -1;
    }
  }

  /** One escape at `k` (a backslash): only those JSON.stringify writes. */
  private escape(k: number): number {
    const s = this.s;
    const c = s.charCodeAt(k + 1);
    // \" \\ \b \f \n \r \t
    if (c === QUOTE || c === BACKSLASH || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) return k + 2;
    if (c !== 0x75) return -1; // \/ and anything else
    const hex = s.slice(k + 2, k + 6);
    if (!/^[0-9a-f]{4}$/.test(hex)) return -1; // JSON.stringify writes lowercase hex
    const code = parseInt(hex, 16);
    if (code < 0x20) return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? -1 : k + 6;
    if (code < 0xd800 || code > 0xdfff) return -1;
    // A surrogate is escaped only when it is lone: whether it is depends on its neighbours, so the
    // whole string is checked the slow way (rare: real text holds surrogates as raw pairs).
    this.slow = true;
    return k + 6;
  }
}

/**
 * Compares two keys (spans including their quotes) by UTF-16 code units, as JCS sorts. Keys with
 * escapes are decoded first; others compare in place without a copy.
 */
function compareKeys(s: string, a0: number, a1: number, aEsc: boolean, b0: number, b1: number, bEsc: boolean): number {
  if (aEsc || bEsc) {
    const a = JSON.parse(s.slice(a0, a1)) as string;
    const b = JSON.parse(s.slice(b0, b1)) as string;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const la = a1 - a0 - 2;
  const lb = b1 - b0 - 2;
  const n = la < lb ? la : lb;
  for (let k = 1; k <= n; k++) {
    const d = s.charCodeAt(a0 + k) - s.charCodeAt(b0 + k);
    if (d !== 0) return d;
  }
  return la - lb;
}
