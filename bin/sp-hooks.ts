#!/usr/bin/env node
// sp-hooks: registers sp in each agent's own extension point (hooks, notify), so that every session
// is captured into the store, redacted, as turns end — and takes it out again, byte for byte.
import { runCli } from '../lib/cli/cli.js';
import { EXIT_OK, EXIT_USAGE, UserError, warn } from '../lib/cli/diagnostics.js';
import type { Outcome } from '../lib/hooks/install.js';
import { loadAdapter } from '../adapters/registry.js';

// Loaded after parsing (--help, --version and usage errors do without): each agent's installer.
const hooks = () => import('../adapters/hooks.js');

interface Args {
  _: Array<string | number>;
  agents?: string[];
  all: boolean;
  home?: string;
  json: boolean;
  quiet: boolean;
}

/** The agents a command names: the positionals, or every agent with hooks for --all. */
async function agentsOf(args: Args, action: string): Promise<string[]> {
  const { getHookInstaller, hookInstallers } = await hooks();
  const named = args.agents ?? [];
  if (args.all && named.length > 0) throw new UserError(`give agents or --all, not both`);
  const agents = args.all ? Object.keys(hookInstallers) : named;
  if (agents.length === 0) throw new UserError(`say which agents: sp hooks ${action} claude codex … or --all`);
  if (args.home !== undefined && agents.length > 1) throw new UserError('--home names one agent\'s home: give one agent with it');
  for (const agent of agents) getHookInstaller(agent);
  return agents;
}

async function homeOf(agent: string, args: Args): Promise<string> {
  return args.home ?? (await loadAdapter(agent)).defaultHome(); // the agent's adapter only
}

function report(outcomes: Outcome[], args: Args): void {
  for (const o of outcomes) {
    if (args.json) process.stdout.write(JSON.stringify(o) + '\n');
    else if (!args.quiet) process.stdout.write(`${o.agent}\t${o.action}\t${o.file}${o.note ? `\t(${o.note})` : ''}\n`);
  }
}

// `sp hooks run AGENT --home H --sp-home S [PAYLOAD]`: the hook itself, for a client set up by hand to
// call it (installed hooks call lib/hooks/sp-hook.js directly, which starts faster). Always exit 0.
if (process.argv[2] === 'run') {
  const { runHook } = await import('../lib/hooks/sp-hook.js');
  runHook(process.argv.slice(3));
  process.exit(0);
}

await runCli<Args>({
  name: 'sp-hooks',
  summary:
    "Registers sp in each agent's own extension point (hooks, Codex's notify program, OpenCode's plugins, Pi's extensions), so that every session " +
    'is captured into the store ($SP_HOME/store), redacted, each time a turn ends. The hook returns at once and hands the ' +
    'capture to a detached worker; its errors go to $SP_HOME/logs/hooks.log, never to the agent.',
  usage: '<install|uninstall|status> [agents..] [options]',
  examples: [
    ['sp hooks install claude codex', "capture every Claude Code and Codex session from now on"],
    ['sp hooks install --all', 'every agent sp has hooks for'],
    ['sp hooks install claude --home ~/work/.claude', 'another Claude Code config dir'],
    ['sp hooks status', 'what is installed where'],
    ['sp hooks uninstall --all', "take sp out again: a settings file untouched since install gets its exact bytes back"],
  ],
  epilogue:
    'Install edits the settings file structurally (everything else in it stays byte for byte) and keeps a backup under ' +
    '$SP_HOME/hooks. Installing twice changes nothing. A settings file that is a symlink, not a regular file, over 1 MB, ' +
    'or not valid JSON/TOML is refused and nothing is written.',
  options: (y) =>
    y
      .option('home', { type: 'string', describe: "the agent's home (default: its variable, else ~/.claude, ~/.codex …)", global: true })
      .option('all', { type: 'boolean', default: false, describe: 'every agent sp has hooks for', global: true })
      .option('json', { type: 'boolean', default: false, describe: 'one JSON line per agent', global: true })
      .option('quiet', { type: 'boolean', default: false, describe: 'install, uninstall: no line per agent (the exit status tells); status lists as always', global: true })
      .command('install [agents..]', 'add sp\'s hook to each agent', (b) => b.positional('agents', { type: 'string', array: true }))
      .command('uninstall [agents..]', 'remove it (restoring the file exactly when it was not changed since)', (b) => b.positional('agents', { type: 'string', array: true }))
      .command('status [agents..]', 'list, per agent, the settings file and whether sp\'s hook is in it', (b) => b.positional('agents', { type: 'string', array: true }))
      .demandCommand(1, 'say what to do: install, uninstall or status (see --help)')
      .strict() as never,
  run: async (args) => {
    const action = String(args._[0]);
    const { spHome } = await import('../lib/store/paths.js');
    const { install, installedFiles, status, uninstall } = await import('../lib/hooks/install.js');
    const { getHookInstaller, hookInstallers } = await hooks();
    const home = spHome();
    if (action === 'install' || action === 'uninstall') {
      const outcomes: Outcome[] = [];
      let failed = false;
      for (const agent of await agentsOf(args, action)) {
        try {
          outcomes.push((action === 'install' ? install : uninstall)(getHookInstaller(agent), await homeOf(agent, args), home));
        } catch (err) {
          // One agent's odd settings file must not keep the others from their hooks.
          if (!(err instanceof UserError)) throw err;
          warn(err.where, err.message);
          failed = true;
        }
      }
      report(outcomes, args);
      return failed ? EXIT_USAGE : EXIT_OK;
    }
    if (action === 'status') {
      const agents = (args.agents ?? []).length > 0 || args.all ? await agentsOf(args, action) : Object.keys(hookInstallers);
      // The default file of each agent, and every file sp installed into with another --home.
      const seen = new Set<string>();
      const rows = [];
      for (const agent of agents) {
        const installer = getHookInstaller(agent);
        const files = [installer.file(await homeOf(agent, args))];
        if (args.home === undefined) for (const r of installedFiles(home)) if (r.agent === agent) files.push(r.file);
        for (const file of files) {
          const row = status(installer, file);
          if (seen.has(row.file)) continue;
          seen.add(row.file);
          rows.push(row);
        }
      }
      for (const row of rows) {
        if (args.json) process.stdout.write(JSON.stringify(row) + '\n');
        else process.stdout.write(`${row.agent}\t${row.installed ? 'installed' : 'not installed'}\t${row.file}\t${row.problem ?? row.mechanism}\n`);
      }
      return EXIT_OK;
    }
    throw new UserError(`unknown command ${action}`);
  },
});
