// kill -9 at random points of sp-materialize, for every writer: afterwards the target holds the
// whole session or none of it — every session file a client would list is complete (as many lines
// as an uninterrupted run writes, each a JSON value, the last one ended), no temp file is left
// under a name the client reads, and a database passes integrity_check with every table's row
// count either as before or as after an uninterrupted run.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { syntheticChained } from '../../adapters/claude/synthetic.js';
import { random } from '../../lib/core/random.js';
import { filesUnder, record, removeTempDirs, runBin, tempDir } from './support/harness.js';
import { nativeSeeds, writerFlags, writers } from './support/seeds.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const KILLS = Number(process.env.SP_HARD_KILLS ?? 5);
const seeds = await nativeSeeds();
afterAll(removeTempDirs);

// A session big enough that writing it takes a while (~1,000 events, ~5 MB).
const input = join(tempDir(), 'events.ndjson');
writeFileSync(input, [...syntheticChained({ events: 1000, seed: 9 })].map((e) => JSON.stringify(e)).join('\n') + '\n');

/** Temp names of atomic writers (`.<name>.<pid>.<hex>.tmp`, or a folder `.<name>.tmp/`) and similar: never read by a client. */
const TEMP = /(^|\/)\.[^/]*\.tmp(\/|$)|\.tmp$|\.tmp-/;

interface Snapshot {
  /** Non-temp files: relative path with ids masked → line count (-1: not a JSON-lines file, -2: torn). */
  files: string[];
  temps: string[];
  /** Row count per table of the database, if the writer keeps one. */
  rows?: Record<string, number>;
}

// Ids differ from run to run: masked. Gemini names a session file by its minute and an 8-hex id:
// session-2026-11-30T12-10-7f6aadc3.jsonl.
const mask = (path: string) => path.replace(/session-\d{4}-\d\d-\d\dT\d\d-\d\d-[0-9a-f]{8}\.json/g, 'session-TIME-ID.json').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, 'UUID').replace(/\d{4}-\d\d-\d\dT\d\d[-:]\d\d[-:]\d\d(?:[-.]\d+Z?)?/g, 'TIME').replace(/ses_[A-Za-z0-9]+|\d{8}_\d{6}_[0-9a-f]+/g, 'ID')
  // Cline CLI: epoch milliseconds and five random characters, 1796197307099_cwnhd.
  .replace(/\b\d{13}_[a-z0-9]{5}\b/g, 'ID');

function describeFile(path: string): string {
  const bytes = readFileSync(path);
  if (bytes.length === 0) return 'empty';
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  if (lines.length > 1 && lines.every((l, i) => (i === lines.length - 1 ? l === '' : isJson(l)))) return `${lines.length - 1} lines`;
  if (isJson(text)) return 'json document';
  if (bytes.subarray(0, 16).toString('latin1') === 'SQLite format 3\u0000') return 'sqlite';
  return 'other/torn';
}
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function snapshot(home: string, db?: string): Snapshot {
  const all = filesUnder(home);
  const temps = all.filter((f) => TEMP.test(f));
  const files = all
    .filter((f) => !TEMP.test(f) && !/-(wal|shm|journal)$/.test(f) && !/backup|\.bak/i.test(f))
    .map((f) => `${mask(f)}: ${f === db ? 'db' : describeFile(join(home, f))}`)
    .sort();
  const snap: Snapshot = { files, temps };
  if (db) {
    const conn = new Database(join(home, db));
    try {
      expect(conn.pragma('integrity_check', { simple: true }), 'integrity_check').toBe('ok');
      const names = (conn.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'`).all() as Array<{ name: string }>).map((r) => r.name);
      snap.rows = Object.fromEntries(names.map((n) => [n, (conn.prepare(`SELECT count(*) AS n FROM "${n}"`).get() as { n: number }).n]));
    } finally {
      conn.close();
    }
  }
  return snap;
}

function prepareHome(agent: string): { home: string; db?: string } {
  const home = tempDir('sp-hard-kill-');
  const seedDb = seeds.find((s) => s.agent === agent)?.db;
  if (!seedDb) return { home };
  // A writer that adds to the agent's database gets a copy of a real one.
  copyFileSync(seedDb, join(home, basename(seedDb)));
  return { home, db: basename(seedDb) };
}

// One project folder for every run: session paths that name the cwd then compare across runs.
const project = tempDir('sp-hard-project-');
const args = (agent: string, home: string) => [agent, input, ...writerFlags(agent), '--home', home, '--cwd', project, '--no-backup'];

describe.concurrent('kill -9 during sp-materialize', () => {
  for (const agent of writers()) {
    test(agent, { timeout: 900_000 }, async () => {
      const reference = prepareHome(agent);
      const before = snapshot(reference.home, reference.db);
      const full = await runBin('sp-materialize', args(agent, reference.home), { timeoutMs: 120_000 });
      if (full.code !== 0) {
        // A writer that cannot write this input at all (e.g. it needs a client-made store) has nothing to interrupt.
        record({ bin: `sp-materialize ${agent}`, case: 'kill -9', outcome: 'skip', note: `uninterrupted run exit ${full.code}: ${full.stderr.split('\n')[0]}` });
        expect(full.code).toBe(2);
        return;
      }
      const after = snapshot(reference.home, reference.db);
      expect(after.temps, 'an uninterrupted run left temp files').toEqual([]);
      const rnd = random(agent.length * 7919);
      const outcomes: string[] = [];
      for (let k = 0; k < KILLS; k += 1) {
        const target = prepareHome(agent);
        const delay = full.ms * (0.2 + 0.9 * rnd());
        let timer: NodeJS.Timeout | undefined;
        const run = await runBin('sp-materialize', args(agent, target.home), {
          timeoutMs: 120_000,
          onSpawn: (pid) => (timer = setTimeout(() => process.kill(pid, 'SIGKILL'), delay)),
        });
        clearTimeout(timer);
        const state = snapshot(target.home, target.db);
        const whole = JSON.stringify(state.files) === JSON.stringify(after.files) && JSON.stringify(state.rows) === JSON.stringify(after.rows);
        const none = JSON.stringify(state.files) === JSON.stringify(before.files) && JSON.stringify(state.rows) === JSON.stringify(before.rows);
        outcomes.push(`${Math.round(delay)}ms:${run.signal ? 'killed' : `exit ${run.code}`}:${whole ? 'whole' : none ? 'none' : 'PARTIAL'}${state.temps.length ? `+${state.temps.length} temp` : ''}`);
        expect(whole || none, `after kill -9 at ${Math.round(delay)} ms: ${JSON.stringify(state)}\nexpected none: ${JSON.stringify(before)}\nor whole: ${JSON.stringify(after)}`).toBe(true);
      }
      record({ bin: `sp-materialize ${agent}`, case: 'kill -9', outcome: 'ok', ms: Math.round(full.ms), note: outcomes.join(' ') });
    });
  }
});
