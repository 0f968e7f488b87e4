// The shared command-line layer: every sp binary is `runCli({...})` over a handler.
// yargs gives --help with examples and argument checking; it is imported lazily so that
// `--version` (and nothing else) starts as fast as plain node.
import { readFileSync, realpathSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Argv } from 'yargs';
import { inputsFrom, type Input } from '../core/ndjson.js';
import { EXIT_USAGE, UserError, setProgramName, setQuiet, warn, warn as say } from './diagnostics.js';
import { packageRoot } from '../fs/paths.js';
import { setColor } from './color.js';
import { quickParse } from './quick-args.js';

export interface CliSpec<A> {
  name: string;
  /** One line: what the binary does. */
  summary: string;
  /** The usage line after the name, e.g. `[FILE..]`. */
  usage: string;
  examples: Array<[command: string, description: string]>;
  /** Adds options and positionals. */
  options: (y: Argv) => Argv<A>;
  /** Does the work; resolves to the exit code. Standard input and output are reached through `io` only. */
  run: (args: A, io: StageIo) => Promise<number> | number;
  /** Text after the examples in --help; a function when it needs modules a plain run should not load. */
  epilogue?: string | (() => Promise<string>);
  /**
   * Loads what `options` and the help text read (every adapter, where they list adapter data), before
   * parsing: `--version` starts without it. Resolving twice loads nothing more.
   */
  prepare?: () => Promise<void>;
}

/**
 * Where a binary's event streams come from and go to: its standard input and output when it runs
 * alone, the neighbouring stages' streams inside `sp run`.
 */
export interface StageIo {
  /** Inputs for the file arguments; none or `-` is standard input. */
  inputs(paths: readonly string[] | undefined): Input[];
  stdout: Writable;
}

/** A binary run on its own: the process's standard input and output. */
export const PROCESS_IO: StageIo = { inputs: inputsFrom, stdout: process.stdout };

/**
 * True when this module is the program being run (`node sp-x.js`, or `sp x`, which sets argv[1] to
 * the binary): a binary's spec can then be imported by `sp run` without the binary running.
 */
export function isMainModule(moduleUrl: string): boolean {
  const main = process.argv[1];
  if (main === undefined) return false;
  const self = fileURLToPath(moduleUrl);
  if (main === self) return true;
  try {
    return realpathSync(main) === realpathSync(self); // an npm bin link
  } catch {
    return false;
  }
}

let cachedVersion: string | undefined;
export function packageVersion(): string {
  if (cachedVersion) return cachedVersion;
  const pkg = JSON.parse(readFileSync(new URL('package.json', packageRoot()), 'utf8')) as { version: string };
  cachedVersion = pkg.version;
  return cachedVersion;
}

export async function runCli<A>(spec: CliSpec<A>, argv: string[] = process.argv.slice(2)): Promise<never> {
  setProgramName(spec.name);
  if (argv.length === 1 && argv[0] === '--version') {
    process.stdout.write(`${packageVersion()}\n`);
    process.exit(0);
  }
  process.stdout.on('error', onStdoutError);
  let code: number;
  try {
    const args = await parseArguments(spec, argv);
    code = args === undefined ? 0 : await spec.run(args, PROCESS_IO);
  } catch (err) {
    code = reportError(err);
  }
  await drainStdout();
  // A failed write to a file on stdout is reported on the next tick: let it reach onStdoutError.
  await new Promise((resolve) => setImmediate(resolve));
  process.exit(code);
}

/**
 * stdout cannot be written (`> /dev/full`, a full disk): one line and exit 2, never a stack trace or a
 * silent exit 0. A closed pipe (`| head`) is left to the binary's own handler when it has one
 * (sp-redact --check exits 1), else it ends the run quietly.
 */
function onStdoutError(err: NodeJS.ErrnoException): void {
  if (err.code === 'EPIPE') {
    if (process.stdout.listenerCount('error') === 1) process.exit(0);
    return;
  }
  warn('stdout', `cannot write: ${err.code ?? err.message}`);
  process.exit(EXIT_USAGE);
}

/** The options every binary takes (a binary that gives one a more exact meaning declares it again). */
export const COMMON_OPTIONS: Array<[string, Record<string, unknown>]> = [
  ['color', { type: 'string', describe: 'colour: always, never or auto (the default: on a terminal, unless NO_COLOR is set); --color alone is always, --no-color never' }],
  ['quiet', { alias: 'q', type: 'boolean', default: false, describe: 'no notes on stderr (warnings and errors still)' }],
  ['json', { type: 'boolean', default: false, describe: 'machine output: one JSON object per line on stdout, even on a terminal' }],
];

/** The binary's arguments (undefined after --help): exported for test/quick-args.test.ts. */
export async function parseArguments<A>(spec: CliSpec<A>, argv: string[]): Promise<A | undefined> {
  await spec.prepare?.();
  // A plain command line needs no yargs (lib/cli/quick-args.ts): the same object, without loading it.
  const quick = quickParse<A & { color?: unknown; quiet?: unknown }>(spec.name, COMMON_OPTIONS, spec.options as (y: never) => unknown, argv);
  if (quick) {
    setColor(colorFlag(quick.color));
    setQuiet(quick.quiet === true);
    return quick;
  }
  return parseWithYargs(spec, argv);
}

/** Exported for test/quick-args.test.ts, which checks quickParse against it. */
export async function parseWithYargs<A>(spec: CliSpec<A>, argv: string[]): Promise<A | undefined> {
  await spec.prepare?.();
  const { default: yargs } = await import('yargs');
  let usageError: string | undefined;
  let helpShown = false;
  const y = yargs(argv)
    .scriptName(spec.name)
    .usage(`${spec.name} ${spec.usage}\n\n${spec.summary}`)
    .version(packageVersion())
    .help()
    .alias('h', 'help')
    .strict()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .locale('en')
    .exitProcess(false)
    .fail((msg, err) => {
      if (err) throw err;
      usageError = msg;
    });
  for (const [name, config] of COMMON_OPTIONS) y.option(name, config);
  // Examples as their own lines, each command whole: yargs would wrap a long command mid-way.
  const examples = spec.examples.map(([command, description]) => `  ${command}\n      ${description}`).join('\n');
  const epilogue = typeof spec.epilogue === 'function' ? await spec.epilogue() : spec.epilogue;
  y.epilogue(
    (examples ? `Examples:\n${examples}\n\n` : '') +
      (epilogue ? `${epilogue}\n\n` : '') +
      'Exit status: 0 ok, 1 a check failed, 2 usage error or unreadable input. Diagnostics go to stderr.',
  );
  const configured = spec.options(y);
  const args = (await configured.parseAsync()) as A & { help?: boolean; version?: boolean; color?: unknown };
  if (usageError !== undefined) {
    const options = Object.keys((configured as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key);
    // Loaded here: only a usage error needs it, and every plain run and --version skip it.
    const { rewriteUsageError } = await import('./usage-errors.js');
    throw new UserError(`${rewriteUsageError(usageError, options, `${spec.name} ${spec.usage}`, argv)} (see --help)`, undefined, EXIT_USAGE);
  }
  setColor(colorFlag(args.color));
  setQuiet((args as { quiet?: unknown }).quiet === true);
  helpShown = Boolean(args.help) || Boolean(args.version);
  return helpShown ? undefined : args;
}

/** `--color[=auto|always|never]` and `--no-color` as a choice (undefined: auto, decided by the terminal and NO_COLOR). */
function colorFlag(value: unknown): boolean | undefined {
  if (value === undefined || value === 'auto') return undefined;
  if (value === false || value === 'never' || value === 'false') return false;
  if (value === true || value === '' || value === 'always' || value === 'true') return true;
  throw new UserError(`--color is auto, always or never (not "${String(value)}")`, undefined, EXIT_USAGE);
}

/**
 * Prints an error as one diagnostic line and returns its exit code. `subject` goes before the
 * place the error names (sp run: the stage it happened in).
 */
export function reportError(err: unknown, subject?: string): number {
  const warn = (where: string | undefined, what: string) => say(subject === undefined ? where : where === undefined ? subject : `${subject}: ${where}`, what);
  if (err instanceof UserError) {
    warn(err.where, err.message);
    return err.exitCode;
  }
  const e = err as NodeJS.ErrnoException;
  if (e && e.code === 'EPIPE') return 0;
  // A failed system call on a path (unreadable, a directory, a full disk) is about the input or the
  // output, not a bug: one line naming the path, whichever module met it.
  if (e && typeof e.code === 'string' && typeof e.syscall === 'string') {
    warn(e.path ?? (e as { dest?: string }).dest, `cannot ${e.syscall}: ${e.code}`);
    return EXIT_USAGE;
  }
  // SQLite refusing a database (corrupt, not a database, locked) that a reader or writer did not name itself.
  if (e && typeof e.code === 'string' && e.code.startsWith('SQLITE_')) {
    warn('database', `${e.message} (${e.code})`);
    return EXIT_USAGE;
  }
  // JSON nested deeper than a recursive walk can follow (e.g. inside a string that held JSON).
  if (err instanceof RangeError && /call stack/.test(err.message)) {
    warn(undefined, 'the input nests JSON too deeply to process');
    return EXIT_USAGE;
  }
  warn('internal error', `${e?.message ?? String(err)}${process.env.SP_DEBUG ? '' : ' (SP_DEBUG=1 shows the stack)'}`);
  if (process.env.SP_DEBUG) process.stderr.write(`${e?.stack ?? ''}\n`);
  return EXIT_USAGE;
}

/** One JSON object as one line on stdout: what every `--json` mode writes. */
export function writeJsonLine(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

function drainStdout(): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.writableLength === 0) return resolve();
    // 'drain' only follows a write that returned false; bytes still queued after writes that were
    // under the high-water mark never get one, and waiting for it left the top-level await
    // unsettled (exit 13). An empty write's callback runs once everything before it is out.
    process.stdout.write('', () => resolve());
    process.stdout.once('error', () => resolve());
  });
}
