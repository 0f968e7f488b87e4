#!/usr/bin/env node
// bench/pg.mjs [--quick] [--events N] [--search-events N] [--load-events N]: the PostgreSQL team remote on a throwaway local cluster (scripts/db.mjs;
// or SP_BENCH_PG_URL, a database this role may create tables in).
//   push / pull  a generated working session of SP_BENCH_PG_EVENTS events (100k; --quick 10k):
//                `sp-sync push` into an initialized remote, `sp-sync clone` into a second SP_HOME;
//                each next to a bare COPY of the same rows (into a copy of sp.events with its
//                indexes, and out of it) as the baseline.
//   search       p50/p95 latency of `searchTeam` (what `sp-sync search --remote` runs) over
//                SP_BENCH_PG_SEARCH stored events (1M; --quick 100k) filled by SQL: words, a code
//                fragment, CJK, and the same with filters.
//   load         8 pushers at once (separate processes) × SP_BENCH_PG_LOAD events (10k; --quick 1k),
//                then every replica pulls: rows counted (nothing lost, nothing twice) and every
//                replica's event keys compared.
// Prints one JSON line: { runs: [...], load, checks } for bench/run.mjs. Needs `npm run build` first.
import { parseArgs } from 'node:util';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { measure, root, writeWorkSession } from './lib.mjs';
import { startCluster, stopCluster } from '../scripts/db.mjs';
import { searchTeam } from '../dist/lib/sync/pg.js';
import { Store, eventKey, ensureKeys } from '../dist/lib/store/index.js';
import { addTrusted } from '../dist/lib/store/trust.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    // The sizes as flags (the env variables still work): a run cut short on a loaded machine is redone with one command.
    events: { type: 'string' },
    'search-events': { type: 'string' },
    'load-events': { type: 'string' },
  },
});
const quick = values.quick;
const size = (flag, env, full, small) => {
  const n = Number(flag ?? process.env[env] ?? (quick ? small : full));
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`bench pg: not a size: ${flag ?? process.env[env]}\n`);
    process.exit(2);
  }
  return n;
};
const total = size(values.events, 'SP_BENCH_PG_EVENTS', 100_000, 10_000);
const searchTotal = size(values['search-events'], 'SP_BENCH_PG_SEARCH', 1_000_000, 100_000);
const perPusher = size(values['load-events'], 'SP_BENCH_PG_LOAD', 10_000, 1_000);
const work = mkdtempSync(join(tmpdir(), 'sp-bench-pg-'));
const node = process.execPath;
const sync = join(root, 'dist/bin/sp-sync.js');
// Each measurement is also logged as it is taken (a long run on a loaded machine shows its figures early).
const runs = new Proxy([], { get: (t, k) => (k === 'push' ? (...rows) => (rows.forEach((r) => process.stderr.write(`bench pg: ${JSON.stringify(r)}\n`)), t.push(...rows)) : Reflect.get(t, k)) });
const checks = {};
const log = (m) => process.stderr.write(`bench pg: ${m}\n`);

const cluster = process.env.SP_BENCH_PG_URL ? undefined : await startCluster();
const base = process.env.SP_BENCH_PG_URL ?? cluster.url;

async function database(name) {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name}`);
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

const env = (home) => ({ SP_HOME: home, SP_PROGRESS: '0' });
const run = (home, args) => execFileSync(node, [sync, ...args], { env: { ...process.env, ...env(home) }, encoding: 'utf8', maxBuffer: 1 << 26 });


function row(pass, input, events, m, baseline, note = '') {
  runs.push({
    pass,
    input,
    events,
    seconds: +m.seconds.toFixed(3),
    cpu_seconds: Number.isFinite(m.cpuSeconds) ? +m.cpuSeconds.toFixed(2) : null,
    events_per_s: events ? Math.round(events / m.seconds) : null,
    peak_rss_mb: Number.isFinite(m.rssMb) ? +m.rssMb.toFixed(1) : null,
    baseline_seconds: baseline ? +baseline.toFixed(3) : null,
    ratio_copy: baseline ? +(baseline / m.seconds).toFixed(3) : null,
    note,
  });
}

try {
  // ---- push and pull ----------------------------------------------------------------------------
  log(`push/pull of ${total} events`);
  const url = await database('sp_bench_sync');
  const homeA = mkdtempSync(join(work, 'a-'));
  const homeB = mkdtempSync(join(work, 'b-'));
  const file = join(work, 'generated.ndjson');
  await writeWorkSession(file, { events: total, seed: 5 });
  run(homeA, ['ingest', '-q', file]);
  run(homeA, ['remote', 'add', 'team', url, '-q']);
  run(homeA, ['remote', 'init', 'team', '-q']);
  const pushed = await measure(node, [sync, 'push', 'team', '-q'], { env: env(homeA) });
  if (pushed.code !== 0) throw new Error(`push exited ${pushed.code}: ${pushed.stderr}`);
  addTrusted(homeB, ensureKeys(homeA).publicRaw, 'a');
  const pulled = await measure(node, [sync, 'clone', url, '--name', 'team', '-q'], { env: env(homeB) });
  if (pulled.code !== 0) throw new Error(`clone exited ${pulled.code}: ${pulled.stderr}`);
  // The baselines: the same rows through a bare COPY (psql \copy), into a table shaped like
  // sp.events with the same indexes, and out of sp.events.
  const rowsFile = join(work, 'rows.copy');
  const psql = (sql) => measure('psql', ['-q', '-X', '-v', 'ON_ERROR_STOP=1', url, '-c', sql]);
  const out = await psql(`\\copy (SELECT machine, session_id, seq, line, checksum, ts, type, project, body, pushed_by FROM sp.events) TO '${rowsFile}'`);
  if (out.code !== 0) throw new Error(`COPY TO failed: ${out.stderr}`);
  execFileSync('psql', ['-q', '-X', url, '-c', 'CREATE TABLE public.copy_bench (LIKE sp.events INCLUDING ALL)']);
  const copyIn = await psql(`\\copy public.copy_bench (machine, session_id, seq, line, checksum, ts, type, project, body, pushed_by) FROM '${rowsFile}'`);
  if (copyIn.code !== 0) throw new Error(`COPY FROM failed: ${copyIn.stderr}`);
  const events = total;
  row('sp-sync push (PostgreSQL)', `generated ${total} events`, events, pushed, copyIn.seconds, '× COPY: a bare COPY FROM of the same rows into a copy of sp.events (same indexes) / push');
  row('sp-sync clone (PostgreSQL)', `generated ${total} events`, events, pulled, out.seconds, '× COPY: a bare COPY TO of the same rows / clone (which verifies and stores them)');
  row('COPY FROM (baseline)', `generated ${total} events`, events, copyIn);
  row('COPY TO (baseline)', `generated ${total} events`, events, out);

  // ---- search -----------------------------------------------------------------------------------
  log(`search over ${searchTotal} events`);
  const surl = await database('sp_bench_search');
  run(homeA, ['remote', 'add', 'search', surl, '-q']);
  run(homeA, ['remote', 'init', 'search', '-q']);
  const client = new pg.Client({ connectionString: surl });
  await client.connect();
  const sessions = Math.max(1, Math.round(searchTotal / 1000));
  const perSession = Math.round(searchTotal / sessions);
  const fillStart = process.hrtime.bigint();
  await client.query(`INSERT INTO sp.machines (machine) SELECT 'bench-m' || m FROM generate_series(0, 7) m`);
  await client.query(
    `INSERT INTO sp.sessions (machine, session_id, project, agent, first_ts, last_ts, event_count)
     SELECT 'bench-m' || (s % 8), 'sess_bench_' || s, 'project' || (s % 10), (ARRAY['claude','codex','pi','gemini'])[1 + s % 4], 1.8e9 + s * 1000, 1.8e9 + s * 1000 + $2, $2
     FROM generate_series(0, $1 - 1) s`,
    [sessions, perSession],
  );
  await client.query(
    `WITH w AS (SELECT ARRAY['refactor','database','migration','flaky','test','renders','blank','quarterly','report','timeout','retry','cache','invalidate','token','parser','schema','deploy','rollback','latency','index'] AS w)
     INSERT INTO sp.events (machine, session_id, seq, line, checksum, ts, type, project, body)
     SELECT 'bench-m' || (s % 8), 'sess_bench_' || s, q, '{}', NULL, 1.8e9 + s * 1000 + q, 'message.user', 'project' || (s % 10),
       w[1 + (s * 7 + q * 13) % 20] || ' the ' || w[1 + (s * 11 + q * 3) % 20] || ' and ' || w[1 + (s + q * 17) % 20] ||
       ' in handle_' || ((s * 31 + q) % 5000) || '(req, res) at src/' || w[1 + q % 20] || '.ts: ' ||
       (ARRAY['修复测试失败的问题','数据库迁移超时','缓存失效','部署回滚'])[1 + (s + q) % 4] || ' #' || (s * perq + q)
     FROM generate_series(0, $1 - 1) s, generate_series(0, $2 - 1) q, w, (SELECT $2::int AS perq) p`,
    [sessions, perSession],
  );
  await client.query('ANALYZE sp.events');
  await client.query('ANALYZE sp.sessions');
  const fillSeconds = Number(process.hrtime.bigint() - fillStart) / 1e9;
  const stored = Number((await client.query('SELECT count(*) AS n FROM sp.events')).rows[0].n);
  const queries = [
    ['word', 'quarterly', {}],
    ['two words', 'the cache', {}],
    ['code fragment', 'handle_4242(req', {}],
    ['CJK', '数据库迁移', {}],
    ['word + agent + project', 'rollback', { agent: 'codex', project: 'project3' }],
    ['word + machine + date range', 'latency', { machine: 'bench-m2', since: 1.8e9 + Math.floor(sessions * 0.1) * 1000, until: 1.8e9 + Math.ceil(sessions * 0.5) * 1000 }],
    ['rare substring', '#' + String(Math.floor(searchTotal / 2)), {}],
  ];
  const latencies = [];
  const perKind = {};
  for (let round = 0; round < 5; round++) {
    for (const [kind, text, filters] of queries) {
      const t = process.hrtime.bigint();
      const hits = await searchTeam(client, text, { limit: 20, ...filters }, 'bench');
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (round > 0) {
        latencies.push(ms);
        (perKind[kind] ??= []).push(ms);
      }
      if (round === 0 && hits.length === 0) throw new Error(`search ${kind} (${text}) found nothing`);
    }
  }
  await client.end();
  const pct = (list, p) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * p))];
  runs.push({
    pass: 'search --remote (searchTeam)',
    input: `${stored} stored events, ${queries.length} queries × 4 rounds`,
    events: stored,
    p50_ms: +pct(latencies, 0.5).toFixed(1),
    p95_ms: +pct(latencies, 0.95).toFixed(1),
    per_kind_p50_ms: Object.fromEntries(Object.entries(perKind).map(([k, v]) => [k, +pct(v, 0.5).toFixed(1)])),
    fill_seconds: +fillSeconds.toFixed(1),
    note: 'rows filled by SQL (INSERT … SELECT with both GIN indexes live)',
  });

  // ---- load: 8 pushers at once ------------------------------------------------------------------
  log(`load: 8 pushers × ${perPusher} events`);
  const lurl = await database('sp_bench_load');
  const homes = Array.from({ length: 8 }, (_, i) => mkdtempSync(join(work, `load${i}-`)));
  for (const [i, home] of homes.entries()) {
    const f = join(work, `load${i}.ndjson`);
    await writeWorkSession(f, { events: perPusher, seed: 100 + i });
    run(home, ['ingest', '-q', f]);
    run(home, ['remote', 'add', 'team', lurl, '-q']);
    for (const other of homes) if (other !== home) addTrusted(home, ensureKeys(other).publicRaw, `peer${homes.indexOf(other)}`);
  }
  run(homes[0], ['remote', 'init', 'team', '-q']);
  const at = (args, home) =>
    new Promise((resolve) => {
      const child = spawn(node, [sync, ...args], { env: { ...process.env, ...env(home) }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  let t = process.hrtime.bigint();
  const pushes = await Promise.all(homes.map((h) => at(['push', 'team', '-q'], h)));
  const pushSeconds = Number(process.hrtime.bigint() - t) / 1e9;
  for (const p of pushes) if (p.code !== 0) throw new Error(`a concurrent push failed: ${p.stderr}`);
  const lc = new pg.Client({ connectionString: lurl });
  await lc.connect();
  const counts = (await lc.query('SELECT count(*)::int AS n, count(DISTINCT (machine, session_id, seq))::int AS d, count(DISTINCT machine)::int AS m FROM sp.events')).rows[0];
  await lc.end();
  t = process.hrtime.bigint();
  const pulls = await Promise.all(homes.map((h) => at(['pull', 'team', '-q'], h)));
  const pullSeconds = Number(process.hrtime.bigint() - t) / 1e9;
  for (const p of pulls) if (p.code !== 0) throw new Error(`a concurrent pull failed: ${p.stderr}`);
  const replicas = [];
  for (const home of homes) {
    const store = Store.open(join(home, 'store'), { readonly: true, home });
    const keys = [];
    for (const s of store.sessions({ all: true })) for await (const e of store.events(s.id)) keys.push(`${s.id} ${eventKey(e)}`);
    store.close();
    replicas.push(keys.sort().join('\n'));
  }
  const expected = 8 * perPusher;
  checks.load = {
    pushers: 8,
    events_per_pusher: perPusher,
    rows: counts.n,
    distinct_keys: counts.d,
    machines: counts.m,
    nothing_lost: counts.n === expected,
    nothing_twice: counts.d === counts.n,
    replicas_converge: replicas.every((r) => r === replicas[0]) && replicas[0].split('\n').length === expected,
  };
  runs.push({ pass: '8 concurrent pushes (separate processes)', input: `8 × ${perPusher} events`, events: expected, seconds: +pushSeconds.toFixed(3), events_per_s: Math.round(expected / pushSeconds), note: JSON.stringify(checks.load) });
  runs.push({ pass: '8 concurrent pulls (each takes the other 7)', input: `8 × ${7 * perPusher} events`, events: 7 * expected, seconds: +pullSeconds.toFixed(3), events_per_s: Math.round((7 * expected) / pullSeconds) });
  if (!checks.load.nothing_lost || !checks.load.nothing_twice || !checks.load.replicas_converge) throw new Error(`load test failed: ${JSON.stringify(checks.load)}`);
} finally {
  if (cluster) stopCluster(cluster);
  rmSync(work, { recursive: true, force: true });
}
const load = execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' ');
process.stdout.write(JSON.stringify({ load, runs: [...runs], checks }) + '\n');
