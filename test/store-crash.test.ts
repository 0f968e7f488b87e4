// Crash safety: `sp-sync ingest` killed with SIGKILL at random points, run after run (up to 200,
// within a time budget so a loaded machine still finishes). After every run the store verifies
// (logs, anchors, signed manifests) and holds every event of every ingest that had exited 0.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bin, sp, tempDir } from './support/store.js';
import { createRequire } from 'node:module';
import { Store, searchText, trustedKeys, verifyStore } from '../lib/store/index.js';
import type { SpEvent } from '../lib/core/event.js';
import { syntheticChained, random } from '../adapters/claude/synthetic.js';

const RUNS = 200;
const BUDGET_MS = 60_000;
const LANES = 4;

function runIngest(home: string, file: string, killAfterMs: number | undefined, args = ['ingest', '-q', file]): Promise<{ code: number | null; killed: boolean; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [bin('sp-sync'), ...args], {
      env: { ...process.env, SP_HOME: home, SP_PROGRESS: '0', SP_INGEST_BATCH: '16', SP_SEARCH_BATCH: '16' },
      stdio: 'ignore',
    });
    let killed = false;
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => ((killed = true), child.kill('SIGKILL')), killAfterMs);
    child.on('exit', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, killed: killed && code === null, ms: Date.now() - started });
    });
  });
}

describe('ingest killed at random points', () => {
  it(`keeps the store verifiable and loses nothing acknowledged (up to ${RUNS} runs)`, async () => {
    // Three interleaved sessions, small events: each run ingests a longer prefix of the same stream.
    const events = [...syntheticChained({ events: 1200, sessions: 3, seed: 11 })].map((e) =>
      e.seq === 0 ? e : { ...e, payload: { ...e.payload, content: [{ type: 'text', text: `${e.type} ${e.seq}: 测试 removeTodo` }] } },
    );
    const { Chainer } = await import('../lib/core/chain.js');
    const chainer = new Chainer();
    const lines = events.map((e) => JSON.stringify(chainer.chain(e)));
    const started = Date.now();
    let runs = 0;
    let kills = 0;
    // Independent stores side by side: node's start-up dominates a run, so lanes in parallel get
    // more runs into the budget (on a loaded machine especially).
    const lane = async (k: number) => {
      const home = tempDir('sp-crash-');
      const storeDir = join(home, 'store');
      const rand = random(2026 + k);
      const acknowledged = new Map<string, { count: number; head: string }>();
      let typical = 400;
      for (let n = 0; runs < RUNS && Date.now() - started < BUDGET_MS; n++) {
        runs += 1;
        const upTo = Math.min(lines.length, 40 + Math.floor(((n + 1) * LANES / RUNS) * lines.length * 0.9 + rand() * 60));
        const file = join(home, `in-${n % 2}.ndjson`);
        writeFileSync(file, lines.slice(0, upTo).join('\n') + '\n');
        const kill = rand() < 0.75 ? Math.floor(rand() * typical * 1.3) : undefined;
        const r = await runIngest(home, file, kill);
        if (r.killed) kills += 1;
        else {
          expect(r.code).toBe(0);
          typical = Math.round(typical * 0.7 + r.ms * 0.3);
          // Acknowledged: every event of this input, per session the last one's checksum.
          for (const line of lines.slice(0, upTo)) {
            const e = JSON.parse(line) as { session: string; seq: number; checksum: string };
            const ack = acknowledged.get(e.session);
            if (!ack || ack.count <= e.seq) acknowledged.set(e.session, { count: e.seq + 1, head: e.checksum });
          }
        }
        if (!existsSync(storeDir)) continue;
        const reports = await verifyStore(storeDir, trustedKeys(home));
        for (const report of reports) expect(report.problems, `lane ${k} run ${n}: ${report.session}`).toEqual([]);
        const store = Store.open(storeDir, { readonly: true, home });
        try {
          for (const [session, ack] of acknowledged) {
            let checksumAtAck: string | undefined;
            for await (const e of store.events(session, { since: ack.count - 1 })) {
              checksumAtAck = e.checksum;
              break;
            }
            expect(checksumAtAck, `lane ${k} run ${n}: ${session} lost acknowledged events`).toBe(ack.head);
          }
        } finally {
          store.close();
        }
      }
      // A last, undisturbed run completes the store: everything, in order, chained as the input.
      const file = join(home, 'all.ndjson');
      writeFileSync(file, lines.join('\n') + '\n');
      expect((await runIngest(home, file, undefined)).code).toBe(0);
      const store = Store.open(storeDir, { readonly: true, home });
      try {
        const stored: string[] = [];
        for (const s of store.sessions()) for await (const e of store.events(s.id)) stored.push(JSON.stringify(e));
        expect(stored.sort()).toEqual([...lines].sort());
      } finally {
        store.close();
      }
      expect(existsSync(join(storeDir, 'journal'))).toBe(false);
      expect(existsSync(join(storeDir, 'lock'))).toBe(false);
    };
    await Promise.all(Array.from({ length: LANES }, (_, k) => lane(k)));
    console.log(`crash test: ${runs} runs (${kills} killed) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(runs).toBeGreaterThanOrEqual(Math.min(RUNS, 20));
    expect(kills).toBeGreaterThan(0);
  }, 180_000);

  it('serialises two ingests started at once; both land, the store verifies', async () => {
    const home = tempDir('sp-crash-');
    const a = [...syntheticChained({ events: 300, sessions: 2, seed: 1 })].map((e) => JSON.stringify(e)).join('\n') + '\n';
    const b = [...syntheticChained({ events: 300, sessions: 2, seed: 2 })].map((e) => JSON.stringify(e)).join('\n') + '\n';
    writeFileSync(join(home, 'a.ndjson'), a);
    writeFileSync(join(home, 'b.ndjson'), b);
    const [ra, rb] = await Promise.all([runIngest(home, join(home, 'a.ndjson'), undefined), runIngest(home, join(home, 'b.ndjson'), undefined)]);
    expect([ra.code, rb.code]).toEqual([0, 0]);
    const reports = await verifyStore(join(home, 'store'), trustedKeys(home));
    expect(reports.length).toBe(4);
    for (const r of reports) expect(r.problems).toEqual([]);
    const ls = sp('sp-sync', ['ls', '--json'], { home }).stdout.trim().split('\n').map((l) => JSON.parse(l) as { events: number });
    expect(ls.reduce((n, s) => n + s.events, 0)).toBe(600);
  }, 60_000);

  it('adds the search text after the log: ingests and searches killed at random points leave the text of every event once', async () => {
    const home = tempDir('sp-crash-');
    const storeDir = join(home, 'store');
    const events = [...syntheticChained({ events: 900, sessions: 3, seed: 21 })].map((e) =>
      e.seq === 0 ? e : { ...e, payload: { ...e.payload, content: [{ type: 'text', text: `${e.type} ${e.seq}: 测试 removeTodo` }] } },
    );
    const { Chainer } = await import('../lib/core/chain.js');
    const chainer = new Chainer();
    const lines = events.map((e) => JSON.stringify(chainer.chain(e)));
    const file = join(home, 'all.ndjson');
    writeFileSync(file, lines.join('\n') + '\n');
    const rand = random(77);
    const started = Date.now();
    let kills = 0;
    let partial = 0;
    const typical = { ingest: 600, search: 600 };
    const marked = () => {
      const Database = createRequire(import.meta.url)('better-sqlite3');
      const db = new Database(join(storeDir, 'index.sqlite'), { readonly: true });
      try {
        return db.prepare('SELECT (SELECT coalesce(sum(seq), 0) FROM fts_mark) AS marked, (SELECT coalesce(sum(events), 0) FROM sessions) AS stored').get() as { marked: number; stored: number };
      } finally {
        db.close();
      }
    };
    // Growing prefixes: an ingest (killed between its log appends and its index commits, or not),
    // then a search killed while it adds the text the ingest left.
    for (let n = 0; n < 30 && Date.now() - started < 40_000; n++) {
      const prefix = join(home, `in-${n % 2}.ndjson`);
      writeFileSync(prefix, lines.slice(0, Math.min(lines.length, 60 + n * 40)).join('\n') + '\n');
      for (const pass of ['ingest', 'search'] as const) {
        const args = pass === 'ingest' ? ['ingest', '-q', prefix] : ['search', 'removeTodo', '--limit', '1'];
        const r = await runIngest(home, prefix, rand() < 0.6 ? Math.floor(rand() * typical[pass] * 1.3) : undefined, args);
        if (r.killed) kills += 1;
        else typical[pass] = Math.round(typical[pass] * 0.7 + r.ms * 0.3);
        if (pass === 'search' && r.killed && existsSync(join(storeDir, 'index.sqlite'))) {
          const m = marked();
          if (m.marked > 0 && m.marked < m.stored) partial += 1;
        }
      }
    }
    expect((await runIngest(home, file, undefined)).code).toBe(0);
    expect((await runIngest(home, file, undefined, ['search', 'removeTodo', '--limit', '1'])).code).toBe(0);
    // Exactly the text of every stored event, once, and every mark at its session's end.
    const want = lines
      .map((l) => JSON.parse(l) as SpEvent)
      .filter((e) => searchText(e) !== '')
      .map((e) => `${e.session} ${e.seq} ${searchText(e)}`)
      .sort();
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const db = new Database(join(storeDir, 'index.sqlite'), { readonly: true });
    try {
      const got = (db.prepare('SELECT session, seq, text FROM fts').all() as Array<{ session: string; seq: number; text: string }>).map((r) => `${r.session} ${r.seq} ${r.text}`).sort();
      expect(got).toEqual(want);
      expect(db.prepare('SELECT m.seq = s.events AS done FROM sessions s LEFT JOIN fts_mark m ON m.session = s.id').all()).toEqual([{ done: 1 }, { done: 1 }, { done: 1 }]);
    } finally {
      db.close();
    }
    console.log(`search-text crash test: ${kills} kills, ${partial} searches killed half-way`);
    expect(kills).toBeGreaterThan(0);
  }, 120_000);
});
