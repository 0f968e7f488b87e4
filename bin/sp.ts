#!/usr/bin/env node
// sp: one command for all of them — `sp <name> …` runs `sp-<name> …` (or the flow flows/<name>.ts, or examples/<name>.mjs).
// A binary runs in this same process (no second node start-up): process.argv is set to what the
// binary would have seen and its module is imported; so is a compiled flow. A script in examples/
// (npm run demo's) is spawned with the terminal passed through, and its exit status becomes ours.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findCommands, isCompiledFlow, type CommandInfo } from '../lib/cli/completion.js';
import { EXIT_USAGE, setProgramName, warn } from '../lib/cli/diagnostics.js';
import { packageRoot } from '../lib/fs/paths.js';
import { packageVersion } from '../lib/cli/cli.js';

setProgramName('sp');
const binDir = fileURLToPath(new URL('./', import.meta.url));
// Flows: compiled from flows/*.ts (dist/flows), then the scripts in examples/ (demo.mjs).
const flowDir = [join(binDir, '..', 'flows'), join(fileURLToPath(packageRoot()), 'examples')];
// The flags every binary takes may come before the command too (`sp --no-color show …`): they are
// passed on after it. Alone, `sp --json` lists the commands as JSON lines.
const SHARED_FLAG = /^(?:-q|--quiet|--json|--no-color|--color(?:=(?:auto|always|never))?)$/;
const argv = process.argv.slice(2);
const firstOther = argv.findIndex((a) => !SHARED_FLAG.test(a));
const leading = argv.slice(0, firstOther < 0 ? argv.length : firstOther);
const [name, ...afterName] = argv.slice(leading.length);
const rest = [...afterName, ...leading];
const json = leading.includes('--json') || (name !== undefined && /^(?:--help|-h|help)$/.test(name) && afterName.length === 1 && afterName[0] === '--json');

function help(commands: CommandInfo[]): string {
  const width = Math.max(...commands.map((c) => c.name.length), 10);
  const row = (c: CommandInfo) => `  ${c.name.padEnd(width)}  ${c.summary}`;
  return [
    'sp <command> [arguments…]   runs sp-<command> (or the flow <command>) with the arguments',
    '',
    'Binaries (each a Unix filter over canonical NDJSON events; sp <command> --help for its options):',
    ...commands.filter((c) => c.kind === 'binary').map(row),
    '',
    'Flows (flows/*.ts, and examples/demo.mjs; sp <flow> --help for each, --demo runs one on the bundled fixtures):',
    ...commands.filter((c) => c.kind === 'flow').map(row),
    '',
    'More:',
    `  ${'completion'.padEnd(width)}  sp completion bash|zsh|fish prints a shell completion script`,
    `  ${'--version'.padEnd(width)}  the version`,
    `  ${'--json'.padEnd(width)}  these commands as JSON lines (name, kind, summary)`,
    '',
    'Every binary takes -q/--quiet (no notes on stderr), --json (JSON lines on stdout) and --color/--no-color;',
    'given before the command they are passed on to it.',
    '',
    'Examples:',
    '  sp capture claude --latest | sp redact | sp materialize codex',
    '  sp capture codex --list',
    '  sp relay --demo',
    '  source <(sp completion bash)',
    '',
    'Exit status: that of the command run; 2 for an unknown command.',
  ].join('\n');
}

async function completion(shell: string | undefined): Promise<number> {
  if (shell !== 'bash' && shell !== 'zsh' && shell !== 'fish') {
    warn('completion', `say which shell: sp completion bash, zsh or fish${shell ? ` (not "${shell}")` : ''}`);
    return EXIT_USAGE;
  }
  // Generated at build time (scripts/finish-build.mjs): printing it starts nothing.
  const built = join(binDir, '..', 'completion', `sp.${shell}`);
  if (existsSync(built)) {
    process.stdout.write(readFileSync(built));
    return 0;
  }
  const { describeCommands, bashCompletion, zshCompletion, fishCompletion } = await import('../lib/cli/completion.js');
  // The agent names come from the registry, so a new adapter completes without touching this.
  const { agentIds } = await import('../adapters/registry.js');
  const specs = await describeCommands(findCommands(binDir, flowDir).filter((c) => c.name !== 'sp'));
  const agents = [...agentIds].sort();
  process.stdout.write((shell === 'bash' ? bashCompletion : shell === 'zsh' ? zshCompletion : fishCompletion)(specs, agents));
  return 0;
}

async function main(): Promise<number | undefined> {
  if (name === '--version' || name === '-V') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  // Before anything else: a completion script is read at every new shell.
  if (name === 'completion') return completion(rest[0]);
  const commands = findCommands(binDir, flowDir).filter((c) => c.name !== 'sp');
  if (json && (name === undefined || name === '--help' || name === '-h' || name === 'help')) {
    for (const c of commands) process.stdout.write(JSON.stringify({ name: c.name, kind: c.kind, summary: c.summary }) + '\n');
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest[0]) return main2(rest[0], ['--help'], commands);
    process.stdout.write(help(commands) + '\n');
    return name === undefined ? EXIT_USAGE : 0;
  }
  return main2(name, rest, commands);
}

async function main2(command: string, args: string[], commands: CommandInfo[]): Promise<number | undefined> {
  const found = commands.find((c) => c.name === command || `sp-${c.name}` === command);
  if (!found) {
    const { didYouMean } = await import('../lib/cli/suggest.js');
    warn(undefined, `unknown command "${command}"${didYouMean(command, [...commands.map((c) => c.name), 'completion'])}; commands: ${commands.map((c) => c.name).join(', ')}, completion (sp --help)`);
    return EXIT_USAGE;
  }
  if (found.kind === 'binary' || isCompiledFlow(found)) {
    // The binary (or a compiled flow: runCli too) reads process.argv.slice(2) and exits by itself.
    process.argv = [process.argv[0], found.file, ...args];
    await import(pathToFileURL(found.file).href);
    return undefined;
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [found.file, ...args], { stdio: 'inherit' });
    child.on('error', (err) => {
      warn(found.file, `cannot start: ${err.message}`);
      resolve(EXIT_USAGE);
    });
    // Killed by a signal: the shell's convention, 128 + its number.
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1)));
    // Ctrl-C reaches the child from the terminal by itself: the umbrella only waits. A TERM or HUP
    // sent to the umbrella alone is passed on.
    process.on('SIGINT', () => {});
    for (const sig of ['SIGTERM', 'SIGHUP'] as const) process.on(sig, () => child.kill(sig));
  });
}

const code = await main();
if (code !== undefined) process.exitCode = code;
