#!/usr/bin/env node
// bench/redact.mjs [--mb 200] [--sizes 10,100,1024] [--runs 3]
// sp-redact throughput (events/s, MB/s) next to a bare readline+JSON.parse pass over the same file,
// and their ratio (goal ≥ 0.5), on three inputs. The passes are interleaved run by run and the best
// of each kept, so a machine whose load changes affects all alike; the ratio is given for wall time
// and for CPU time (user + system, which other load inflates less).
//   synthetic   the generated stream of bench/generate.mjs (prose, code, CJK; no secrets)
//   secrets     the same with a secret in every 20th event (so most sessions are re-chained)
//   corpus      every Claude/Codex/Pi fixture captured with --raw (native lines kept), repeated to ~50 MB
// and sp-redact's peak RSS as the stream grows, plus the same runs with V8's old space capped at
// 32 MB (goal: they all complete, i.e. the heap does not grow with the stream).
import { parseArgs } from 'node:util';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lineCount, measure, outDir, root, sizeMb, syntheticFile, table } from './lib.mjs';

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

/** The best (least disturbed) run of each command, taking turns so each sees the same load. */
async function interleaved(commands) {
  const bestOf = commands.map(() => undefined);
  for (let i = 0; i < runs; i++) {
    for (const [k, [cmd, args, options, okCodes = [0]]] of commands.entries()) {
      const r = await measure(cmd, args, options);
      if (!okCodes.includes(r.code)) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
      const top = bestOf[k];
      bestOf[k] = !top || r.seconds < top.seconds ? { ...r, cpuSeconds: Math.min(r.cpuSeconds, top?.cpuSeconds ?? Infinity), rssMb: Math.max(r.rssMb, top?.rssMb ?? 0) } : { ...top, cpuSeconds: Math.min(r.cpuSeconds, top.cpuSeconds), rssMb: Math.max(r.rssMb, top.rssMb) };
    }
  }
  return bestOf;
}

const rows = [['input', 'pass', 'events/s', 'MB/s', 'seconds', 'CPU s', 'peak RSS MB', 'ratio (wall)', 'ratio (CPU)']];
const ratios = [];
for (const [name, file] of inputs) {
  const events = await lineCount(file);
  const mb = sizeMb(file);
  const [bare, ours, check] = await interleaved([
    [process.execPath, [baseline, file]],
    [process.execPath, [redact, '-q', file], { env }],
    [process.execPath, [redact, '-q', '--check', file], { env }, [0, 1]], // 1: it found secrets
  ]);
  const row = (pass, r) => [
    `${name} (${events} events, ${mb.toFixed(0)} MB)`,
    pass,
    (events / r.seconds).toFixed(0),
    (mb / r.seconds).toFixed(1),
    r.seconds.toFixed(2),
    r.cpuSeconds.toFixed(2),
    r.rssMb.toFixed(0),
    (bare.seconds / r.seconds).toFixed(2),
    (bare.cpuSeconds / r.cpuSeconds).toFixed(2),
  ];
  rows.push(row('readline+JSON.parse', bare), row('sp-redact', ours), row('sp-redact --check', check));
  ratios.push([name, bare.seconds / ours.seconds, bare.cpuSeconds / ours.cpuSeconds]);
}
console.log(`redact (best of ${runs}, interleaved)`);
console.log(table(rows));
for (const [name, wall, cpu] of ratios) console.log(`goal: ratio ≥ 0.5 on ${name} → wall ${wall.toFixed(2)}, CPU ${cpu.toFixed(2)} ${wall >= 0.5 ? 'met' : 'NOT met'}`);

const rss = [['stream', 'MB', 'sp-redact seconds', 'peak RSS MB', 'in a 32 MB old space']];
let worst = 0;
let capped = true;
for (const size of values.sizes.split(',').map(Number)) {
  const path = await withSecrets(await syntheticFile(size));
  const r = await measure(process.execPath, [redact, '-q', path], { env });
  // The JS heap must not grow with the stream: the same run with V8's old space capped at 32 MB.
  const small = await measure(process.execPath, ['--max-old-space-size=32', redact, '-q', path], { env });
  capped &&= small.code === 0;
  worst = Math.max(worst, r.rssMb);
  rss.push([`${size} MB (+secrets)`, sizeMb(path).toFixed(0), r.seconds.toFixed(2), r.rssMb.toFixed(0), small.code === 0 ? `ok, RSS ${small.rssMb.toFixed(0)} MB` : 'OUT OF MEMORY']);
}
console.log('\nredact memory as the stream grows:');
console.log(table(rss));
console.log(`goal: heap flat (every size runs in a 32 MB old space) → ${capped ? 'met' : 'NOT met'}; peak RSS with default heap settings ${worst.toFixed(0)} MB (verify's goal: < 150 MB → ${worst < 150 ? 'met' : 'NOT met'})`);
