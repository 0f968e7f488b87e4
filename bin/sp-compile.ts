#!/usr/bin/env node
// sp-compile: a token-budgeted handoff of a session for another agent (lib/compile).
import { existsSync } from 'node:fs';
import { isMainModule, runCli, type CliSpec, type StageIo } from '../lib/cli/cli.js';
import { EXIT_OK, UserError, warn } from '../lib/cli/diagnostics.js';
import { compileTargets, type FormatName, type TargetName } from '../lib/compile/targets.js';
import type { TokenizerName } from '../lib/compile/tokens.js';
import { tokenizers } from '../lib/compile/tokenizers.js';
import type { Input } from '../lib/core/ndjson.js';

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
  workspace?: string | false;
  'rerun-tests': boolean;
  summarizer?: string;
  'summarizer-model'?: string;
  'summarizer-endpoint'?: string;
  'summarizer-timeout'?: string;
  expand?: string;
  store?: string;
  'extract-decisions': boolean;

  json: boolean;
}

function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.replace(/[_,]/g, ''));
  if (!/^\s*[\d_,]+\s*$/.test(value) || !Number.isSafeInteger(n) || n <= 0) {
    throw new UserError(`must be a positive whole number of tokens (got ${JSON.stringify(value)})`, `--${name}`);
  }
  return n;
}

async function summarizerFrom(args: Args) {
  const { summarizerConfig, SummarizerError } = await import('../lib/compile/model-summary.js');
  const timeout = args['summarizer-timeout'];
  const seconds = timeout === undefined ? undefined : Number(timeout);
  if (seconds !== undefined && (!Number.isFinite(seconds) || seconds <= 0)) throw new UserError(`must be a positive number of seconds (got ${JSON.stringify(timeout)})`, '--summarizer-timeout');
  try {
    return summarizerConfig(args.summarizer!, { endpoint: args['summarizer-endpoint'], model: args['summarizer-model'], timeoutMs: seconds === undefined ? undefined : seconds * 1000 });
  } catch (err) {
    if (err instanceof SummarizerError) throw new UserError(err.message, '--summarizer');
    throw err;
  }
}

/** `--expand ITEM`: the events an item of the last handoff stands for, from the input or the store. */
async function expandItem(args: Args, io: StageIo): Promise<number> {
  const { expand } = await import('../lib/compile/expand.js');
  const { NdjsonWriter } = await import('../lib/core/ndjson.js');
  let source: import('../lib/compile/expand.js').LineSource;
  let session = args.session;
  if (args.store !== undefined) {
    if (!session) throw new UserError('say which stored session: --session ID', '--session');
    const { Store } = await import('../lib/store/index.js');
    const { resolveStoreDir } = await import('../lib/store/paths.js');
    const store = Store.open(resolveStoreDir(args.store || undefined), { readonly: true });
    const id = store.resolveSession(session);
    session = id;
    source = async function* () {
      for (const line of store.rawLines(id)) yield { text: line.text, where: `${id}:seq ${line.seq}` };
    };
  } else {
    const { splitLines } = await import('../lib/core/lines.js');
    // Two passes over the input (find the handoff, then the events): what can be read only once is kept in memory.
    // What is shown is redacted like every other exit (--no-redact: as it is in the input).
    const inputs = args.redact ? await (await import('../lib/redact/ensure.js')).redactedInputs(io.inputs(args.files)) : io.inputs(args.files);
    const { readsOnce } = await import('../lib/compile/read.js');
    const cached = inputs.some(readsOnce) ? await readAll(inputs) : undefined;
    source = async function* () {
      if (cached) {
        for (const [n, text] of cached.entries()) yield { text, where: `stdin:${n + 1}` };
        return;
      }
      for (const input of inputs) for await (const line of splitLines(input.open())) yield { text: line.text, where: `${input.name}:${line.number}` };
    };
  }
  const writer = new NdjsonWriter(io.stdout);
  const run = expand(source, args.expand!, session);
  for (let next = await run.next(); !next.done; next = await run.next()) await writer.writeLine(next.value);
  await writer.end();
  return EXIT_OK;
}

async function readAll(inputs: Input[]): Promise<string[]> {
  const { splitLines } = await import('../lib/core/lines.js');
  const lines: string[] = [];
  for (const input of inputs) for await (const line of splitLines(input.open())) lines.push(line.text);
  return lines;
}

async function publicRedaction(): Promise<{ redact: (text: string) => string; label: string }> {
  const { Redactor } = await import('../lib/redact/ensure.js');
  const { loadConfig } = await import('../lib/redact/config.js');
  const { loadRedactKey } = await import('../lib/redact/keys.js');
  const redactor = new Redactor(loadConfig([], 'public'), await loadRedactKey(), 'public');
  return { redact: (text) => redactor.redactText(text), label: 'public' };
}

// Every registered agent with a compile profile, then markdown (lib/compile/targets.ts): asked once
// spec.prepare has loaded the adapters.
const targets = (): string[] => Object.keys(compileTargets());

export const spec: CliSpec<Args> = {
  name: 'sp-compile',
  summary:
    'Compiles a token-budgeted handoff from a session: the goal, open plan steps and todos, decisions with their reasons, ' +
    'open problems (the last failing command and its error line, tool calls without a result, an unanswered request), ' +
    'edited files, recent commands (errors first), the user\'s constraints, key excerpts and pointers, each with the ' +
    '[seq] it comes from. Must-keep items (P0) go in verbatim; P1 items by value per token up to ~60 % of the budget; ' +
    'an extractive summary (P2) fills the rest. Writes the input events followed by a chained context.compiled event ' +
    '(target, budget, tokens, items, dropped, text), or with --render only the text.',
  usage: '--for <agent|markdown> [options] [FILE..]',
  examples: [
    ['sp-capture claude --latest | sp-redact | sp-compile --for codex | sp-materialize codex', 'hand a Claude Code session over to Codex'],
    ['sp-compile --for claude --render session.ndjson > handoff.md', 'only the handoff text, to paste'],
    ['sp-compile --for codex --budget 8000 --render session.ndjson', 'a tighter budget'],
    ['sp-compile --for pi --window 128000 --reserve 20000 session.ndjson', 'budget = window − reserve'],
    ['sp-compile --for codex --format agents-md --out . session.ndjson', 'a handoff section in ./AGENTS.md'],
    ['sp-compile --for markdown --format files --out handoff/ session.ndjson', 'STATE.md, TASKS.md, DECISIONS.md, HANDOFF.md'],
    ['sp-compile --for codex --format a2a --render session.ndjson > task.json', 'the handoff as an A2A Task (JSON)'],
    ['sp-compile --for claude --extract-decisions session.ndjson | sp-sync ingest', 'keep the decisions found in the text as events in the store'],
    ['sp-compile --expand digest:commands handoff.ndjson', 'the original events behind an item the handoff cut or summarized'],
  ],
  // Loaded for lib/adapter/registry.ts after --version: compile profiles and agent labels are the adapters'.
  prepare: async () => {
    await import('../adapters/index.js');
  },
  epilogue: async () =>
    `Targets: ${targets().join(', ')}. Tokens are counted with the target's tokenizer (o200k_base for codex; for claude ` +
    'and markdown a Claude estimate, cl100k_base × 1.35, as Anthropic publishes no local tokenizer; each agent\'s own ' +
    'profile says). Default budgets: 24,000 tokens (markdown 16,000). If the P0 items alone exceed the budget, nothing ' +
    'is written and the exit status is 2.',
  options: (y) =>
    y
      .positional('files', { type: 'string', array: true, describe: 'event streams (NDJSON); none or - = stdin' })
      .option('for', { type: 'string', choices: targets(), describe: 'the agent that continues the work (default: compile.target of sp config; not needed with --expand)' })
      .option('budget', { type: 'string', describe: 'token budget of the handoff (default per target)' })
      .option('window', { type: 'string', describe: "the target's context window; budget = window − reserve" })
      .option('reserve', { type: 'string', describe: 'tokens the target keeps for its system prompt, tools and reply (with --window)' })
      .option('format', { type: 'string', choices: ['message', 'agents-md', 'files', 'a2a'], default: 'message', describe: 'template: a first user message with a relay header, a CLAUDE.md/AGENTS.md section, STATE/TASKS/DECISIONS/HANDOFF.md, or an A2A (protocol 0.3.0) Task whose artifact is the handoff' })
      .option('render', { type: 'boolean', default: false, describe: 'print only the rendered markdown, not the event stream' })
      .option('out', { type: 'string', describe: 'write the files (--format files) or the instructions-file section (--format agents-md) into this directory' })
      .option('force', { type: 'boolean', default: false, describe: 'with --out: overwrite files (an instructions file keeps all but its sp-compile section)' })
      .option('session', { type: 'string', describe: 'the session to compile when the stream holds several (id, prefix or native id)' })
      .option('tokenizer', { type: 'string', choices: tokenizers().map((t) => t.name), describe: "count with this tokenizer instead of the target's" })
      .option('redact', { type: 'boolean', default: true, describe: "redact secrets with sp-redact's rules and key first (--no-redact compiles them as they are)" })
      .option('workspace', { type: 'string', describe: "add this folder's git state and test result as observed now (default: the session's cwd when it exists here; --no-workspace: none)" })
      .option('rerun-tests', { type: 'boolean', default: false, describe: "re-run the session's last test command (a recognised test runner only) in the workspace, at most 2 minutes" })
      .option('summarizer', { type: 'string', describe: 'a model writes the P2 summary: openai, anthropic, ollama, or command:<cmd> (prompt on stdin, answer on stdout); the extractive summary stays the fallback' })
      .option('summarizer-model', { type: 'string', describe: 'the model (else SP_SUMMARIZER_MODEL)' })
      .option('summarizer-endpoint', { type: 'string', describe: "the API's base URL (else SP_SUMMARIZER_ENDPOINT, else the provider's); the key comes from SP_SUMMARIZER_KEY or OPENAI_API_KEY / ANTHROPIC_API_KEY" })
      .option('summarizer-timeout', { type: 'string', describe: 'seconds to wait for the answer (default 60)' })
      .option('expand', { type: 'string', describe: "print the original events behind one item of a handoff: an item id (goal:12, digest:commands …), a cut group's kind@first-seq, or a seq range a-b; reads sp-compile's output, or the store with --store" })
      .option('extract-decisions', { type: 'boolean', default: false, describe: 'append a derived decision event (derived_from: where it was found) for each decision only message text states, before context.compiled, so the store keeps them as events' })
      .option('store', { type: 'string', describe: 'with --expand: read the session (--session) from this store (default $SP_HOME/store)' })
      .option('json', { type: 'boolean', default: false, describe: 'the event stream as NDJSON (the default output; not with --render, which prints the text)' })
      .conflicts('budget', ['window', 'reserve'])
      .command('$0 [files..]', false) as never,
  run: async (args, io) => {
    if (args.expand !== undefined) return expandItem(args, io);
    if (args.store !== undefined) throw new UserError('--store only applies with --expand', '--store');
    if (args['extract-decisions'] && args.render) throw new UserError('--extract-decisions adds events to the output stream; --render prints only the text', '--extract-decisions');
    if (args.json && args.render) throw new UserError('--json and --render cannot be combined: --render prints the text, --json the event stream');
    const { pick } = await import('../lib/cli/config.js');
    // Defaults from sp config (env, .sp.toml, $SP_HOME/config.toml) where the flags say nothing.
    const target = pick('compile.target', args.for) as TargetName | undefined;
    if (target === undefined) throw new UserError('say which agent continues the work: --for AGENT or --for markdown (or sp config set compile.target …)');
    if (!targets().includes(target)) throw new UserError(`compile.target must be one of ${targets().join(', ')}; not "${target}"`, 'config');
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
    // The handoff text is pasted into another agent: secrets out unless --no-redact (the same pass as sp-redact).
    const onUnverified = (where: string, session: string) => warn(where, `session ${session}: the input's checksum does not verify here, and redaction re-chains it from here on: run sp-verify on the input`);
    // `--no-workspace` arrives as false; a bare `--workspace` (no folder) means the default.
    const workspace = args.workspace === false ? false : typeof args.workspace === 'string' && args.workspace !== '' ? args.workspace : undefined;
    if (typeof workspace === 'string' && !existsSync(workspace)) throw new UserError('no such folder', '--workspace');
    // Only a local summarizer uses it here (compileInputs redacts the input with its own).
    const redactor = args.redact && args.summarizer !== undefined ? await (await import('../lib/redact/ensure.js')).Redactor.load() : undefined;
    const summarizer = args.summarizer === undefined ? undefined : await summarizerFrom(args);
    // What leaves for a model: redacted with the public profile (paths, hosts, emails too) unless the
    // model is on this machine; --no-redact sends it as it is, and the event records that.
    const summarizerRedaction = summarizer
      ? !args.redact
        ? { redact: (text: string) => text, label: 'none (--no-redact)' }
        : (await import('../lib/compile/model-summary.js')).isLocal(summarizer)
          ? { redact: (text: string) => redactor!.redactText(text), label: 'default' }
          : await publicRedaction()
      : undefined;
    // One compile per process: V8's young generation can stay small (lib/compile/tokens.ts).
    (await import('../lib/compile/tokens.js')).keepYoungGenerationSmall();
    const { compileInputs } = await import('../lib/ops/stages.js');
    await compileInputs(io.inputs(args.files), {
        out: io.stdout,
        redact: args.redact,
        onUnverified,
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
        workspace,
        rerunTests: args['rerun-tests'],
        summarizer,
        summarizerRedaction,
        extractDecisions: args['extract-decisions'],
      });
    return EXIT_OK;
  },
};

if (isMainModule(import.meta.url)) await runCli(spec);
