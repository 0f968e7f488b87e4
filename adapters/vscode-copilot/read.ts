// Reading one chat session file as hostile input (docs/formats/vscode-copilot.md §2–§3). A flat
// `.json` file is the session object; a `.jsonl` file is a mutation log whose lines are replayed in
// order (kind 0 the whole object, 1 set a property, 2 push onto or cut an array, 3 delete). A
// symbolic link is never followed, a file over the size limit is refused before it is read, and a
// bad line or an entry that would reach outside the object is reported as `file:line` and kept as
// a note while the rest of the log is replayed.
import { lstatSync, readFileSync } from 'node:fs';
import type { Diagnose } from '../../lib/adapter/interface.js';
import { UserError, errorCode, excerpt } from '../../lib/cli/diagnostics.js';
import { isObject, parseJsonObject, type Json } from '../../lib/core/json.js';

export const MAX_BYTES_ENV = 'SP_VSCODE_COPILOT_MAX_BYTES';
/** The editor holds a whole session in memory too; past this a file is refused, not parsed. */
const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

/** What the log said besides the session: bad lines, entries of kinds sp does not know. */
export interface Note {
  line: number;
  key: string;
  payload: Json;
}

export interface SessionFile {
  /** The session object, or undefined when the file held none. */
  session?: Json;
  format: 'json' | 'jsonl';
  notes: Note[];
  /** Log lines replayed (1 for a flat file). */
  entries: number;
}

export function maxBytes(): number {
  const value = Number(process.env[MAX_BYTES_ENV]);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_MAX_BYTES;
}

/** The file's text, refusing a link, a non-file and a file over the limit (exit 2, a clear message). */
export function readBounded(path: string): string {
  let stat;
  try {
    stat = lstatSync(path);
  } catch (err) {
    throw new UserError(`cannot read: ${errorCode(err)}`, path);
  }
  if (stat.isSymbolicLink()) throw new UserError('a symbolic link: not followed (a chat session must be a plain file in its chatSessions folder)', path);
  if (!stat.isFile()) throw new UserError('not a plain file', path);
  const limit = maxBytes();
  if (stat.size > limit) throw new UserError(`is ${stat.size} bytes, over the ${limit}-byte limit for one chat session (${MAX_BYTES_ENV} raises it)`, path);
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read: ${errorCode(err)}`, path);
  }
}

/** The 1-based line of character `at` in `text`. */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

export function readSessionFile(path: string, onDiagnostic?: Diagnose): SessionFile {
  const text = readBounded(path);
  return path.endsWith('.jsonl') ? replayLog(path, text, onDiagnostic) : readFlat(path, text, onDiagnostic);
}

function readFlat(path: string, text: string, onDiagnostic?: Diagnose): SessionFile {
  const { value, reason } = parseJsonObject(text);
  if (value) return { session: value, format: 'json', notes: [], entries: 1 };
  const at = /position (\d+)/.exec(reason ?? '');
  const line = lineAt(text, at ? Number(at[1]) : text.length);
  onDiagnostic?.(`${path}:${line}`, `${reason}: the session cannot be read (${excerpt(text.slice(-120), 120)})`);
  return { format: 'json', notes: [{ line, key: 'unparseable', payload: { error: reason, text: text.slice(0, 4096) } }], entries: 0 };
}

/** Keys that would reach an object's prototype rather than its data. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** A push or set may extend an array by at most this much past its end (no giant sparse arrays). */
const MAX_ARRAY_GROWTH = 1;

type Container = Json | unknown[];

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** Whether `key` may address a slot of `container` (an own property, or an index at most one past the end). */
function validKey(container: Container, key: unknown, creating: boolean): key is string | number {
  if (Array.isArray(container)) return typeof key === 'number' && Number.isInteger(key) && key >= 0 && key < container.length + (creating ? MAX_ARRAY_GROWTH : 0);
  if (typeof key !== 'string' || FORBIDDEN_KEYS.has(key)) return false;
  return creating || Object.prototype.hasOwnProperty.call(container, key);
}

/** The container a path's last key lives in, or why the path leads nowhere. */
function parentOf(state: unknown, path: unknown): { parent: Container; key: string | number } | { problem: string } {
  if (!Array.isArray(path) || path.length === 0) return { problem: 'no property path' };
  let current: unknown = state;
  for (let i = 0; i < path.length - 1; i += 1) {
    if (!isContainer(current) || !validKey(current, path[i], false)) return { problem: `path ${JSON.stringify(path).slice(0, 200)} leads outside the session` };
    current = (current as Record<string | number, unknown>)[path[i] as string | number];
  }
  const key = path[path.length - 1];
  if (!isContainer(current) || !validKey(current, key, true)) return { problem: `path ${JSON.stringify(path).slice(0, 200)} leads outside the session` };
  return { parent: current, key };
}

/** Applies one log entry to `state`; returns the new state, or a problem (the state is left as it was). */
function applyEntry(state: Json | undefined, entry: Json): { state?: Json; problem?: string; unknown?: true } {
  const kind = entry.kind;
  if (kind === 0) return isObject(entry.v) ? { state: entry.v } : { problem: 'an initial entry whose value is not an object' };
  if (kind !== 1 && kind !== 2 && kind !== 3) return { unknown: true };
  if (!state) return { problem: 'a change before the initial entry' };
  const target = parentOf(state, entry.k);
  if ('problem' in target) return { problem: target.problem };
  const slot = target.parent as Record<string | number, unknown>;
  if (kind === 1) slot[target.key] = entry.v;
  else if (kind === 3) {
    if (Array.isArray(target.parent)) slot[target.key] = undefined;
    else delete slot[target.key];
  } else {
    const existing = slot[target.key];
    if (existing !== undefined && !Array.isArray(existing)) return { problem: 'a push onto something that is not an array' };
    const list = (existing as unknown[] | undefined) ?? [];
    if (entry.i !== undefined) {
      if (typeof entry.i !== 'number' || !Number.isInteger(entry.i) || entry.i < 0 || entry.i > list.length) return { problem: `a cut at ${JSON.stringify(entry.i)} outside the array` };
      list.length = entry.i;
    }
    if (entry.v !== undefined && !Array.isArray(entry.v)) return { problem: 'a push whose values are not a list' };
    for (const item of (entry.v as unknown[] | undefined) ?? []) list.push(item);
    slot[target.key] = list;
  }
  return { state };
}

function replayLog(path: string, text: string, onDiagnostic?: Diagnose): SessionFile {
  const notes: Note[] = [];
  let state: Json | undefined;
  let entries = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const raw = lines[i];
    if (raw.trim() === '') continue;
    const line = i + 1;
    const { value, reason } = parseJsonObject(raw);
    if (!value) {
      onDiagnostic?.(`${path}:${line}`, `${reason}: the line is kept as meta and the rest of the log replayed (${excerpt(raw, 200)})`);
      notes.push({ line, key: 'unparseable', payload: { error: reason, text: raw.slice(0, 4096) } });
      continue;
    }
    const applied = applyEntry(state, value);
    if (applied.unknown) notes.push({ line, key: 'log-entry', payload: { raw: value } });
    else if (applied.problem) {
      onDiagnostic?.(`${path}:${line}`, `${applied.problem}: the entry is kept as meta and not applied`);
      notes.push({ line, key: 'bad-entry', payload: { error: applied.problem, raw: value } });
    } else {
      state = applied.state;
      entries += 1;
    }
  }
  if (!state && notes.length === 0) onDiagnostic?.(`${path}:1`, 'an empty log: no initial entry');
  return { session: state, format: 'jsonl', notes, entries };
}
