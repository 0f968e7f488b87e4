// lib/core/uuid-map.ts: the compact uuid → seq map gives what a plain object gave, order included.
import { describe, expect, it } from 'vitest';
import { UuidMap } from '../lib/core/uuid-map.js';
import { random } from '../lib/core/random.js';

function uuid(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => '0123456789abcdef'[Math.floor(rand() * 16)]).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe('UuidMap', () => {
  it('agrees with a plain object on gets, overwrites, odd keys and odd values, and rebuilds it in its key order', () => {
    const rand = random(5);
    const map = new UuidMap();
    const plain: Record<string, number> = {};
    const keys: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const r = rand();
      let key: string;
      if (r < 0.1 && keys.length > 0) key = keys[Math.floor(rand() * keys.length)]; // set again
      else if (r < 0.12) key = uuid(rand).toUpperCase(); // not canonical: a different key from its lowercase form
      else if (r < 0.13) key = ['x', '42', '7', 'toString', ''][Math.floor(rand() * 5)];
      else key = uuid(rand);
      const value = r > 0.995 ? 2 ** 40 + i : r > 0.99 ? -i - 0.5 : i;
      map.set(key, value);
      plain[key] = value;
      keys.push(key);
    }
    expect(keys.filter((key) => map.get(key) !== plain[key])).toEqual([]);
    expect(map.get(uuid(rand))).toBeUndefined();
    const lower = keys.find((k) => k.length === 36 && /[a-f]/.test(k) && k === k.toLowerCase())!;
    expect(map.get(lower.toUpperCase())).toBe(plain[lower.toUpperCase()]);
    expect(map.get('constructor')).toBeUndefined();
    expect(JSON.stringify(map.toRecord())).toBe(JSON.stringify(plain));
    expect(JSON.stringify(UuidMap.from(plain).toRecord())).toBe(JSON.stringify(plain));
  });
});
