#!/usr/bin/env node
// sp-capture: an agent's own session store (read-only) → canonical, hash-chained NDJSON events.
import { isMainModule, runCli, type CliSpec, type StageIo } from '../lib/cli/cli.js';
import { Chainer } from '../lib/core/chain.js';
import { EXIT_OK, EXIT_USAGE, UserError, warn } from '../lib/cli/diagnostics.js';
import { NdjsonWriter } from '../lib/core/ndjson.js';
import { emptyCursor, readCursorFile, writeCursorFile, type CursorFile } from '../lib/capture/read-position.js';
import type { Adapter, Cursor, SessionRef } from '../lib/adapter/interface.js';
import { agentIds, isAgentId, loadAdapter, unknownAgent } from '../adapters/registry.js';
import { createProgress, formatCount, type Progress } from '../lib/cli/progress.js';
import { resolveSessions } from '../lib/ops/resolve.js';

interface Args {
  agent?: string;
  allAgents: boolean;
  list: boolean;
  session?: string;
  path?: string;
  latest: boolean;
  all: boolean;
  cwd?: string;
  home?: string;
  raw: boolean;
  artifacts?: string;
  cursor?: string;
  follow: boolean;
  quiet: boolean;
  redact: boolean;
  json: boolean;
}

const SELECTORS = ['list', 'session', 'path', 'latest', 'all'] as const;

function selectorsOf(args: Args): string[] {
  return SELECTORS.filter((name) => (name === 'list' || name === 'latest' || name === 'all' ? args[name] : args[name] !== undefined));
}

function checkArgs(args: Args): void {
  const chosen = selectorsOf(args);
  if (chosen.length === 0) throw new UserError('say which sessions: --list, --session ID, --path FILE, --latest or --all (see --help)');
  if (chosen.length > 1) throw new UserError(`choose one of --${chosen.join(', --')} (see --help)`);
  if (args.cwd !== undefined && !(args.list || args.latest || args.all)) throw new UserError('--cwd works with --list, --latest and --all');
  if (!args.redact && !args.list) throw new UserError('--no-redact applies to --list (the event stream is never redacted by sp-capture: pipe it to sp-redact)');
  if (args.list) {
    for (const flag of ['cursor', 'follow', 'raw', 'artifacts'] as const) {
      if (args[flag] !== undefined && args[flag] !== false) throw new UserError(`--${flag} has no effect with --list`);
    }
  }
}

/** The session refs the arguments name (lib/ops: the same resolver as sp-mcp, sp serve and the library). */
const select = async (adapter: Adapter, args: Args, home: string): Promise<SessionRef[]> =>
  // The selectors look in one agent: the resolver needs only its adapter (built-in or external).
  (await resolveSessions(args, { registry: { [adapter.id]: adapter }, agent: adapter.id, home, onDiagnostic: warn })).map((found) => found.ref);

/** Captures sessions into one chained stream; keeps each session's cursor between runs and steps. */
class Capturer {
  private readonly chainer = new Chainer();
  private readonly writer: NdjsonWriter;
  private readonly seeded = new Set<string>();

  constructor(
    private readonly adapter: Adapter,
    private readonly args: Args,
    /** Cursors by native id; undefined for a one-shot capture. */
    private readonly cursors: Record<string, Cursor> | undefined,
    out: StageIo['stdout'],
  ) {
    this.writer = new NdjsonWriter(out);
  }

  /** Events written so far (all sessions), for the progress line. */
  written = 0;

  async capture(ref: SessionRef, progress?: Progress): Promise<number> {
    let cursor: Cursor | undefined;
    if (this.cursors) {
      cursor = this.cursors[ref.native_id] ?? emptyCursor(this.adapter.id, ref.native_id);
      if (!this.seeded.has(ref.native_id)) {
        // Continue each session's chain where the last run left it.
        for (const [session, position] of Object.entries(cursor.sessions)) {
          if (position.checksum !== undefined) this.chainer.seed(session, position.checksum);
        }
        this.seeded.add(ref.native_id);
      }
    }
    let next: Cursor | undefined;
    let count = 0;
    const events = this.adapter.capture(ref, {
      raw: this.args.raw,
      artifactsDir: this.args.artifacts,
      cursor,
      onCursor: (c) => (next = c),
      onDiagnostic: warn,
    });
    for await (const event of events) {
      // The chainer serializes the event once, into its canonical line.
      await this.writer.writeLine(this.chainer.chainLine(event));
      count += 1;
      this.written += 1;
      if (progress && (this.written & 1023) === 0) progress.note(`${formatCount(this.written)} events`);
    }
    if (this.cursors && next) {
      for (const [session, position] of Object.entries(next.sessions)) {
        const tail = this.chainer.tail(session);
        if (tail !== undefined) position.checksum = tail;
      }
      this.cursors[ref.native_id] = next;
    }
    return count;
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }
}

/** --all-agents --list: every registered agent's sessions (lib/ops/list-all.ts), each from its own home. */
async function listAllAgents(args: Args): Promise<number> {
  if (args.agent !== undefined) throw new UserError(`--all-agents lists every agent: drop "${args.agent}" (or drop --all-agents)`);
  if (!args.list) throw new UserError('--all-agents works with --list only (capture one agent at a time: sp-capture <agent> …)');
  for (const flag of ['session', 'path', 'latest', 'all', 'home', 'cursor', 'follow', 'raw', 'artifacts'] as const) {
    if (args[flag] !== undefined && args[flag] !== false) throw new UserError(`--${flag} has no effect with --all-agents (set an agent's home with its variable or \`sp-config\`)`);
  }
  const { configuredHome } = await import('../lib/cli/config.js');
  const { listAllSessions, printListedSessions } = await import('../lib/ops/list-all.js');
  const redactor = args.redact ? await (await import('../lib/redact/ensure.js')).Redactor.load() : undefined;
  const { adapters } = await import('../adapters/index.js');
  const result = await listAllSessions({
    registry: adapters,
    cwd: args.cwd,
    homeOf: (a) => configuredHome(a.id, a.homeEnv) ?? a.defaultHome(),
    redactText: redactor ? (text) => redactor.redactText(text) : undefined,
    onDiagnostic: warn,
  });
  const { wantsTable } = await import('../lib/term/terminal.js');
  await printListedSessions(result.sessions, wantsTable({ json: args.json }) ? 'table' : args.json ? 'json' : 'lines');
  // Nothing on this machine is not an error; homes that exist and all failed is.
  return result.read.length === 0 && result.failed.length > 0 ? EXIT_USAGE : EXIT_OK;
}

export const spec: CliSpec<Args> = {
  name: 'sp-capture',
  summary:
    "Reads an agent's own session store (never writing to it) and prints canonical events as NDJSON, one per line, " +
    'hash-chained per session: a session.start, then every native record as a typed event (messages, thinking, tool ' +
    'calls and results; derived file.edit / command.run / todo.* events that point at their call) or as a meta event ' +
    `that keeps the raw record. Agents: ${[...agentIds].sort().join(', ')}.`,
  usage: '<agent> (--list | --session ID | --path FILE | --latest | --all) [options] | --all-agents --list',
  examples: [
    ['sp-capture claude --list', "every Claude Code session, newest first: id, path, cwd, first prompt, title, counts"],
    ['sp-capture claude --list --cwd ~/src/acme-api', "one project's sessions"],
    ['sp-capture --all-agents --list', 'every session of every agent on this machine, newest first: when, agent, id, project, title'],
    ['sp-capture claude --latest --cwd . | sp-verify', "capture this project's newest session and verify the chain"],
    ['sp-capture claude --session e05d2652 > s.ndjson', 'one session by id (a unique prefix is enough)'],
    ['sp-capture claude --path ./e05d2652-6a94-447f-8b60-cded66e4199a.jsonl --raw', 'a transcript file anywhere; keep each native line verbatim'],
    ['sp-capture claude --latest --artifacts ./artifacts', 'images stored as content-addressed files, referenced by sha256'],
    ['sp-capture claude --all --cursor ~/.sp/claude.cursor | sp-sync ingest', 'only what was appended since the last run'],
    ["sp-capture claude --latest --follow | jq -c 'select(.type==\"message.assistant\")'", 'keep running; new events as they are written'],
    ['sp-capture claude --latest | sp-redact | sp-compile --for codex | sp-materialize codex', 'hand a session over to another agent'],
    ["sp-capture hermes --path ~/.hermes/state.db#20261130_051619_bb4de5", 'one session of a database: <db>#<session id> (a bare db path: its newest session)'],
    ['sp-capture hermes --session 20261130_051656_853b11+', "a Hermes session's whole lineage (compression continuations, subagent and branch sessions), parents first"],
  ],
  // Only --help reads it: the homes' variables are the adapters', loaded then.
  epilogue: async () =>
    `The home is --home, else the agent's variable (${Object.values((await import('../adapters/index.js')).adapters)
      .map((a) => `${a.homeEnv} for ${a.id}`)
      .join(', ')}), else its default (~/.claude, ~/.codex …).\n\n` +
    'A bad native line is reported as "sp-capture: FILE:LINE: what: excerpt" and carried as a meta event; capture goes on.\n\n' +
    '--cursor FILE keeps, per session, the byte offset and SHA-256 of the last line read, the next seq and the chain tail: ' +
    'the next run continues the chain, and a file truncated or rewritten since is reported (exit 2). A last line without ' +
    'its newline waits for the next run. --follow does the same on every change, within about 100 ms.\n\n' +
    '--list counts messages as user prompts plus assistant API messages, and tool calls as tool_use blocks.\n\n' +
    '--all-agents --list asks every agent\'s home (its variable, the config file, else its default): an agent whose home is ' +
    'missing is skipped, one that cannot be read is reported on one line and the others still list. It prints a table on a ' +
    'terminal, tab-separated lines (last activity, agent, id, project, title) otherwise, NDJSON rows with --json; exit 2 only ' +
    'when homes exist and none could be read.',
  options: (y) =>
    y
      .positional('agent', { type: 'string', describe: `the agent whose sessions to read (${[...agentIds].sort().join(', ')})` })
      .option('all-agents', { type: 'boolean', default: false, describe: 'with --list: the sessions of every agent found on this machine, newest first' })
      .option('list', { type: 'boolean', default: false, describe: 'print one JSON line per session instead of capturing' })
      .option('session', { type: 'string', describe: 'capture the session with this native id (or a unique prefix), or its canonical sess_… id' })
      .option('path', { type: 'string', describe: 'capture the session in this native file, wherever it lies' })
      .option('latest', { type: 'boolean', default: false, describe: 'capture the newest session (by modification time)' })
      .option('all', { type: 'boolean', default: false, describe: 'capture every session, oldest first' })
      .option('cwd', { type: 'string', describe: "with --list, --latest, --all: only this project directory's sessions" })
      .option('home', { type: 'string', describe: "the agent's home (overrides its environment variable)" })
      .option('raw', { type: 'boolean', default: false, describe: 'carry each native line verbatim in origin.raw (byte-exact round trips)' })
      .option('artifacts', { type: 'string', describe: 'store images in this folder, content-addressed, and reference them by sha256' })
      .option('cursor', { type: 'string', describe: 'incremental: emit only what was appended since this cursor file, then update it' })
      .option('follow', { type: 'boolean', default: false, describe: 'keep running and emit new events as they are written (Ctrl-C stops)' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no progress line on stderr (it is drawn only on a terminal anyway)' })
      .option('json', { type: 'boolean', default: false, describe: 'NDJSON even on a terminal (--list prints a table there; a capture prints only a note)' })
      .option('redact', { type: 'boolean', default: true, describe: "--list shows titles and first prompts redacted with sp-redact's rules and key (--no-redact: as they are); the event stream is never redacted" })
      .command('$0 [agent]', false) as never,
  run: async (args, io) => {
    if (args.allAgents) return listAllAgents(args);
    if (args.agent === undefined) throw new UserError('missing argument: usage: sp-capture <agent> (--list | --session ID | --path FILE | --latest | --all) [options] | --all-agents --list');
    const agent = args.agent;
    const adapter = isAgentId(agent)
      ? await loadAdapter(agent)
      : await (await import('../lib/adapter/external.js')).adapterOrExternal(agent, (id) => { throw unknownAgent(id); }); // sp-adapter-<agent> on PATH
    checkArgs(args);
    const home = args.home ?? (await import('../lib/cli/config.js')).configuredHome(adapter.id, adapter.homeEnv) ?? adapter.defaultHome();

    const { wantsTable } = await import('../lib/term/terminal.js');
    const table = wantsTable({ json: args.json, out: io.stdout });
    if (args.list) {
      const writer = new NdjsonWriter(io.stdout);
      // Titles and first prompts are what a user pasted: a secret in them would land on the terminal.
      const redactor = args.redact ? await (await import('../lib/redact/ensure.js')).Redactor.load() : undefined;
      const refs: SessionRef[] = [];
      for await (const ref of adapter.discover({ home, cwd: args.cwd, details: true, onDiagnostic: warn })) {
        if (redactor) {
          if (ref.title !== undefined) ref.title = redactor.redactText(ref.title);
          if (ref.first_prompt !== undefined) ref.first_prompt = redactor.redactText(ref.first_prompt);
        }
        if (table) refs.push(ref);
        else await writer.write(ref);
      }
      if (table) (await import('../lib/term/views.js')).printSessionRefs(refs);
      else await writer.end();
      return EXIT_OK;
    }
    if (table) {
      // Thousands of JSON lines on a screen help nobody: say what this is for and what to use instead.
      const selector = args.session !== undefined ? `--session ${args.session}` : args.path !== undefined ? `--path ${args.path}` : '--latest';
      warn(undefined, `stdout is a terminal: sp-capture prints NDJSON events for other tools; \`sp show ${adapter.id} ${selector}\` shows the session readably, --json prints the events here anyway`);
      return EXIT_USAGE;
    }

    const cursorFile: CursorFile | undefined = args.cursor !== undefined ? readCursorFile(args.cursor, adapter.id) : undefined;
    const cursors = cursorFile?.cursors ?? (args.follow ? {} : undefined);
    const capturer = new Capturer(adapter, args, cursors, io.stdout);
    const save = () => {
      if (cursorFile && args.cursor !== undefined) writeCursorFile(args.cursor, cursorFile);
    };

    let refs = await select(adapter, args, home);
    if (!args.follow) {
      let failed = false;
      const progress = createProgress({ unit: refs.length === 1 ? 'session' : 'sessions', total: refs.length, quiet: args.quiet });
      try {
        for (const ref of refs) {
          try {
            await capturer.capture(ref, progress);
          } catch (err) {
            // One unreadable or rewritten session must not keep --all from the others.
            if (!(err instanceof UserError) || refs.length === 1) throw err;
            progress.clear();
            warn(err.where, err.message);
            failed = true;
          }
          progress.tick(1, `${formatCount(capturer.written)} events`);
        }
      } finally {
        progress.done();
      }
      await capturer.flush();
      save();
      return failed ? EXIT_USAGE : EXIT_OK;
    }

    // --follow: capture, then again after every change, until SIGINT/SIGTERM. What to watch is
    // asked again after each capture (a session may have gained side files: Claude's subagents).
    const { follow, stopOnSignals } = await import('../lib/capture/follow.js');
    const signal = stopOnSignals();
    const watchedBy = async (list: SessionRef[]) => (await Promise.all(list.map(async (ref) => (adapter.watchPaths ? adapter.watchPaths(ref) : [ref.path])))).flat();
    let watched = await watchedBy(refs);
    let lastDiscovery = Date.now();
    await follow({
      signal,
      targets: () => watched,
      step: async () => {
        if (args.all && Date.now() - lastDiscovery >= 1000) {
          // New sessions join an --all follow at the next rescan.
          lastDiscovery = Date.now();
          const known = new Set(refs.map((r) => r.path));
          for (const ref of await select(adapter, args, home)) if (!known.has(ref.path)) refs = [...refs, ref];
        }
        let wrote = 0;
        for (const ref of refs) wrote += await capturer.capture(ref);
        await capturer.flush();
        if (wrote > 0) save();
        watched = await watchedBy(refs);
      },
    });
    await capturer.flush();
    save();
    return EXIT_OK;
  },
};

if (isMainModule(import.meta.url)) await runCli(spec);
