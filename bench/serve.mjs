#!/usr/bin/env node
// node bench/serve.mjs [--sessions 1000] [--events 10000] [--runs 3]
//
// sp serve's server side, over real HTTP: start-up until the URL is printed, the list API over
// N Claude Code sessions (the recorded corpus session under N ids) cold (the homes read) and warm
// (the listing reused for 5 s), and the session API for a stored session of M events (read from
// the store, chain verified, redacted). Best wall time of --runs, and the server's CPU time
// (user + system, from /proc: other load on the machine inflates it less); the browser's own rendering is
// timed by test/browser/serve.test.ts. Run `npm run build` first.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '1000' }, events: { type: 'string', default: '10000' }, runs: { type: 'string', default: '3' } } });
const sessions = Number(values.sessions);
const events = Number(values.events);
const runs = Number(values.runs);
const root = new URL('..', import.meta.url).pathname;
const CLAUDE_ID = 'e05d2652-6a94-447f-8b60-cded66e4199a';
const work = mkdtempSync(join(tmpdir(), 'sp-bench-serve-'));
const claude = join(work, 'claude');
cpSync(join(root, 'fixtures/claude/corpus/S1-feature/.claude'), claude, { recursive: true });
mkdirSync(join(work, 'home'));
const env = { PATH: process.env.PATH ?? '', HOME: join(work, 'home'), SP_HOME: join(work, 'sp-home'), CLAUDE_CONFIG_DIR: claude };
const dir = join(claude, 'projects/-home-alice-acme-api');
const transcript = readFileSync(join(dir, `${CLAUDE_ID}.jsonl`), 'utf8');
for (let i = 1; i < sessions; i++) {
  const id = `${CLAUDE_ID.slice(0, 24)}${i.toString(16).padStart(12, '0')}`;
  writeFileSync(join(dir, `${id}.jsonl`), transcript.replaceAll(CLAUDE_ID, id));
}
// A stored session of `events` events, chained as sp-capture chains them.
const { Chainer } = await import(join(root, 'dist/lib/core/chain.js'));
const chainer = new Chainer();
const lines = [];
for (let seq = 0; seq < events; seq++) {
  const user = seq % 2 === 1;
  const event =
    seq === 0
      ? { session: 'sess_bench', seq, ts: 1796000000, agent: 'claude', type: 'session.start', payload: { native_id: 'bench', cwd: '/work/bench', title: 'bench' } }
      : { session: 'sess_bench', seq, ts: 1796000000 + seq, agent: 'claude', type: user ? 'message.user' : 'message.assistant', actor: user ? 'user' : 'agent:claude', payload: { content: [{ type: 'text', text: `${user ? 'question' : 'answer'} ${seq}: ${'lorem ipsum '.repeat(8)}` }] } };
  lines.push(JSON.stringify(chainer.chain(event)));
}
const ingest = spawnSync(process.execPath, [join(root, 'dist/bin/sp-sync.js'), 'ingest', '-q'], { env, input: lines.join('\n') + '\n', encoding: 'utf8' });
if (ingest.status !== 0) throw new Error(ingest.stderr);

/** CPU time (user + system) the server process has used, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

function get(port, token, path) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({ host: '127.0.0.1', port, path, headers: { 'X-SP-Token': token } }, (res) => {
      let size = 0;
      res.on('data', (c) => (size += c.length));
      res.on('end', () => (res.statusCode === 200 ? resolve({ ms: performance.now() - started, size }) : reject(new Error(`${path}: HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

const best = { start: Infinity, cold: Infinity, warm: Infinity, open: Infinity };
const cpu = { start: Infinity, cold: Infinity, warm: Infinity, open: Infinity };
let sizes = {};
for (let run = 0; run < runs; run++) {
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist/bin/sp-serve.js'), '--port', '0', '--quiet', '--home', `claude=${claude}`], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve(out.trim());
    });
  });
  best.start = Math.min(best.start, performance.now() - started);
  const { port, searchParams } = new URL(url);
  const token = searchParams.get('token');
  const c0 = cpuMs(child.pid);
  const cold = await get(port, token, '/api/sessions');
  const c1 = cpuMs(child.pid);
  const warm = await get(port, token, '/api/sessions?q=acme');
  const c2 = cpuMs(child.pid);
  const open = await get(port, token, '/api/session?stored=sess_bench');
  const c3 = cpuMs(child.pid);
  cpu.start = Math.min(cpu.start, c0);
  cpu.cold = Math.min(cpu.cold, c1 - c0);
  cpu.warm = Math.min(cpu.warm, c2 - c1);
  cpu.open = Math.min(cpu.open, c3 - c2);
  best.cold = Math.min(best.cold, cold.ms);
  best.warm = Math.min(best.warm, warm.ms);
  best.open = Math.min(best.open, open.ms);
  sizes = { list: cold.size, session: open.size };
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}
rmSync(work, { recursive: true, force: true });
const ms = (x) => `${Math.round(x)} ms`;
console.log(`sp serve, best of ${runs} (load average ${loadavg()[0].toFixed(1)})`);
console.log(`| what | wall | server CPU | answer |\n| --- | --- | --- | --- |`);
console.log(`| start-up until the URL is printed | ${ms(best.start)} | ${ms(cpu.start)} | |`);
console.log(`| list ${sessions + 1} sessions, cold (every home read) | ${ms(best.cold)} | ${ms(cpu.cold)} | ${(sizes.list / 1024).toFixed(0)} KB JSON |`);
console.log(`| list and filter them again (listing reused) | ${ms(best.warm)} | ${ms(cpu.warm)} | |`);
console.log(`| open a ${events}-event stored session (read, chain verified, redacted) | ${ms(best.open)} | ${ms(cpu.open)} | ${(sizes.session / 1024 / 1024).toFixed(1)} MB JSON |`);
