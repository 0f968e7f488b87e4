#!/usr/bin/env node
// sp-compile: a token-budgeted handoff of a session for another agent (lib/compile).
import { runCli } from '../lib/cli.js';
import { EXIT_OK, UserError, warn } from '../lib/diagnostics.js';
import { inputsFrom } from '../lib/ndjson.js';
import type { FormatName, TargetName } from '../lib/compile/targets.js';
import type { TokenizerName } from '../lib/compile/tokens.js';

interface Args {
  files?: string[];
  for: TargetName;
  budget?: string;
  window?: string;
  reserve?: string;
  format: FormatName;
  render: boolean;
  out?: string;
  force: boolean;
  session?: string;
  tokenizer?: TokenizerName;
  redact: boolean;
}

function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.replace(/[_,]/g, ''));
  if (!/^\s*[\d_,]+\s*$/.test(value) || !Number.isSafeInteger(n) || n <= 0) {
    throw new UserError(`must be a positive whole number of tokens (got ${JSON.stringify(value)})`, `--${name}`);
  }
  return n;
}

await runCli<Args>({
  name: 'sp-compile',
  summary:
    'Compiles a token-budgeted handoff from a session: the goal, open plan steps and todos, decisions with their reasons, ' +
    'open problems (the last failing command and its error line, tool calls without a result, an unanswered request), ' +
    'edited files, recent commands (errors first), the user\'s constraints, key excerpts and pointers, each with the ' +
    '[seq] it comes from. Must-keep items (P0) go in verbatim; P1 items by value per token up to ~60 % of the budget; ' +
    'an extractive summary (P2) fills the rest. Writes the input events followed by a chained context.compiled event ' +
    '(target, budget, tokens, items, dropped, text), or with --render only the text.',
  usage: '--for <claude|codex|pi|hermes|markdown> [options] [FILE..]',
  examples: [
    ['sp-capture claude --latest | sp-redact | sp-compile --for codex | sp-materialize codex', 'hand a Claude Code session over to Codex'],
    ['sp-compile --for claude --render session.ndjson > handoff.md', 'only the handoff text, to paste'],
    ['sp-compile --for codex --budget 8000 --render session.ndjson', 'a tighter budget'],
    ['sp-compile --for pi --window 128000 --reserve 20000 session.ndjson', 'budget = window − reserve'],
    ['sp-compile --for codex --format agents-md --out . session.ndjson', 'a handoff section in ./AGENTS.md'],
    ['sp-compile --for markdown --format files --out handoff/ session.ndjson', 'STATE.md, TASKS.md, DECISIONS.md, HANDOFF.md'],
  ],
  epilogue:
    'Tokens are counted with the target\'s tokenizer: o200k_base for codex; for claude, pi, hermes and markdown a Claude ' +
    'estimate (cl100k_base × 1.35, Anthropic publishes no local tokenizer). Default budgets: 24,000 tokens ' +
    '(markdown 16,000). If the P0 items alone exceed the budget, nothing is written and the exit status is 2.',
  options: (y) =>
    y
      .positional('files', { type: 'string', array: true, describe: 'event streams (NDJSON); none or - = stdin' })
      .option('for', { type: 'string', choices: ['claude', 'codex', 'pi', 'hermes', 'markdown'], describe: 'the agent that continues the work (default: compile.target of sp config)' })
      .option('budget', { type: 'string', describe: 'token budget of the handoff (default per target)' })
      .option('window', { type: 'string', describe: "the target's context window; budget = window − reserve" })
      .option('reserve', { type: 'string', describe: 'tokens the target keeps for its system prompt, tools and reply (with --window)' })
      .option('format', { type: 'string', choices: ['message', 'agents-md', 'files'], default: 'message', describe: 'template: a first user message with a relay header, a CLAUDE.md/AGENTS.md section, or STATE/TASKS/DECISIONS/HANDOFF.md' })
      .option('render', { type: 'boolean', default: false, describe: 'print only the rendered markdown, not the event stream' })
      .option('out', { type: 'string', describe: 'write the files (--format files) or the instructions-file section (--format agents-md) into this directory' })
      .option('force', { type: 'boolean', default: false, describe: 'with --out: overwrite files (an instructions file keeps all but its sp-compile section)' })
      .option('session', { type: 'string', describe: 'the session to compile when the stream holds several (id, prefix or native id)' })
      .option('tokenizer', { type: 'string', choices: ['o200k_base', 'cl100k_base', 'claude-estimate'], describe: "count with this tokenizer instead of the target's" })
      .option('redact', { type: 'boolean', default: true, describe: "redact secrets with sp-redact's rules and key first (--no-redact compiles them as they are)" })
      .conflicts('budget', ['window', 'reserve'])
      .command('$0 [files..]', false) as never,
  run: async (args) => {
    const { pick } = await import('../lib/config.js');
    // Defaults from sp config (env, .sp.toml, $SP_HOME/config.toml) where the flags say nothing.
    const target = pick('compile.target', args.for) as TargetName | undefined;
    if (target === undefined) throw new UserError('say which agent continues the work: --for claude, codex, pi, hermes or markdown (or sp config set compile.target …)');
    if (!['claude', 'codex', 'pi', 'hermes', 'markdown'].includes(target)) throw new UserError(`compile.target must be claude, codex, pi, hermes or markdown, not "${target}"`, 'config');
    args.for = target;
    if (args.budget === undefined && args.window === undefined) {
      const configured = pick<number>(`agents.${target}.budget`, undefined) ?? pick<number>('compile.budget', undefined);
      if (configured !== undefined) args.budget = String(configured);
    }
    const budget = positive('budget', args.budget);
    const window = positive('window', args.window);
    const reserve = positive('reserve', args.reserve);
    if (args.out !== undefined && args.format === 'message') throw new UserError('--out writes --format files or agents-md; for a message use --render > FILE', '--out');
    if (args.force && args.out === undefined) throw new UserError('--force only applies with --out', '--force');
    if (window !== undefined && reserve !== undefined && reserve >= window) {
      throw new UserError(`the reserve (${reserve}) leaves nothing of the window (${window})`, '--reserve');
    }
    const { compile } = await import('../lib/compile/compile.js');
    // The handoff text is pasted into another agent: secrets out unless --no-redact (the same pass as sp-redact).
    const onUnverified = (where: string, session: string) => warn(where, `session ${session}: the input's checksum does not verify here, and redaction re-chains it from here on: run sp-verify on the input`);
    const inputs = args.redact ? await (await import('../lib/redact/ensure.js')).redactedInputs(inputsFrom(args.files), { onUnverified }) : inputsFrom(args.files);
    const { releaseTokenizers } = await import('../lib/compile/tokens.js');
    try {
      await compile({
        inputs,
        target: args.for,
        format: args.format,
        budget,
        window,
        reserve,
        tokenizer: args.tokenizer,
        session: args.session,
        renderOnly: args.render,
        outDir: args.out,
        force: args.force,
      });
    } finally {
      releaseTokenizers();
    }
    return EXIT_OK;
  },
});
