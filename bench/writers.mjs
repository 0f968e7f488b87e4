#!/usr/bin/env node
// Peak RSS of every writer on one large generated session (issue #19: one stream held once; goal
// < 200 MB flat for a 1 GB session). A row per writer: `sp-materialize <agent>` from a chained
// working session (lib/core/synthetic.ts workSessionEvents, via bench/lib.mjs) into a fresh home.
//   node bench/writers.mjs [--mb 100] [--only claude,codex,…] [--json]
// The size is a flag: 1 GB (--mb 1024) is the goal size; a loaded machine runs 100 MB.
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { measure, outDir, root, table, writeWorkSession } from './lib.mjs';

const WRITERS = ['aider', 'atif', 'claude', 'codex', 'copilot', 'cursor', 'gemini', 'hermes', 'opencode', 'pi', 'qoder', 'qwen'];
const GOAL_MB = 200;

const { values } = parseArgs({ options: { mb: { type: 'string', default: '100' }, only: { type: 'string' }, json: { type: 'boolean', default: false } } });
const mb = Number(values.mb);
if (!Number.isFinite(mb) || mb <= 0) throw new Error('--mb: a positive number of megabytes');
const only = values.only ? values.only.split(',') : WRITERS;
for (const name of only) if (!WRITERS.includes(name)) throw new Error(`--only: no writer ${name} (${WRITERS.join(', ')})`);

// About 1.1 KB per generated event: the event count that gives `mb` megabytes.
mkdirSync(outDir, { recursive: true });
const input = join(outDir, `work-session-${mb}mb.ndjson`);
try {
  statSync(input);
} catch {
  await writeWorkSession(input, { events: Math.round((mb * 1024 * 1024) / 1100), seed: 19 });
}
const inputMb = statSync(input).size / (1024 * 1024);

const rows = [];
const scratch = mkdtempSync(join(outDir, 'writers-'));
try {
  for (const agent of only) {
    const home = join(scratch, agent);
    mkdirSync(home);
    const r = await measure(process.execPath, [join(root, 'dist', 'bin', 'sp-materialize.js'), agent, input, '--home', home, '--cwd', home, '--quiet', '--experimental'], {});
    rows.push({ section: 'writers', pass: `sp-materialize ${agent}`, input_mb: Math.round(inputMb), seconds: Number(r.seconds.toFixed(1)), peak_rss_mb: Math.round(r.rssMb), goal: `< ${GOAL_MB} MB`, met: r.code === 0 && r.rssMb < GOAL_MB, exit: r.code, note: r.code === 0 ? '' : r.stderr.trim().split('\n').pop() });
    rmSync(home, { recursive: true, force: true });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (values.json) console.log(JSON.stringify(rows));
else console.log(table([['writer', 'input MB', 's', 'peak RSS MB', 'goal', 'met', 'note'], ...rows.map((r) => [r.pass, r.input_mb, r.seconds, r.peak_rss_mb, r.goal, r.met ? 'yes' : 'no', r.note])]));
