// The bad inputs, generated from a good one (a real session file, or a captured canonical stream):
// each case is a pure function of the seed's bytes and a seeded PRNG, so a failure reproduces.
import { random } from '../../../lib/core/random.js';

/** How a seed holds its records: one JSON value per line, or one JSON document (records = its largest array of objects). */
export type SeedKind = 'lines' | 'json';

export interface FileCase {
  name: string;
  /** What it does, for the table. */
  what: string;
  /** The input is damaged or lossy to read: a silent exit 0 is a failure (for seeds of the kinds listed, when a list). */
  mustReport: boolean | SeedKind[];
  make(seed: Buffer, kind: SeedKind, rnd: () => number): Buffer;
}

export const DEEP_LEVELS = 100_000;
const deepArrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObjects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const DEEP_MARK = '"__sp_hard_deep__"';

/** The seed's non-empty lines (as bytes, without newlines). */
function lineBuffers(seed: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  while (from < seed.length) {
    let at = seed.indexOf(0x0a, from);
    if (at === -1) at = seed.length;
    if (at > from) out.push(seed.subarray(from, at));
    from = at + 1;
  }
  return out;
}
const joinLines = (lines: Array<Buffer | string>) => Buffer.concat([...lines.map((l) => Buffer.concat([Buffer.from(l), Buffer.from('\n')]))]);

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The seed's records as objects, and a way to write a changed list back in the seed's shape. */
function records(seed: Buffer, kind: SeedKind): { items: Json[]; rebuild(items: unknown[]): string } {
  if (kind === 'lines') {
    const items = lineBuffers(seed).map((l) => JSON.parse(l.toString('utf8')) as Json);
    return { items, rebuild: (list) => list.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n') + '\n' };
  }
  const doc = JSON.parse(seed.toString('utf8')) as unknown;
  // The largest array of objects in the document holds the records (messages, turns, events).
  let best: { holder: Json | unknown[]; key: string | number; list: Json[] } | undefined;
  const walk = (value: unknown, holder: Json | unknown[] | undefined, key: string | number) => {
    if (Array.isArray(value)) {
      if (holder && value.length > 0 && value.every(isObject) && (!best || value.length > best.list.length)) best = { holder, key, list: value as Json[] };
      value.forEach((v, i) => walk(v, value, i));
    } else if (isObject(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, value, k);
    }
  };
  walk(doc, undefined, '');
  if (!best) return { items: isObject(doc) ? [doc] : [], rebuild: (list) => (list.length === 1 ? `${JSON.stringify(list[0])}\n` : JSON.stringify(list)) };
  const found = best;
  return {
    items: found.list,
    rebuild: (list) => {
      (found.holder as Record<string | number, unknown>)[found.key] = list.map((v) => (typeof v === 'string' ? JSON.parse(v) : v));
      return JSON.stringify(doc, null, 1) + '\n';
    },
  };
}

const pick = <T>(list: T[], rnd: () => number): T => list[Math.floor(rnd() * list.length)];
// The middle record of n (a one-record file: that record).
const middle = (n: number) => (n <= 1 ? 0 : Math.max(1, Math.floor(n / 2)));

/** Positions just inside a JSON string value (`":"` followed by a letter), to put bytes into text. */
function stringValuePositions(line: Buffer): number[] {
  const out: number[] = [];
  const text = line.toString('latin1');
  const re = /":\s*"[A-Za-z]/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m.index + m[0].length - 1);
  return out;
}

/** Byte sequences that are not UTF-8: a stray byte, a cut 2-byte sequence, a surrogate, an overlong slash, a cut 4-byte sequence. */
const BAD_UTF8 = [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf0, 0x9f, 0x98]];

export const fileCases: FileCase[] = [
  { name: 'empty', what: 'a file of 0 bytes', mustReport: true, make: () => Buffer.alloc(0) },
  {
    name: 'truncated-tail',
    what: 'the last record cut in the middle, no final newline (a torn write)',
    mustReport: true,
    make: (seed, kind) => {
      if (kind === 'json') return seed.subarray(0, Math.floor(seed.length * 0.9));
      const end = seed[seed.length - 1] === 0x0a ? seed.length - 1 : seed.length;
      const start = seed.lastIndexOf(0x0a, end - 1) + 1;
      return seed.subarray(0, start + Math.max(1, Math.floor((end - start) / 2)));
    },
  },
  {
    name: 'truncated-middle',
    what: 'a record in the middle cut short, the rest of the file after it',
    mustReport: true,
    make: (seed, kind) => {
      if (kind === 'json') return seed.subarray(0, Math.floor(seed.length * 0.6));
      const lines = lineBuffers(seed);
      const i = middle(lines.length);
      lines[i] = lines[i].subarray(0, Math.floor(lines[i].length / 2));
      return joinLines(lines);
    },
  },
  {
    name: 'invalid-json',
    what: 'records that are not JSON objects: an unclosed object, prose, an array, a string, null',
    mustReport: true,
    make: (seed, kind) => {
      const junk = ['{"type":"user","message":', 'not json at all', '[1,2,3]', '"a string"', 'null'];
      if (kind === 'json') return Buffer.concat([Buffer.from(junk[0]), seed]);
      const lines = lineBuffers(seed);
      lines.splice(middle(lines.length), 0, ...junk.map((j) => Buffer.from(j)));
      return joinLines(lines);
    },
  },
  {
    name: 'invalid-utf8',
    what: 'bytes that are not UTF-8 inside text values (stray, cut, surrogate, overlong)',
    mustReport: true,
    make: (seed, kind, rnd) => {
      const lines = kind === 'lines' ? lineBuffers(seed) : [seed];
      const candidates = lines.map((l, i) => i).filter((i) => stringValuePositions(lines[i]).length > 0);
      for (const bad of BAD_UTF8) {
        const i = pick(candidates, rnd);
        const at = pick(stringValuePositions(lines[i]), rnd);
        lines[i] = Buffer.concat([lines[i].subarray(0, at), Buffer.from(bad), lines[i].subarray(at)]);
      }
      return kind === 'lines' ? joinLines(lines) : lines[0];
    },
  },
  {
    name: 'deep-nesting',
    what: `a record with a field nested ${DEEP_LEVELS} arrays deep, and one of ${DEEP_LEVELS / 2} nested objects`,
    // A line reader refuses such a line (file:line); a whole-file reader may read only the fields it knows.
    mustReport: ['lines'],
    make: (seed, kind) => {
      const { items, rebuild } = records(seed, kind);
      const i = middle(items.length);
      const list: unknown[] = [...items];
      list.splice(i, 0, { ...items[i], sp_hard_deep: '__sp_hard_deep__' }, { ...items[i], sp_hard_deep_objects: '__sp_hard_deep__' });
      const text = rebuild(list);
      const first = text.indexOf(DEEP_MARK);
      const second = text.indexOf(DEEP_MARK, first + 1);
      return Buffer.from(
        text.slice(0, first) + deepArrays(DEEP_LEVELS) + text.slice(first + DEEP_MARK.length, second) + deepObjects(DEEP_LEVELS / 2) + text.slice(second + DEEP_MARK.length),
      );
    },
  },
  {
    name: 'unknown-types',
    what: 'records of a type no version knows (copies of real records, type renamed), and a bare one',
    mustReport: false,
    make: (seed, kind, rnd) => {
      const { items, rebuild } = records(seed, kind);
      const list: unknown[] = [...items];
      for (let n = 0; n < 3; n += 1) {
        const source = pick(items, rnd);
        const typeKey = ['type', 'role', 'kind'].find((k) => typeof source[k] === 'string') ?? 'type';
        list.splice(Math.floor(rnd() * (list.length - 1)) + 1, 0, { ...source, [typeKey]: `sp_hard_future_${n}` });
      }
      list.push({ type: 'sp_hard_future_bare', payload: { what: 'a record of a later version' } });
      return Buffer.from(rebuild(list));
    },
  },
  {
    name: 'duplicate-ids',
    what: 'records repeated verbatim (same ids), one of them out of order at the end',
    mustReport: false,
    make: (seed, kind, rnd) => {
      const { items, rebuild } = records(seed, kind);
      const list: unknown[] = [...items];
      for (let n = 0; n < 3; n += 1) {
        const i = Math.floor(rnd() * list.length);
        list.splice(i + 1, 0, list[i]);
      }
      list.push(items[Math.min(1, items.length - 1)]);
      return Buffer.from(rebuild(list));
    },
  },
  {
    name: 'missing-fields',
    what: 'every record lacks one of its fields (seeded choice; nested message/payload fields too)',
    mustReport: false,
    make: (seed, kind, rnd) => {
      const { items, rebuild } = records(seed, kind);
      const list = items.map((item) => {
        const copy: Json = JSON.parse(JSON.stringify(item)) as Json;
        const keys = Object.keys(copy);
        if (keys.length > 0) delete copy[pick(keys, rnd)];
        for (const inner of ['message', 'payload', 'data']) {
          const value = copy[inner];
          if (isObject(value) && Object.keys(value).length > 0 && rnd() < 0.5) delete value[pick(Object.keys(value), rnd)];
        }
        return copy;
      });
      return Buffer.from(rebuild(list));
    },
  },
  {
    name: 'wrong-types',
    what: 'every record has one field of the wrong JSON type (string↔number, object→array, →null)',
    mustReport: false,
    make: (seed, kind, rnd) => {
      const { items, rebuild } = records(seed, kind);
      const list = items.map((item) => {
        const copy: Json = { ...item };
        const keys = Object.keys(copy);
        if (keys.length === 0) return copy;
        const key = pick(keys, rnd);
        const value = copy[key];
        copy[key] = typeof value === 'string' ? 12345 : typeof value === 'number' ? String(value) : Array.isArray(value) ? { length: value.length } : isObject(value) ? [value] : null;
        return copy;
      });
      return Buffer.from(rebuild(list));
    },
  },
  {
    name: 'binary-garbage',
    what: 'the first record, then 64 KiB of random bytes with newlines',
    mustReport: true,
    make: (seed, kind, rnd) => {
      const first = kind === 'lines' ? lineBuffers(seed)[0] : Buffer.alloc(0);
      const noise = Buffer.alloc(65536);
      for (let i = 0; i < noise.length; i += 1) noise[i] = rnd() < 0.01 ? 0x0a : Math.floor(rnd() * 256);
      return Buffer.concat([first, Buffer.from('\n'), noise]);
    },
  },
];

/** Cases on the input path itself rather than its bytes. */
export const pathCases = [
  { name: 'directory', what: 'a directory where a file is expected' },
  { name: 'unreadable', what: 'a file the user may not read (mode 000, run as an unprivileged user)' },
  { name: 'missing', what: 'a path that does not exist' },
] as const;

export const mustReport = (c: FileCase, kind: SeedKind) => (Array.isArray(c.mustReport) ? c.mustReport.includes(kind) : c.mustReport);

export const rng = (caseName: string, extra = '') => {
  let seed = 0x5eed;
  for (const c of caseName + extra) seed = (Math.imul(seed, 31) + c.charCodeAt(0)) >>> 0;
  return random(seed);
};
