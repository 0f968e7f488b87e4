// A JSON document written as it is made: a writer whose format is one pretty-printed document with
// one long list (a session's messages) gives the fields before the list, the list item by item, and
// the fields after it, and gets the bytes of `JSON.stringify(document, null, indent)` in chunks for
// an atomic file write (lib/fs/atomic.ts), so no more than one item is ever held as text.
// Byte-identical to the one-shot form: JSON text holds no raw newline inside a string, so an item
// printed on its own is moved to its depth by indenting every line break.

/** Chunks are yielded at about this many characters (few writes, little held). */
const CHUNK = 1 << 16;

/** A document's fields around its list, in the order JSON.stringify would print them. */
export type JsonFields = Record<string, unknown>;

/**
 * The chunks of `JSON.stringify({...head, [listKey]: [...items], ...tail()}, null, indent)`. `tail`
 * is asked for after the last item (fields only known once the list is written). Fields whose
 * value is undefined are left out, as JSON.stringify leaves them out; `listKey` must not be a key
 * of `head` or of the tail.
 */
export function* jsonDocumentChunks(head: JsonFields, listKey: string, items: Iterable<unknown>, tail: () => JsonFields = () => ({}), indent = 2): Generator<string> {
  const pad = ' '.repeat(indent);
  const field = (key: string, value: unknown): string => `${pad}${JSON.stringify(key)}: ${JSON.stringify(value, null, indent).replace(/\n/g, `\n${pad}`)}`;
  const fieldsOf = (fields: JsonFields): string[] =>
    Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => field(key, value));

  let buffer = '{\n';
  for (const text of fieldsOf(head)) buffer += `${text},\n`;
  buffer += `${pad}${JSON.stringify(listKey)}: [`;
  const itemPad = `${pad}${pad}`;
  let count = 0;
  for (const item of items) {
    // As in a list JSON.stringify prints what has no JSON form (undefined, a function) as null.
    const text = JSON.stringify(item, null, indent) ?? 'null';
    buffer += `${count === 0 ? '\n' : ',\n'}${itemPad}${text.replace(/\n/g, `\n${itemPad}`)}`;
    count += 1;
    if (buffer.length >= CHUNK) {
      yield buffer;
      buffer = '';
    }
  }
  buffer += count === 0 ? ']' : `\n${pad}]`;
  for (const text of fieldsOf(tail())) buffer += `,\n${text}`;
  buffer += '\n}';
  yield buffer;
}

/** `chunks` as they go by, also joined into one string when `keep` (a dry run's preview of the whole document). */
export function* keepingText(chunks: Iterable<string>, keep: boolean, into: { text: string }): Generator<string> {
  for (const chunk of chunks) {
    if (keep) into.text += chunk;
    yield chunk;
  }
}
