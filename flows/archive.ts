#!/usr/bin/env node
// archive: capture every session of every installed agent, redact it, and keep it in the sp store — before the agents' own 30-day purge deletes it.
//
// One scan of sp watch (lib/watch/scan.ts) over every agent home that exists, in this process: the
// watch's state ($SP_HOME/watch/) remembers each session's file signature, a hash of its head and
// the capture cursor, so an unchanged session costs a stat and a grown one is read from where the
// last run stopped. Events are redacted with sp-redact's rules and key before the store sees them.
//
// Safe from cron: one run at a time (a lock next to the store; a second run while one is going exits
// 0 at once), idempotent (the store keeps each event once, and redaction gives the same placeholders
// every time), and quiet unless something failed (one line each, exit 1). --verbose prints a table.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { adapters, getAdapter } from '../adapters/index.js';
import { runCli, writeJsonLine } from '../lib/cli/cli.js';
import { colorEnabled } from '../lib/cli/color.js';
import { EXIT_CHECK_FAILED, EXIT_OK, UserError, note, warn } from '../lib/cli/diagnostics.js';
import { PRIVATE_FILE, pidAlive } from '../lib/fs/private.js';
import { Redactor } from '../lib/redact/ensure.js';
import { resolveStoreDir, spHome } from '../lib/store/paths.js';
import { palette } from '../lib/term/color.js';
import { renderTable } from '../lib/term/table.js';
import { scan, type ScanResult, type WatchTarget } from '../lib/watch/scan.js';
import { loadState, saveState, statePath } from '../lib/watch/state.js';
import { demoHomes } from './demo.js';

interface Args {
  store?: string;
  agents?: string;
  home?: string | string[];
  verbose: boolean;
  json: boolean;
  demo: boolean;
  keep: boolean;
}

/**
 * The run's lock: a file next to the store holding our pid, created exclusively; a lock whose owner
 * died is taken over. Returns its release, or undefined while a live run holds it.
 */
function takeLock(path: string): (() => void) | undefined {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', PRIVATE_FILE);
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
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // Only a whole number is an owner; anything else in the file is not ours to trust, and stale.
      const text = readFileSync(path, 'utf8').trim();
      const owner = /^\d{1,10}$/.test(text) ? Number(text) : 0;
      if (owner > 0 && pidAlive(owner)) return undefined;
      unlinkSync(path);
    }
  }
  return undefined;
}

/** The homes per agent: --home AGENT=DIR (repeatable), else each wanted agent's default home when it exists. */
function homesFrom(args: Args): Record<string, string[]> {
  const wanted = args.agents !== undefined ? args.agents.split(',').map((s) => s.trim()).filter(Boolean) : Object.keys(adapters).sort();
  for (const id of wanted) getAdapter(id);
  const given: Record<string, string[]> = {};
  for (const spec of ([] as string[]).concat(args.home ?? [])) {
    const m = /^([a-z0-9-]+)=(.+)$/.exec(spec);
    if (!m) throw new UserError(`--home wants AGENT=DIR (got ${JSON.stringify(spec)})`);
    getAdapter(m[1]);
    (given[m[1]] ??= []).push(resolve(m[2]));
  }
  if (Object.keys(given).length > 0) return Object.fromEntries(Object.entries(given).filter(([id]) => wanted.includes(id)));
  const homes: Record<string, string[]> = {};
  for (const id of wanted) {
    const home = adapters[id].defaultHome();
    if (existsSync(home)) homes[id] = [resolve(home)];
  }
  return homes;
}

/** One watch scan of every home into the store; the watch state is saved when it moved. */
async function scanHomes(homes: Record<string, string[]>, storeDir: string): Promise<ScanResult> {
  const targets: WatchTarget[] = Object.entries(homes).flatMap(([id, list]) => list.map((home) => ({ adapter: adapters[id], home })));
  const path = statePath(spHome(), storeDir);
  const state = loadState(path, storeDir);
  // Cron waits for a busy store as long as any writer does (10 s).
  const result = await scan(state, { targets, storeDir, redactor: await Redactor.load(), lockTimeoutMs: 10_000, log: warn });
  if (result.dirty) saveState(path, state);
  return result;
}

function printTable(homes: Record<string, string[]>, result: ScanResult | undefined, storeDir: string): void {
  const ok = result !== undefined && !result.busy && result.errors === 0;
  const rows = Object.entries(homes).map(([agent, list]) => {
    const r = result?.agents[agent];
    return [agent, String(list.length), String(r?.sessions ?? 0), String(r?.changed ?? '-'), String(r?.added ?? '-'), String(r?.skipped ?? '-'), ok ? 'ok' : 'FAILED'];
  });
  const right = { align: 'right' as const };
  const columns = [{ header: 'agent' }, { header: 'homes', ...right }, { header: 'sessions', ...right }, { header: 'read', ...right }, { header: 'new events', ...right }, { header: 'already stored', ...right }, { header: 'status' }];
  process.stdout.write(renderTable(columns, rows, { width: 400, palette: palette(colorEnabled()) }));
  process.stdout.write(`${result?.added ?? 0} new events stored in ${storeDir}\n`);
}

/** One archive run under the lock; resolves to the exit status. */
async function archive(homes: Record<string, string[]>, storeDir: string, options: { verbose: boolean; json: boolean }): Promise<number> {
  const release = takeLock(`${storeDir.replace(/\/+$/, '')}.archive.lock`);
  if (!release) {
    note(storeDir, 'another archive run holds the lock; nothing to do');
    return EXIT_OK;
  }
  process.once('exit', release);
  try {
    const result = Object.keys(homes).length > 0 ? await scanHomes(homes, storeDir) : undefined;
    if (result === undefined) note(undefined, 'no agent home found; nothing to do');
    if (result?.busy) warn(storeDir, 'the store stayed busy (another writer); nothing was stored, the next run catches up');
    if (options.json && result) {
      const { folders: _folders, dirty: _dirty, ...summary } = result;
      writeJsonLine({ store: storeDir, ...summary });
    } else if (options.verbose) printTable(homes, result, storeDir);
    return result && (result.busy || result.errors > 0) ? EXIT_CHECK_FAILED : EXIT_OK;
  } finally {
    process.removeListener('exit', release);
    release();
  }
}

await runCli<Args>({
  name: 'archive',
  summary:
    'Captures every session of every installed agent, redacts it and keeps it in the sp store (one sp watch scan: only what ' +
    'changed since the last run is read) — the protection against the agents\' own 30-day purge.',
  usage: '[--store DIR] [--agents a,b] [--home AGENT=DIR]… [--verbose] [--demo]',
  examples: [
    ['15 2 * * * sp archive', 'crontab: every night at 02:15, silent unless something failed'],
    ['sp archive --home claude=/srv/claude-home --verbose', 'another home; a table of what was stored'],
    ['sp archive --demo', 'the bundled fixtures into a temporary store, twice (the second run stores nothing new)'],
  ],
  epilogue:
    'One run at a time: a lock next to the store (a second run while one is going exits 0 at once). ' +
    'Exit 0 ok, 1 a session could not be read or the store stayed busy (one line each), 2 usage error.',
  options: (y) =>
    y
      .option('store', { type: 'string', describe: 'the store (default $SP_HOME/store; SP_HOME defaults to ~/.sp)' })
      .option('agents', { type: 'string', describe: `only these agents, comma-separated (default: every one of ${Object.keys(adapters).sort().join(', ')} whose home exists)` })
      .option('home', { type: 'string', nargs: 1, describe: "AGENT=DIR: read AGENT's sessions from DIR (repeatable; several homes per agent allowed)" })
      .option('verbose', { alias: 'v', type: 'boolean', default: false, describe: 'a table of what was stored per agent (default: silent unless errors)' })
      .option('json', { type: 'boolean', default: false, describe: 'the scan result as one JSON line' })
      .option('demo', { type: 'boolean', default: false, describe: 'the bundled fixtures, in a temporary SP_HOME and store, twice (the second run stores nothing new)' })
      .option('keep', { type: 'boolean', default: false, describe: 'with --demo: keep its temporary folder (removed on exit otherwise)' }) as never,
  run: async (args) => {
    if (args.demo) {
      const { work, homes } = await demoHomes('archive', args.keep);
      process.env.SP_HOME = join(work, 'sp-home');
      const storeDir = join(work, 'store');
      if (!args.json) process.stdout.write(`archive --demo: the bundled fixtures of ${Object.keys(homes).join(', ')} into ${storeDir}\n\n`);
      const first = await archive(homes, storeDir, { verbose: true, json: args.json });
      if (first !== EXIT_OK) return first;
      if (!args.json) process.stdout.write('\nagain (idempotent: nothing new):\n');
      const second = await archive(homes, storeDir, { verbose: true, json: args.json });
      if (args.keep) note(undefined, `the store: SP_HOME=${process.env.SP_HOME} sp-sync ls --store ${storeDir}`);
      return second;
    }
    return archive(homesFrom(args), resolveStoreDir(args.store), { verbose: args.verbose, json: args.json });
  },
});
