// The manifest's `compiled_context`: one entry per handoff compiled from the session (a
// context.compiled event stored by ingest or pull), so the signed manifest says which handoffs
// were made, for whom, at what size, and the hash of the exact text — without reading the log.
import { createHash } from 'node:crypto';
import type { SpEvent } from '../core/event.js';
import { isObject } from '../core/json.js';

export interface CompiledContextEntry {
  /** The stored seq of the context.compiled event. */
  seq: number;
  target: string;
  format?: string;
  tokenizer?: string;
  budget: number | null;
  tokens: number;
  /** sha256 of the rendered text (payload.text, UTF-8). */
  sha256: string;
  /** The event's source time. */
  ts: number | null;
  /** When this store took it in. */
  recorded_at: number;
}

/** The manifest keeps the latest this many (a manifest stays a few KB). */
export const COMPILED_CONTEXT_LIMIT = 100;

const SHORT = 200;
const shortString = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= SHORT;
const count = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** The entry for a stored context.compiled event; undefined for any other event or a malformed one. */
export function compiledContextEntry(event: SpEvent, recordedAt: number): CompiledContextEntry | undefined {
  if (event.type !== 'context.compiled' || !isObject(event.payload)) return undefined;
  const p = event.payload;
  if (!shortString(p.target) || !count(p.tokens) || typeof p.text !== 'string') return undefined;
  const entry: CompiledContextEntry = {
    seq: event.seq,
    target: p.target,
    budget: count(p.budget) ? p.budget : null,
    tokens: p.tokens,
    sha256: 'sha256:' + createHash('sha256').update(p.text, 'utf8').digest('hex'),
    ts: typeof event.ts === 'number' && Number.isFinite(event.ts) ? event.ts : null,
    recorded_at: recordedAt,
  };
  if (shortString(p.format)) entry.format = p.format;
  if (shortString(p.tokenizer)) entry.tokenizer = p.tokenizer;
  return entry;
}

/** The previous entries (when well-formed) followed by the new ones, the latest LIMIT kept. */
export function mergeCompiledContext(previous: unknown, added: CompiledContextEntry[]): CompiledContextEntry[] {
  const kept = Array.isArray(previous) ? previous.filter((e): e is CompiledContextEntry => isObject(e) && count(e.seq) && shortString(e.target) && count(e.tokens) && typeof e.sha256 === 'string') : [];
  return [...kept, ...added].slice(-COMPILED_CONTEXT_LIMIT);
}
