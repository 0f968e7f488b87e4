// Small helpers over loosely typed JSON (native records, canonical payloads) that every adapter
// needs: one definition here instead of a copy in each adapter, so they cannot drift apart.

/** A JSON object with keys not known in advance. */
export type Json = Record<string, unknown>;

/** Whether `value` is a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a non-empty string, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A finite number, or undefined (NaN and the infinities are not a value a tool call means). */
export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Sets `key` on a copy as an own member. `copy["__proto__"] = v` would set the copy's prototype
 * instead and drop the member, and JSON.parse hands such members over as ordinary data.
 */
export function setMember(copy: Json, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  else copy[key] = value;
}

/** The keys of `source` outside `mapped` (what a mapping did not turn into fields), or undefined when there are none. */
export function rest(source: Json, mapped: Iterable<string>): Json | undefined {
  const skip: ReadonlySet<string> = mapped instanceof Set ? mapped : new Set(mapped);
  let out: Json | undefined;
  for (const key of Object.keys(source)) {
    if (skip.has(key)) continue;
    setMember((out ??= {}), key, source[key]);
  }
  return out;
}

/** A line's text as a JSON object, or the reason it is not one (as diagnostics print it). */
export function parseJsonObject(text: string): { value?: Json; reason?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { reason: `invalid JSON (${(err as Error).message})` };
  }
  if (!isObject(value)) return { reason: 'not a JSON object' };
  // Only a line longer than twice the limit can hold that many brackets: short lines skip the walk.
  if (text.length > 2 * MAX_JSON_DEPTH && nestedDeeperThan(value, MAX_JSON_DEPTH)) {
    return { reason: `nested more than ${MAX_JSON_DEPTH} levels deep` };
  }
  return { value };
}

/**
 * Deeper than this a record is refused: the recursive walks over values (canonical JSON, redaction,
 * schema checks) would overflow the stack. Real records nest a few dozen levels.
 */
export const MAX_JSON_DEPTH = 1000;

/** Whether `value` nests arrays and objects more than `limit` levels deep (recursion bounded by `limit`). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestedDeeperThan(item, limit - 1)) return true;
    return false;
  }
  for (const key in value) if (nestedDeeperThan((value as Json)[key], limit - 1)) return true;
  return false;
}

/** A line's text as a JSON object; undefined for a blank line, invalid JSON or another JSON value. */
export function jsonObject(text: string): Json | undefined {
  if (text.trim() === '') return undefined;
  return parseJsonObject(text).value;
}
