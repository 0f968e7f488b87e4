// Hashing canonical lines as bytes (lib/core/canonical-line.ts) must give exactly the hash of the
// parsed event's canonical form, and a line that is not canonical must never pass as canonical.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalLine, isCanonicalLine } from '../lib/core/canonical-line.js';
import { canonicalize } from '../lib/core/jcs.js';
import { chainBody } from '../lib/core/chain.js';
import type { SpEvent } from '../lib/core/event.js';

const root = new URL('..', import.meta.url).pathname;

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) filesUnder(path, out);
    else if (/\.(ndjson|jsonl)$/.test(name)) out.push(path);
  }
  return out;
}

/** The property under test, for one line that JSON.parse accepts. */
function check(text: string): 'canonical' | 'not canonical' {
  const value = JSON.parse(text) as Record<string, unknown>;
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  let expected: boolean;
  try {
    expected = isObject && canonicalize(value) === text;
  } catch {
    expected = false;
  }
  expect(isCanonicalLine(text), text.slice(0, 200)).toBe(expected);
  const line = canonicalLine(text);
  const hasStringChecksum = isObject && typeof value.checksum === 'string';
  if (expected && (hasStringChecksum || !('checksum' in value))) {
    expect(line, text.slice(0, 200)).toBeDefined();
    expect(line!.body).toBe(chainBody(value as unknown as SpEvent));
  } else {
    expect(line, text.slice(0, 200)).toBeUndefined();
  }
  return expected ? 'canonical' : 'not canonical';
}

describe('canonical lines hashed as they are', () => {
  it('agrees with parse → canonicalize on every line of the repo fixtures (canonical streams and native files)', () => {
    const files = filesUnder(join(root, 'fixtures'));
    expect(files.length).toBeGreaterThan(20);
    const seen = { canonical: 0, 'not canonical': 0 };
    for (const file of files) {
      for (const text of readFileSync(file, 'utf8').split('\n')) {
        const line = text.endsWith('\r') ? text.slice(0, -1) : text;
        let ok = true;
        try {
          JSON.parse(line);
        } catch {
          ok = false;
        }
        if (!ok || line.trim() === '') continue;
        seen[check(line)] += 1;
      }
    }
    // Both kinds are exercised: sp's own streams (canonical) and the agents' native lines (not).
    expect(seen.canonical).toBeGreaterThan(500);
    expect(seen['not canonical']).toBeGreaterThan(500);
  });

  it('splices out only the top-level checksum member, first, middle, last or alone', () => {
    const sum = 'sha256:' + 'a'.repeat(64);
    const cases: Array<[string, string]> = [
      [`{"checksum":"${sum}"}`, '{}'],
      [`{"checksum":"${sum}","seq":1}`, '{"seq":1}'],
      [`{"agent":"x","checksum":"${sum}","seq":1}`, '{"agent":"x","seq":1}'],
      [`{"a":1,"checksum":"${sum}"}`, '{"a":1}'],
      // A nested checksum member with the same value, before the top-level one: stays.
      [`{"actor":{"checksum":"${sum}"},"checksum":"${sum}","seq":1}`, `{"actor":{"checksum":"${sum}"},"seq":1}`],
      // An escaped "checksum" inside a string before the member: stays.
      [`{"a":"\\"checksum\\":\\"${sum}\\"","checksum":"${sum}"}`, `{"a":"\\"checksum\\":\\"${sum}\\""}`],
      [`{"a":[{"checksum":"x"}],"b":{"c":{"checksum":1}}}`, `{"a":[{"checksum":"x"}],"b":{"c":{"checksum":1}}}`],
    ];
    for (const [text, body] of cases) {
      expect(check(text)).toBe('canonical');
      expect(canonicalLine(text)!.body).toBe(body);
    }
  });

  it('refuses hostile lines that are not canonical (and they still hash as their canonical form)', () => {
    const sum = 'sha256:' + 'b'.repeat(64);
    const hostile = [
      `{"checksum":"${sum}","checksum":"${sum}"}`, // duplicate key
      `{"a":1,"a":1}`,
      `{"a":{"x":1,"x":2}}`,
      `{"b":1,"a":2}`, // unsorted
      `{"a":{"b":1,"a":2}}`,
      `{"a":1, "b":2}`, // whitespace
      ` {"a":1}`,
      `{"a":1} `,
      `{"a" :1}`,
      `{"a":[1 ,2]}`,
      `{"a":1e2}`, // numbers in other spellings
      `{"a":1E2}`,
      `{"a":-0}`,
      `{"a":1.0}`,
      `{"a":1.50}`,
      `{"a":0.0}`,
      `{"a":1e-07}`,
      `{"a":1E+21}`,
      `{"a":12345678901234567890}`,
      `{"a":100000000000000000000000}`,
      `{"a":"\\u0041"}`, // escapes JSON.stringify would not write
      `{"a":"\\/"}`,
      `{"a":"\\u000A"}`,
      `{"a":"\\u000a"}`,
      `{"a":"\\u001F"}`,
      `{"a":"\\u00e9"}`,
      `{"a":"\\ud83d\\ude00"}`, // an escaped surrogate pair (stringify writes it raw)
      `{"\\u0063hecksum":"${sum}"}`,
      `{"checksu\\u006d":"${sum}","seq":1}`,
      `{"é":1,"z":2}`, // U+00E9 sorts after "z"
      `{"\\ud800":1,"a":2}`,
      `{"😀":1,"":2}`,
      `{"a":"\u2028"}`, // raw U+2028 is what stringify writes: this one IS canonical
    ];
    const verdicts = hostile.map((text) => check(text));
    expect(hostile.filter((_, i) => verdicts[i] === 'canonical')).toEqual([hostile.at(-1)]);
    // Canonical, but a checksum that is not a string is not a chain link to splice out.
    for (const text of ['{"a":"x","checksum":1}', '{"checksum":null}']) {
      expect(check(text)).toBe('canonical');
      expect(canonicalLine(text)).toBeUndefined();
    }
  });

  it('accepts what JSON.stringify writes, including the escapes it does write', () => {
    const values: Array<Record<string, unknown>> = [
      { a: 'line\nbreak\ttab "quoted" back\\slash \b\f\r', b: '\u0001\u001f', c: '\ud800 lone', d: '\udc00 lone', e: '😀 pair' },
      { '': 1, A: 2, a: 3, é: 4, '😀': 5, '\uffff': 6 },
      { n: [0, -1, 1.5, -0.25, 1e21, 1e-7, 5e-324, 123456789012345, 1234567890123456, -9007199254740991] },
      { nested: { deep: [[[{ z: null, a: true, m: false }]]] }, checksum: 'sha256:' + 'c'.repeat(64) },
      { '10': 1, '9': 2, '-1': 3, '1.5': 4 },
      { __proto__x: 1, constructor: 2, toString: 3 },
    ];
    for (const value of values) expect(check(canonicalize(value))).toBe('canonical');
    expect(check('{"__proto__":{"a":1},"b":[]}')).toBe('canonical');
  });

  it('never calls a mutated canonical line canonical unless it is (bounded random mutations)', () => {
    const base = canonicalize({
      actor: 'user',
      agent: 'claude',
      checksum: 'sha256:' + 'd'.repeat(64),
      payload: { text: 'a "q" \\ b\nc 😀 é', list: [1, 2.5, -3, true, null, { k: 'v', checksum: 'x' }] },
      seq: 12,
      session: 'sp:claude:x',
      ts: 1764000000000,
    });
    const pieces = [' ', ',', '"', '\\', '0', '-', 'e', '.', '}', ']', '{', '[', ':', 'u', '\\u0041', '\\n', 'a', 'é'];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let parsed = 0;
    for (let i = 0; i < 4000; i++) {
      const at = random(base.length);
      const cut = random(3);
      const text = base.slice(0, at) + pieces[random(pieces.length)] + base.slice(at + cut);
      try {
        JSON.parse(text);
      } catch {
        continue;
      }
      parsed += 1;
      check(text);
    }
    expect(parsed).toBeGreaterThan(200);
  });
});
