// JSON text inside a string field (a native `origin.raw` line, Codex tool arguments kept as one
// JSON string, a tool result that is a JSON document): secrets are found in the DECODED string
// literals and replaced in the RAW text, so everything outside the replaced spans stays byte for
// byte what it was and the text still parses.

/** One string literal of a JSON text: `start`/`end` bound its content, without the quotes. */
export interface Literal {
  start: number;
  end: number;
  /** The member name this value belongs to (inherited by array elements); undefined at the top. */
  key: string | undefined;
  /**
   * JSON Pointer of the value, built only when asked for (findings need it, nothing else does).
   * Valid only until the generator resumes: it reads the live container stack.
   */
  pointer: () => string;
  /** A member name (yielded only when asked for); `key` is then the name itself. */
  name?: boolean;
}

interface Frame {
  array: boolean;
  key: string | undefined;
  index: number;
}

/**
 * True when `text` is a JSON object or array. The cheap shape test runs first; JSON.parse only
 * for text that opens and closes like one.
 */
export function isJsonContainer(text: string): boolean {
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  const open = text.charCodeAt(i);
  if (open !== 0x7b && open !== 0x5b) return false;
  let j = text.length - 1;
  while (j > i && isSpace(text.charCodeAt(j))) j--;
  const close = text.charCodeAt(j);
  if (!((open === 0x7b && close === 0x7d) || (open === 0x5b && close === 0x5d))) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Index of the closing quote of the literal whose content starts at `from`. */
function closingQuote(text: string, from: number): number {
  let quote = text.indexOf('"', from);
  let slash = text.indexOf('\\', from);
  while (slash !== -1 && slash < quote) {
    // An escape: skip the escaped character, then look again (re-searching only what moved behind us).
    const next = slash + 2;
    if (quote < next) quote = text.indexOf('"', next);
    slash = text.indexOf('\\', next);
    if (quote === -1) return -1;
  }
  return quote;
}

const pointerEscape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The value literals of a VALID JSON text (callers check with isJsonContainer), with the member
 * name each belongs to; with `names`, the member names too (flagged `name`), before their value.
 */
export function* valueLiterals(text: string, names = false): Generator<Literal> {
  const stack: Frame[] = [];
  let i = 0;
  const n = text.length;
  const pointer = () => stack.map((f) => `/${f.array ? String(f.index) : pointerEscape(f.key ?? '')}`).join('');
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i + 1;
      const end = closingQuote(text, start);
      if (end === -1) return;
      let k = end + 1;
      while (k < n && isSpace(text.charCodeAt(k))) k++;
      const top = stack[stack.length - 1];
      if (text.charCodeAt(k) === 0x3a && top && !top.array) {
        top.key = decodeLiteral(text, start, end).value;
        if (names) yield { start, end, key: top.key, pointer, name: true };
        i = k + 1;
        continue;
      }
      yield { start, end, key: top ? top.key : undefined, pointer };
      i = end + 1;
      continue;
    }
    if (c === 0x7b) stack.push({ array: false, key: undefined, index: 0 });
    else if (c === 0x5b) stack.push({ array: true, key: stack[stack.length - 1]?.key, index: 0 });
    else if (c === 0x7d || c === 0x5d) stack.pop();
    else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top?.array) top.index++;
    }
    i++;
  }
}

export interface Decoded {
  value: string;
  /** map[k] = raw offset of decoded code unit k; map[value.length] = end. Absent: no escapes (offset = start + k). */
  map?: Int32Array;
}

/** Decodes the content of a JSON string literal, keeping where each decoded unit came from. */
export function decodeLiteral(text: string, start: number, end: number): Decoded {
  const slash = text.indexOf('\\', start);
  if (slash === -1 || slash >= end) return { value: text.slice(start, end) };
  const map = new Int32Array(end - start + 1);
  let out = '';
  let k = 0;
  let i = start;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c !== 0x5c) {
      out += text[i];
      map[k++] = i;
      i++;
      continue;
    }
    const e = text[i + 1];
    let ch: string;
    let len = 2;
    switch (e) {
      case 'n': ch = '\n'; break;
      case 't': ch = '\t'; break;
      case 'r': ch = '\r'; break;
      case 'b': ch = '\b'; break;
      case 'f': ch = '\f'; break;
      case 'u': ch = String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)); len = 6; break;
      default: ch = e; // \" \\ \/
    }
    out += ch;
    map[k++] = i;
    i += len;
  }
  map[k] = end;
  return { value: out, map: map.subarray(0, k + 1) };
}

/** Raw offset (in the JSON text) of decoded offset `k` of a literal. */
export function rawOffset(literal: { start: number }, decoded: Decoded, k: number): number {
  return decoded.map ? decoded.map[k] : literal.start + k;
}

/** How `value` is spelled `depth` JSON-string levels down (0: as is). */
export function escapeDepth(value: string, depth: number): string {
  let s = value;
  for (let d = 0; d < depth; d++) s = JSON.stringify(s).slice(1, -1);
  return s;
}
