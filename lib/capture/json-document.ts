// Sessions some clients keep as one JSON document rewritten whole after every step (a messages
// file, a session file): read once, parsed, checked to be an object. Bytes that are
// not UTF-8 are read as U+FFFD and reported with the line they sit on, never passed silently.
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import type { Diagnose } from '../adapter/interface.js';
import { UserError, readError } from '../cli/diagnostics.js';
import { isObject, type Json } from '../core/json.js';

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

/** The document a file holds; a file that is not one JSON object is unreadable input (a UserError naming `kind`, with its article). */
export function readJsonDocument(path: string, kind: string, onDiagnostic?: Diagnose): { text: string; document: Json } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw readError(err, path);
  }
  const bad = firstInvalidUtf8Line(bytes);
  if (bad !== undefined) onDiagnostic?.(`${path}:${bad}`, 'not valid UTF-8: the bad bytes are read as U+FFFD');
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UserError(`not ${kind} (one JSON object): ${(err as Error).message}`, path);
  }
  if (!isObject(value)) throw new UserError(`not ${kind}: the file is not a JSON object`, path);
  return { text, document: value };
}
