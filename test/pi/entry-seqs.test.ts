// The Pi capture's entry index: the packed form (one-shot captures) answers exactly like the plain
// record (incremental captures) and serializes as it; ids JavaScript treats specially are data.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pi } from '../../adapters/pi/index.js';
import { PackedSeqs, RecordSeqs } from '../../adapters/pi/entry-seqs.js';
import { random as seeded } from '../../lib/core/random.js';
import { captureAll } from '../contract/testAdapter.js';
import { tempDir } from '../support/streams.js';

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

describe('PackedSeqs', () => {
  it('answers like the record for 8-hex ids, other ids, repeats and seqs beyond 32 bits, and serializes as it', () => {
    const random = seeded(7);
    const packed = new PackedSeqs();
    const record = new RecordSeqs({});
    const keys: string[] = [];
    // More rows than one chunk holds, and enough to rehash several times.
    for (let i = 0; i < 70_000; i += 1) {
      const r = random();
      // Mostly fresh 8-hex ids, some repeats, some other keys (v1 positions, upper case, long, special names).
      const key =
        r < 0.8 ? hex8(Math.floor(random() * 2 ** 32))
        : r < 0.9 && keys.length > 0 ? keys[Math.floor(random() * keys.length)]
        : r < 0.95 ? `#${i}`
        : ['ABCDEF01', '0000000g', '123', '__proto__', 'constructor', 'toString', '4294967295', 'x'.repeat(40)][i % 8];
      const first = r < 0.001 ? 2 ** 33 + i : i * 3;
      const last = first + Math.floor(random() * 300);
      keys.push(key);
      packed.set(key, first, last);
      record.set(key, first, last);
    }
    const asked = [...keys, '00000000', 'ffffffff', 'valueOf', '#0', 'hasOwnProperty'];
    expect(asked.map((key) => packed.get(key))).toEqual(asked.map((key) => record.get(key)));
    expect(JSON.stringify(packed)).toBe(JSON.stringify(record.record));
  });

  it('finds nothing in an empty index, including names Object.prototype has', () => {
    const packed = new PackedSeqs();
    for (const key of ['00000000', 'constructor', '__proto__', 'toString', '']) expect(packed.get(key)).toBeUndefined();
    expect(new RecordSeqs({}).get('constructor')).toBeUndefined();
    expect(JSON.stringify(packed)).toBe('{}');
  });
});

describe('capture: entry ids named like Object.prototype members', () => {
  it('a parentId "constructor" that no entry has is a root, in one-shot and incremental captures alike', async () => {
    const dir = tempDir();
    const path = join(dir, '2026-12-01T10-00-00-000Z_01a22ad6-2c3b-714c-9526-cda55a420aff.jsonl');
    const lines = [
      { type: 'session', version: 3, id: '01a22ad6-2c3b-714c-9526-cda55a420aff', timestamp: '2026-12-01T10:00:00.000Z', cwd: '/home/carol/acme-api' },
      { type: 'message', id: 'aaaaaaaa', parentId: null, timestamp: '2026-12-01T10:00:01.000Z', message: { role: 'user', content: 'one', timestamp: 1 } },
      { type: 'message', id: '__proto__', parentId: 'aaaaaaaa', timestamp: '2026-12-01T10:00:02.000Z', message: { role: 'user', content: 'two', timestamp: 2 } },
      { type: 'message', id: 'bbbbbbbb', parentId: 'constructor', timestamp: '2026-12-01T10:00:03.000Z', message: { role: 'user', content: 'three', timestamp: 3 } },
      { type: 'message', id: 'cccccccc', parentId: '__proto__', timestamp: '2026-12-01T10:00:04.000Z', message: { role: 'user', content: 'four', timestamp: 4 } },
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const ref = await pi.open(path);
    for (const options of [{}, { cursor: { version: 1 as const, agent: 'pi', native_id: ref.native_id, sources: {}, sessions: {} } }]) {
      const { events, cursor } = await captureAll(pi, path, options);
      const users = events.filter((e) => e.type === 'message.user');
      // "constructor" is no entry of the file: the client makes the entry a root.
      expect(users[2].parent_seq).toBeNull();
      expect(users[2].origin?.native_parent).toBe('constructor');
      // "__proto__" is an entry like any other: its child links to it.
      expect(users[3].parent_seq).toBe(users[1].seq);
      expect(Object.keys(JSON.parse(JSON.stringify(cursor!.state)).entries)).toEqual(['aaaaaaaa', '__proto__', 'bbbbbbbb', 'cccccccc']);
    }
  });
});
