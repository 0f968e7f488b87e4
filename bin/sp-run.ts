#!/usr/bin/env node
// sp-run: a pipeline of sp binaries in one process. Each stage is the binary itself (its own option
// definitions, checks and run function, imported, not re-implemented); where the shell would
// connect two processes by a pipe, an in-process channel connects the stages (lib/core/channel.ts).
import { isMainModule, parseArguments, reportError, runCli, type CliSpec, type StageIo } from '../lib/cli/cli.js';
import { EXIT_OK, UserError } from '../lib/cli/diagnostics.js';
import { Channel } from '../lib/core/channel.js';
import { inputsFrom } from '../lib/core/ndjson.js';

interface Args {
  _: Array<string | number>;
}

/** The binaries a stage can be, loaded only when named. */
const STAGES: Record<string, () => Promise<{ spec: CliSpec<unknown> }>> = {
  capture: () => import('./sp-capture.js') as Promise<{ spec: CliSpec<unknown> }>,
  redact: () => import('./sp-redact.js') as Promise<{ spec: CliSpec<unknown> }>,
  verify: () => import('./sp-verify.js') as Promise<{ spec: CliSpec<unknown> }>,
  compile: () => import('./sp-compile.js') as Promise<{ spec: CliSpec<unknown> }>,
  materialize: () => import('./sp-materialize.js') as Promise<{ spec: CliSpec<unknown> }>,
};

const SEPARATOR = ':';

/** The words between the `:` separators: one list per stage, its name first. */
export function splitStages(words: readonly string[]): string[][] {
  const stages: string[][] = [[]];
  for (const word of words) {
    if (word === SEPARATOR) stages.push([]);
    else stages[stages.length - 1].push(word);
  }
  return stages;
}

interface Stage {
  name: string;
  spec: CliSpec<unknown>;
  args: unknown;
}

/**
 * Every stage's name and arguments checked before any stage starts, each by its binary's own
 * definition: an error is that binary's message, after the stage's name. Undefined when a stage
 * printed its --help instead.
 */
async function prepare(words: readonly string[]): Promise<Stage[] | undefined> {
  const stages: Stage[] = [];
  let helped = false;
  for (const [index, [name, ...argv]] of splitStages(words).entries()) {
    if (name === undefined) throw new UserError(`stage ${index + 1} is empty: write STAGE [ARGS…] between the ':' separators (see --help)`);
    if (!Object.hasOwn(STAGES, name)) {
      const { didYouMean } = await import('../lib/cli/suggest.js');
      throw new UserError(`unknown stage "${name}"${didYouMean(name, Object.keys(STAGES))}; stages: ${Object.keys(STAGES).join(', ')}`);
    }
    const { spec } = await STAGES[name]();
    let args: unknown;
    try {
      args = await parseArguments(spec, argv);
    } catch (err) {
      if (err instanceof UserError) throw new UserError(err.message, err.where === undefined ? name : `${name}: ${err.where}`, err.exitCode);
      throw err;
    }
    if (args === undefined) helped = true;
    stages.push({ name, spec, args });
  }
  return helped ? undefined : stages;
}

/**
 * The stages run together, each reading what the one before wrote, as `a | b | c` would: a file
 * argument is read instead of the previous stage's output (`-` is that output); only the first stage
 * reads standard input, only the last writes standard output. A stage that stops (done or failed)
 * ends its output there; what the stages before it still write is discarded. The exit status is
 * that of the last stage that failed, as a shell's with pipefail; 0 if none did.
 */
async function runStages(stages: Stage[]): Promise<number> {
  const channels = stages.slice(0, -1).map(() => new Channel());
  const codes = await Promise.all(
    stages.map(async ({ name, spec, args }, i) => {
      const from = i > 0 ? channels[i - 1] : undefined;
      const io: StageIo = {
        inputs: (paths) => {
          if (!from) return inputsFrom(paths);
          const list = paths && paths.length > 0 ? paths : ['-'];
          return list.map((path) => (path === '-' ? from.input() : inputsFrom([path])[0]));
        },
        stdout: i < channels.length ? channels[i] : process.stdout,
      };
      let code: number;
      try {
        code = await spec.run(args, io);
      } catch (err) {
        code = reportError(err, name);
      }
      if (i < channels.length) channels[i].close();
      from?.discard();
      return code;
    }),
  );
  return codes.reduce((last, code) => (code !== 0 ? code : last), EXIT_OK);
}

export const spec: CliSpec<Args> = {
  name: 'sp-run',
  summary:
    'Runs a pipeline of sp binaries in one process: the stages are separated by ":" words, and each takes the ' +
    'options of its binary with the same meaning (capture, redact, verify, compile, materialize). The bytes that come out ' +
    'are those of the same stages joined by shell pipes; one process starts instead of one per stage.',
  usage: 'STAGE [ARGS…] [: STAGE [ARGS…]]…',
  examples: [
    ['sp run capture claude --latest : redact : verify', 'capture, redact and verify the newest Claude Code session'],
    ['sp run capture claude --latest : redact : materialize codex', 'continue it in Codex'],
    ['sp run capture codex --session 019a : compile --for claude --render > handoff.md', 'a handoff to paste'],
    ['sp run redact session.ndjson : compile --for pi : materialize pi --mkcwd', 'a file as the first stage\'s input'],
    ['sp run compile --help', "a stage's options (its binary's --help)"],
  ],
  epilogue:
    'As in a shell pipe: only the first stage reads standard input and only the last writes standard output; a stage ' +
    'given FILE arguments reads them instead of the stage before (- stands for that stage\'s output). Arguments are checked ' +
    'for every stage before any starts; an error names the stage ("sp-run: compile: --budget: …"). A stage that fails ends ' +
    'its output where it was; the stages after it read up to there. Exit status: that of the last stage that failed (as ' +
    'with `set -o pipefail`), 0 if none did; 2 for an unknown stage or bad arguments.',
  options: (y) =>
    y
      // Everything from the first stage name on belongs to the stages: their options are theirs to check.
      .parserConfiguration({ 'halt-at-non-option': true })
      .command('$0 [stages..]', false) as never,
  run: async (args) => {
    const words = args._.map(String);
    if (words.length === 0) throw new UserError(`say which stages: sp run STAGE [ARGS…] : STAGE [ARGS…] … (stages: ${Object.keys(STAGES).join(', ')}; see --help)`);
    const stages = await prepare(words);
    return stages === undefined ? EXIT_OK : runStages(stages);
  },
};

if (isMainModule(import.meta.url)) await runCli(spec);
