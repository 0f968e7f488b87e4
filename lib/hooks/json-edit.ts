// Structural edits of a JSON settings file that keep every other byte: the text is parsed into
// spans (where each value, member and element starts and ends), and an edit inserts or removes
// text at those offsets. Reformatting the whole file (JSON.stringify) would rewrite the user's
// indentation, key order and number spellings, so install would not be invisible.

export type JsonNode =
  | { kind: 'object'; start: number; end: number; members: JsonMember[] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'scalar'; start: number; end: number; value: unknown };

export interface JsonMember {
  key: string;
  /** Offset of the key's opening quote. */
  start: number;
  value: JsonNode;
}

export class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** Parses `text` (strict JSON, as the clients read their settings) into spans; throws JsonSyntaxError. */
export function parseSpans(text: string): JsonNode {
  let i = 0;
  const fail = (what: string): never => {
    throw new JsonSyntaxError(i, what);
  };
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i += 1;
  };
  const string = (): string => {
    const start = i;
    i += 1;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i += 1;
      else if (text.charCodeAt(i) < 0x20) fail('a control character in a string');
      i += 1;
    }
    if (i >= text.length) fail('an unterminated string');
    i += 1;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail('a bad escape in a string');
    }
  };
  const value = (depth: number): JsonNode => {
    if (depth > 64) fail('nesting deeper than 64 levels');
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i += 1;
      const members: JsonMember[] = [];
      ws();
      if (text[i] === '}') {
        i += 1;
        return { kind: 'object', start, end: i, members };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('a member name (a string) expected');
        const keyStart = i;
        const key = string();
        ws();
        if (text[i] !== ':') fail('":" expected');
        i += 1;
        members.push({ key, start: keyStart, value: value(depth + 1) });
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        if (text[i] === '}') {
          i += 1;
          return { kind: 'object', start, end: i, members };
        }
        fail('"," or "}" expected');
      }
    }
    if (c === '[') {
      i += 1;
      const items: JsonNode[] = [];
      ws();
      if (text[i] === ']') {
        i += 1;
        return { kind: 'array', start, end: i, items };
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i += 1;
          continue;
        }
        if (text[i] === ']') {
          i += 1;
          return { kind: 'array', start, end: i, items };
        }
        fail('"," or "]" expected');
      }
    }
    if (c === '"') {
      const v = string();
      return { kind: 'scalar', start, end: i, value: v };
    }
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) return fail('a JSON value expected');
    i += m[0].length;
    return { kind: 'scalar', start, end: i, value: JSON.parse(m[0]) };
  };
  // A byte-order mark is allowed before the document (editors write one).
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  const root = value(0);
  ws();
  if (i !== text.length) fail('text after the JSON document');
  return root;
}

/** The plain value of a span (JSON.parse of its text). */
export function valueOf(text: string, node: JsonNode): unknown {
  return JSON.parse(text.slice(node.start, node.end));
}

export function member(node: JsonNode | undefined, key: string): JsonNode | undefined {
  if (node?.kind !== 'object') return undefined;
  // JSON.parse keeps the last of duplicate names; so do the clients.
  for (let k = node.members.length - 1; k >= 0; k -= 1) if (node.members[k].key === key) return node.members[k].value;
  return undefined;
}

/** The indentation of the line `offset` is on, and one step deeper (guessed from the file: 2 spaces by default). */
function indentAt(text: string, offset: number): { base: string; step: string } {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const base = /^[ \t]*/.exec(text.slice(lineStart))![0];
  const step = /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
  return { base, step: step.startsWith('\t') ? '\t' : step.length > 8 ? '  ' : step };
}

/** `value` rendered at the indentation level that starts at `base`, multi-line in the file's step. */
function render(value: unknown, base: string, step: string): string {
  return JSON.stringify(value, null, step).replace(/\n/g, '\n' + base);
}

/**
 * Inserts a new member `"key": value` into the object `node` (after its last member), indented like
 * the file. Returns the new text.
 */
export function insertMember(text: string, node: Extract<JsonNode, { kind: 'object' }>, key: string, value: unknown): string {
  const closing = node.end - 1;
  const { base, step } = indentAt(text, closing);
  const inner = base + step;
  const entry = `${JSON.stringify(key)}: ${render(value, inner, step)}`;
  if (node.members.length === 0) return text.slice(0, node.start + 1) + `\n${inner}${entry}\n${base}` + text.slice(closing);
  const last = node.members[node.members.length - 1].value.end;
  return text.slice(0, last) + `,\n${inner}${entry}` + text.slice(last);
}

/** Appends `value` as the last element of the array `node`. Returns the new text. */
export function appendItem(text: string, node: Extract<JsonNode, { kind: 'array' }>, value: unknown): string {
  const closing = node.end - 1;
  const { base, step } = indentAt(text, closing);
  const inner = base + step;
  if (node.items.length === 0) return text.slice(0, node.start + 1) + `\n${inner}${render(value, inner, step)}\n${base}` + text.slice(closing);
  const last = node.items[node.items.length - 1].end;
  return text.slice(0, last) + `,\n${inner}${render(value, inner, step)}` + text.slice(last);
}

/**
 * Removes the elements at `indexes` from the array `node` with their separating commas and the
 * whitespace that led up to them; the rest of the text stays as it was. Returns the new text.
 */
export function removeItems(text: string, node: Extract<JsonNode, { kind: 'array' }>, indexes: Set<number>): string {
  const keep = node.items.filter((_, k) => !indexes.has(k));
  if (keep.length === node.items.length) return text;
  if (keep.length === 0) return text.slice(0, node.start) + '[]' + text.slice(node.end);
  // A leading run of removed elements goes up to the first kept one; every later removed element
  // goes with the separator before it.
  const firstKept = node.items.findIndex((_, k) => !indexes.has(k));
  const cuts: Array<[number, number]> = [];
  if (firstKept > 0) cuts.push([node.items[0].start, node.items[firstKept].start]);
  for (let k = firstKept + 1; k < node.items.length; k += 1) if (indexes.has(k)) cuts.push([node.items[k - 1].end, node.items[k].end]);
  let out = text;
  for (const [from, to] of cuts.sort((a, b) => b[0] - a[0])) out = out.slice(0, from) + out.slice(to);
  return out;
}
