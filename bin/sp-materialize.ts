#!/usr/bin/env node
// sp-materialize: canonical events → a NEW native session of an agent, and how to resume it.
import { isMainModule, runCli, type CliSpec } from '../lib/cli/cli.js';
import { EXIT_OK, UserError, warn } from '../lib/cli/diagnostics.js';
import type * as Registry from '../adapters/index.js';
import { totalsLine, type LossSummary } from '../lib/relay/ledger.js';
import type { RelayOptions, RelayResult } from '../lib/relay/relay.js';
// Every adapter, loaded by spec.prepare after --version: the help lists their models and homes.
let adapters: typeof Registry.adapters;
let getAdapter: typeof Registry.getAdapter;

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
  branch?: 'all' | 'active';
  branches: 'active' | 'all';
  thinking: 'keep-text' | 'drop';
  header: boolean;
  mkcwd: boolean;
  experimental: boolean;
  store?: string;
  handoff?: boolean;
  expect?: string;
  redact: boolean;
  atifVersion?: string;
  quiet: boolean;
  json: boolean;
}

/** Agents that can be written (read-only adapters have no materialize). */
const writers = (): string[] => Object.keys(adapters).filter((id) => adapters[id].materialize).sort();

/** The input's chain did not verify where redaction had to re-chain it (sp-redact warns the same). */
function unverifiedWarning(where: string, session: string): void {
  warn(where, `session ${session}: the input's checksum does not verify here, and redaction re-chains it from here on: run sp-verify on the input`);
}

/** One stderr line per kind of change: how many, and the first example. */
function summarize(summary: LossSummary): void {
  for (const [key, count, first] of summary.codes()) {
    const at = first.seq !== undefined ? `seq ${first.seq}: ` : '';
    warn(key, `${count}× — ${at}${first.reason}${count > 1 ? ' …' : ''}`);
  }
}

export const spec: CliSpec<Args> = {
  name: 'sp-materialize',
  prepare: async () => {
    ({ adapters, getAdapter } = await import('../adapters/index.js'));
  },
  summary:
    'Writes canonical events as a NEW native session of AGENT that the real client resumes, and prints one JSON line per ' +
    'session written {"agent","session_id","path","cwd","resume","records",…}. Never overwrites a file. Two relay modes, ' +
    'chosen by the input: history mode (a plain event stream) carries the whole conversation, tool calls translated into ' +
    "the target's own tools where it has a counterpart, rendered as text otherwise, after a relay header; context mode (the " +
    'stream ends with the context.compiled event of sp-compile) starts a new session with the compiled handoff as its ' +
    'first user message, followed by the newest whole turns verbatim as far as the compiled budget leaves room. A ' +
    'resume-safety pass (on by default) stubs tool calls without a result, drops results without a call, makes tool ids ' +
    'valid and fills a missing model. Every source event gets a line in the loss ledger (--report); stderr gets its totals.',
  usage: '<agent> [FILE]',
  examples: [
    ['sp-capture claude --latest | sp-materialize codex', 'continue the newest Claude Code session in Codex (history mode)'],
    ['sp-capture claude --latest | sp-compile --for codex | sp-materialize codex', 'context mode: the handoff plus the newest turns'],
    ['sp-capture codex --latest | sp-materialize pi --mkcwd', 'a Codex session as a Pi session (Pi resumes only inside an existing cwd)'],
    ['sp-capture pi --session ID | sp-materialize claude --branches all', 'a Pi tree as one Claude session per branch'],
    ['sp-capture claude --session ID | sp-materialize claude --cwd ~/other-checkout', 'continue it from another project folder'],
    ['sp-capture claude --session ID --raw | sp-materialize claude --same-id --home /mnt/other/.claude', 'move it as is (byte-identical)'],
    ['sp-materialize codex events.ndjson --dry-run | head -1', 'where it would go; the lines follow the first line'],
    ['sp-materialize codex events.ndjson --report ledger.ndjson', 'keep the loss ledger (one row per source event)'],
    [`jq -r 'select(.payload.key=="sp.materialize.ledger").payload.value.action' ledger.ndjson | sort | uniq -c`, 'ledger totals by action'],
    ['sp-capture claude --latest | sp-materialize hermes', 'a new session in ~/.hermes/state.db (backed up first); resume with hermes --resume ID'],
    ['sp-capture atif --path trajectory.json | sp-materialize codex', 'continue a Harbor (ATIF) trajectory in Codex'],
    ['sp-capture claude --latest | sp-materialize atif --atif-version 1.4', 'the session as an ATIF v1.4 trajectory (~/.atif/trajectories)'],
    ['sp-capture claude --latest | sp-materialize cursor --experimental', 'a new Cursor CLI chat (unverified: no Cursor client checked it)'],
  ],
  epilogue: async () =>
    'The session written is the first session.start in the input (subagent sessions are reported, not written), or --session; ' +
    'in context mode the session the handoff was compiled from.\n' +
    `Branches: a tree target (${Object.keys(adapters).filter((id) => adapters[id].capabilities.tree).join(', ')}) gets the whole tree, active branch last; a linear target the ` +
    'active branch (the path to the last message), and with --branches all each other branch as its own session (the same ' +
    'prefix up to the branch point), one JSON line each with "branch":{"leaf_seq","fork_seq","of"}. --branch all|active ' +
    "instead hands the choice to the writer (Claude Code keeps a tree in one transcript).\n" +
    'Thinking stays native only between agents of the same provider (with its signature or encrypted content); otherwise ' +
    '--thinking keep-text writes it as marked text, --thinking drop leaves it out; either way the ledger says so.\n' +
    'The report (--report FILE) is NDJSON of canonical meta events, chained (sp-verify checks it): one ' +
    '"sp.materialize.ledger" row per source event {session,seq,type,action,code,reason,from,to} with action carried, ' +
    'translated (from → to), rendered (as text), transformed, stubbed or dropped (code summarized: covered by the ' +
    'handoff; other-branch; other-session …); "sp.materialize.loss" for changes that name no event; then one ' +
    '"sp.materialize.result" per session, the active one last with "ledger" totals.\n' +
    '--dry-run prints each JSON line followed by the lines it would write; it writes no session file.\n' +
    "An assistant message without a model gets the previous message's, else the session's, else --model, else the target's default " +
    `(${writers().map((id) => `${id}: ${adapters[id].defaultModel ?? 'none'}`).join(', ')}).\n` +
    `The home is --home, else the agent's variable (${writers().map((id) => `${adapters[id].homeEnv} for ${id}`).join(', ')}), else its default.`,
  options: (y) =>
    y
      .positional('agent', { type: 'string', describe: `target agent (${writers().join(', ')})` })
      .positional('file', { type: 'string', describe: 'canonical events (NDJSON); none or - = stdin' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no ledger totals or change summary on stderr (warnings and errors still)' })
      .option('json', { type: 'boolean', default: false, describe: 'only JSON lines on stdout: with --dry-run each line it would write comes as {"preview": SESSION, "line": TEXT}' })
      .option('home', { type: 'string', describe: "the target agent's home (default: its environment variable, else e.g. ~/.claude)" })
      .option('cwd', { type: 'string', describe: "project directory the session belongs to (default: the session's cwd)" })
      .option('same-id', { type: 'boolean', default: false, describe: 'keep the native session id and records (same-agent move); byte-identical from a --raw capture; refuses if the file exists' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'write nothing; print the result line and the lines it would write' })
      .option('report', { type: 'string', describe: 'write the loss ledger here: one row per source event (NDJSON meta events, chained; also with --dry-run)' })
      .option('session', { type: 'string', describe: 'the session to write when the input holds several (canonical or native id)' })
      .option('model', { type: 'string', describe: `the model to continue with (added to the resume command); also the model of assistant messages when neither they nor the session name one` })
      .option('artifacts', { type: 'string', describe: 'directory of a capture --artifacts store, to inline images referenced by hash' })
      .option('branches', { choices: ['active', 'all'] as const, default: 'active' as const, describe: 'linear targets: active writes the active branch; all also writes each other branch as its own session' })
      .option('branch', { choices: ['all', 'active'] as const, describe: "the writer's own choice: all keeps every branch in one file (tree targets do by default); active only the path to the last message" })
      .option('thinking', { choices: ['keep-text', 'drop'] as const, default: 'keep-text' as const, describe: 'reasoning the target cannot take natively (another provider): as marked text, or dropped' })
      .option('header', { type: 'boolean', default: true, describe: 'history mode: a relay header as the first user message (--no-header leaves it out)' })
      .option('mkcwd', { type: 'boolean', default: false, describe: 'create the project directory when it does not exist (the client resumes only from inside it)' })
      .option('experimental', { type: 'boolean', default: false, describe: `allow a writer no real client has checked (${Object.keys(adapters).filter((id) => adapters[id].capabilities.experimental).join(', ')}); its result line says "unverified"` })
      .option('safety', { type: 'boolean', default: true, describe: 'the resume-safety pass (--no-safety writes ids, thinking and unpaired tools as they are)' })
      .option('backup', { type: 'boolean', default: true, describe: 'back up a database or index the writer adds to (hermes: state.db, continue: sessions/sessions.json) first; --no-backup skips it' })
      .option('atif-version', { type: 'string', describe: 'atif: the ATIF version to write (1.0 … 1.7; default the latest)' })
      .option('handoff', { type: 'boolean', default: false, describe: 'record a handoff in the store (event, signed receipt, new owner); without it the write is a copy and the store is left as it is' })
      .option('expect', { type: 'string', describe: 'with --handoff: what the receiving side is expected to do (kept in the receipt; acknowledged with sp-sync ack)' })
      .option('store', { type: 'string', describe: 'with --handoff: record it in this sp store; default: $SP_HOME/store when it holds the session' })
      .option('redact', { type: 'boolean', default: true, describe: "redact secrets with sp-redact's rules and key before writing (--no-redact writes them as they are; the result line says \"redacted\": false)" })
      .command('$0 <agent> [file]', false) as never,
  run: async (args, io) => {
    const adapter = await (await import('../lib/adapter/external.js')).adapterOrExternal(args.agent, getAdapter); // else sp-adapter-<agent> on PATH
    if (!adapter.materialize) throw new UserError(`${adapter.displayName} sessions cannot be written (writers: ${writers().join(', ')})`);
    if (args.expect !== undefined && !args.handoff) throw new UserError('--expect goes with --handoff (a copy records nothing to expect)', '--expect');
    if (args.branches === 'all' && args.branch !== undefined) throw new UserError('--branches all writes one session per branch; --branch hands the tree to the writer: give one of them', '--branches');
    const preview: string[][] = [];
    const options: RelayOptions = {
      home: args.home ?? (await import('../lib/cli/config.js')).configuredHome(adapter.id, adapter.homeEnv),
      cwd: args.cwd,
      sameId: args.sameId,
      dryRun: args.dryRun,
      session: args.session,
      model: args.model,
      artifactsDir: args.artifacts,
      safety: args.safety,
      backup: args.backup,
      branch: args.branch,
      branches: args.branches,
      thinking: args.thinking,
      header: args.header,
      mkcwd: args.mkcwd,
      experimental: args.experimental,
      formatVersion: args.atifVersion,
      // Each session's preview lines follow its own result line: a new list per write.
      onSession: () => preview.push([]),
      onLine: args.dryRun ? (line) => preview[preview.length - 1].push(line) : undefined,
    };
    const { relayInputs, writeLedgerReport } = await import('../lib/ops/stages.js'); // loaded here: --help and --version do without it
    // Secrets never reach another agent's home unless --no-redact (then each result line says "redacted": false).
    const inputs = io.inputs(args.file ? [args.file] : undefined);
    const outcome = await relayInputs(adapter, inputs, { ...options, redact: args.redact, onUnverified: unverifiedWarning });
    try {
      const totals = outcome.ledger.totals();
      outcome.results[0].ledger = totals;
      // The result line says whether the write hands the session over or is a copy of it.
      (outcome.results[0] as RelayResult & { handoff?: boolean }).handoff = args.handoff === true && !args.dryRun;
      if (outcome.results.length > 1) outcome.results[0].sessions = outcome.results.map((r) => r.session_id);
      outcome.results.forEach((result, i) => {
        io.stdout.write(JSON.stringify(result) + '\n');
        // --json: a preview line (a native line, JSON or not: Aider's is Markdown) rides in an object of its own.
        for (const line of preview[i] ?? []) io.stdout.write(args.json ? JSON.stringify({ preview: result.session_id, line }) + '\n' : line + '\n');
      });
      if (!args.quiet) warn('ledger', `${totalsLine(totals)}${outcome.results.length > 1 ? ` (${outcome.results.length} sessions: the active branch and ${outcome.results.length - 1} other)` : ''}`);
      if (!args.quiet) summarize(outcome.summary);
      if (args.report) writeLedgerReport(args.report, outcome.ledger, outcome.results);
    } finally {
      outcome.ledger.remove();
    }
    if (!args.dryRun && args.handoff) {
      const { recordHandoffIfStored } = await import('../lib/store/index.js');
      const handoff = await recordHandoffIfStored({ store: args.store, sourceSession: outcome.session, toAgent: adapter.id, targetSessionId: outcome.results[0].session_id, note: `sp-materialize ${adapter.id} (${outcome.mode} mode)`, expect: args.expect });
      if (handoff && !args.quiet) warn('handoff', `recorded in the store: ${handoff.receiptPath}`);
    } else if (!args.dryRun && !args.quiet) warn('handoff', 'none: this is a copy; the store and the session\'s owner are unchanged (--handoff records one)');
    return EXIT_OK;
  },
};

if (isMainModule(import.meta.url)) await runCli(spec);
