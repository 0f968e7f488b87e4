// Path mapping (sp resume --map-cwd OLD=NEW): whole components only, Windows roots, trailing
// slashes, roots with spaces and quotes (data, never a command), the ledger and the re-chained stream.
import { describe, expect, it } from 'vitest';
import type { LossEntry } from '../lib/adapter/interface.js';
import { Chainer, computeChecksum } from '../lib/core/chain.js';
import type { SpEvent } from '../lib/core/event.js';
import { PathMapper, checkedMapping, mapPaths, parseMapping, type MappedCounts } from '../lib/relay/map-paths.js';

const mapper = (...specs: string[]) => new PathMapper(specs.map(parseMapping));
const text = (m: PathMapper, s: string) => m.mapText(s).text;

describe('matching at component boundaries', () => {
  const m = mapper('/home/alice/acme-api=/srv/bob/acme');
  it('maps the root itself and paths under it', () => {
    expect(text(m, '/home/alice/acme-api')).toBe('/srv/bob/acme');
    expect(text(m, '/home/alice/acme-api/src/index.ts')).toBe('/srv/bob/acme/src/index.ts');
    expect(text(m, 'cd /home/alice/acme-api && ls')).toBe('cd /srv/bob/acme && ls');
    expect(text(m, 'see "/home/alice/acme-api/a.ts", \'/home/alice/acme-api/b.ts\' and (/home/alice/acme-api).')).toBe('see "/srv/bob/acme/a.ts", \'/srv/bob/acme/b.ts\' and (/srv/bob/acme).');
    expect(text(m, 'I am in /home/alice/acme-api.')).toBe('I am in /srv/bob/acme.');
    expect(text(m, '/home/alice/acme-api/x.ts:12:3')).toBe('/srv/bob/acme/x.ts:12:3');
    expect(text(m, 'FOO=/home/alice/acme-api/bin')).toBe('FOO=/srv/bob/acme/bin');
  });
  it('leaves paths that only share a prefix, or contain the root further in', () => {
    for (const s of ['/home/alice/acme-api2', '/home/alice/acme-api-old/x', '/home/alice/acme-api.bak', '/home/alice/acme-api_v2', '/mnt/home/alice/acme-api/x', 'x/home/alice/acme-api', '/home/alice/acme', '/home/alice/acme-apié']) {
      expect(text(m, s), s).toBe(s);
    }
  });
  it('diff headers and patch text', () => {
    const diff = '--- /home/alice/acme-api/src/a.ts\n+++ /home/alice/acme-api/src/a.ts\n@@ -1 +1 @@\n-old /home/alice/acme-api2\n+new';
    expect(text(m, diff)).toBe('--- /srv/bob/acme/src/a.ts\n+++ /srv/bob/acme/src/a.ts\n@@ -1 +1 @@\n-old /home/alice/acme-api2\n+new');
    expect(m.mapText(diff).count).toBe(2);
  });
  it('the longest root wins, and a new root holding the old one is not mapped again', () => {
    const two = mapper('/w=/x', '/w/sub=/y');
    expect(text(two, '/w/sub/a /w/a /w/subway')).toBe('/y/a /x/a /x/subway');
    const nested = mapper('/p=/p/q');
    expect(text(nested, '/p/a')).toBe('/p/q/a');
  });
});

describe('inputs', () => {
  it('trailing slashes on either side are dropped', () => {
    expect(parseMapping('/home/alice/acme-api/=/srv/new//')).toEqual({ from: '/home/alice/acme-api', to: '/srv/new' });
    expect(text(mapper('/a/b/=/c/'), '/a/b/x')).toBe('/c/x');
  });
  it('refuses relative roots, filesystem roots, . and .. components, control characters and a missing side', () => {
    for (const spec of ['a/b=/c', '/a=c', '/=/x', '/a=/', 'C:\\=/x', '/a/../b=/c', '/a=/b/./c', '/a\n=/b', '/a', '=/b', '/a=']) {
      expect(() => parseMapping(spec), spec).toThrow(/--map-cwd|absolute|root|component|control/);
    }
  });
  it('a new root with spaces, quotes, $() and = stays text', () => {
    const m = new PathMapper([checkedMapping('/home/alice/acme-api', "/tmp/it's a $(touch X) `y` dir=1")]);
    expect(text(m, 'cat /home/alice/acme-api/README.md')).toBe("cat /tmp/it's a $(touch X) `y` dir=1/README.md");
    expect(parseMapping('/a=/b=c')).toEqual({ from: '/a', to: '/b=c' });
  });
  it('a replacement pattern in the new root is not interpreted ($& $1)', () => {
    expect(text(mapper('/a=/b/$&/$1'), '/a/x')).toBe('/b/$&/$1/x');
  });
});

describe('Windows roots', () => {
  const m = mapper('C:\\Users\\alice\\acme-api=/home/bob/acme');
  it('either separator and any case of the old root; the rest of the path gets the new separator', () => {
    expect(text(m, 'C:\\Users\\alice\\acme-api\\src\\a.ts')).toBe('/home/bob/acme/src/a.ts');
    expect(text(m, 'c:/users/Alice/acme-api/src/a.ts')).toBe('/home/bob/acme/src/a.ts');
    expect(text(m, 'open "C:\\Users\\alice\\acme-api\\b c.ts" now')).toBe('open "/home/bob/acme/b c.ts" now');
    expect(text(m, 'C:\\Users\\alice\\acme-api2\\x')).toBe('C:\\Users\\alice\\acme-api2\\x');
  });
  it('a POSIX root mapped to a Windows one', () => {
    expect(text(mapper('/home/alice/acme-api=D:\\work\\acme'), '/home/alice/acme-api/src/a.ts')).toBe('D:\\work\\acme\\src\\a.ts');
  });
});

describe('events and the stream', () => {
  const events = (): SpEvent[] => {
    const chainer = new Chainer();
    const raw: SpEvent[] = [
      { session: 's', seq: 0, ts: 1, agent: 'codex', type: 'session.start', actor: 'system', payload: { native_id: 'n', cwd: '/home/alice/acme-api' }, origin: { agent: 'codex', native_id: 'n', raw: ['{"cwd":"/home/alice/acme-api"}'] } } as SpEvent,
      { session: 's', seq: 1, ts: 2, agent: 'codex', type: 'message.user', actor: 'user', payload: { content: [{ type: 'text', text: 'fix /home/alice/acme-api/a.ts' }] } },
      { session: 's', seq: 2, ts: 3, agent: 'codex', type: 'tool.call', actor: 'agent:main', payload: { call_id: 'c1', name: 'shell', input: { command: ['cat', '/home/alice/acme-api/a.ts'], workdir: '/home/alice/acme-api' } } },
      { session: 's', seq: 3, ts: 4, agent: 'codex', type: 'tool.result', actor: 'tool', payload: { call_id: 'c1', output: 'no path here' } },
      { session: 's', seq: 5, ts: 6, agent: 'codex', type: 'file.edit', actor: 'tool', payload: { changes: { '/home/alice/acme-api/a.ts': { diff: '--- /home/alice/acme-api/a.ts' }, 'rel.ts': {} } } },
      { session: 's', seq: 4, ts: 5, agent: 'claude', type: 'message.thinking', actor: 'agent:main', payload: { text: 'in /home/alice/acme-api', signature: 'sig' } },
    ];
    return raw.map((e) => chainer.chain(e));
  };
  async function* from(list: SpEvent[]) {
    yield* list;
  }

  it('maps every string of a payload, reports each changed event once, and re-chains', async () => {
    const entries: LossEntry[] = [];
    const counts: MappedCounts = {};
    const out: SpEvent[] = [];
    for await (const e of mapPaths(from(events()), mapper('/home/alice/acme-api=/srv/b'), { onMapped: (_s, entry) => entries.push(entry), counts })) out.push(e);
    expect(out.map((e) => JSON.stringify(e.payload)).join('\n')).not.toContain('/home/alice');
    expect((out[0].payload as { cwd: string }).cwd).toBe('/srv/b');
    expect(out[0].origin?.raw).toBeUndefined();
    expect(out[2].payload).toMatchObject({ input: { command: ['cat', '/srv/b/a.ts'], workdir: '/srv/b' } });
    expect(out[3].payload).toEqual({ call_id: 'c1', output: 'no path here' });
    expect((out[4].payload as Record<string, unknown>).signature).toBeUndefined();
    expect(entries.map((e) => [e.seq, e.code, e.action])).toEqual([
      [0, 'path-mapped', 'transformed'],
      [1, 'path-mapped', 'transformed'],
      [2, 'path-mapped', 'transformed'],
      [5, 'path-mapped', 'transformed'],
      [4, 'path-mapped', 'transformed'],
    ]);
    expect(entries[2].reason).toMatch(/^2 paths moved/);
    expect(counts).toEqual({ 'session.start': { events: 1, paths: 1 }, 'message.user': { events: 1, paths: 1 }, 'tool.call': { events: 1, paths: 2 }, 'message.thinking': { events: 1, paths: 1 }, 'file.edit': { events: 1, paths: 2 } });
    expect(out[4].payload).toEqual({ changes: { '/srv/b/a.ts': { diff: '--- /srv/b/a.ts' }, 'rel.ts': {} } });
    let previous = '';
    for (const e of out) {
      expect(e.checksum).toBe(computeChecksum(previous, e));
      previous = e.checksum!;
    }
  });
});
