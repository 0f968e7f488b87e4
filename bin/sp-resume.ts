#!/usr/bin/env node
// sp-resume: a stored session → a new native session of an agent on this machine, its paths moved
// to this machine's checkout, and the command that resumes it (printed, or run with --exec).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { runCli } from '../lib/cli/cli.js';
import { EXIT_OK, EXIT_USAGE, UserError, note, warn } from '../lib/cli/diagnostics.js';
import type * as Registry from '../adapters/index.js';
import type { ResumeInvocation } from '../lib/write/writer.js';
// Every adapter, loaded by the spec's prepare after --version: --in lists the writers.
let adapters: typeof Registry.adapters;
let getAdapter: typeof Registry.getAdapter;

interface Args {
  session: string;
  in: string;
  mapCwd?: string[];
  home?: string;
  store?: string;
  exec: boolean;
  pull: boolean;
  redact: boolean;
  dryRun: boolean;
  json: boolean;
  model?: string;
  mkcwd: boolean;
  experimental: boolean;
}

const writers = (): string[] => Object.keys(adapters).filter((id) => adapters[id].materialize).sort();

/** Runs the client as the resume command says: argv and environment as data, never a shell line. */
function execute(invocation: ResumeInvocation): Promise<number> {
  return new Promise((done) => {
    const child = spawn(invocation.argv[0], invocation.argv.slice(1), { cwd: invocation.cwd, env: { ...process.env, ...invocation.env }, stdio: 'inherit' });
    child.on('error', (err: NodeJS.ErrnoException) => {
      warn(invocation.argv[0], `cannot run the client: ${err.code ?? err.message}`);
      done(EXIT_USAGE);
    });
    // A client killed by a signal exits as a shell reports it: 128 + the signal's number.
    child.on('exit', (code, signal) => done(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
}

await runCli<Args>({
  name: 'sp-resume',
  prepare: async () => {
    ({ adapters, getAdapter } = await import('../adapters/index.js'));
  },
  summary:
    'Resumes a stored session in an agent on this machine: finds it in the store by canonical id, native id, URI or a ' +
    'unique prefix (pulling from the remotes first when it is not here), redacts it, moves every path under the project ' +
    'root it was recorded in to this machine\'s checkout (--map-cwd OLD=NEW; by default the checkout at or under the ' +
    'current folder whose origin URL is the one the session recorded), writes it as a new native session of --in and ' +
    'prints the command that resumes it (with the home variable when --home is not the default), or runs it with --exec.',
  usage: '<session> --in <agent>',
  examples: [
    ['sp resume 01a22ad9 --in codex', 'the stored session whose id starts so, into ~/.codex; prints `cd … && codex resume …`'],
    ['sp resume session://acme/acme-api/fix-login/claude-… --in claude --exec', 'by URI, and start Claude Code on it'],
    ['sp resume 01a22ad9 --in pi --map-cwd /home/alice/acme-api=$HOME/src/acme-api', 'the old project root → this checkout'],
    ['sp resume 01a22ad9 --in codex --home /tmp/codex-try', 'a scratch home: prints CODEX_HOME=/tmp/codex-try codex resume …'],
  ],
  epilogue:
    'Each event whose paths were moved gets a "path-mapped" row in the ledger (stderr: counts per event type). Paths are ' +
    'matched as whole components: /home/alice/acme-api2 is not under /home/alice/acme-api. Without --map-cwd and without ' +
    'a matching checkout, the session\'s folder must exist here as it is; otherwise exit 2 asks for --map-cwd.\n' +
    'A handoff (event and signed receipt) is recorded in the store, as sp-materialize does.',
  options: (y) =>
    y
      .positional('session', { type: 'string', describe: 'canonical id, native id, session:// URI or a unique prefix of an id' })
      .option('in', { type: 'string', demandOption: true, describe: `the agent that continues (${writers().join(', ')})` })
      .option('map-cwd', { type: 'string', array: true, describe: 'OLD=NEW: paths under OLD become paths under NEW (repeatable; default: the same repository, found by its origin URL)' })
      .option('home', { type: 'string', describe: "the agent's home (default: its environment variable, else e.g. ~/.codex)" })
      .option('store', { type: 'string', describe: 'the store (default $SP_HOME/store)' })
      .option('exec', { type: 'boolean', default: false, describe: 'run the resume command (argv and environment, no shell) instead of printing it' })
      .option('pull', { type: 'boolean', default: true, describe: 'pull from the remotes when the session is not in the store (--no-pull: never)' })
      .option('redact', { type: 'boolean', default: true, describe: "redact with this machine's rules first (--no-redact writes the events as stored; the result says \"redacted\": false)" })
      .option('dry-run', { type: 'boolean', default: false, describe: 'write nothing; print where it would go and the command' })
      .option('json', { type: 'boolean', default: false, describe: 'print the result line (JSON) instead of the command' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no notes on stderr (paths mapped, ledger, where it was written); warnings still' })
      .option('model', { type: 'string', describe: 'the model to continue with' })
      .option('mkcwd', { type: 'boolean', default: false, describe: 'create the (mapped) project folder when it does not exist' })
      .option('experimental', { type: 'boolean', default: false, describe: 'allow a writer no real client has checked' })
      .command('$0 <session>', false) as never,
  run: async (args) => {
    const adapter = getAdapter(args.in);
    if (!adapter.materialize) throw new UserError(`${adapter.displayName} sessions cannot be written (writers: ${writers().join(', ')})`, '--in');
    if (args.exec && (args.dryRun || args.json)) throw new UserError('--exec runs the client: not with --dry-run or --json', '--exec');
    const { parseMapping } = await import('../lib/relay/map-paths.js');
    const mappings = (args.mapCwd ?? []).map(parseMapping); // checked before anything is read
    const { Store, resolveStoreDir, recordHandoffIfStored } = await import('../lib/store/index.js');
    const { listRemotes } = await import('../lib/sync/remote.js');
    const resume = await import('../lib/ops/resume.js');
    const dir = resolveStoreDir(args.store);

    let store = Store.open(dir, { readonly: true });
    let events;
    let summary;
    try {
      let matches = resume.matchStoredSessions(store, args.session);
      if (matches.length === 0 && args.pull && listRemotes(store).length > 0) {
        store.close();
        store = Store.open(dir);
        const pulled = await resume.pullAll(store, (name) => warn(args.session, `not in the store here; pulling from ${name}`));
        note(args.session, `pulled ${pulled} event${pulled === 1 ? '' : 's'}`);
        matches = resume.matchStoredSessions(store, args.session);
      }
      summary = resume.pickStoredSession(matches, args.session, dir);
      events = await resume.storedEvents(store, summary.id);
    } finally {
      store.close();
    }
    const chosen = mappings.length > 0 ? mappings : resume.defaultMappings(events, process.cwd());
    for (const m of chosen) note('paths', `${m.from} → ${m.to}`);

    const outcome = await resume.resumeInto(adapter, events, { mappings: chosen, redact: args.redact, home: args.home, dryRun: args.dryRun, model: args.model, mkcwd: args.mkcwd, experimental: args.experimental, backup: true });
    const main = outcome.results[0];
    try {
      main.ledger = outcome.ledger.totals();
    } finally {
      outcome.ledger.remove();
    }
    main.source_session = summary.id;
    main.path_mapped = outcome.mapped;
    if (!args.redact) main.redacted = false;
    const { totalsLine } = await import('../lib/relay/ledger.js');
    note('ledger', totalsLine(main.ledger as never));
    if (chosen.length > 0) note('path-mapped', resume.mappedLine(outcome.mapped));
    if (outcome.secrets > 0) note('redacted', `${outcome.secrets} secret${outcome.secrets === 1 ? '' : 's'} replaced`);
    if (!args.dryRun) {
      note('written', String(main.path));
      try {
        const handoff = await recordHandoffIfStored({ store: args.store ?? dir, sourceSession: summary.id, toAgent: adapter.id, targetSessionId: main.session_id, note: `sp resume --in ${adapter.id}` });
        if (handoff) note('handoff', `recorded in the store: ${handoff.receiptPath}`);
      } catch (err) {
        // The session is written; a store that cannot take the record does not undo that.
        if (!(err instanceof UserError)) throw err;
        warn('handoff', `not recorded: ${err.message}`);
      }
    }
    if (args.exec) return execute(main.resume_exec as ResumeInvocation);
    process.stdout.write(args.json ? JSON.stringify(main) + '\n' : `${main.resume}\n`);
    return EXIT_OK;
  },
});
