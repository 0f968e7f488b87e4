// RFC 8785 JSON Canonicalization Scheme (JCS).
//
// JCS is JSON.stringify's output for numbers and strings (ECMAScript Number-to-String and the
// JSON string escapes), with object members sorted by their UTF-16 code units. So when every
// object in a value already has sorted keys — which is how sp writes its own lines — the
// canonical form is exactly JSON.stringify(value), and we take that native fast path.

import { setMember } from './json.js';

export class CanonicalizeError extends Error {}

/** The canonical JSON text of `value` (RFC 8785). Throws on values JSON cannot hold. */
export function canonicalize(value: unknown): string {
  return isSortedDeep(value) ? JSON.stringify(value) : serialize(value);
}

/** True when every object inside `value` has its keys in JCS order and holds only JSON values. */
function isSortedDeep(value: unknown): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalizeError(`cannot canonicalize the number ${value}`);
      return true;
    case 'object': {
      if (Array.isArray(value)) {
        for (const item of value) if (!isSortedDeep(item)) return false;
        return true;
      }
      if (!isPlainObject(value)) return false;
      let previous: string | undefined;
      for (const key in value) {
        if (previous !== undefined && !(previous < key)) return false;
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined) return false; // JSON.stringify would drop it silently; serialize decides
        if (!isSortedDeep(member)) return false;
        previous = key;
      }
      return true;
    }
    default:
      return false;
  }
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function serialize(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalizeError(`cannot canonicalize the number ${value}`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        // Like JSON.stringify: undefined (or a function) inside an array becomes null.
        return '[' + value.map((item) => (item === undefined || typeof item === 'function' ? 'null' : serialize(item))).join(',') + ']';
      }
      const maybeJson = value as { toJSON?: () => unknown };
      if (!isPlainObject(value) && typeof maybeJson.toJSON === 'function') return serialize(maybeJson.toJSON());
      const record = value as Record<string, unknown>;
      const parts: string[] = [];
      // Default sort compares UTF-16 code units, which is what RFC 8785 §3.2.3 asks for.
      for (const key of Object.keys(record).sort()) {
        const member = record[key];
        if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
        parts.push(JSON.stringify(key) + ':' + serialize(member));
      }
      return '{' + parts.join(',') + '}';
    }
    case 'bigint':
      throw new CanonicalizeError('cannot canonicalize a bigint');
    default:
      throw new CanonicalizeError(`cannot canonicalize a ${typeof value}`);
  }
}

/**
 * Whether `copy` lists its keys in the order of `sorted` (its keys in JCS order, and perhaps some it
 * skipped). An object lists array-index keys ("9", "10") first, in numeric order, however they were
 * inserted: `{"10":…,"9":…}` or `{"!":…,"1":…}` cannot be laid out in JCS order, so JSON.stringify
 * of it is not canonical. Asked only of objects with a key starting with a digit.
 */
function listsInOrder(copy: Record<string, unknown>, sorted: readonly string[]): boolean {
  const listed = Object.keys(copy);
  let i = 0;
  for (const key of sorted) {
    if (Object.prototype.hasOwnProperty.call(copy, key) && listed[i++] !== key) return false;
  }
  return true;
}

const startsWithDigit = (key: string): boolean => key.charCodeAt(0) >= 48 && key.charCodeAt(0) <= 57;

/**
 * A deep copy of `value` whose objects have their keys in JCS order, so JSON.stringify of it is
 * canonical — except for objects with array-index keys, which JavaScript always lists first (see
 * listsInOrder): use canonicalize for the text.
 */
export function sortKeysDeep<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => sortKeysDeep(item)) as T;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member !== undefined) setMember(out, key, sortKeysDeep(member));
  }
  return out as T;
}

/**
 * sortKeysDeep, also telling whether JSON.stringify of the copy is its canonical form: false when
 * the value holds something JSON.stringify would drop, turn into null or reject differently
 * (undefined or a function in an array, a function or symbol member, a non-finite number, a
 * bigint), in which case canonicalize decides. Saves the second walk canonicalize would make.
 */
export function sortKeysDeepPlain<T>(value: T): { copy: T; plain: boolean } {
  let plain = true;
  const walk = (v: unknown): unknown => {
    if (v === null) return v;
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        if (!Number.isFinite(v)) plain = false;
        return v;
      case 'object': {
        if (Array.isArray(v)) {
          const out = new Array(v.length);
          for (let i = 0; i < v.length; i++) {
            const item = v[i];
            if (item === undefined) plain = false;
            out[i] = walk(item);
          }
          return out;
        }
        const record = v as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        const keys = Object.keys(record).sort();
        let digitKey = false;
        for (const key of keys) {
          const member = record[key];
          if (member === undefined) continue;
          // setMember's test, inline: this loop runs for every member of every event chained.
          if (key === '__proto__') setMember(out, key, walk(member));
          else out[key] = walk(member);
          if (!digitKey && startsWithDigit(key)) digitKey = true;
        }
        if (digitKey && plain && !listsInOrder(out, keys)) plain = false;
        return out;
      }
      default:
        plain = false;
        return v;
    }
  };
  const copy = walk(value) as T;
  return { copy, plain };
}
