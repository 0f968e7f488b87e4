#!/usr/bin/env node
// bench/compile.mjs [--events 100000] [--runs 3] [--budgets 24000,200000] [--no-corpus]
// sp-compile on a generated working session (goal: 100k events in < 2 s), next to a bare
// readline+JSON.parse pass over the same file, per target tokenizer (codex: o200k_base, claude:
// cl100k_base estimate), budget and output mode, with peak RSS. Then, for the recorded corpus, the
// tokens each handoff uses against its budget, per target.
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { best, lineCount, measure, outDir, root, sizeMb, table } from './lib.mjs';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '3' },
    budgets: { type: 'string', default: '24000,200000' },
    'no-corpus': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const compile = join(root, 'dist', 'bin', 'sp-compile.js');
const baseline = join(root, 'bench', 'baseline-parse.mjs');

/** A chained working session of `events` events (cached in bench/out). */
async function workFile(events) {
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, `work-${events}.ndjson`);
  if (existsSync(path)) return path;
  const { workSessionEvents } = await import('../dist/lib/synthetic.js');
  const { Chainer } = await import('../dist/lib/chain.js');
  const { canonicalize } = await import('../dist/lib/jcs.js');
  const chainer = new Chainer();
  const fd = openSync(`${path}.tmp`, 'w');
  let buffer = '';
  for (const event of workSessionEvents({ events })) {
    buffer += canonicalize(chainer.chain(event)) + '\n';
    if (buffer.length > 1 << 20) {
      writeSync(fd, buffer);
      buffer = '';
    }
  }
  writeSync(fd, buffer);
  closeSync(fd);
  renameSync(`${path}.tmp`, path);
  return path;
}

const file = await workFile(Number(values.events));
const events = await lineCount(file);
const mb = sizeMb(file);
const bare = await best(runs, () => measure(process.execPath, [baseline, file]));
const rows = [['pass', 'target', 'budget', 'seconds', 'events/s', 'peak RSS MB', 'ratio to bare']];
rows.push(['readline+JSON.parse', '', '', bare.seconds.toFixed(2), (events / bare.seconds).toFixed(0), bare.rssMb.toFixed(0), '1.00']);
let worst = 0;
for (const target of ['codex', 'claude']) {
  for (const budget of values.budgets.split(',')) {
    for (const [mode, args, stdin] of [
      ['events (file)', [file], undefined],
      ['--render (file)', ['--render', file], undefined],
      ['events (stdin)', [], file],
    ]) {
      if (mode !== 'events (file)' && budget !== values.budgets.split(',')[0]) continue;
      const r = await best(runs, () => measure(process.execPath, [compile, '--for', target, '--budget', budget, ...args], { stdinFile: stdin }));
      if (r.code !== 0) throw new Error(`sp-compile ${target} ${budget} ${mode} failed: ${r.stderr}`);
      worst = Math.max(worst, r.seconds);
      rows.push([`sp-compile ${mode}`, target, budget, r.seconds.toFixed(2), (events / r.seconds).toFixed(0), r.rssMb.toFixed(0), (bare.seconds / r.seconds).toFixed(2)]);
    }
  }
}
console.log(`compile: ${events} events, ${mb.toFixed(0)} MB generated working session (best of ${runs})`);
console.log(table(rows));
console.log(`goal: ${events} events in < 2 s → slowest ${worst.toFixed(2)} s ${worst < 2 ? 'met' : 'NOT met'}`);

if (!values['no-corpus']) {
  // The recorded corpus: tokens used against the budget, per session and target.
  const capture = join(root, 'dist', 'bin', 'sp-capture.js');
  const sessions = [];
  for (const agent of ['claude', 'codex', 'pi']) {
    const base = join(root, 'fixtures', agent, 'corpus');
    for (const scenario of readdirSync(base).sort()) {
      const stack = [join(base, scenario)];
      while (stack.length) {
        const dir = stack.pop();
        for (const name of readdirSync(dir)) {
          const path = join(dir, name);
          if (statSync(path).isDirectory()) {
            if (name !== 'subagents' && name !== 'file-history') stack.push(path);
          } else if (name.endsWith('.jsonl')) sessions.push({ name: `${agent}/${scenario}`, agent, path });
        }
      }
    }
  }
  const targets = ['claude', 'codex', 'pi', 'hermes', 'markdown'];
  const tokenRows = [['session', 'events', ...targets.map((t) => `${t} (default)`), ...targets.map((t) => `${t} @2000`)]];
  const dir = join(outDir, 'compile-corpus');
  mkdirSync(dir, { recursive: true });
  for (const s of sessions) {
    const cap = spawnSync(process.execPath, [capture, s.agent, '--path', s.path], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (cap.status !== 0) throw new Error(`sp-capture ${s.name}: ${cap.status ?? cap.signal} ${cap.stderr}`);
    const path = join(dir, `${s.name.replace('/', '-')}.ndjson`);
    writeFileSync(path, cap.stdout);
    const cells = [];
    for (const budget of [undefined, '2000']) {
      for (const target of targets) {
        const r = spawnSync(process.execPath, [compile, '--for', target, ...(budget ? ['--budget', budget] : []), path], { encoding: 'utf8', maxBuffer: 1 << 28 });
        if (r.status !== 0) throw new Error(`sp-compile ${s.name} ${target}: ${r.status ?? r.signal} ${r.stderr}`);
        const last = JSON.parse(r.stdout.trimEnd().split('\n').pop());
        cells.push(`${last.payload.tokens}/${last.payload.budget}`);
      }
    }
    tokenRows.push([s.name, String(cap.stdout.trimEnd().split('\n').length), ...cells]);
  }
  console.log('\ncorpus: tokens used / budget (default budgets, then 2,000), as the target counts them:');
  console.log(table(tokenRows));
}
