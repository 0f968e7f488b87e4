// The team on one PostgreSQL remote: eight machines pushing at once as separate processes (nothing
// lost, nothing stored twice, every replica converges), row-level security by project with two
// login roles, and `sp-sync search --remote` (full text, CJK and code fragments, filters, snippets).
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { bin, machine as newMachine, sp, withStore, type Machine } from './support/store.js';
import { pgMissing, usePostgres, type TestPostgres } from './support/pg.js';
import { Store, eventKey, ensureKeys } from '../lib/store/index.js';
import { addRemote, getRemote, pull, push } from '../lib/sync/remote.js';
import { connect, grantProject, searchTeam, type TeamSearchFilters } from '../lib/sync/pg.js';
import { addTrusted } from '../lib/store/trust.js';
import { machineId } from '../lib/store/index.js';

// Several steps spawn sp-sync; on a loaded shared machine one such test can take a minute or more.
vi.setConfig({ testTimeout: 180_000 });

let db: TestPostgres;
usePostgres((started) => (db = started));

const machine = () => newMachine('sp-pg-team-');

function items(session: string, project: string, who: string, n: number, base: number, texts: string[] = [], agent = 'claude', firstSeq = 0): Array<{ event: Record<string, unknown> }> {
  const out: Array<Record<string, unknown>> = [];
  if (firstSeq === 0) out.push({ session, seq: 0, ts: base, agent, actor: 'system', type: 'session.start', payload: { cwd: `/home/${who}/${project}`, native_id: session } });
  for (let i = 0; i < n; i++) {
    out.push({
      session,
      seq: firstSeq + i + 1,
      ts: base + i + 1,
      agent,
      actor: i % 2 ? `agent:${agent}` : 'user',
      type: i % 2 ? 'message.assistant' : 'message.user',
      payload: { content: [{ type: 'text', text: texts[i] ?? `${who} note ${i} about ${project}` }] },
    });
  }
  return out.map((event) => ({ event }));
}

/** Test texts hold no secrets: recorded as redacted, as `sp-sync ingest` would (push refuses unredacted sessions). */
const REDACTED = { redaction: { state: 'redacted' as const, ruleset: 'test' } };


/** Runs sp-sync as a separate process; resolves with its exit status and output. */
function spAsync(home: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin('sp-sync'), ...args], { env: { ...process.env, SP_HOME: home, SP_PROGRESS: '0' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function allKeys(m: Machine): Promise<string[]> {
  const store = Store.open(m.dir, { readonly: true, home: m.home });
  try {
    const keys: string[] = [];
    for (const s of store.sessions({ all: true })) for await (const e of store.events(s.id)) keys.push(`${s.id} ${eventKey(e)}`);
    return keys.sort();
  } finally {
    store.close();
  }
}

describe.skipIf(pgMissing !== undefined)('a team on one PostgreSQL remote', () => {
  it('8 machines push at once (separate processes): nothing lost, nothing twice, every replica converges', async () => {
    const team = Array.from({ length: 8 }, () => machine());
    const url = await db.another();
    const perMachine = 250;
    for (const [i, m] of team.entries()) {
      await withStore(m, async (s) => {
        addRemote(s, 'team', url);
        await s.ingest(items(`sess_load_${i}`, 'load', `m${i}`, perMachine, 1_800_000_000 + i * 10_000), REDACTED);
        // Everyone also writes to one shared session: the same session id from eight machines.
        await s.ingest(items('sess_load_shared', 'load', `m${i}`, 20, 1_800_100_000 + i * 100, [], 'claude', i === 0 ? 0 : 1000 * i), REDACTED);
      });
      for (const other of team) if (other !== m) addTrusted(m.home, ensureKeys(other.home).publicRaw, `peer-${team.indexOf(other)}`);
    }
    expect(sp('sp-sync', ['remote', 'init', 'team'], { home: team[0].home }).status).toBe(0);
    const pushes = await Promise.all(team.map((m) => spAsync(m.home, ['push', 'team', '--json'])));
    for (const p of pushes) expect(p.status, p.stderr).toBe(0);
    const pushedEvents = pushes.reduce((n, p) => n + (JSON.parse(p.stdout) as { events: number }).events, 0);
    const expected = 8 * (perMachine + 1) + 21 + 7 * 20;
    expect(pushedEvents).toBe(expected);
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    try {
      const rows = (await check.query('SELECT count(*)::int AS n, count(DISTINCT (machine, session_id, seq))::int AS d, count(DISTINCT checksum)::int AS c FROM sp.events')).rows[0];
      expect(rows).toEqual({ n: expected, d: expected, c: expected });
      // A second round at once (in this process, eight stores): half push again while half pull.
      const stores = team.map((m) => Store.open(m.dir, { home: m.home, lockTimeoutMs: 60_000 }));
      try {
        const again = await Promise.all(stores.map((s, i) => (i % 2 ? push(s, getRemote(s, 'team')) : pull(s, getRemote(s, 'team')))));
        for (const [i, r] of again.entries()) {
          expect(r.refused).toEqual([]);
          if (i % 2) expect(r.events).toBe(0);
        }
        expect((await check.query('SELECT count(*)::int AS n FROM sp.events')).rows[0].n).toBe(expected);
        for (const r of await Promise.all(stores.map((s) => pull(s, getRemote(s, 'team'))))) expect(r.refused).toEqual([]);
      } finally {
        for (const s of stores) s.close();
      }
    } finally {
      await check.end();
    }
    const replicas = await Promise.all(team.map((m) => allKeys(m)));
    expect(replicas[0].length).toBe(expected);
    expect(new Set(replicas[0]).size).toBe(expected);
    for (const r of replicas) expect(r).toEqual(replicas[0]);
  }, 240_000);

  describe('row-level security by project, and search', () => {
    const suffix = randomBytes(3).toString('hex');
    const alice = `alice_${suffix}`;
    const bob = `bob_${suffix}`;
    let url: string;
    let a: Machine;
    let b: Machine;
    let admin: Machine;
    const asRole = (role: string) => {
      const u = new URL(url);
      u.username = role;
      return u.toString();
    };

    beforeAll(async () => {
      if (pgMissing) return;
      url = await db.another();
      await db.sql(`CREATE ROLE ${alice} LOGIN`);
      await db.sql(`CREATE ROLE ${bob} LOGIN`);
      admin = machine();
      a = machine();
      b = machine();
      expect(sp('sp-sync', ['remote', 'add', 'team', url], { home: admin.home }).status).toBe(0);
      expect(sp('sp-sync', ['remote', 'init', 'team'], { home: admin.home }).status).toBe(0);
      expect(sp('sp-sync', ['remote', 'grant', 'team', alice, 'web'], { home: admin.home }).status).toBe(0);
      expect(sp('sp-sync', ['remote', 'grant', 'team', bob, 'api'], { home: admin.home }).status).toBe(0);
      for (const [x, y] of [[a, b], [b, a], [admin, a], [admin, b]] as const) addTrusted(x.home, ensureKeys(y.home).publicRaw, `peer-${machineId(y.home)}`);
      await withStore(a, async (s) => {
        addRemote(s, 'team', asRole(alice));
        await s.ingest(items('sess_web_1', 'web', 'alice', 6, 1_800_000_000, ['fix the flaky removeTodo(id) test', 'the quarterly report renders blank', '修复测试失败的问题', 'user.profile?.email is undefined']), REDACTED);
        await s.ingest(items('sess_ops_1', 'ops', 'alice', 4, 1_800_050_000, ['rotate the quarterly ops credentials']), REDACTED);
      });
      await withStore(b, async (s) => {
        addRemote(s, 'team', asRole(bob));
        await s.ingest(items('sess_api_1', 'api', 'bob', 4, 1_800_100_000, ['the quarterly api budget', 'removeTodo( returns 404'], 'codex'), REDACTED);
      });
      for (const m of [a, b]) {
        const r = sp('sp-sync', ['push', 'team'], { home: m.home });
        expect(r.status, r.stderr).toBe(0);
      }
    }, 180_000);

    it('a role pulls only its projects\' sessions (two roles), and a grant opens one more project', async () => {
      const pulledByBob = sp('sp-sync', ['pull', 'team', '--json'], { home: b.home });
      expect(pulledByBob.status, pulledByBob.stderr).toBe(0);
      expect(JSON.parse(pulledByBob.stdout).events).toBe(0);
      expect((await withStore(a, (s) => pull(s, getRemote(s, 'team')))).events).toBe(0);
      // Reading the tables directly as bob shows the same: his rows only, nothing of web or ops.
      const asBob = new pg.Client({ connectionString: asRole(bob) });
      await asBob.connect();
      try {
        expect((await asBob.query('SELECT DISTINCT project FROM sp.events ORDER BY 1')).rows.map((r) => r.project)).toEqual(['api']);
        expect((await asBob.query('SELECT count(*)::int AS n FROM sp.files')).rows[0].n).toBe(1);
        expect((await asBob.query('SELECT role, project FROM sp.grants')).rows).toEqual([{ role: bob, project: 'api' }]);
        // Nor can bob write under alice's machine, or pose as another role.
        const aliceMachine = machineId(a.home);
        await expect(asBob.query("INSERT INTO sp.events (machine, session_id, seq, line, project) VALUES ($1, 'sess_web_1', 99, '{}', 'web')", [aliceMachine])).rejects.toThrow(/row-level security|foreign key/);
        await expect(asBob.query('UPDATE sp.sessions SET project = $1 WHERE machine = $2', ['api', aliceMachine])).resolves.toMatchObject({ rowCount: 0 });
        await expect(asBob.query('DELETE FROM sp.events')).rejects.toThrow(/permission denied/);
      } finally {
        await asBob.end();
      }
      // A role name is an identifier spliced into GRANT: anything but a plain name is refused.
      const owner = await connect(url);
      try {
        await expect(grantProject(owner, `${bob}"; DROP TABLE sp.events; --`, 'web', 'test')).rejects.toThrow(/not a role name/);
        await expect(grantProject(owner, `nobody_${suffix}`, 'web', 'test')).rejects.toThrow(/no role nobody_/);
      } finally {
        await owner.end();
      }
      expect(sp('sp-sync', ['remote', 'grant', 'team', bob, 'web'], { home: admin.home }).status).toBe(0);
      const afterGrant = sp('sp-sync', ['pull', 'team', '--json'], { home: b.home });
      expect(afterGrant.status, afterGrant.stderr).toBe(0);
      expect(JSON.parse(afterGrant.stdout).events).toBe(7);
      await withStore(b, (s) => {
        expect(s.session('sess_web_1')?.events).toBe(7);
        expect(s.session('sess_ops_1')).toBeUndefined();
      });
      // The owner of the tables (who ran init) reads everything.
      expect((await withStore(admin, (s) => pull(s, getRemote(s, 'team')))).events).toBe(7 + 5 + 5);
    });

    it('search --remote: words with snippets, CJK and code fragments, filters, and only readable projects', async () => {
      // The command line once (output, exit status), then the same query function it calls.
      const cli = sp('sp-sync', ['search', '--remote', 'team', '--json', 'quarterly'], { home: admin.home });
      expect(cli.status, cli.stderr).toBe(0);
      const words = cli.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(words.map((h) => h.session).sort()).toEqual(['sess_api_1', 'sess_ops_1', 'sess_web_1']);
      expect(words.find((h) => h.session === 'sess_web_1')?.snippet).toMatch(/\[quarterly\] report renders/);
      const client = await connect(url);
      const asBob = await connect(asRole(bob));
      try {
        const search = async (text: string, filters: Partial<TeamSearchFilters> = {}, as = client) => (await searchTeam(as, text, { limit: 20, ...filters }, 'test')).map((h) => h.session).sort();
        const cjk = await searchTeam(client, '测试失败', { limit: 20 }, 'test');
        expect(cjk.map((h) => [h.session, h.seq])).toEqual([['sess_web_1', 3]]);
        expect(cjk[0].snippet).toContain('修复测试失败的问题');
        expect(await search('removeTodo(')).toEqual(['sess_api_1', 'sess_web_1']);
        expect(await search('profile?.email')).toEqual(['sess_web_1']);
        // Filters: agent, project, author machine, date range (since inclusive, until exclusive).
        expect(await search('quarterly', { agent: 'codex' })).toEqual(['sess_api_1']);
        expect(await search('quarterly', { project: 'ops' })).toEqual(['sess_ops_1']);
        expect(await search('quarterly', { machine: machineId(b.home) })).toEqual(['sess_api_1']);
        expect(await search('quarterly', { since: 1_800_040_000, until: 1_800_100_000 })).toEqual(['sess_ops_1']);
        expect(await search('no such words anywhere')).toEqual([]);
        // LIKE wildcards in the text are literal.
        expect(await search('%')).toEqual([]);
        // bob (api, and web since the grant) never sees ops.
        expect(await search('quarterly', {}, asBob)).toEqual(['sess_api_1', 'sess_web_1']);
      } finally {
        await client.end();
        await asBob.end();
      }
      const none = sp('sp-sync', ['search', '--remote', 'team', 'quarterly', '--project', 'nothing', '--since', '2027-01-15T19:00:00Z'], { home: admin.home });
      expect(none.status).toBe(1);
      const bad = sp('sp-sync', ['search', '--remote', 'team', 'x', '--since', 'yesterday-ish'], { home: admin.home });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/^sp-sync: --since: not a date/);
    });
  });
});
