#!/usr/bin/env node
// sp-sync: the local append-only store (ingest, ls, log, search, fork, rm), identity (keygen) and
// sync with remotes (remote add, push, pull, clone, status) and the signers it trusts (trust).
import { runCli } from '../lib/cli/cli.js';
import { UserError } from '../lib/cli/diagnostics.js';
import type { Argv } from 'yargs';
import * as cmd from '../lib/sync/commands.js';

interface Args extends cmd.CommonArgs {
  _: Array<string | number>;
  files?: string[];
  session?: string;
  since?: number;
  text?: string;
  limit: number;
  all: boolean;
  at?: number;
  reason?: string;
  name?: string;
  url?: string;
  dir: boolean;
  action?: string;
  artifacts?: string;
  key?: string;
  trustAll?: boolean;
  redact: boolean;
  allowUnredacted: boolean;
  encryptTo?: string;
  encrypt?: boolean;
  age?: boolean;
  remote?: string;
  project?: string;
  agent?: string;
  machine?: string;
  until?: string;
  local?: boolean;
  compiled?: boolean;
  remotes?: boolean;
  receipt?: string;
  note?: string;
}


// `ingest` is a pipeline stage that runs often (a flow ingests every session): its few options are
// parsed with util.parseArgs, skipping yargs' import; anything else (or --help) goes through yargs.
const argv = process.argv.slice(2);
if (argv[0] === 'ingest' && !argv.some((a) => a === '--help' || a === '-h')) {
  const fast = await cmd.parseIngestArgs(argv.slice(1));
  if (fast) {
    const { runFast } = await import('../lib/sync/fast.js');
    await runFast('sp-sync', () => cmd.ingestCommand(fast));
  }
}

/** The remote named on the command line, else sp config's sync.remote (env, .sp.toml, config.toml), else none (origin). */
async function defaultRemote(named: string | undefined): Promise<string | undefined> {
  return (await import('../lib/cli/config.js')).pick<string>('sync.remote', named);
}

await runCli<Args>({
  name: 'sp-sync',
  summary:
    'Keeps canonical sessions in an append-only, hash-chained, signed store ($SP_HOME/store, SP_HOME defaults to ~/.sp) ' +
    'and syncs it with remotes (git repositories or plain directories) event by event.',
  usage: '<command> [options]',
  examples: [
    ['sp-capture claude --all | sp-sync ingest', 'store every Claude Code session, redacted (again later: only new events are added)'],
    ['sp-capture claude --all --artifacts blobs | sp-sync ingest --artifacts blobs', 'store sessions and the images they reference'],
    ['sp-sync ls', 'list stored sessions, newest first'],
    ['sp-sync log sess_3f2a… | sp-verify', 'write a stored session back out and verify it'],
    ['sp-sync log --compiled sess_3f2a…', 'the handoffs compiled from a stored session'],
    ['sp-sync search "removeTodo"', 'full-text search (substrings, CJK, code identifiers)'],
    ['sp-sync fork sess_3f2a… --at 42 --reason "try codex"', 'a child session holding seq 0–42'],
    ['sp-sync remote add origin git@github.com:me/sessions.git', 'a git remote (a bare path, file://, ssh:// …)'],
    ['sp-sync push && sp-sync pull', 'send own events, merge everyone else\'s'],
    ['sp-sync trust add laptop.pub --name laptop', 'take events signed by this key on pull and clone'],
  ],
  options: (y) =>
    y
      .option('store', { type: 'string', describe: 'the store directory (default $SP_HOME/store)', global: true })
      .option('quiet', { type: 'boolean', default: false, describe: 'no progress and no summary on stderr', global: true })
      .option('json', { type: 'boolean', default: false, describe: 'machine-readable output (JSON lines)', global: true })
      .command('ingest [files..]', 'store canonical events from stdin or files (idempotent)', (b) =>
        b
          .positional('files', { type: 'string', array: true, describe: 'NDJSON event streams; none or - = stdin' })
          .option('artifacts', {
            type: 'string',
            describe: 'the directory sp-capture --artifacts wrote blobs to: each blob the events reference (sha256:…) is hash-checked and kept in <store>/artifacts/',
          })
          .option('redact', { type: 'boolean', default: true, describe: "redact secrets with sp-redact's rules and key before storing (--no-redact stores them as they are; the manifest says unredacted)" }),
      )
      .command('ls', 'list stored sessions', (b) => b.option('all', { type: 'boolean', default: false, describe: 'include deleted (tombstoned) sessions' }))
      .command('log <session>', 'write a stored session\'s events to stdout', (b) =>
        b
          .positional('session', { type: 'string', describe: 'session id (or a unique prefix, or a native id prefix)' })
          .option('since', { type: 'number', describe: 'only events with seq >= SINCE' })
          .option('local', { type: 'boolean', default: false, describe: "the local log as stored (default: the merged view of every machine's chain, the same on every machine)" })
          .option('compiled', { type: 'boolean', default: false, describe: "instead: the handoffs compiled from it, from its signed manifest (target, budget, tokens, text hash, seq, time)" }),
      )
      .command('search <text>', 'full-text search over stored events', (b) =>
        b
          .positional('text', { type: 'string', describe: 'a substring (3+ characters use the trigram index)' })
          .option('limit', { type: 'number', default: 20, describe: 'at most this many hits' })
          .option('session', { type: 'string', describe: 'only this session' })
          .option('remote', { type: 'string', describe: "search the team's sessions on this PostgreSQL remote instead (those your role may read)" })
          .option('agent', { type: 'string', describe: '--remote: only sessions of this agent' })
          .option('project', { type: 'string', describe: '--remote: only sessions of this project' })
          .option('machine', { type: 'string', describe: '--remote: only sessions pushed by this machine' })
          .option('since', { type: 'string', describe: '--remote: only events at or after this date (ISO, or epoch seconds)' })
          .option('until', { type: 'string', describe: '--remote: only events before this date' }),
      )
      .command('reindex', 'rebuild index.sqlite from the session logs')
      .command('keygen', 'create this SP_HOME\'s Ed25519 key pair ($SP_HOME/keys)', (b) =>
        b.option('age', { type: 'boolean', default: false, describe: 'instead: print this machine\'s age recipient (age1…) for encrypted remotes, creating $SP_HOME/keys/age.key on first use' }),
      )
      .command('rm <session>', 'delete a session by appending a tombstone (nothing is removed)', (b) =>
        b.positional('session', { type: 'string' }).option('reason', { type: 'string', describe: 'why' }),
      )
      .command('fork <session>', 'fork a session at a seq into a new child session', (b) =>
        b
          .positional('session', { type: 'string' })
          .option('at', { type: 'number', demandOption: true, describe: 'the last seq the child keeps' })
          .option('reason', { type: 'string', demandOption: true, describe: 'why the fork (kept in the lineage)' }),
      )
      .command('remote [action] [name] [url] [project]', 'remotes: `remote add NAME URL` (git URL, dir:PATH / --dir for a plain directory, postgres://… for a team server; --encrypt-to FILE: age-encrypted), `remote list`; PostgreSQL: `remote init NAME`, `remote grant NAME ROLE PROJECT`', (b) =>
        b
          .positional('action', { type: 'string', choices: ['add', 'list', 'ls', 'init', 'grant'], describe: 'add, list, init (create or upgrade the schema) or grant' })
          .positional('name', { type: 'string' })
          .positional('url', { type: 'string', describe: 'a git URL (bare path, file://, ssh://, https://), dir:PATH, or postgres://…; grant: the role' })
          .positional('project', { type: 'string', describe: 'grant: the project the role may read' })
          .option('dir', { type: 'boolean', default: false, describe: 'the URL is a plain directory' })
          .option('encrypt-to', { type: 'string', describe: 'an age recipients file (one age1… key per line): everything pushed there is encrypted to all of them' })
          .option('encrypt', { type: 'boolean', describe: '--no-encrypt: keep this remote plaintext even with recipients (recorded)' }),
      )
      .command('push [name]', 'send this machine\'s events to a remote (default: sync.remote of sp config, else origin); sessions stored unredacted are refused', (b) =>
        b.positional('name', { type: 'string' }).option('allow-unredacted', { type: 'boolean', default: false, describe: 'send sessions stored unredacted as they are' }),
      )
      .command('redact [session]', 'a redacted successor (a signed fork) for a session stored unredacted; the original is tombstoned here', (b) =>
        b.positional('session', { type: 'string' }).option('all', { type: 'boolean', default: false, describe: 'every session stored unredacted' }),
      )
      .command('pull [name]', 'fetch and store other machines\' events signed by keys this SP_HOME trusts (default: sync.remote of sp config, else origin); exit 1 names what was refused', (b) => b.positional('name', { type: 'string' }))
      .command('clone <url>', 'add a remote as origin and pull everything from it', (b) =>
        b
          .positional('url', { type: 'string' })
          .option('name', { type: 'string', describe: 'the remote name (default origin)' })
          .option('dir', { type: 'boolean', default: false, describe: 'the URL is a plain directory' })
          .option('trust-all', { type: 'boolean', default: false, describe: 'a fresh store only: trust every signer the remote holds (printed with its key id)' })
          .option('encrypt-to', { type: 'string', describe: 'an age recipients file: the remote is encrypted (see remote add)' }),
      )
      .command('trust [action] [key]', 'signers whose events pull and clone take: `trust add KEYFILE|KEY --name NAME`, `trust list`, `trust rm NAME|KEYID`', (b) =>
        b
          .positional('action', { type: 'string', choices: ['add', 'list', 'ls', 'rm', 'remove'], describe: 'add, list or rm' })
          .positional('key', { type: 'string', describe: 'add: a public key file (id_ed25519.pub) or a base64 Ed25519 key; rm: a name or key id' })
          .option('name', { type: 'string', describe: 'add: the name to trust the key under' }),
      )
      .command('ack <receipt>', 'acknowledge a handoff received (a receipt id or file): a handoff.ack event that travels back', (b) =>
        b.positional('receipt', { type: 'string', describe: 'rcpt_… (in the store) or a receipt file' }).option('note', { type: 'string', describe: 'a short answer to the handoff\'s expectation' }),
      )
      .command('status [session]', 'per session (NDJSON): the merged head and owner here and on each remote, ahead/behind, folders waiting for trust; exit 1 when out of sync', (b) =>
        b
          .positional('session', { type: 'string', describe: 'only this session' })
          .option('remote', { type: 'string', describe: 'only this remote (default: sync.remote of sp config, else every remote)' })
          .option('remotes', { type: 'boolean', default: false, describe: 'instead: the remotes and their per-session cursors (pushed / pulled seq)' }),
      )
      .option('limit', { type: 'number', default: 20, hidden: true })
      .option('all', { type: 'boolean', default: false, hidden: true })
      .option('dir', { type: 'boolean', default: false, hidden: true })
      .option('allow-unredacted', { type: 'boolean', default: false, hidden: true })
      .demandCommand(1, 'say which command') as unknown as Argv<Args>,
  run: async (args) => {
    const command = String(args._[0]);
    switch (command) {
      case 'ingest':
        return cmd.ingestCommand(args);
      case 'ls':
        return cmd.lsCommand(args);
      case 'log':
        if (args.compiled) return (await import('../lib/sync/compiled.js')).compiledLogCommand({ ...args, session: cmd.requireText(args.session, 'a session') });
        return cmd.logCommand({ ...args, session: cmd.requireText(args.session, 'a session') });
      case 'search':
        return cmd.searchCommand({ ...args, text: String(args.text ?? '') });
      case 'reindex':
        return cmd.reindexCommand(args);
      case 'keygen':
        return cmd.keygenCommand(args);
      case 'rm':
        return cmd.rmCommand({ ...args, session: cmd.requireText(args.session, 'a session') });
      case 'fork':
        return cmd.forkCommand({ ...args, session: cmd.requireText(args.session, 'a session'), at: args.at!, reason: args.reason! });
      case 'remote':
        return cmd.remoteCommand(args as never);
      case 'redact':
        return cmd.redactCommand(args);
      case 'push':
      case 'pull':
        return cmd.syncCommand({ ...args, name: await defaultRemote(args.name) }, command);
      case 'clone':
        return cmd.cloneCommand(args);
      case 'status':
        return cmd.statusCommand({ ...args, name: await defaultRemote(args.remote) });
      case 'ack':
        return cmd.ackCommand({ ...args, receipt: cmd.requireText(args.receipt, 'a receipt'), note: args.note });
      case 'trust':
        return cmd.trustCommand(args);
      default:
        throw new UserError(`unknown command ${JSON.stringify(command)} (see --help)`);
    }
  },
});
