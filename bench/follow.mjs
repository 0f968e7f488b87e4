#!/usr/bin/env node
// bench/follow.mjs [--samples N] [--idle-seconds S] [--bin DIR]: `sp-capture <agent> --path FILE
// --follow` latency, from appending one record to the session file to its event on stdout, for a
// recorded Claude and a recorded Codex session; beside it, in the same run, the baseline: a bare
// node process that fs.watch-es the same kind of file and prints when it changes (what the OS and
// node give before sp does any work). Records are appended at irregular gaps so they do not fall
// in step with a poll. Also the follower's CPU while nothing changes (idle, % of one core), and
// `node -e ''` for scale. Prints one JSON line. Needs `npm run build`.
import { parseArgs } from 'node:util';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './lib.mjs';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '30' }, 'idle-seconds': { type: 'string', default: '5' }, bin: { type: 'string' } } });
const samples = Number(values.samples);
const idleSeconds = Number(values['idle-seconds']);
const binDir = values.bin ?? join(root, 'dist', 'bin');
const node = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'sp-bench-follow-'));
const env = { ...process.env, SP_HOME: join(work, 'sp-home'), SP_PROGRESS: '0' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

const codexDir = join(root, 'fixtures/codex/corpus/S1-feature/sessions/2026/11/30');
const sessions = {
  claude: {
    source: join(root, 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl'),
    name: '9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl',
    record: (i) => ({ parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: `follow bench ${i}` }, uuid: `cccccccc-0000-4000-8000-${String(i).padStart(12, '0')}`, timestamp: new Date().toISOString(), cwd: '/home/alice/acme-api', sessionId: '9a1dc580-54f5-46ea-bece-7461fb46da3a', version: '2.1.197', userType: 'external' }),
  },
  codex: {
    source: join(codexDir, readdirSync(codexDir).find((n) => n.endsWith('.jsonl'))),
    name: 'rollout-2026-11-30T05-06-52-01a22ad9-47d0-73f1-b186-11146d50904a.jsonl',
    record: (i) => ({ timestamp: new Date().toISOString(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `follow bench ${i}` }] } }),
  },
};

/** CPU seconds (user + system) a live process has used, from /proc. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (clock ticks; 100 on Linux)
}

/** Starts `args`; resolves once it has been quiet on stdout for `settleMs` after its first output (or after `firstMs` with none). */
async function start(args, { settleMs = 700, firstMs = 30_000 } = {}) {
  const child = spawn(node, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let last = 0;
  let waiter;
  child.stdout.on('data', () => {
    last = Date.now();
    waiter?.();
  });
  const started = Date.now();
  while (Date.now() - started < firstMs && (last === 0 || Date.now() - last < settleMs)) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited ${child.exitCode}: ${stderr}`);
    await sleep(50);
  }
  return {
    child,
    /** Resolves at the next stdout chunk, with its arrival time (hrtime ns). */
    next: () => new Promise((resolve) => (waiter = () => ((waiter = undefined), resolve(process.hrtime.bigint())))),
    stop: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Append → output latencies (ms) of a running follower on `file`. */
async function latencies(proc, file, record) {
  const out = [];
  for (let i = 0; i < samples; i++) {
    await sleep(120 + ((i * 37) % 90)); // irregular gaps: never in step with a poll interval
    const arrived = proc.next();
    const t0 = process.hrtime.bigint();
    appendFileSync(file, JSON.stringify(record(i)) + '\n');
    const t1 = await Promise.race([arrived, sleep(10_000).then(() => undefined)]);
    if (t1 === undefined) throw new Error(`no output within 10 s of append ${i} to ${file}`);
    out.push(Number(t1 - t0) / 1e6);
  }
  return out;
}

// The baseline follower: fs.watch on the file, print a line when it changes. No polling.
const bareWatch = join(work, 'bare-watch.mjs');
writeFileSync(bareWatch, "import { watch } from 'node:fs';\nprocess.stdout.write('ready\\n');\nwatch(process.argv[2], () => process.stdout.write('changed\\n'));\n");

const nodeE = [];
for (let i = 0; i < 5; i++) {
  const t = process.hrtime.bigint();
  spawnSync(node, ['-e', '']);
  nodeE.push(Number(process.hrtime.bigint() - t) / 1e6);
}

const runs = [];
for (const [agent, s] of Object.entries(sessions)) {
  const file = join(work, `${agent}-${s.name}`);
  copyFileSync(s.source, file);
  const bare = await start([bareWatch, file], { settleMs: 200 });
  const bareMs = await latencies(bare, file, s.record);
  await bare.stop();

  copyFileSync(s.source, file);
  const follower = await start([join(binDir, 'sp-capture.js'), agent, '--path', file, '--follow']);
  // Idle: nothing appended for idleSeconds.
  const cpu0 = cpuSeconds(follower.child.pid);
  await sleep(idleSeconds * 1000);
  const idleCpuPercent = ((cpuSeconds(follower.child.pid) - cpu0) / idleSeconds) * 100;
  const ms = await latencies(follower, file, s.record);
  await follower.stop();
  runs.push({
    agent,
    samples,
    p50_ms: percentile(ms, 50),
    p95_ms: percentile(ms, 95),
    max_ms: Math.max(...ms),
    bare_p50_ms: percentile(bareMs, 50),
    bare_p95_ms: percentile(bareMs, 95),
    idle_cpu_percent: idleCpuPercent,
    idle_seconds: idleSeconds,
  });
}
rmSync(work, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ node_e_ms: percentile(nodeE, 50), runs }) + '\n');
