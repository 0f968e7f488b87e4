#!/usr/bin/env node
// bench/verify.mjs [--mb 200] [--sizes 10,100,1024] [--runs 3]
// sp-verify throughput (events/s, MB/s) next to a bare readline+JSON.parse pass over the same
// file, their ratio (goal ≥ 0.6), and sp-verify's peak RSS as the stream grows (goal < 150 MB, flat).
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { best, lineCount, measure, root, sizeMb, syntheticFile, table } from './lib.mjs';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '200' }, sizes: { type: 'string', default: '10,100,1024' }, runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
const verify = join(root, 'dist', 'bin', 'sp-verify.js');
const baseline = join(root, 'bench', 'baseline-parse.mjs');

const file = await syntheticFile(Number(values.mb));
const events = await lineCount(file);
const mb = sizeMb(file);
const bare = await best(runs, () => measure(process.execPath, [baseline, file]));
const ours = await best(runs, () => measure(process.execPath, [verify, '--quiet', file]));
const plain = await best(runs, () => measure(process.execPath, [verify, '--quiet', '--no-schema', file]));
if (ours.code !== 0) throw new Error(`sp-verify failed on its own synthetic stream: ${ours.stderr}`);
const row = (name, r) => [name, (events / r.seconds).toFixed(0), (mb / r.seconds).toFixed(1), r.seconds.toFixed(2), r.rssMb.toFixed(0), (bare.seconds / r.seconds).toFixed(2)];
console.log(`verify: ${events} events, ${mb.toFixed(0)} MB (best of ${runs})`);
console.log(
  table([
    ['pass', 'events/s', 'MB/s', 'seconds', 'peak RSS MB', 'ratio to bare'],
    row('readline+JSON.parse', bare),
    row('sp-verify', ours),
    row('sp-verify --no-schema', plain),
  ]),
);
console.log(`goal: ratio ≥ 0.6 → ${(bare.seconds / ours.seconds).toFixed(2)} ${bare.seconds / ours.seconds >= 0.6 ? 'met' : 'NOT met'}`);

const rss = [['stream', 'MB', 'sp-verify seconds', 'peak RSS MB']];
let worst = 0;
for (const size of values.sizes.split(',').map(Number)) {
  const path = await syntheticFile(size);
  const r = await measure(process.execPath, [verify, '--quiet', path]);
  worst = Math.max(worst, r.rssMb);
  rss.push([`${size} MB`, sizeMb(path).toFixed(0), r.seconds.toFixed(2), r.rssMb.toFixed(0)]);
}
console.log('\nverify memory as the stream grows:');
console.log(table(rss));
console.log(`goal: peak RSS < 150 MB → ${worst.toFixed(0)} MB ${worst < 150 ? 'met' : 'NOT met'}`);
