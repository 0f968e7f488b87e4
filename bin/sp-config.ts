#!/usr/bin/env node
// sp-config: sp's defaults from $SP_HOME/config.toml and a project's .sp.toml — get, set, unset, list (with where each value comes from).
import { runCli } from '../lib/cli/cli.js';
import { EXIT_CHECK_FAILED, EXIT_OK, UserError } from '../lib/cli/diagnostics.js';
import { describeKey, envName, knownKeys, projectConfigPath, resolveConfig, setConfigValue, userConfigPath } from '../lib/cli/config.js';
import { didYouMean } from '../lib/cli/suggest.js';
import { agentIds } from '../adapters/registry.js';

interface Args {
  action: string;
  key?: string;
  value?: string;
  origin: boolean;
  project: boolean;
  json: boolean;
  quiet: boolean;
}

const ACTIONS = ['get', 'set', 'unset', 'list', 'keys', 'path'];
// The names alone: the registry lists them without loading an adapter.
const agents = () => [...agentIds].sort();

await runCli<Args>({
  name: 'sp-config',
  summary:
    "Shows and sets sp's defaults. They come from, strongest first: the command's flags, the environment (SP_<KEY>: " +
    'SP_COMPILE_BUDGET for compile.budget), the project file .sp.toml (found from the working directory upward, up to the ' +
    'git root), the user file $SP_HOME/config.toml, then built-in defaults. Unknown keys in a file are warned about and ignored.',
  usage: '<get KEY | set KEY VALUE | unset KEY | list | keys | path> [options]',
  examples: [
    ['sp config set agents.codex.budget 8000', 'handoffs compiled for Codex get 8000 tokens unless --budget says otherwise'],
    ['sp config set compile.target codex --project', 'in this project, sp-compile compiles for Codex without --for'],
    ['sp config get redact.profile', 'the value alone (exit 1 when no value is set)'],
    ['sp config list --origin', 'every key with a value, and which file or variable it came from'],
  ],
  epilogue: `Keys: ${knownKeys().join(', ')}, and agents.<agent>.home / agents.<agent>.budget for each agent (${agents().join(', ')}).`,
  options: (y) =>
    y
      .positional('action', { type: 'string', describe: `what to do (${ACTIONS.join(', ')})` })
      .positional('key', { type: 'string', describe: 'a dotted key: compile.budget, agents.codex.budget …' })
      .positional('value', { type: 'string', describe: 'with set: the value' })
      .option('origin', { type: 'boolean', default: false, describe: 'with list: where each value comes from' })
      .option('project', { type: 'boolean', default: false, describe: "with set, unset: the project's .sp.toml (in the working directory when there is none) instead of the user file" })
      .option('json', { type: 'boolean', default: false, describe: 'print JSON' })
      .option('quiet', { type: 'boolean', default: false, describe: 'print nothing; the exit status tells (get)' })
      .command('$0 <action> [key] [value]', false) as never,
  run: async (args) => {
    if (!ACTIONS.includes(args.action)) throw new UserError(`unknown action "${args.action}"${didYouMean(args.action, ACTIONS)}; actions: ${ACTIONS.join(', ')}`);
    const needsKey = args.action === 'get' || args.action === 'set' || args.action === 'unset';
    if (needsKey && args.key === undefined) throw new UserError(`say which key: sp config ${args.action} KEY${args.action === 'set' ? ' VALUE' : ''}`);
    if (!needsKey && args.key !== undefined) throw new UserError(`${args.action} takes no key`);
    if (args.action === 'set' && args.value === undefined) throw new UserError(`say the value: sp config set ${args.key} VALUE`);
    if (args.action !== 'set' && args.value !== undefined) throw new UserError(`unexpected argument "${args.value}"`);
    const out = (text: string) => {
      if (!args.quiet) process.stdout.write(text + '\n');
    };
    const target = () => (args.project ? (projectConfigPath() ?? `${process.cwd()}/.sp.toml`) : userConfigPath());

    switch (args.action) {
      case 'path':
        out(args.json ? JSON.stringify({ user: userConfigPath(), project: projectConfigPath() ?? null }) : `user     ${userConfigPath()}\nproject  ${projectConfigPath() ?? '(none)'}`);
        return EXIT_OK;
      case 'keys':
        for (const key of knownKeys(agents())) out(args.json ? JSON.stringify({ key, env: envName(key), describe: describeKey(key) }) : `${key.padEnd(24)}  ${describeKey(key)}`);
        return EXIT_OK;
      case 'set':
      case 'unset': {
        const path = target();
        const value = setConfigValue(path, args.key!, args.action === 'set' ? args.value : undefined, agents(), args.project);
        if (args.json) out(JSON.stringify({ key: args.key, value: value ?? null, file: path }));
        return EXIT_OK;
      }
      case 'get': {
        if (!knownKeys(agents()).includes(args.key!) && !/^agents\.[a-z0-9-]+\.(home|budget)$/.test(args.key!)) {
          throw new UserError(`unknown key ${args.key}${didYouMean(args.key!, knownKeys(agents()))}; sp config keys lists them`);
        }
        const found = resolveConfig({ agents: agents() }).get(args.key!);
        if (!found) return EXIT_CHECK_FAILED;
        out(args.json ? JSON.stringify({ key: args.key, ...found }) : String(found.value));
        return EXIT_OK;
      }
      default: {
        const all = [...resolveConfig({ agents: agents() })].sort(([a], [b]) => (a < b ? -1 : 1));
        if (args.json) for (const [key, r] of all) out(JSON.stringify(args.origin ? { key, ...r } : { key, value: r.value }));
        else {
          const width = Math.max(0, ...all.map(([k, r]) => `${k} = ${JSON.stringify(r.value)}`.length));
          for (const [key, r] of all) out(args.origin ? `${`${key} = ${JSON.stringify(r.value)}`.padEnd(width)}  # ${r.origin}` : `${key} = ${JSON.stringify(r.value)}`);
        }
        return EXIT_OK;
      }
    }
  },
});
