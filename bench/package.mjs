#!/usr/bin/env node
// node bench/package.mjs [--runs N]: the published shape's size and install time, beside baselines
// measured in the same run and the same clean environment (scripts/pack-install.mjs): a global
// install of one small package from the registry (ms, no dependencies) and `npm --version`
// (npm's own start-up, which every install pays). Each install starts with an empty npm cache, so
// the registry is read every time. Prints one JSON line; bench/run.mjs --only package turns it into rows.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { installGlobal, localPrebuild, pack } from '../scripts/pack-install.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1' }, 'from-source': { type: 'boolean', default: false } } });
const runs = Math.max(1, Math.min(5, Number(values.runs) || 1));
const BASELINE_PACKAGE = 'ms@2.1.3';

/** npm's own error lines (not the pointer to its log, which goes with the temp folder). */
const npmError = (output) => output.split('\n').filter((l) => /^npm (error|ERR!)/.test(l) && !/complete log/.test(l)).slice(-6).join(' | ') || output.trim().split('\n').pop();

const work = mkdtempSync(join(tmpdir(), 'sp-bench-package-'));
try {
  const packed = pack(join(work, 'pack'));
  const prebuilds = values['from-source'] ? undefined : localPrebuild(join(work, 'prebuilds'));
  const best = { ours: Infinity, baseline: Infinity, npm: Infinity };
  // Interleaved, best of each: load that comes and goes hits all alike.
  for (let i = 0; i < runs; i++) {
    const ours = installGlobal(packed.tarball, join(work, `ours-${i}`), { prebuilds });
    if (ours.status !== 0) throw new Error(`npm install of the tarball failed (exit ${ours.status}): ${npmError(ours.output)}`);
    best.ours = Math.min(best.ours, ours.ms);
    const base = installGlobal(BASELINE_PACKAGE, join(work, `base-${i}`));
    if (base.status !== 0) throw new Error(`npm install ${BASELINE_PACKAGE} failed (exit ${base.status}): ${npmError(base.output)}`);
    best.baseline = Math.min(best.baseline, base.ms);
    const started = process.hrtime.bigint();
    const npm = spawnSync('npm', ['--version'], { env: base.env, encoding: 'utf8' });
    if (npm.status !== 0) throw new Error('npm --version failed');
    best.npm = Math.min(best.npm, Number(process.hrtime.bigint() - started) / 1e6);
    // The installed binary answers: what was measured is an install that works.
    const version = spawnSync(join(ours.prefix, 'bin', 'sp'), ['--version'], { env: ours.env, encoding: 'utf8' });
    if (version.status !== 0) throw new Error(`the installed sp --version failed: ${version.stderr.trim()}`);
    rmSync(join(work, `ours-${i}`), { recursive: true, force: true });
    rmSync(join(work, `base-${i}`), { recursive: true, force: true });
  }
  process.stdout.write(
    JSON.stringify({
      tarball_bytes: packed.size,
      unpacked_bytes: packed.unpackedSize,
      files: packed.files.length,
      install_seconds: best.ours / 1000,
      baseline_package: BASELINE_PACKAGE,
      baseline_install_seconds: best.baseline / 1000,
      npm_version_seconds: best.npm / 1000,
      better_sqlite3: prebuilds ? 'prebuilt' : 'from source',
      runs,
    }) + '\n',
  );
} catch (err) {
  // One line, no stack: bench/run.mjs shows the last stderr line in its table.
  process.stderr.write(`bench/package: ${err.message}\n`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
