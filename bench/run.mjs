#!/usr/bin/env node
// npm run bench: every benchmark in turn. Each prints its own table with ratios to a baseline
// measured in the same run. Generated inputs are cached in bench/out/ (git-ignored).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root } from './lib.mjs';

const benches = ['verify.mjs', 'redact.mjs', 'compile.mjs', 'hermes.mjs'];
for (const name of benches) {
  console.log(`\n## ${name}\n`);
  const r = spawnSync(process.execPath, [join(root, 'bench', name), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
