#!/usr/bin/env node
// Peak RSS of every writer (issue #19 item 4, one stream held once; issue #22: < 200 MB and flat
// for a 1 GB session). A row per writer: `sp-materialize <agent>` from a chained working session
// (adapters/claude/synthetic.ts workSessionEvents, via bench/lib.mjs) into a fresh home, at two sizes, the
// full one and a quarter of it: flatness = RSS(full) / RSS(quarter) (1.0 = flat). Time is relative
// to a bare readline + JSON.parse pass over the same file (bench/baseline-parse.mjs), in the same run.
//   node bench/writers.mjs [--mb 100] [--only claude,codex,…] [--json] [--bin DIR]
// `npm run bench -- --only writers` runs it at 100 MB (1 GB with --big-writers, and in a full run).
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measure, outDir, root, table, writeWorkSession } from './lib.mjs';

/** Every registered adapter that writes sessions (the adapter registry, built: npm run build first). */
export const WRITERS = Object.entries((await import('../dist/adapters/index.js')).adapters)
  .filter(([, adapter]) => typeof adapter.materialize === 'function')
  .map(([id]) => id)
  .sort();
export const GOAL_MB = 200;
/** RSS(full) / RSS(quarter) at or under this counts as flat (a quarter of the input, the same memory give or take). */
export const FLAT_RATIO = 1.25;
// OpenCode and Kilo write into a database their client migrated: a copy of the recorded one.
const CLIENT_DBS = {
  opencode: ['opencode.db', join(root, 'fixtures/opencode/corpus/.local/share/opencode/opencode.db')],
  kilo: ['kilo.db', join(root, 'fixtures/kilo/corpus/.local/share/kilo/kilo.db')],
};

/** The working session of `mb` MB (2^20 bytes, the last event may pass it; cached in bench/out), sized by its bytes. */
async function input(mb) {
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `work-session-${mb}mib.ndjson`);
  try {
    statSync(file);
  } catch {
    const partial = `${file}.${process.pid}.partial`;
    await writeWorkSession(partial, { bytes: mb * 1024 * 1024, seed: 19 });
    renameSync(partial, file);
  }
  return file;
}

async function writeOnce(binDir, agent, file, scratch) {
  const home = join(scratch, agent);
  mkdirSync(home);
  const db = CLIENT_DBS[agent];
  if (db) copyFileSync(db[1], join(home, db[0]));
  try {
    return await measure(process.execPath, [join(binDir, 'sp-materialize.js'), agent, file, '--home', home, '--cwd', home, '--quiet', '--experimental'], {});
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** One row per writer: { writer, mb, rss_mb, quarter_rss_mb, flatness, seconds, bare_seconds, ratio_bare, met, note }. */
export async function writerRows({ mb = 100, only = WRITERS, binDir = join(root, 'dist', 'bin') } = {}) {
  const full = await input(mb);
  const quarter = await input(Math.max(1, Math.round(mb / 4)));
  const fullMb = statSync(full).size / (1024 * 1024);
  const bare = await measure(process.execPath, [join(root, 'bench', 'baseline-parse.mjs'), full], {});
  const rows = [];
  const scratch = mkdtempSync(join(outDir, 'writers-'));
  try {
    for (const agent of only) {
      const small = await writeOnce(binDir, agent, quarter, scratch);
      const big = await writeOnce(binDir, agent, full, scratch);
      const ok = big.code === 0 && small.code === 0;
      const flatness = big.rssMb / small.rssMb;
      const failed = big.code !== 0 ? big : small;
      rows.push({
        writer: agent,
        mb: Math.round(fullMb),
        rss_mb: Math.round(big.rssMb),
        quarter_rss_mb: Math.round(small.rssMb),
        flatness: Number(flatness.toFixed(2)),
        seconds: Number(big.seconds.toFixed(1)),
        bare_seconds: Number(bare.seconds.toFixed(2)),
        ratio_bare: Number((bare.seconds / big.seconds).toFixed(3)),
        met: ok && big.rssMb < GOAL_MB && flatness <= FLAT_RATIO,
        note: ok ? '' : `exit ${failed.code}: ${failed.stderr.trim().split('\n').pop()}`,
      });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { mb: { type: 'string', default: '100' }, only: { type: 'string' }, json: { type: 'boolean', default: false }, bin: { type: 'string' } } });
  const mb = Number(values.mb);
  if (!Number.isFinite(mb) || mb <= 0) throw new Error('--mb: a positive number of megabytes');
  const only = values.only ? values.only.split(',') : WRITERS;
  for (const name of only) if (!WRITERS.includes(name)) throw new Error(`--only: no writer ${name} (${WRITERS.join(', ')})`);
  const rows = await writerRows({ mb, only, binDir: values.bin });
  if (values.json) console.log(JSON.stringify(rows));
  else {
    console.log(
      table([
        ['writer', 'input MB', 'peak RSS MB', 'RSS at ¼ MB', 'flatness', 's', '× bare parse', 'goal', 'met', 'note'],
        ...rows.map((r) => [`sp-materialize ${r.writer}`, r.mb, r.rss_mb, r.quarter_rss_mb, r.flatness, r.seconds, r.ratio_bare, `< ${GOAL_MB} MB, flat (≤ ${FLAT_RATIO})`, r.met ? 'yes' : 'no', r.note]),
      ]),
    );
  }
}
