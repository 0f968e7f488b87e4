#!/usr/bin/env node
// npm run matrix [-- --sources claude,codex/S2 --targets pi --modes history]
// Runs the relay acceptance matrix (test/acceptance/matrix.test.ts: every corpus session → every
// target, history and context mode, resumed by the real clients) and prints its tables: rows source,
// columns target, pass/fail with the reason, then the loss-ledger totals per pair and the wall time.
// Exit status: 0 when every cell passes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    sources: { type: 'string' },
    targets: { type: 'string' },
    modes: { type: 'string' },
    json: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(
    'usage: npm run matrix [-- --sources LIST] [--targets LIST] [--modes history,context] [--json FILE]\n' +
      'LIST: comma-separated agents (claude,codex,pi,hermes) or sessions (codex/S1-paginated).\n',
  );
  process.exit(0);
}

const root = new URL('..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'sp-matrix-report-'));
const report = join(dir, 'matrix.md');
const env = { ...process.env, SP_MATRIX_REPORT: report };
if (values.sources) env.SP_MATRIX_SOURCES = values.sources;
env.SP_MATRIX_TARGETS = values.targets ?? 'all';
if (values.modes) env.SP_MATRIX_MODES = values.modes;
if (values.json) env.SP_MATRIX_JSON = values.json;
try {
  const run = spawnSync('npx', ['vitest', 'run', 'test/acceptance/matrix.test.ts', '--reporter=dot', '--silent'], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  let text;
  try {
    text = readFileSync(report, 'utf8');
  } catch {
    process.stderr.write(`matrix: the test did not produce a report (vitest exit ${run.status})\n`);
    process.exit(2);
  }
  process.stdout.write(text);
  process.exit(run.status === 0 ? 0 : 1);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
