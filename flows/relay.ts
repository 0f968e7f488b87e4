#!/usr/bin/env node
// relay: continue a session of one agent in another — capture, redact, (compile), write, read back and verify, then print the resume command.
//
// The same stages as `sp-capture FROM … | sp-redact | (sp-compile --for TO) | sp-materialize TO`,
// run in this process through lib/ops. stdout is the resume command alone
// (`eval "$(sp relay claude codex --latest)"` continues at once); the steps and the ledger totals
// go to stderr.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { adapters } from '../adapters/index.js';
import { runCli } from '../lib/cli/cli.js';
import { EXIT_CHECK_FAILED, EXIT_OK, UserError, warn } from '../lib/cli/diagnostics.js';
import type { SpEvent } from '../lib/core/event.js';
import { readObjects } from '../lib/core/ndjson.js';
import { adapterOf, capture, collect, compile, eventsInput, relay, resolveSessions, writeLedgerReport } from '../lib/ops/index.js';
import { totalsLine } from '../lib/relay/ledger.js';
import type { RelayResult } from '../lib/relay/relay.js';
import { Verifier } from '../lib/core/verify.js';
import { agentPair, agentPairOptions } from './args.js';
import { demoHomes } from './demo.js';

interface Args {
  from?: string;
  to?: string;
  session?: string;
  latest: boolean;
  cwd?: string;
  home?: string;
  toHome?: string;
  compile: boolean;
  budget?: number;
  thinking?: 'keep-text' | 'drop';
  branches?: 'active' | 'all';
  model?: string;
  mkcwd: boolean;
  report?: string;
  demo: boolean;
  keep: boolean;
}

interface Plan extends Omit<Args, 'demo' | 'keep' | 'cwd'> {
  from: string;
  to: string;
  /** With --latest: only this project's sessions; also where TO continues unless toCwd. */
  cwd?: string;
  toCwd?: string;
}

const say = (line: string) => process.stderr.write(`${line}\n`);

/** The events' chain checked as sp-verify does; a failure names the first damage. */
async function verified(events: SpEvent[], what: string): Promise<void> {
  const verifier = new Verifier({});
  for await (const { value, line, source } of readObjects([eventsInput(events, what)], { onBadLine: (bad) => verifier.badLine(bad.source, bad.line, bad.reason) })) verifier.push(source, line, value);
  const report = verifier.finish();
  if (!report.ok) throw new UserError(`does not verify: ${JSON.stringify(report.sessions.flatMap((s) => s.damage ?? []).slice(0, 1))}`, what, EXIT_CHECK_FAILED);
}

async function runRelay(plan: Plan): Promise<RelayResult[]> {
  const source = adapterOf(adapters, plan.from);
  const target = adapterOf(adapters, plan.to);
  if (!target.materialize) throw new UserError(`${target.displayName} sessions cannot be written`, '--to');
  if ((plan.session === undefined) === !plan.latest) throw new UserError('say which session: --session ID (or the third positional) or --latest');
  if (plan.budget !== undefined && !plan.compile) throw new UserError('--budget goes with --compile');

  const selector = plan.session !== undefined ? { session: plan.session } : { latest: true, cwd: plan.cwd };
  say(`1. capture ${plan.from} ${plan.session !== undefined ? `--session ${plan.session}` : `--latest${plan.cwd ? ` --cwd ${plan.cwd}` : ''}`}, redacted${plan.compile ? `, compiled for ${plan.to}` : ''}`);
  const sessions = await resolveSessions(selector, { registry: adapters, agent: source.id, home: plan.home, onDiagnostic: warn });
  const events = await collect(capture(sessions, { onDiagnostic: warn }));
  const input = plan.compile ? [...events, (await compile(events, { target: plan.to as never, budget: plan.budget, redact: false })).event] : events;

  say(`2. write a new ${target.displayName} session${plan.report ? ` (ledger: ${plan.report})` : ''}`);
  const outcome = await relay(target, input, {
    home: plan.toHome,
    cwd: plan.toCwd ?? plan.cwd,
    model: plan.model,
    thinking: plan.thinking,
    branches: plan.branches,
    mkcwd: plan.mkcwd,
    redact: 'done', // captured redacted above
  });
  for (const r of outcome.results) say(`   ${outcome.mode} ${r.branch ? `branch from seq ${r.branch.fork_seq}` : 'session'} ${r.session_id}: ${r.path}`);
  say(`   ledger: ${totalsLine(outcome.ledger.totals())}`);
  if (plan.report) writeLedgerReport(plan.report, outcome.ledger, outcome.results);

  say(`3. read back with sp's own ${target.displayName} reader and verify`);
  for (const r of outcome.results) {
    const written = await resolveSessions(r.session_id, { registry: adapters, agent: target.id, home: plan.toHome });
    await verified(await collect(capture(written, { redact: false })), `${target.id} session ${r.session_id}`);
  }
  say(`   ${outcome.results.length === 1 ? 'the written session reads back and verifies' : `${outcome.results.length} sessions read back and verify`}`);

  say('4. continue with:');
  for (const r of outcome.results) process.stdout.write(`${r.resume}\n`);
  return outcome.results;
}

await runCli<Args & { _: unknown[]; agents?: string[] }>({
  name: 'relay',
  summary: 'Continues a session of one agent in another: captures it (redacted), optionally compiles a handoff, writes it as a new native session of the other agent, reads it back and verifies it, and prints the resume command.',
  usage: '[FROM [TO [SESSION]]] [--from AGENT --to AGENT] (--session ID | --latest) [options]',
  examples: [
    ['eval "$(sp relay claude codex --latest --cwd .)"', "this project's newest Claude Code session, continued in Codex"],
    ['sp relay --from codex --to pi --session 01a22ad9 --compile --budget 8000 --mkcwd', 'context mode: a compiled handoff plus the newest turns'],
    ['sp relay --demo', 'a bundled Claude Code fixture session to Codex, in temporary homes'],
  ],
  epilogue: 'stdout is the resume command alone; the steps and the ledger totals go to stderr. The positionals are shortcuts for --from, --to and --session.',
  options: (y) =>
    agentPairOptions(y, { from: 'the agent whose session to relay', to: 'the agent that continues it (one that can be written)' })
      .option('cwd', { type: 'string', describe: "with --latest: the project's newest session; also where TO continues" })
      .option('home', { type: 'string', describe: "FROM's home (default: its environment variable, else e.g. ~/.claude)" })
      .option('to-home', { type: 'string', describe: "TO's home (default: its environment variable, else e.g. ~/.codex)" })
      .option('compile', { type: 'boolean', default: false, describe: 'context mode: a compiled handoff plus the newest turns instead of the whole history' })
      .option('budget', { type: 'number', describe: "with --compile: the handoff's token budget (default: sp-compile's for TO)" })
      .option('thinking', { choices: ['keep-text', 'drop'] as const, describe: 'reasoning TO cannot take natively: as marked text (default) or dropped' })
      .option('branches', { choices: ['active', 'all'] as const, describe: 'a tree relayed to a linear TO: the active branch (default), or one session per branch' })
      .option('model', { type: 'string', describe: 'the model TO continues with' })
      .option('mkcwd', { type: 'boolean', default: false, describe: 'create the project folder when it does not exist' })
      .option('report', { type: 'string', describe: 'keep the loss ledger (one row per source event) in this file' })
      .option('demo', { type: 'boolean', default: false, describe: 'a bundled Claude Code fixture session to Codex, in temporary homes' })
      .option('keep', { type: 'boolean', default: false, describe: 'with --demo: keep its temporary folder (removed on exit otherwise)' })
      .command('$0 [agents..]', false) as never,
  run: async (args) => {
    const pair = agentPair(args);
    if (args.demo) {
      const { work, homes } = await demoHomes('relay', args.keep, ['claude']);
      const claudeHome = homes.claude.find((h) => h.includes('S2-debug')) ?? homes.claude[0];
      const codexHome = join(work, 'codex-home');
      mkdirSync(codexHome);
      // The demo's own store and key: nothing of this machine's is touched.
      process.env.SP_HOME = join(work, 'sp-home');
      say(`relay --demo: the newest Claude Code session of ${claudeHome} to Codex (${codexHome})${args.compile ? ', context mode' : ''}\n`);
      await runRelay({ from: 'claude', to: 'codex', latest: true, home: claudeHome, toHome: codexHome, toCwd: join(work, 'acme-api'), mkcwd: true, compile: args.compile, budget: args.budget, report: args.report });
      say(args.keep ? `(the Codex home ${codexHome} is kept, and the command above names it; npm run demo resumes a relay with the real client)` : '(the temporary homes are removed on exit: --keep keeps them; npm run demo resumes a relay with the real client)');
      return EXIT_OK;
    }
    if (pair.from === undefined || pair.to === undefined) throw new UserError('say --from AGENT and --to AGENT (or: sp relay FROM TO …)');
    await runRelay({
      ...args,
      from: pair.from,
      to: pair.to,
      session: pair.session,
      cwd: args.cwd !== undefined ? resolve(args.cwd) : undefined,
      report: args.report !== undefined ? resolve(args.report) : undefined,
    });
    return EXIT_OK;
  },
});
