// Forwarding others' signed folders unchanged (lib/sync/forward.ts): A → r1 → B → r2 → C reaches C
// on folder, git and PostgreSQL remotes; the forwarded folder on r2 is byte for byte A's (B signs
// nothing), C verifies it against A's key and refuses it when it was tampered with on r2, the
// remote holds each event once however many machines forward it, and a remote holding a longer
// chain of a machine is never rewound by a forwarder with a shorter one.
import { describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keysOf, machine, tempDir, trust, withStore, type Machine } from './support/store.js';
import { ensureKeys, type SpEvent } from '../lib/store/index.js';
import { addRemote, getRemote, pull, push } from '../lib/sync/remote.js';
import { connect, initSchema } from '../lib/sync/pg.js';
import { pgMissing, usePostgres, type TestPostgres } from './support/pg.js';

vi.setConfig({ testTimeout: 240_000 });

let db: TestPostgres | undefined;
usePostgres((d) => (db = d));

const S = 'sess_forward';

function events(n: number, from: number): SpEvent[] {
  return Array.from({ length: n }, (_, i) => ({ session: S, seq: 0, ts: 1_800_000_000 + from + i, agent: 'claude', actor: 'user', type: 'message.user', payload: { content: [{ type: 'text', text: `step ${from + i}` }] } }) as unknown as SpEvent);
}

/** What a remote stores below machines/: path → bytes (pg: the event rows as segment lines, and the files). */
interface Remote {
  url: string;
  dir: boolean;
  files(): Promise<Map<string, string>>;
  tamper(machineId: string): Promise<void>;
}

function walk(root: string, under = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(join(root, under))) return out;
  for (const e of readdirSync(join(root, under), { withFileTypes: true })) {
    const rel = under ? `${under}/${e.name}` : e.name;
    if (e.isDirectory()) for (const [k, v] of walk(root, rel)) out.set(k, v);
    else out.set(rel, readFileSync(join(root, rel), 'utf8'));
  }
  return out;
}

/** Changes the text of event 3 of machineId's session in a segment file (its checksum kept). */
function tamperLine(text: string): string {
  const lines = text.split('\n');
  lines[3] = lines[3].replace('step 3', 'step 3, changed');
  return lines.join('\n');
}

const KINDS: Record<string, (dir: string) => Promise<Remote>> = {
  folder: async (dir) => {
    const url = join(dir, 'shared');
    mkdirSync(url);
    return {
      url,
      dir: true,
      files: async () => new Map([...walk(url)].filter(([p]) => p.startsWith('machines/'))),
      tamper: async (m) => {
        const path = join(url, 'machines', m, 'sessions', S, '000000000000.jsonl');
        writeFileSync(path, tamperLine(readFileSync(path, 'utf8')));
      },
    };
  },
  git: async (dir) => {
    const url = join(dir, 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', url]);
    const files = async () => {
      const out = join(dir, `export-${Date.now()}`);
      mkdirSync(out);
      execFileSync('sh', ['-c', `git --git-dir "${url}" archive main | tar -x -C "${out}"`]);
      return new Map([...walk(out)].filter(([p]) => p.startsWith('machines/')));
    };
    return {
      url,
      dir: false,
      files,
      tamper: async (m) => {
        // A commit on the remote's branch that edits the forwarded segment (history kept: not a rewrite).
        const work = join(dir, `tamper-${Date.now()}`);
        execFileSync('git', ['clone', '-q', url, work]);
        const path = join(work, 'machines', m, 'sessions', S, '000000000000.jsonl');
        writeFileSync(path, tamperLine(readFileSync(path, 'utf8')));
        execFileSync('git', ['-C', work, '-c', 'user.name=x', '-c', 'user.email=x@x', 'commit', '-q', '-am', 'edit']);
        execFileSync('git', ['-C', work, 'push', '-q', 'origin', 'HEAD:main']);
      },
    };
  },
  pg: async () => {
    const url = await db!.another();
    const client = await connect(url);
    await initSchema(client);
    await client.end();
    const query = async <T,>(sql: string, values: unknown[] = []): Promise<T[]> => {
      const c = await connect(url);
      try {
        return (await c.query(sql, values)).rows as T[];
      } finally {
        await c.end();
      }
    };
    return {
      url,
      dir: false,
      files: async () => {
        const out = new Map<string, string>();
        for (const r of await query<{ machine: string; session_id: string; seq: number; line: string }>('SELECT machine, session_id, seq, line FROM sp.events ORDER BY machine, session_id, seq')) {
          const path = `machines/${r.machine}/sessions/${r.session_id}/${String(r.seq - (r.seq % 512)).padStart(12, '0')}.jsonl`;
          out.set(path, (out.get(path) ?? '') + r.line + '\n');
        }
        for (const r of await query<{ machine: string; path: string; bytes: Buffer }>('SELECT machine, path, bytes FROM sp.files')) out.set(`machines/${r.machine}/${r.path}`, r.bytes.toString('utf8'));
        return out;
      },
      tamper: async (m) => {
        const [row] = await query<{ line: string }>('SELECT line FROM sp.events WHERE machine = $1 AND session_id = $2 AND seq = 3', [m, S]);
        await query('UPDATE sp.events SET line = $3 WHERE machine = $1 AND session_id = $2 AND seq = 3', [m, S, row.line.replace('step 3', 'step 3, changed')]);
      },
    };
  },
};

async function machineId(m: Machine): Promise<string> {
  return withStore(m, (s) => s.machine);
}

function segmentLines(files: Map<string, string>): number {
  let n = 0;
  for (const [path, text] of files) if (/\/\d{12}\.jsonl$/.test(path)) n += text.split('\n').filter(Boolean).length;
  return n;
}

for (const kind of Object.keys(KINDS)) {
  describe.skipIf(kind === 'pg' && pgMissing !== undefined)(`forwarding on ${kind} remotes`, () => {
    it('A → r1 → B → r2 → C: unchanged, verified against A, stored once, never rewound', async () => {
      const work = tempDir(`sp-fwd-${kind}-`);
      mkdirSync(join(work, 'r1'));
      mkdirSync(join(work, 'r2'));
      const r1 = await KINDS[kind](join(work, 'r1'));
      const r2 = await KINDS[kind](join(work, 'r2'));
      const [a, b, c] = [machine('sp-fwd-a-'), machine('sp-fwd-b-'), machine('sp-fwd-c-')];
      for (const m of [a, b, c]) ensureKeys(m.home);
      trust(b, a, 'a');
      trust(c, a, 'a');
      trust(c, b, 'b');
      trust(a, b, 'b');
      for (const [m, names] of [
        [a, ['r1', 'r2']],
        [b, ['r1', 'r2']],
        [c, ['r2', 'r1']],
      ] as const) {
        await withStore(m, (s) => {
          for (const name of names) addRemote(s, name, (name === 'r1' ? r1 : r2).url, (name === 'r1' ? r1 : r2).dir);
        });
      }
      const idA = await machineId(a);
      const idB = await machineId(b);
      // 600 events: a full segment and part of the next.
      await withStore(a, async (s) => {
        s.append(S, events(600, 0));
        await push(s, getRemote(s, 'r1'));
      });
      await withStore(b, (s) => pull(s, getRemote(s, 'r1')));
      const forwarded = await withStore(b, (s) => push(s, getRemote(s, 'r2')));
      expect(forwarded.forwarded).toEqual({ folders: 1, events: 600 });
      expect(forwarded.events).toBe(0); // nothing of B's own

      // r2 holds A's folder exactly as r1 does, and nothing under B for this session: B signed nothing.
      const on1 = await r1.files();
      const on2 = await r2.files();
      const folderOf = (files: Map<string, string>, m: string) => new Map([...files].filter(([p]) => p.startsWith(`machines/${m}/sessions/${S}/`)));
      expect(folderOf(on2, idA).size).toBeGreaterThanOrEqual(3);
      expect(folderOf(on2, idA)).toEqual(folderOf(on1, idA));
      expect([...on2.keys()].some((p) => p.startsWith(`machines/${idB}/`))).toBe(false);
      const manifest = JSON.parse(on2.get(`machines/${idA}/sessions/${S}/manifest.json`)!);
      expect(manifest.machine).toBe(idA);
      expect(manifest.signature.key_id).toBe(ensureKeys(a.home).keyId);

      // C, which never saw r1, takes A's events from r2, verified against A's key.
      const pulled = await withStore(c, (s) => pull(s, getRemote(s, 'r2')));
      expect(pulled.refused).toEqual([]);
      expect(pulled.events).toBe(600);
      expect(await keysOf(c, S)).toEqual(await keysOf(a, S));

      // Three machines hold the session; each remote still holds each event once.
      await withStore(c, (s) => push(s, getRemote(s, 'r2')));
      await withStore(c, (s) => push(s, getRemote(s, 'r1')));
      await withStore(b, (s) => push(s, getRemote(s, 'r2')));
      expect(segmentLines(await r1.files())).toBe(600);
      expect(segmentLines(await r2.files())).toBe(600);

      // A goes on: the new events travel the same way, appended (the remote grows with events).
      await withStore(a, async (s) => {
        s.append(S, events(10, 600));
        await push(s, getRemote(s, 'r1'));
      });
      await withStore(b, (s) => pull(s, getRemote(s, 'r1')));
      expect((await withStore(b, (s) => push(s, getRemote(s, 'r2')))).forwarded).toEqual({ folders: 1, events: 10 });
      expect((await withStore(c, (s) => pull(s, getRemote(s, 'r2')))).events).toBe(10);
      expect(await keysOf(c, S)).toEqual(await keysOf(a, S));
      expect(segmentLines(await r2.files())).toBe(610);

      // A pushes 5 more straight to r2: B (still at 610) never rewinds r2's longer chain of A.
      await withStore(a, async (s) => {
        s.append(S, events(5, 610));
        await push(s, getRemote(s, 'r2'));
      });
      const longer = folderOf(await r2.files(), idA);
      expect((await withStore(b, (s) => push(s, getRemote(s, 'r2')))).forwarded).toEqual({ folders: 0, events: 0 });
      expect(folderOf(await r2.files(), idA)).toEqual(longer);
    });

    it('a forwarded folder tampered with on r2 is refused by C', async () => {
      const work = tempDir(`sp-fwd-t-${kind}-`);
      mkdirSync(join(work, 'r1'));
      mkdirSync(join(work, 'r2'));
      const r1 = await KINDS[kind](join(work, 'r1'));
      const r2 = await KINDS[kind](join(work, 'r2'));
      const [a, b, c] = [machine('sp-fwd-a-'), machine('sp-fwd-b-'), machine('sp-fwd-c-')];
      for (const m of [a, b, c]) ensureKeys(m.home);
      trust(b, a, 'a');
      trust(c, a, 'a');
      trust(c, b, 'b');
      await withStore(a, async (s) => {
        addRemote(s, 'r1', r1.url, r1.dir);
        s.append(S, events(20, 0));
        await push(s, getRemote(s, 'r1'));
      });
      await withStore(b, async (s) => {
        addRemote(s, 'r1', r1.url, r1.dir);
        addRemote(s, 'r2', r2.url, r2.dir);
        await pull(s, getRemote(s, 'r1'));
        expect((await push(s, getRemote(s, 'r2'))).forwarded?.folders).toBe(1);
      });
      const idA = await machineId(a);
      await r2.tamper(idA);
      const pulled = await withStore(c, async (s) => {
        addRemote(s, 'r2', r2.url, r2.dir);
        return pull(s, getRemote(s, 'r2'));
      });
      expect(pulled.events).toBe(0);
      expect(pulled.refused.map((r) => r.where)).toEqual([`machines/${idA}/sessions/${S}`]);
      expect(pulled.refused[0].reason).toMatch(/does not link|changed/);
      expect(await withStore(c, (s) => s.session(S))).toBeUndefined();
    });
  });
}

describe('forwarding and encrypted remotes', () => {
  it('a folder pulled from an encrypted remote is forwarded sealed to an encrypted one, never in plaintext', async () => {
    const { ageRecipient } = await import('../lib/sync/sealed.js');
    const work = tempDir('sp-fwd-enc-');
    const [enc1, plain, enc2] = ['enc1', 'plain', 'enc2'].map((n) => join(work, n));
    for (const d of [enc1, plain, enc2]) mkdirSync(d);
    const [a, b, c] = [machine('sp-fwd-a-'), machine('sp-fwd-b-'), machine('sp-fwd-c-')];
    for (const m of [a, b, c]) ensureKeys(m.home);
    const recipients = [await ageRecipient(a.home), await ageRecipient(b.home), await ageRecipient(c.home)];
    trust(b, a, 'a');
    trust(c, a, 'a');
    await withStore(a, async (s) => {
      addRemote(s, 'enc1', enc1, true, { recipients });
      s.append(S, events(30, 0));
      await push(s, getRemote(s, 'enc1'));
    });
    const idA = await machineId(a);
    await withStore(b, async (s) => {
      addRemote(s, 'enc1', enc1, true, { recipients });
      addRemote(s, 'plain', plain, true);
      addRemote(s, 'enc2', enc2, true, { recipients });
      await pull(s, getRemote(s, 'enc1'));
      expect((await push(s, getRemote(s, 'plain'))).forwarded).toEqual({ folders: 0, events: 0 });
      expect((await push(s, getRemote(s, 'enc2'))).forwarded).toEqual({ folders: 1, events: 30 });
    });
    expect(existsSync(join(plain, 'machines', idA))).toBe(false);
    // Sealed on enc2: chunk and manifest files only, no plaintext line of A's.
    const sealed = walk(join(enc2, 'machines', idA));
    expect([...sealed.keys()].every((p) => p.endsWith('.age'))).toBe(true);
    expect([...sealed.values()].some((t) => t.includes('step 1'))).toBe(false);
    const pulled = await withStore(c, async (s) => {
      addRemote(s, 'enc2', enc2, true, { recipients });
      return pull(s, getRemote(s, 'enc2'));
    });
    expect(pulled.refused).toEqual([]);
    expect(pulled.events).toBe(30);
    expect(await keysOf(c, S)).toEqual(await keysOf(a, S));
  });
});

describe.skipIf(pgMissing !== undefined)('forwarding on PostgreSQL with team roles', () => {
  it('only members of sp_forward forward; the origin then claims its machine id and goes on', async () => {
    const sfx = Math.random().toString(36).slice(2, 8);
    const [alice, bob, carol] = ['alice', 'bob', 'carol'].map((n) => `fwd_${n}_${sfx}`);
    for (const r of [alice, bob, carol]) await db!.sql(`CREATE ROLE ${r} LOGIN`);
    const { grantProject } = await import('../lib/sync/pg.js');
    const owner = await connect(db!.url);
    try {
      await initSchema(owner);
      for (const r of [alice, bob, carol]) await grantProject(owner, r, 'web', 'test');
    } finally {
      await owner.end();
    }
    const r1 = join(tempDir('sp-fwd-roles-'), 'shared');
    mkdirSync(r1);
    const [a, b, c] = [machine('sp-fwd-a-'), machine('sp-fwd-b-'), machine('sp-fwd-c-')];
    for (const m of [a, b, c]) ensureKeys(m.home);
    trust(b, a, 'a');
    trust(c, a, 'a');
    trust(c, b, 'b');
    const start = { session: S, seq: 0, ts: 1_799_999_999, agent: 'claude', actor: 'system', type: 'session.start', payload: { cwd: '/home/a/web', native_id: S } } as unknown as SpEvent;
    await withStore(a, async (s) => {
      addRemote(s, 'r1', r1, true);
      s.append(S, [start, ...events(5, 0)]);
      await push(s, getRemote(s, 'r1'));
    });
    const idA = await machineId(a);
    const forward = () =>
      withStore(b, async (s) => {
        if (!s.session(S)) {
          addRemote(s, 'r1', r1, true);
          addRemote(s, 'team', db!.urlAs(bob));
          await pull(s, getRemote(s, 'r1'));
        }
        return push(s, getRemote(s, 'team'));
      });
    // bob is a team member but not a forwarder: the push succeeds and A's folder is left out.
    expect((await forward()).forwarded).toEqual({ folders: 0, events: 0 });
    expect((await db!.sql('SELECT count(*)::int AS n FROM sp.events WHERE machine = $1', [idA])).rows[0].n).toBe(0);
    await db!.sql(`GRANT sp_forward TO ${bob}`);
    expect((await forward()).forwarded).toEqual({ folders: 1, events: 6 });
    expect((await db!.sql('SELECT owner FROM sp.machines WHERE machine = $1', [idA])).rows[0].owner).toBe('sp_forward');
    const pulledC = await withStore(c, async (s) => {
      addRemote(s, 'team', db!.urlAs(carol));
      return pull(s, getRemote(s, 'team'));
    });
    expect(pulledC.refused).toEqual([]);
    expect(pulledC.events).toBe(6);
    // A's own first push to the server claims its machine id and appends to the forwarded chain.
    await withStore(a, async (s) => {
      addRemote(s, 'team', db!.urlAs(alice));
      s.append(S, events(2, 5));
      await push(s, getRemote(s, 'team'));
    });
    expect((await db!.sql('SELECT owner FROM sp.machines WHERE machine = $1', [idA])).rows[0].owner).toBe(alice);
    const rows = (await db!.sql('SELECT count(*)::int AS n, count(DISTINCT seq)::int AS d FROM sp.events WHERE machine = $1', [idA])).rows[0];
    expect(rows).toEqual({ n: 8, d: 8 });
    expect((await withStore(c, (s) => pull(s, getRemote(s, 'team')))).events).toBe(2);
    expect(await keysOf(c, S)).toEqual(await keysOf(a, S));
  });
});
