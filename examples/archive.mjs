#!/usr/bin/env node
// archive: capture every session of every installed agent, redact it, and keep it in the sp store — before the agents' own 30-day purge deletes it.
//
//   sp-watch --once --home AGENT=DIR …      one scan over every agent whose home exists
//
// It pays only for what changed: the watch's state ($SP_HOME/watch/) remembers each session's file
// signature (inode, size, mtime), a hash of its head and the capture cursor, so an unchanged session
// is skipped after a stat, and a grown one is read from where the last run stopped (a rewritten one
// from the start). Events are redacted with sp-redact's rules and key before the store sees them.
//
// Safe to run from cron: one run at a time (a lock next to the store; a second run while one is
// going exits 0 at once), idempotent (the store keeps each event once, and redaction gives the
// same placeholders every time, so a second run adds only what is new), and quiet unless something
// failed (then the watch's diagnostics and exit 1). --verbose prints what was stored.
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { $, minimist } from 'zx';
import { demoFolder, demoHomes, registry, root } from './fixture-homes.mjs';

const HELP = `archive.mjs — capture every session of every installed agent, redact it, ingest it into the sp store;
only the sessions that changed since the last run are read (sp watch --once)

Usage: archive.mjs [--store DIR] [--agents a,b] [--home AGENT=DIR …] [--verbose] [--demo]

  --store DIR        the store (default $SP_HOME/store; SP_HOME defaults to ~/.sp)
  --agents a,b       only these agents (default: every registered agent whose home exists)
  --home AGENT=DIR   read AGENT's sessions from DIR (repeatable; several homes per agent allowed)
  --verbose, -v      print what was stored per agent and home (default: silent unless errors)
  --demo             run on the bundled fixtures, in a temporary SP_HOME and store, twice (the
                     second run stores nothing new)
  --keep             with --demo: keep its temporary folder (removed on exit otherwise)
  --help, -h         this text

Cron, nightly at 02:15:
  15 2 * * * cd /path/to/sp && node examples/archive.mjs

Exit status: 0 ok (also when another archive run holds the lock), 1 a capture, redaction or ingest
failed (its diagnostics on stderr), 2 usage error.`;

const argv = minimist(process.argv.slice(2), {
  string: ['store', 'agents', 'home'],
  boolean: ['verbose', 'demo', 'keep', 'help'],
  alias: { v: 'verbose', h: 'help' },
  unknown: (arg) => {
    if (arg.startsWith('-')) usage(`unknown option ${arg}`);
    usage(`unexpected argument ${arg}`);
  },
});

function usage(message) {
  process.stderr.write(`archive: ${message} (see --help)\n`);
  process.exit(2);
}

const bin = (name) => join(root, 'dist/bin', `sp-${name}.js`);
const node = process.execPath;
$.quiet = true;
$.verbose = false;

/** The lock: a file holding our pid; a dead owner's lock is taken over. */
function lock(path) {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(path, 'utf8'));
      try {
        process.kill(owner, 0);
        return undefined; // a live run holds it
      } catch {
        unlinkSync(path); // its owner died: stale
      }
    }
  }
  return undefined;
}

/** Homes per agent: --home, else each registered agent's default home when it exists. */
async function homesFromArgs() {
  const adapters = await registry();
  const wanted = argv.agents ? String(argv.agents).split(',').map((s) => s.trim()).filter(Boolean) : Object.keys(adapters).sort();
  for (const id of wanted) if (!adapters[id]) usage(`unknown agent "${id}"; known agents: ${Object.keys(adapters).sort().join(', ')}`);
  const homes = {};
  for (const spec of [].concat(argv.home ?? [])) {
    const m = /^([a-z0-9-]+)=(.+)$/.exec(spec);
    if (!m) usage(`--home wants AGENT=DIR (got "${spec}")`);
    if (!adapters[m[1]]) usage(`unknown agent "${m[1]}" in --home; known agents: ${Object.keys(adapters).sort().join(', ')}`);
    (homes[m[1]] ??= []).push(resolve(m[2]));
  }
  if (Object.keys(homes).length > 0) return Object.fromEntries(Object.entries(homes).filter(([id]) => wanted.includes(id)));
  for (const id of wanted) {
    const home = adapters[id].defaultHome();
    if (existsSync(home)) homes[id] = [home];
  }
  return homes;
}

/**
 * Every home into the store with one `sp-watch --once` (the same digests and cursors as a running
 * watch, kept in $SP_HOME/watch/): unchanged sessions cost a stat, grown ones only their new tail.
 */
async function archiveAll(homes, store, env) {
  if (Object.keys(homes).length === 0) return { failures: [], result: undefined };
  const homeArgs = Object.entries(homes).flatMap(([agent, list]) => list.flatMap((home) => ['--home', `${agent}=${home}`]));
  const run = await $({ nothrow: true, env })`${node} ${bin('watch')} --once --json --store ${store} ${homeArgs}`;
  let result;
  try {
    result = JSON.parse(run.stdout.trim().split('\n').filter(Boolean).pop() ?? '');
  } catch {
    result = undefined;
  }
  const failures = run.exitCode !== 0 ? [{ stage: 'sp-watch --once', code: run.exitCode, stderr: run.stderr.trim() }] : [];
  return { failures, result };
}

async function archive({ homes, store, env, verbose }) {
  const release = lock(`${store.replace(/\/+$/, '')}.archive.lock`);
  if (!release) {
    if (verbose) process.stderr.write(`archive: another run holds the lock for ${store}; nothing to do\n`);
    return 0;
  }
  const cleanUp = () => release();
  process.once('exit', cleanUp);
  try {
    const { failures, result } = await archiveAll(homes, store, env);
    for (const f of failures) process.stderr.write(`archive: ${f.stage}: failed (exit ${f.code})\n${f.stderr ? f.stderr.replace(/^/gm, '  ') + '\n' : ''}`);
    if (verbose) {
      const rows = Object.entries(homes).map(([agent, list]) => {
        const r = result?.agents?.[agent];
        return [agent, String(list.length), String(r?.sessions ?? 0), String(r?.changed ?? '-'), String(r?.added ?? '-'), String(r?.skipped ?? '-'), failures.length ? 'FAILED' : 'ok'];
      });
      table(['agent', 'homes', 'sessions', 'read', 'new events', 'already stored', 'status'], rows);
      process.stdout.write(`${result?.added ?? 0} new events stored in ${store}\n`);
    }
    return failures.length > 0 ? 1 : 0;
  } finally {
    process.removeListener('exit', cleanUp);
    release();
  }
}

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i >= 1 && i < cells.length - 1 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  process.stdout.write([line(header), ...rows.map(line)].join('\n') + '\n');
}

if (argv.help) {
  process.stdout.write(HELP + '\n');
  process.exit(0);
}
if (!existsSync(bin('watch'))) usage('the project is not built: run npm ci (or npm run build) first');

if (argv.demo) {
  const work = demoFolder('sp-archive-demo-', argv.keep);
  const { homes } = await demoHomes('archive', join(work, 'homes'), []);
  const store = join(work, 'store');
  const env = { ...process.env, SP_HOME: join(work, 'sp-home'), SP_PROGRESS: '0' };
  process.stdout.write(`archive --demo: the bundled fixtures of ${Object.keys(homes).join(', ')} into ${store}\n\n`);
  const first = await archive({ homes, store, env, verbose: true });
  if (first !== 0) process.exit(first);
  process.stdout.write('\nagain (idempotent: nothing new):\n');
  const second = await archive({ homes, store, env, verbose: true });
  if (argv.keep) process.stdout.write(`\nthe store: SP_HOME=${env.SP_HOME} sp-sync ls --store ${store}\n`);
  process.exit(second);
}

const store = resolve(argv.store ?? join(process.env.SP_HOME || join(process.env.HOME ?? tmpdir(), '.sp'), 'store'));
const homes = await homesFromArgs();
if (Object.keys(homes).length === 0 && argv.verbose) process.stderr.write('archive: no agent home found; nothing to do\n');
process.exit(await archive({ homes, store, env: { ...process.env }, verbose: argv.verbose }));
