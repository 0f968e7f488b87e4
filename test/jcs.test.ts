import { describe, expect, it } from 'vitest';
import { canonicalize, CanonicalizeError, sortKeysDeep } from '../lib/core/jcs.js';

describe('JCS (RFC 8785)', () => {
  it('serializes numbers as ECMAScript does (RFC 8785 appendix B)', () => {
    const cases: Array<[number, string]> = [
      [0, '0'],
      [-0, '0'],
      [1e21, '1e+21'],
      [1e-7, '1e-7'],
      [333333333.33333329, '333333333.3333333'],
      [5e-324, '5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [9007199254740992, '9007199254740992'],
      [295147905179352830000, '295147905179352830000'],
      [0.000001, '0.000001'],
      [1e23, '1e+23'],
      [4.5, '4.5'],
      [0.002, '0.002'],
      [1e-27, '1e-27'],
      [-1.5e-10, '-1.5e-10'],
    ];
    for (const [value, text] of cases) expect(canonicalize(value)).toBe(text);
  });

  it('matches the RFC 8785 §3.2.2 example byte for byte', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalize(input)).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
  });

  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3 example)', () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    const values = Object.values(JSON.parse(canonicalize(input)) as Record<string, string>);
    // Object.values reorders integer-like keys, so read the order from the text instead.
    const order = [...canonicalize(input).matchAll(/:"([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
    expect(values).toHaveLength(7);
  });

  it('escapes only what JSON requires, with lowercase hex', () => {
    expect(canonicalize('\u0000\u001f\u007f\u0080é中"\\/\b\f\n\r\t')).toBe('"\\u0000\\u001f\u007f\u0080é中\\"\\\\/\\b\\f\\n\\r\\t"');
  });

  it('sorts nested objects, including integer-like keys that JS iterates first', () => {
    expect(canonicalize({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null }, 10: 'x', 9: 'y' })).toBe('{"10":"x","9":"y","a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('drops undefined members and turns undefined array items into null, like JSON.stringify', () => {
    expect(canonicalize({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
  });

  it('takes the fast path and the slow path to the same text', () => {
    const value = { z: { b: 'two', a: 'one' }, a: [1, 2.5, 'x'] };
    expect(canonicalize(value)).toBe(canonicalize(sortKeysDeep(value)));
    expect(canonicalize(sortKeysDeep(value))).toBe(JSON.stringify(sortKeysDeep(value)));
  });

  it('rejects values JSON cannot hold', () => {
    expect(() => canonicalize(NaN)).toThrow(CanonicalizeError);
    expect(() => canonicalize({ a: Infinity })).toThrow(CanonicalizeError);
    expect(() => canonicalize(10n)).toThrow(CanonicalizeError);
  });
});
