#!/usr/bin/env node
// bench/ingest.mjs [--quick] [--events N]: sp-sync ingest throughput on the largest corpus captures
// and on a generated working session (100k events, ~1 KB each; --quick: 10k), then push of that
// store to a local bare git repository and pull into a second SP_HOME. Prints one JSON line:
// the generated-session ingest as the headline (events, mb, seconds, peak_rss_mb) and every
// measurement under `runs`. Needs `npm run build` first.
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, root, writeWorkSession } from './lib.mjs';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, events: { type: 'string' } } });
const total = Number(values.events ?? (values.quick ? 10_000 : 100_000));
const work = mkdtempSync(join(tmpdir(), 'sp-bench-ingest-'));
const node = process.execPath;
const sync = join(root, 'dist/bin/sp-sync.js');
const runs = [];

function lines(file) {
  return Number(execFileSync('wc', ['-l', file], { encoding: 'utf8' }).trim().split(/\s+/)[0]);
}

async function ingestRun(name, file) {
  const home = mkdtempSync(join(work, 'home-'));
  const m = await measure(node, [sync, 'ingest', '-q', file], { env: { SP_HOME: home, SP_PROGRESS: '0' } });
  if (m.code !== 0) throw new Error(`${name}: sp-sync ingest exited ${m.code}: ${m.stderr}`);
  const events = lines(file);
  const mb = statSync(file).size / 1048576;
  const run = { pass: 'sp-sync ingest', input: name, events, mb: +mb.toFixed(2), seconds: +m.seconds.toFixed(3), events_per_s: Math.round(events / m.seconds), cpu_seconds: +m.cpuSeconds.toFixed(2), peak_rss_mb: +m.rssMb.toFixed(1) };
  runs.push(run);
  return { run, home };
}

// The largest corpus sessions, captured by sp-capture.
const corpus = [
  ['pi', 'fixtures/pi/public/pi-mono/packages/coding-agent/test/fixtures/before-compaction.jsonl'],
  ['pi', 'fixtures/pi/public/pi-mono/packages/coding-agent/test/fixtures/large-session.jsonl'],
  ['codex', 'fixtures/codex/corpus/S3-long/sessions/2026/11/30/rollout-2026-11-30T05-07-12-01a22ad9-94fc-7ae2-9539-88c29f4141fc.jsonl'],
  ['claude', 'fixtures/claude/corpus/S3-long/.claude/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71.jsonl'],
];
for (const [agent, path] of corpus) {
  const out = join(work, `${agent}-${path.split('/').pop()}.ndjson`);
  writeFileSync(out, execFileSync(node, [join(root, 'dist/bin/sp-capture.js'), agent, '--path', join(root, path)], { maxBuffer: 1 << 30, env: { ...process.env, SP_HOME: work } }));
  await ingestRun(`${agent} ${path.split('/').pop()}`, out);
}

// A generated working session.
const generated = join(work, 'generated.ndjson');
await writeWorkSession(generated, { events: total, seed: 5 });
const { run: headline, home: homeA } = await ingestRun(`generated ${total} events`, generated);
const again = await measure(node, [sync, 'ingest', '-q', generated], { env: { SP_HOME: homeA, SP_PROGRESS: '0' } });
runs.push({ pass: 'sp-sync ingest (again: all already stored)', input: headline.input, events: headline.events, seconds: +again.seconds.toFixed(3), cpu_seconds: +again.cpuSeconds.toFixed(2), events_per_s: Math.round(headline.events / again.seconds) });

// Push the store to a bare repository, pull it into a second SP_HOME.
const bare = join(work, 'remote.git');
execFileSync('git', ['init', '-q', '--bare', bare]);
execFileSync(node, [sync, 'remote', 'add', 'origin', bare, '-q'], { env: { ...process.env, SP_HOME: homeA } });
const pushed = await measure(node, [sync, 'push', '-q'], { env: { SP_HOME: homeA, SP_PROGRESS: '0' } });
if (pushed.code !== 0) throw new Error(`push exited ${pushed.code}: ${pushed.stderr}`);
runs.push({ pass: 'sp-sync push (git, bare repo)', input: headline.input, events: headline.events, seconds: +pushed.seconds.toFixed(3), cpu_seconds: +pushed.cpuSeconds.toFixed(2), events_per_s: Math.round(headline.events / pushed.seconds), peak_rss_mb: +pushed.rssMb.toFixed(1) });
const homeB = mkdtempSync(join(work, 'home-'));
const pulled = await measure(node, [sync, 'clone', bare, '--trust-all', '-q'], { env: { SP_HOME: homeB, SP_PROGRESS: '0' } });
if (pulled.code !== 0) throw new Error(`clone exited ${pulled.code}: ${pulled.stderr}`);
runs.push({ pass: 'sp-sync clone/pull (git, bare repo)', input: headline.input, events: headline.events, seconds: +pulled.seconds.toFixed(3), cpu_seconds: +pulled.cpuSeconds.toFixed(2), events_per_s: Math.round(headline.events / pulled.seconds), peak_rss_mb: +pulled.rssMb.toFixed(1) });
const noop = await measure(node, [sync, 'pull', '-q'], { env: { SP_HOME: homeB, SP_PROGRESS: '0' } });
runs.push({ pass: 'sp-sync pull (nothing new)', input: headline.input, seconds: +noop.seconds.toFixed(3) });

const load = execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' ');
process.stdout.write(JSON.stringify({ ...headline, load, runs }) + '\n');
rmSync(work, { recursive: true, force: true });
