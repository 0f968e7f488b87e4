// Contract helpers for sessions kept as one JSON document whose list of items the client rewrites
// whole after every step (Cline's messages, Continue's history, Auggie's chatHistory): the copy that
// gains an item, and the copy that grows item by item (lib/capture/json-document.ts itemListEvents).
import { readFileSync, writeFileSync } from 'node:fs';
import type { Grower, Injected } from '../contract/testAdapter.js';
import type { Json } from '../../lib/core/json.js';

function listOf(doc: Json, key: string): unknown[] {
  const list = doc[key];
  if (!Array.isArray(list)) throw new Error(`the document has no "${key}" list`);
  return list;
}

/** `item` inserted after the first item of the copy at `path` (record 2). */
export function insertItem(path: string, key: string, item: unknown): Injected {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Json;
  listOf(doc, key).splice(1, 0, item);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return { path, marker: '', line: 2 };
}

/**
 * The copy at `path` rewritten from `fixture` with an empty list, then grown one item at a time;
 * `rewrite` changes the last item already read, as a client rewriting its history would.
 */
export function growItems(fixture: string, path: string, key: string, rewrite: (item: Json) => void): Grower {
  const doc = JSON.parse(readFileSync(fixture, 'utf8')) as Json;
  const all = listOf(doc, key);
  let count = 0;
  const write = (items: unknown[]): void => writeFileSync(path, JSON.stringify({ ...doc, [key]: items }, null, 2));
  write([]);
  return {
    path,
    count: all.length,
    add(i) {
      count = i + 1;
      write(all.slice(0, count));
      return { from: count, to: count };
    },
    truncate() {
      count -= 1;
      write(all.slice(0, count));
    },
    rewrite() {
      const changed = structuredClone(all.slice(0, count + 1)) as Json[];
      rewrite(changed[count]);
      write(changed);
    },
  };
}
