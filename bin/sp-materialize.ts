#!/usr/bin/env node
// sp-materialize: canonical events → a NEW native session of an agent, and how to resume it.
import { writeFileSync } from 'node:fs';
import { runCli } from '../lib/cli.js';
import { Chainer } from '../lib/chain.js';
import { EXIT_OK, UserError, warn } from '../lib/diagnostics.js';
import { canonicalSessionId, isEventLike, type SpEvent } from '../lib/event.js';
import { inputsFrom, readObjects, type Input } from '../lib/ndjson.js';
import { canonicalize } from '../lib/jcs.js';
import { adapters, getAdapter } from '../adapters/index.js';
import type { LossEntry, MaterializeOptions } from '../lib/adapter.js';

interface Args {
  agent: string;
  file?: string;
  home?: string;
  cwd?: string;
  sameId: boolean;
  dryRun: boolean;
  report?: string;
  session?: string;
  model?: string;
  artifacts?: string;
  safety: boolean;
  backup: boolean;
  branch: 'all' | 'active';
  mkcwd: boolean;
}

/** Agents that can be written (read-only adapters have no materialize). */
const writers = (): string[] => Object.keys(adapters).filter((id) => adapters[id].materialize).sort();

/** Strict input: the first line that is not a canonical event stops the run (exit 2) and is named. */
async function* readEvents(inputs: Input[]): AsyncGenerator<SpEvent> {
  for await (const { value, line, source } of readObjects(inputs, { strict: true })) {
    const where = `${source}:${line.number}`;
    if (!isEventLike(value) || typeof value.type !== 'string' || value.type === '') throw new UserError('not a canonical event: no "type"', where);
    if (typeof value.session !== 'string') throw new UserError('not a canonical event: no "session"', where);
    if (typeof value.payload !== 'object' || value.payload === null || Array.isArray(value.payload)) {
      throw new UserError('not a canonical event: "payload" is not an object', where);
    }
    yield value as SpEvent;
  }
}

/** One stderr line per kind of change: how many, and the first example. */
function summarize(losses: LossEntry[]): void {
  const byCode = new Map<string, LossEntry[]>();
  for (const entry of losses) {
    const key = `${entry.action} ${entry.code}`;
    const list = byCode.get(key) ?? [];
    list.push(entry);
    byCode.set(key, list);
  }
  for (const [key, list] of byCode) {
    const first = list[0];
    const at = first.seq !== undefined ? `seq ${first.seq}: ` : '';
    warn(key, `${list.length}× — ${at}${first.reason}${list.length > 1 ? ' …' : ''}`);
  }
}

/** The loss ledger as canonical `meta` events of the new session, chained, plus the result. */
function writeReport(path: string, losses: LossEntry[], result: Record<string, unknown> & { agent: string; session_id: string }): void {
  const session = canonicalSessionId(result.agent, result.session_id);
  const ts = Date.now() / 1000;
  const chainer = new Chainer();
  const lines: string[] = [];
  const add = (payload: Record<string, unknown>): void => {
    const event: SpEvent = { session, seq: lines.length, ts, agent: result.agent, type: 'meta', actor: 'system', payload };
    lines.push(canonicalize(chainer.chain(event)));
  };
  for (const entry of losses) add({ key: 'sp.materialize.loss', value: entry });
  add({ key: 'sp.materialize.result', value: result });
  try {
    writeFileSync(path, lines.join('\n') + '\n');
  } catch (err) {
    throw new UserError(`cannot write the report: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
  }
}

await runCli<Args>({
  name: 'sp-materialize',
  summary:
    'Writes canonical events back as a NEW native session of AGENT that the real client resumes, and prints one JSON line ' +
    '{"agent","session_id","path","cwd","resume","records",…}. Never overwrites a file. A resume-safety pass (on by default) ' +
    'stubs tool calls that have no result, drops results that have no call, makes tool ids valid for the target, writes ' +
    'reasoning the target cannot verify (a foreign signature or encrypted blob) as text, skips empty messages and fills a ' +
    'missing model; every change is summarized on stderr and listed in --report.',
  usage: '<agent> [FILE]',
  examples: [
    ['sp-capture claude --latest | sp-materialize codex', 'continue the newest Claude Code session in Codex'],
    ['sp-capture codex --latest | sp-materialize pi --mkcwd', 'a Codex session as a Pi session (Pi resumes only inside an existing cwd)'],
    ['sp-capture claude --session ID | sp-materialize claude --cwd ~/other-checkout', 'continue it from another project folder'],
    ['sp-capture claude --session ID --raw | sp-materialize claude --same-id --home /mnt/other/.claude', 'move it as is (byte-identical)'],
    ['sp-materialize pi events.ndjson --branch active', 'only the active branch of a session tree'],
    ['sp-materialize codex events.ndjson --dry-run | head -1', 'where it would go; the lines follow the first line'],
    ['sp-materialize claude events.ndjson --report losses.ndjson', 'keep the loss ledger as canonical meta events'],
    ['sp-capture claude --latest | sp-materialize hermes', 'a new session in ~/.hermes/state.db (backed up first); resume with hermes --resume ID'],
  ],
  epilogue:
    'The session written is the first session.start in the input (subagent sessions are reported, not written), or --session.\n' +
    '--dry-run prints the JSON line with "dry_run":true, then every line it would write; it writes no session file.\n' +
    "An assistant message without a model gets the previous message's, else the session's, else --model, else the target's default " +
    `(${writers().map((id) => `${id}: ${adapters[id].defaultModel ?? 'none'}`).join(', ')}).\n` +
    `The home is --home, else the agent's variable (${writers().map((id) => `${adapters[id].homeEnv} for ${id}`).join(', ')}), else its default.`,
  options: (y) =>
    y
      .positional('agent', { type: 'string', describe: `target agent (${writers().join(', ')})` })
      .positional('file', { type: 'string', describe: 'canonical events (NDJSON); none or - = stdin' })
      .option('home', { type: 'string', describe: "the target agent's home (default: its environment variable, else e.g. ~/.claude)" })
      .option('cwd', { type: 'string', describe: "project directory the session belongs to (default: the session's cwd)" })
      .option('same-id', { type: 'boolean', default: false, describe: 'keep the native session id and records (same-agent move); byte-identical from a --raw capture; refuses if the file exists' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'write nothing; print the result line and the lines it would write' })
      .option('report', { type: 'string', describe: 'write the loss ledger here (NDJSON meta events; also with --dry-run)' })
      .option('session', { type: 'string', describe: 'the session to write when the input holds several (canonical or native id)' })
      .option('model', { type: 'string', describe: `the model to continue with (added to the resume command); also the model of assistant messages when neither they nor the session name one` })
      .option('artifacts', { type: 'string', describe: 'directory of a capture --artifacts store, to inline images referenced by hash' })
      .option('branch', { choices: ['all', 'active'] as const, default: 'all' as const, describe: 'all: keep every branch of the session tree; active: only the path to the last message' })
      .option('mkcwd', { type: 'boolean', default: false, describe: 'create the project directory when it does not exist (the client resumes only from inside it)' })
      .option('safety', { type: 'boolean', default: true, describe: 'the resume-safety pass (--no-safety writes ids, thinking and unpaired tools as they are)' })
      .option('backup', { type: 'boolean', default: true, describe: 'back up a database the writer adds to (hermes: state.db) first; --no-backup skips it' })
      .command('$0 <agent> [file]', false) as never,
  run: async (args) => {
    const adapter = getAdapter(args.agent);
    if (!adapter.materialize) throw new UserError(`${adapter.displayName} sessions cannot be written (writers: ${writers().join(', ')})`);
    const losses: LossEntry[] = [];
    const preview: string[] = [];
    const options: MaterializeOptions = {
      home: args.home,
      cwd: args.cwd,
      sameId: args.sameId,
      dryRun: args.dryRun,
      session: args.session,
      model: args.model,
      artifactsDir: args.artifacts,
      safety: args.safety,
      backup: args.backup,
      branch: args.branch,
      mkcwd: args.mkcwd,
      onLoss: (entry) => losses.push(entry),
      onLine: args.dryRun ? (line) => preview.push(line) : undefined,
    };
    const result = await adapter.materialize(readEvents(inputsFrom(args.file ? [args.file] : undefined)), options);
    process.stdout.write(JSON.stringify(result) + '\n');
    for (const line of preview) process.stdout.write(line + '\n');
    summarize(losses);
    if (args.report) writeReport(args.report, losses, result);
    return EXIT_OK;
  },
});
