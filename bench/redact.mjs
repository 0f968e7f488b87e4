#!/usr/bin/env node
// bench/redact.mjs [--mb 200] [--sizes 10,100,1024] [--runs 3]
// sp-redact throughput (events/s, MB/s) next to a bare readline+JSON.parse pass over the same file,
// and their ratio (goal ≥ 0.5), on three inputs:
//   synthetic   the generated stream of bench/generate.mjs (prose, code, CJK; no secrets)
//   secrets     the same with a secret in every 20th event (so most sessions are re-chained)
//   corpus      every Claude/Codex/Pi fixture captured with --raw (native lines kept), repeated to ~50 MB
// and sp-redact's peak RSS as the stream grows (goal: flat).
import { parseArgs } from 'node:util';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { best, lineCount, measure, outDir, root, sizeMb, syntheticFile, table } from './lib.mjs';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '200' }, sizes: { type: 'string', default: '10,100,1024' }, runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
const redact = join(root, 'dist', 'bin', 'sp-redact.js');
const baseline = join(root, 'bench', 'baseline-parse.mjs');
const env = { SP_HOME: mkdtempSync(join(tmpdir(), 'sp-bench-redact-')) };

/** The synthetic stream with a fake secret appended to every 20th event's text, re-chained. */
async function withSecrets(source) {
  const path = source.replace(/\.ndjson$/, '-secrets.ndjson');
  if (existsSync(path)) return path;
  const { Chainer } = await import('../dist/lib/chain.js');
  const { canonicalize } = await import('../dist/lib/jcs.js');
  const chainer = new Chainer();
  const out = createWriteStream(path);
  const token = (n) => 'ghp_' + (n.toString(36) + 'Zq9Xw2Lk7Pv4Mn8Bc3Df6Gh1Jt5Ry0').repeat(3).slice(0, 36);
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(source), crlfDelay: Infinity })) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (++n % 20 === 0) {
      const p = e.payload;
      const add = `\nexport GITHUB_TOKEN=${token(n)}\nDB_PASSWORD=Tr0ub4dor&${n}`;
      if (typeof p.content === 'string') p.content += add;
      else if (Array.isArray(p.content) && p.content[0]?.type === 'text') p.content[0].text += add;
      else if (typeof p.text === 'string') p.text += add;
      else if (p.input?.command) p.input.command += add;
    }
    if (!out.write(canonicalize(chainer.chain(e)) + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return path;
}

/** All fixture captures (--raw), repeated to about `mb` megabytes. */
function corpusFile(mb = 50) {
  const path = join(outDir, `corpus-raw-${mb}mb.ndjson`);
  if (existsSync(path)) return path;
  const capture = join(root, 'dist', 'bin', 'sp-capture.js');
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.jsonl')) files.push(p);
    }
  };
  let once_ = '';
  for (const agent of ['claude', 'codex', 'pi']) {
    files.length = 0;
    walk(join(root, 'fixtures', agent));
    for (const f of files) {
      const r = spawnSync(process.execPath, [capture, agent, '--path', f, '--raw'], { encoding: 'utf8', maxBuffer: 1 << 30 });
      if (r.status === 0) once_ += r.stdout;
    }
  }
  const times = Math.max(1, Math.round((mb * 1024 * 1024) / Buffer.byteLength(once_)));
  writeFileSync(path, once_.repeat(times));
  return path;
}

const synthetic = await syntheticFile(Number(values.mb));
const inputs = [
  ['synthetic', synthetic],
  ['secrets', await withSecrets(synthetic)],
  ['corpus', corpusFile()],
];

const rows = [['input', 'pass', 'events/s', 'MB/s', 'seconds', 'peak RSS MB', 'ratio to bare']];
const ratios = [];
for (const [name, file] of inputs) {
  const events = await lineCount(file);
  const mb = sizeMb(file);
  const bare = await best(runs, () => measure(process.execPath, [baseline, file]));
  const ours = await best(runs, () => measure(process.execPath, [redact, '-q', file], { env }));
  const check = await best(runs, () => measure(process.execPath, [redact, '-q', '--check', file], { env }));
  if (ours.code !== 0) throw new Error(`sp-redact failed on ${name}: ${ours.stderr}`);
  const row = (pass, r) => [`${name} (${events} events, ${mb.toFixed(0)} MB)`, pass, (events / r.seconds).toFixed(0), (mb / r.seconds).toFixed(1), r.seconds.toFixed(2), r.rssMb.toFixed(0), (bare.seconds / r.seconds).toFixed(2)];
  rows.push(row('readline+JSON.parse', bare), row('sp-redact', ours), row('sp-redact --check', check));
  ratios.push([name, bare.seconds / ours.seconds]);
}
console.log(`redact (best of ${runs})`);
console.log(table(rows));
for (const [name, ratio] of ratios) console.log(`goal: ratio ≥ 0.5 on ${name} → ${ratio.toFixed(2)} ${ratio >= 0.5 ? 'met' : 'NOT met'}`);

const rss = [['stream', 'MB', 'sp-redact seconds', 'peak RSS MB']];
let worst = 0;
for (const size of values.sizes.split(',').map(Number)) {
  const path = await withSecrets(await syntheticFile(size));
  const r = await measure(process.execPath, [redact, '-q', path], { env });
  worst = Math.max(worst, r.rssMb);
  rss.push([`${size} MB (+secrets)`, sizeMb(path).toFixed(0), r.seconds.toFixed(2), r.rssMb.toFixed(0)]);
}
console.log('\nredact memory as the stream grows:');
console.log(table(rss));
console.log(`goal: peak RSS < 150 MB → ${worst.toFixed(0)} MB ${worst < 150 ? 'met' : 'NOT met'}`);
