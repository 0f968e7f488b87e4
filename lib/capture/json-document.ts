// Sessions some clients keep as one JSON document rewritten whole after every step (a messages
// file, a session file): read once, parsed, checked to be an object. Bytes that are
// not UTF-8 are read as U+FFFD and reported with the line they sit on, never passed silently.
import { isUtf8 } from 'node:buffer';
import { readFileSync, statSync } from 'node:fs';
import type { CaptureOptions, Diagnose, SessionRef } from '../adapter/interface.js';
import { UserError, readError } from '../cli/diagnostics.js';
import type { SessionEmitter } from '../core/emitter.js';
import type { SpEvent } from '../core/event.js';
import { isObject, type Json } from '../core/json.js';
import { cursorFor, emitterFor, sha256Hex, storeNextSeq } from './read-position.js';

/** The 1-based line of a buffer's first bytes that are not UTF-8, or undefined when all are. */
export function firstInvalidUtf8Line(bytes: Buffer): number | undefined {
  if (isUtf8(bytes)) return undefined;
  let line = 1;
  for (let from = 0; from < bytes.length; line += 1) {
    const at = bytes.indexOf(0x0a, from);
    const end = at === -1 ? bytes.length : at;
    if (!isUtf8(bytes.subarray(from, end))) return line;
    from = end + 1;
  }
  return line;
}

/** What a reader reports for a line whose bytes are not UTF-8. */
export const NOT_UTF8 = 'not valid UTF-8: the bad bytes are read as U+FFFD';

/** A file's text and byte count; bytes that are not UTF-8 become U+FFFD and the first line holding some is given. */
export function readUtf8File(path: string): { text: string; bytes: number; badUtf8Line?: number } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw readError(err, path);
  }
  const badUtf8Line = firstInvalidUtf8Line(bytes);
  const text = bytes.toString('utf8');
  return badUtf8Line === undefined ? { text, bytes: bytes.length } : { text, bytes: bytes.length, badUtf8Line };
}

/** The document a file holds; a file that is not one JSON object is unreadable input (a UserError naming `kind`, with its article). */
export function readJsonDocument(path: string, kind: string, onDiagnostic?: Diagnose): { text: string; document: Json } {
  const { text, badUtf8Line } = readUtf8File(path);
  if (badUtf8Line !== undefined) onDiagnostic?.(`${path}:${badUtf8Line}`, NOT_UTF8);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UserError(`not ${kind} (one JSON object): ${(err as Error).message}`, path);
  }
  if (!isObject(value)) throw new UserError(`not ${kind}: the file is not a JSON object`, path);
  return { text, document: value };
}

/**
 * What an incremental capture of a document's item list remembers (in the cursor): whether the
 * session.start went out, how many items it read, and a digest of them. The client rewrites the whole
 * file, so a later capture checks that those items are still there unchanged before it emits the rest.
 */
export interface ItemListState {
  started: boolean;
  count: number;
  digest: string;
  last_ts?: number;
}

/** Turns the items of one document into events; `start` emits the session.start (and sets `started`). */
export interface ItemListMapper {
  start(): SpEvent;
  item(value: unknown, index: number): SpEvent[];
}

export interface ItemList<S extends ItemListState> {
  agent: string;
  /** What one item is called in errors: "message", "exchange", "history item". */
  noun: string;
  items: unknown[];
  mapper: (emitter: SessionEmitter, state: S) => ItemListMapper;
}

function digestOf(items: unknown[]): string {
  return sha256Hex(JSON.stringify(items));
}

/**
 * The events of a document's items from where the cursor left off: the session.start on the first
 * capture, then each item not read before. A file now holding fewer items, or other ones where the
 * cursor had read, is a UserError: capturing it again without the cursor is the way out.
 */
export function* itemListEvents<S extends ItemListState>(ref: SessionRef, options: CaptureOptions, list: ItemList<S>): Generator<SpEvent> {
  const { path } = ref;
  const { items, noun } = list;
  const cursor = cursorFor(list.agent, ref, options.cursor);
  const state = (cursor.state as S | undefined) ?? ({ started: false, count: 0, digest: digestOf([]) } as S);
  cursor.state = state;
  if (items.length < state.count) throw new UserError(`the file holds ${items.length} ${noun}(s), fewer than the ${state.count} an earlier capture read: it was truncated; capture it again without --cursor`, path);
  if (digestOf(items.slice(0, state.count)) !== state.digest) throw new UserError(`${noun}(s) an earlier capture read were rewritten; capture it again without --cursor`, path);
  const emitter = emitterFor(cursor, list.agent, ref.native_id);
  const mapper = list.mapper(emitter, state);
  if (!state.started) yield mapper.start();
  for (let i = state.count; i < items.length; i += 1) yield* mapper.item(items[i], i);
  state.count = items.length;
  state.digest = digestOf(items);
  cursor.sources[path] = { offset: statSync(path).size, line: items.length };
  storeNextSeq(cursor, emitter);
  options.onCursor?.(cursor);
}
