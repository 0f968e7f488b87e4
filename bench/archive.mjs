#!/usr/bin/env node
// bench/archive.mjs [--sessions N] [--runs N]: the archive flow pays for what changed. A Claude home
// of N sessions (default 1,000: the recorded S2-debug session with fresh ids, 38 records each) is
// archived once (the full run: every session read), then one session grows by a few records and
// the flow runs again (median of --runs): the time beyond start-up (`node -e ''`, and the flow's
// own start-up: `sp archive --version`, one process) is what the digests leave to do. The
// same for `sp-watch --once` alone. Prints one JSON line with every figure. Needs `npm run build`.
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './lib.mjs';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } } });
const sessions = Number(values.sessions);
const runs = Number(values.runs);
const node = process.execPath;
const work = mkdtempSync(join(tmpdir(), 'sp-bench-archive-'));
const home = join(work, '.claude');
const store = join(work, 'store');
const env = { ...process.env, SP_HOME: join(work, 'sp-home'), SP_PROGRESS: '0' };

const source = readFileSync(join(root, 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl'), 'utf8');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Session k: every UUID of the recording with its last 8 hex digits replaced by k's (a fresh, consistent session). */
const files = [];
for (let k = 0; k < sessions; k++) {
  const tag = k.toString(16).padStart(8, '0');
  const text = source.replace(UUID, (u) => u.slice(0, -8) + tag);
  const id = '9a1dc580-54f5-46ea-bece-7461' + tag;
  const folder = join(home, 'projects', `-home-bench-p${k % 20}`);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${id}.jsonl`);
  writeFileSync(file, text);
  files.push({ file, id });
}

function timed(args) {
  const started = process.hrtime.bigint();
  const r = spawnSync(node, args, { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}: ${r.stderr.trim().split('\n').pop()}`);
  return { seconds, stdout: r.stdout };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const archive = [join(root, 'dist/flows/archive.js'), '--store', store, '--home', `claude=${home}`];
const watchOnce = [join(root, 'dist/bin/sp-watch.js'), '--once', '--json', '--store', store, '--home', `claude=${home}`];

let grown = 0;
/** One more user record at the end of one session (a different one each time). */
function grow() {
  const { file, id } = files[(grown * 389) % files.length];
  const uuid = `bbbbbbbb-0000-4000-8000-${String(grown).padStart(12, '0')}`;
  appendFileSync(file, JSON.stringify({ parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: `bench grow ${grown}` }, uuid, timestamp: new Date().toISOString(), cwd: '/home/bench', sessionId: id, version: '2.1.197', userType: 'external' }) + '\n');
  grown += 1;
}

const full = timed(archive).seconds;
const nodeBare = median(Array.from({ length: runs }, () => timed(['-e', '']).seconds));
const watchStart = median(Array.from({ length: runs }, () => timed([join(root, 'dist/bin/sp-watch.js'), '--version']).seconds));
const flowStart = median(Array.from({ length: runs }, () => timed([join(root, 'dist/flows/archive.js'), '--version']).seconds));
const unchanged = median(Array.from({ length: runs }, () => timed(archive).seconds));
const oneGrew = median(
  Array.from({ length: runs }, () => {
    grow();
    return timed(archive).seconds;
  }),
);
const watchGrew = [];
let lastScan;
for (let i = 0; i < runs; i++) {
  grow();
  const r = timed(watchOnce);
  watchGrew.push(r.seconds);
  lastScan = JSON.parse(r.stdout);
}
const watchOneGrew = median(watchGrew);
const startUp = Math.max(nodeBare, flowStart);
rmSync(work, { recursive: true, force: true });
process.stdout.write(
  JSON.stringify({
    sessions,
    records_per_session: source.trim().split('\n').length,
    runs,
    node_e_seconds: nodeBare,
    sp_watch_version_seconds: watchStart,
    archive_version_seconds: flowStart,
    full_seconds: full,
    unchanged_seconds: unchanged,
    one_grew_seconds: oneGrew,
    one_grew_beyond_node_seconds: oneGrew - nodeBare,
    one_grew_beyond_startup_seconds: oneGrew - startUp,
    ratio_vs_full: oneGrew / full,
    watch_once_one_grew_seconds: watchOneGrew,
    watch_once_beyond_startup_seconds: watchOneGrew - watchStart,
    last_scan: { sessions: lastScan.sessions, changed: lastScan.changed, added: lastScan.added, skipped: lastScan.skipped },
  }) + '\n',
);
