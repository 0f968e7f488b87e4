#!/usr/bin/env node
// handoff: hand a session over to another agent — relay it, record a signed handoff receipt in the store, print the resume command.
//
// The stages run in this process through lib/ops: capture (redacted), ingest into the store (the
// receipt points into it), relay to a new native session of TO with its ledger, then a `handoff`
// event in the stored session and a signed receipt. stdout is the resume command alone
// (`eval "$(sp handoff claude codex --latest)"` continues at once), or with --json one record;
// the steps go to stderr.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { adapters } from '../adapters/index.js';
import { runCli, writeJsonLine } from '../lib/cli/cli.js';
import { EXIT_OK, UserError, note, warn } from '../lib/cli/diagnostics.js';
import { adapterOf, capture, collect, ingest, relay, resolveSessions } from '../lib/ops/index.js';
import type { LedgerRow } from '../lib/relay/ledger.js';
import { totalsLine } from '../lib/relay/ledger.js';
import { Store, recordHandoff, resolveStoreDir } from '../lib/store/index.js';
import { agentPair, agentPairOptions } from './args.js';
import { demoHomes } from './demo.js';

interface Args {
  agents?: unknown[];
  from?: string;
  to?: string;
  session?: string;
  latest: boolean;
  cwd?: string;
  toCwd?: string;
  home?: string;
  toHome?: string;
  store?: string;
  model?: string;
  mkcwd: boolean;
  note?: string;
  json: boolean;
  demo: boolean;
  keep: boolean;
}

interface Plan {
  from: string;
  to: string;
  session?: string;
  latest: boolean;
  cwd?: string;
  toCwd?: string;
  home?: string;
  toHome?: string;
  store: string;
  model?: string;
  mkcwd: boolean;
  note?: string;
  json: boolean;
}

/** Steps go to stderr as notes: -q silences them, the result on stdout stays. */
const say = (line: string) => note(undefined, line);

/** The ledger's rows that were not carried as they were, counted by what they became. */
function changesByKind(rows: LedgerRow[]): Array<[kind: string, count: number]> {
  const byKind = new Map<string, number>();
  for (const row of rows) {
    if (row.action === 'carried') continue;
    const kind = `${row.action} ${row.code ?? ''}${row.from !== undefined ? ` ${row.from} → ${row.to}` : ''}`;
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  return [...byKind].sort((a, b) => b[1] - a[1]);
}

async function handoff(plan: Plan): Promise<void> {
  const source = adapterOf(adapters, plan.from);
  const target = adapterOf(adapters, plan.to);
  if (!target.materialize) throw new UserError(`${target.displayName} sessions cannot be written`, '--to');
  if ((plan.session === undefined) === !plan.latest) throw new UserError('say which session: --session ID (or the third positional) or --latest');

  say(`1. capture ${plan.from} ${plan.session !== undefined ? `--session ${plan.session}` : `--latest${plan.cwd ? ` --cwd ${plan.cwd}` : ''}`}, redacted`);
  const selector = plan.session !== undefined ? { session: plan.session } : { latest: true, cwd: plan.cwd };
  const sessions = await resolveSessions(selector, { registry: adapters, agent: source.id, home: plan.home, onDiagnostic: warn });
  const events = await collect(capture(sessions, { onDiagnostic: warn }));
  if (events.length === 0) throw new UserError('the session holds no events', plan.session ?? '--latest');
  const sourceSession = events[0].session;

  // One writer holds the store from the ingest to the receipt: the receipt names the head it saw.
  const store = Store.open(plan.store);
  try {
    say(`2. store it in ${plan.store}`);
    // Redacted again on the way in (a no-op on redacted text) so the manifest records the redaction.
    const stored = await ingest(store, events);
    say(`   ${stored.added ?? 0} new events (${sourceSession})`);

    say(`3. write a new ${target.displayName} session`);
    const outcome = await relay(target, events, { home: plan.toHome, cwd: plan.toCwd ?? plan.cwd, model: plan.model, mkcwd: plan.mkcwd, redact: 'done' });
    const result = outcome.results[0];
    const rows = [...outcome.ledger.rows()];
    const byKind = changesByKind(rows);
    say(`   ${result.path}`);
    say(`   ledger: ${rows.length} events: ${totalsLine(outcome.ledger.totals())}`);
    for (const [kind, n] of byKind) say(`   ${n}× ${kind}`);

    say('4. receipt: a handoff event in the stored session, signed');
    const receipt = recordHandoff(store, { sourceSession, fromAgent: source.id, toAgent: target.id, targetSessionId: result.session_id, note: plan.note });
    say(`   ${receipt.receiptPath}`);
    say('5. continue with:');
    if (plan.json) {
      writeJsonLine({
        session: sourceSession,
        result,
        ledger: { events: rows.length, totals: outcome.ledger.totals(), by_kind: Object.fromEntries(byKind), changed: rows.filter((r) => r.action !== 'carried') },
        receipt: receipt.receipt,
        receipt_path: receipt.receiptPath,
      });
    } else process.stdout.write(`${result.resume}\n`);
  } finally {
    store.close();
  }
}

await runCli<Args>({
  name: 'handoff',
  summary:
    'Hands a session over to another agent: captures it (redacted), keeps it in the sp store, writes it as a new native ' +
    'session of the other agent with a ledger of what changed, records a signed handoff receipt, and prints the resume command.',
  usage: '[FROM [TO [SESSION]]] [--from AGENT --to AGENT] (--session ID | --latest) [options]',
  examples: [
    ['eval "$(sp handoff claude codex --latest --cwd . --mkcwd)"', "this project's newest Claude Code session, handed to Codex"],
    ['sp handoff --from codex --to claude --session 01a22ad9 --note "finish the migration" --json', 'the whole record (result, ledger, receipt) as one JSON line'],
    ['sp handoff --demo', 'a bundled Claude Code fixture session to Codex, in temporary homes and store'],
  ],
  epilogue:
    'stdout is the resume command alone (--json: one record); the steps and the ledger go to stderr. The positionals are ' +
    'shortcuts for --from, --to and --session. The session is redacted before it is stored or written. ' +
    'sp-verify --store checks the store and the receipt afterwards (or sp audit).',
  options: (y) =>
    agentPairOptions(y, { from: 'the agent whose session to hand over', to: 'the agent that takes it (one that can be written)' })
      .option('cwd', { type: 'string', describe: "with --latest: the project's newest session; also where TO continues" })
      .option('to-cwd', { type: 'string', describe: 'where TO continues, when not --cwd (default: the session\'s own folder)' })
      .option('home', { type: 'string', describe: "FROM's home (default: its environment variable, else e.g. ~/.claude)" })
      .option('to-home', { type: 'string', describe: "TO's home (default: its environment variable, else e.g. ~/.codex)" })
      .option('store', { type: 'string', describe: 'the sp store for the receipt (default $SP_HOME/store)' })
      .option('model', { type: 'string', describe: 'the model TO continues with' })
      .option('mkcwd', { type: 'boolean', default: false, describe: 'create the project folder when it does not exist' })
      .option('note', { type: 'string', describe: 'a note kept in the receipt' })
      .option('json', { type: 'boolean', default: false, describe: 'one JSON record (result, ledger, receipt) instead of the resume command' })
      .option('demo', { type: 'boolean', default: false, describe: 'a bundled Claude Code fixture session to Codex, in temporary homes and store' })
      .option('keep', { type: 'boolean', default: false, describe: 'with --demo: keep its temporary folder (removed on exit otherwise)' })
      .command('$0 [agents..]', false) as never,
  run: async (args) => {
    const pair = agentPair(args);
    if (args.demo) {
      const { work, homes } = await demoHomes('handoff', args.keep, ['claude']);
      const claudeHome = homes.claude.find((h) => h.includes('S2-debug')) ?? homes.claude[0];
      const codexHome = join(work, 'codex-home');
      mkdirSync(codexHome);
      // The demo's own store and key: nothing of this machine's is touched.
      process.env.SP_HOME = join(work, 'sp-home');
      say(`handoff --demo: the newest Claude Code session of ${claudeHome} to Codex (${codexHome})\n`);
      await handoff({ from: 'claude', to: 'codex', latest: true, home: claudeHome, toHome: codexHome, toCwd: join(work, 'acme-api'), mkcwd: true, store: join(work, 'store'), json: args.json });
      say(args.keep ? `(the Codex home ${codexHome} is kept, and the command above names it; npm run demo resumes a relay with the real client)` : '(the temporary homes are removed on exit: --keep keeps them; npm run demo resumes a relay with the real client)');
      return EXIT_OK;
    }
    if (pair.from === undefined || pair.to === undefined) throw new UserError('say --from AGENT and --to AGENT (or: sp handoff FROM TO …)');
    await handoff({
      from: pair.from,
      to: pair.to,
      session: pair.session,
      latest: args.latest,
      cwd: args.cwd !== undefined ? resolve(args.cwd) : undefined,
      toCwd: args.toCwd !== undefined ? resolve(args.toCwd) : undefined,
      home: args.home,
      toHome: args.toHome,
      store: resolveStoreDir(args.store),
      model: args.model,
      mkcwd: args.mkcwd,
      note: args.note,
      json: args.json,
    });
    return EXIT_OK;
  },
});
