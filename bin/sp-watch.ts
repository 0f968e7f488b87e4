#!/usr/bin/env node
// sp-watch: one long-running process that keeps every agent's sessions captured in the store.
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli, writeJsonLine } from '../lib/cli/cli.js';
import { EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, UserError, note, warn } from '../lib/cli/diagnostics.js';
import { resolveStoreDir, spHome } from '../lib/store/paths.js';
import type { ScanResult, WatchTarget } from '../lib/watch/scan.js';
import { agentIds, isAgentId, loadAdapter, unknownAgent } from '../adapters/registry.js';

interface Args {
  agents: string[];
  /** One --home is a string, several an array (normalized in run). */
  home: string[];
  store?: string;
  push?: string;
  interval: string;
  once: boolean;
  json: boolean;
  verbose: boolean;
  redact: boolean;
  maxLineBytes?: number;
  installService: boolean;
  yes: boolean;
  force: boolean;
  service?: string;
}

/** `2s`, `5m`, `1h`, `1500ms`; a bare number is seconds. */
function parseDuration(text: string, what: string, minMs: number): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new UserError(`${what} wants a duration such as 2s, 5m or 1h (got ${JSON.stringify(text)})`);
  const ms = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  if (!(ms >= minMs)) throw new UserError(`${what} must be at least ${minMs} ms (got ${JSON.stringify(text)})`);
  return ms;
}

/** The agents and homes to watch: --home AGENT=DIR (repeatable), else each agent's own home. */
async function targetsOf(args: Args): Promise<WatchTarget[]> {
  const known = (id: string) => {
    if (!isAgentId(id)) throw unknownAgent(id);
  };
  const homes = new Map<string, string[]>();
  for (const spec of args.home) {
    const m = /^([a-z0-9-]+)=(.+)$/.exec(spec);
    if (!m) throw new UserError(`--home wants AGENT=DIR (got ${JSON.stringify(spec)})`);
    known(m[1]);
    homes.set(m[1], [...(homes.get(m[1]) ?? []), resolve(m[2])]);
  }
  for (const id of args.agents) known(id);
  const ids = args.agents.length > 0 || homes.size > 0 ? [...args.agents, ...homes.keys()] : [...agentIds].sort();
  const targets: WatchTarget[] = [];
  for (const id of [...new Set(ids)]) {
    const adapter = await loadAdapter(id); // only the agents watched
    for (const home of homes.get(id) ?? [resolve(adapter.defaultHome())]) targets.push({ adapter, home, optional: args.agents.length === 0 && !homes.has(id) });
  }
  return targets;
}

function summary(r: ScanResult): Record<string, unknown> {
  const { folders: _folders, dirty: _dirty, ...rest } = r;
  return rest;
}

async function installService(args: Args, targets: WatchTarget[]): Promise<number> {
  const { installService: write, serviceLocation, serviceText } = await import('../lib/watch/service.js');
  const kind = (args.service ?? (process.platform === 'darwin' ? 'launchd' : 'systemd')) as 'systemd' | 'launchd';
  if (kind !== 'systemd' && kind !== 'launchd') throw new UserError(`--service wants systemd or launchd (got ${JSON.stringify(args.service)})`);
  // The service runs exactly this watch: same agents and homes, store, intervals and redaction.
  const command = [process.execPath, fileURLToPath(import.meta.url)];
  for (const id of args.agents) command.push(id);
  for (const t of targets) if (!t.optional && args.home.length > 0) command.push('--home', `${t.adapter.id}=${t.home}`);
  command.push('--store', resolveStoreDir(args.store), '--interval', args.interval);
  if (args.push !== undefined) command.push('--push', args.push);
  if (!args.redact) command.push('--no-redact');
  if (args.maxLineBytes !== undefined) command.push('--max-line-bytes', String(args.maxLineBytes));
  const env: Record<string, string> = { SP_HOME: spHome() };
  if (process.env.PATH) env.PATH = process.env.PATH;
  // Every agent's home variable: the service keeps whichever this shell sets.
  const { adapters } = await import('../adapters/index.js');
  for (const adapter of Object.values(adapters)) {
    const value = process.env[adapter.homeEnv];
    if (value) env[adapter.homeEnv] = resolve(value);
  }
  const text = serviceText({ kind, command, env, logFile: resolve(spHome(), 'watch', 'watch.log') });
  const { path, enable } = serviceLocation(kind, homedir());
  if (!args.yes) {
    if (args.json) writeJsonLine({ service: kind, path, written: false, text });
    else process.stdout.write(text);
    note(undefined, `not written; with --yes it goes to ${path}`);
    return EXIT_OK;
  }
  if (!args.json) process.stdout.write(text);
  const outcome = write(path, text, args.force);
  if (args.json) writeJsonLine({ service: kind, path, written: outcome !== 'unchanged', outcome, enable, text });
  note(path, `${outcome === 'unchanged' ? 'installed already (the same)' : outcome}; start it with: ${enable}`);
  return EXIT_OK;
}

await runCli<Args>({
  name: 'sp-watch',
  summary:
    'Keeps every agent session captured: watches the agent homes (all known agents, or those given), reads only what ' +
    'changed since the last look — (mtime, size) first, then a hash of the file\'s head, then only the new tail from a ' +
    'cursor — redacts it and ingests it into the store; with --push, sends the store to its remotes on an interval. ' +
    'For agents without hooks, or instead of them.',
  usage: '[AGENT..] [--home AGENT=DIR].. [--push 5m] [--interval 2s] [--once] [--install-service [--yes]]',
  examples: [
    ['sp watch', "every known agent's home, until Ctrl-C or SIGTERM"],
    ['sp watch claude codex --push 5m', 'two agents; push to the configured remotes every 5 minutes'],
    ['sp watch --once', 'one scan, then exit (for cron)'],
    ['sp watch --home claude=/srv/claude-home --once --json', 'another home; the scan result as JSON'],
    ['sp watch --push 5m --install-service', 'print the systemd user unit (launchd agent on macOS) that runs this watch'],
    ['sp watch --push 5m --install-service --yes', 'write it (never over a different file without --force) and print how to enable it'],
  ],
  epilogue:
    'What the watch remembers per session (file signatures, head hashes, capture cursors) is kept in ' +
    '$SP_HOME/watch/ (private, replaced atomically); deleting it makes the next scan read everything again, which ' +
    'stores nothing twice. A file that was rotated or compacted is read again from the start. A busy store (another ' +
    'writer) and a remote that is down are retried with backoff; nothing is lost. Unredacted sessions (--no-redact) ' +
    'are not pushed. SIGINT/SIGTERM end the watch after its current step (exit 0).\n\n' +
    '--once exits 1 when the store stayed busy, 2 when a session could not be read (one line each).',
  options: (y) =>
    y
      .positional('agents', { type: 'string', array: true, describe: `agents to watch (default: all of ${[...agentIds].sort().join(', ')} whose home exists)` })
      .option('home', { type: 'string', nargs: 1, describe: "AGENT=DIR: read AGENT's sessions from DIR (repeatable)" })
      .option('store', { type: 'string', describe: 'the store directory (default $SP_HOME/store)' })
      .option('push', { type: 'string', describe: 'push to every configured remote this often (e.g. 5m)' })
      .option('interval', { type: 'string', default: '2s', describe: 'look at the files at least this often (changes wake it sooner where fs.watch works)' })
      .option('once', { type: 'boolean', default: false, describe: 'one scan, then exit' })
      .option('json', { type: 'boolean', default: false, describe: 'with --once: the scan result as one JSON line; watching: one line per scan that stored something or met an error; --install-service: the unit and where it goes' })
      .option('verbose', { alias: 'v', type: 'boolean', default: false, describe: 'a line on stderr for each scan that stored something' })
      .option('redact', { type: 'boolean', default: true, describe: 'redact before storing (--no-redact: store as captured; recorded in the manifest, and the watch never pushes those sessions)' })
      .option('max-line-bytes', { type: 'number', describe: 'skip a session file with a longer line (default 64 MiB)' })
      .option('install-service', { type: 'boolean', default: false, describe: 'print a systemd user unit (macOS: a launchd agent) that runs this watch' })
      .option('yes', { type: 'boolean', default: false, describe: 'with --install-service: write it' })
      .option('force', { type: 'boolean', default: false, describe: 'with --install-service --yes: replace a different existing file' })
      .option('service', { type: 'string', choices: ['systemd', 'launchd'], describe: 'with --install-service: which kind (default: by platform)' })
      .command('$0 [agents..]', false) as never,
  run: async (args) => {
    args.agents ??= [];
    args.home = ([] as string[]).concat(args.home ?? []);
    const targets = await targetsOf(args);
    const intervalMs = parseDuration(args.interval, '--interval', 50);
    const pushEveryMs = args.push !== undefined ? parseDuration(args.push, '--push', 1000) : undefined;
    if (args.maxLineBytes !== undefined && !(Number.isInteger(args.maxLineBytes) && args.maxLineBytes > 0)) throw new UserError('--max-line-bytes wants a positive whole number');
    if ((args.yes || args.force || args.service !== undefined) && !args.installService) throw new UserError('--yes, --force and --service go with --install-service');
    if (args.installService) return installService(args, targets);

    // Loaded after parsing: --help, --version and usage errors do without the store.
    const { Notes, scan } = await import('../lib/watch/scan.js');
    const { loadState, saveState, statePath } = await import('../lib/watch/state.js');
    const { stopOnSignals } = await import('../lib/capture/follow.js');
    const storeDir = resolveStoreDir(args.store);
    const path = statePath(spHome(), storeDir);
    const state = loadState(path, storeDir);
    const redactor = args.redact ? await (await import('../lib/redact/ensure.js')).Redactor.load() : undefined;
    if (!redactor) warn(undefined, 'storing unredacted (--no-redact): the manifests say so, and the watch does not push these sessions');
    const notes = new Notes(warn);
    const signal = args.once ? new AbortController().signal : stopOnSignals();
    const step = async (lockTimeoutMs: number) => {
      const result = await scan(state, { targets, storeDir, redactor, lockTimeoutMs, maxLineBytes: args.maxLineBytes, log: warn, signal }, notes);
      if (result.dirty) saveState(path, state);
      if (args.verbose && result.added > 0) warn(undefined, `${result.added} new events stored from ${result.changed} sessions`);
      // Watching with --json: a line for each scan that stored something or met an error (--once: always one).
      if (args.json && !args.once && (result.added > 0 || result.errors > 0)) writeJsonLine(summary(result));
      return result;
    };

    if (args.once) {
      // Cron waits for a busy store as long as any writer does (10 s), then says so.
      const result = await step(10_000);
      if (args.json) process.stdout.write(JSON.stringify(summary(result)) + '\n');
      return result.busy ? EXIT_CHECK_FAILED : result.errors > 0 ? EXIT_USAGE : EXIT_OK;
    }

    const { watchLoop } = await import('../lib/watch/loop.js');
    const { pushAll } = await import('../lib/watch/push.js');
    let heldNamed = '';
    await watchLoop({
      scan: () => step(200),
      intervalMs,
      pushEveryMs,
      push:
        pushEveryMs === undefined
          ? undefined
          : async () => {
              const done = await pushAll(storeDir, {
                held: (ids) => {
                  const key = ids.join(',');
                  if (key !== heldNamed) warn('push', `${ids.length} session${ids.length === 1 ? '' : 's'} stored unredacted not pushed (sp-sync redact --all, or sp-sync push --allow-unredacted)`);
                  heldNamed = key;
                },
              });
              if (args.verbose) for (const d of done) if (d.events > 0) warn(d.remote, `pushed ${d.events} events in ${d.sessions} sessions`);
            },
      signal,
      log: warn,
    });
    return EXIT_OK;
  },
});
