#!/usr/bin/env node
// handoff: hand a session over to another agent — relay it, record a signed handoff receipt in the store, print the resume command.
//
//   sp-capture FROM … | sp-redact          the session, secrets out
//   sp-sync ingest                          kept in the store (the receipt points into it)
//   sp-materialize TO --report LEDGER       a new native session of TO, and a ledger row per source event
//   recordHandoff                           a `handoff` event in the stored session + a signed receipt
//
// stdout is the resume command alone (so `eval "$(handoff.mjs claude codex --latest)"` continues
// at once); what happened goes to stderr. --json prints one JSON record instead.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { $, minimist } from 'zx';
import { demoFolder, demoHomes, registry, root } from './fixture-homes.mjs';

const HELP = `handoff.mjs — relay a session to another agent, record a signed handoff receipt, print the resume command

Usage: handoff.mjs FROM TO (--session ID | --latest) [options]
       handoff.mjs --demo

  FROM, TO         agents (${'${registered}'})
  --session ID     the session to hand over (a unique prefix of its id is enough)
  --latest         the newest session (with --cwd: of that project)
  --cwd DIR        with --latest: the project's newest session; also where TO continues
  --to-cwd DIR     where TO continues, when not --cwd (default: the session's own cwd)
  --home DIR       FROM's home (default: its environment variable, else e.g. ~/.claude)
  --to-home DIR    TO's home (default: its environment variable, else e.g. ~/.codex)
  --store DIR      the sp store for the receipt (default $SP_HOME/store)
  --model NAME     the model TO continues with
  --mkcwd          create the project folder when it does not exist
  --note TEXT      a note kept in the receipt
  --json           print one JSON record (result, ledger, receipt) instead of the resume command
  --demo           a Claude Code fixture session to Codex, in temporary homes and store
  --keep           with --demo: keep its temporary folder (removed on exit otherwise)
  --help, -h       this text

Example:
  node examples/handoff.mjs claude codex --latest --cwd . --mkcwd
  eval "$(node examples/handoff.mjs claude codex --session e05d2652)"

Exit status: 0 ok, 1 a stage failed (its diagnostics on stderr), 2 usage error.`;

const argv = minimist(process.argv.slice(2), {
  string: ['session', 'cwd', 'to-cwd', 'home', 'to-home', 'store', 'model', 'note'],
  boolean: ['latest', 'mkcwd', 'json', 'demo', 'keep', 'help'],
  alias: { h: 'help' },
  unknown: (arg) => {
    if (arg.startsWith('-')) usage(`unknown option ${arg}`);
    return true;
  },
});

function usage(message) {
  process.stderr.write(`handoff: ${message} (see --help)\n`);
  process.exit(2);
}
const say = (line) => process.stderr.write(`${line}\n`);
const bin = (name) => join(root, 'dist/bin', `sp-${name}.js`);
const node = process.execPath;
$.quiet = true;
$.verbose = false;

async function fail(stage, run) {
  process.stderr.write(`handoff: ${stage} failed (exit ${run.exitCode})\n${run.stderr.trim().replace(/^/gm, '  ')}\n`);
  process.exit(1);
}

async function handoff(o) {
  const adapters = await registry();
  const known = Object.keys(adapters).sort().join(', ');
  for (const agent of [o.from, o.to]) if (!adapters[agent]) usage(`unknown agent "${agent}"; known agents: ${known}`);
  if (!adapters[o.to].materialize) usage(`${o.to} sessions cannot be written`);
  if ((o.session === undefined) === !o.latest) usage('say which session: --session ID or --latest');
  const env = { ...process.env, ...o.env, SP_PROGRESS: '0' };
  const work = mkdtempSync(join(tmpdir(), 'sp-handoff-'));
  try {
    const events = join(work, 'events.ndjson');
    const ledger = join(work, 'ledger.ndjson');
    const select = o.session !== undefined ? ['--session', o.session] : ['--latest', ...(o.cwd ? ['--cwd', o.cwd] : [])];
    const home = o.home ? ['--home', o.home] : [];
    say(`1. capture and redact: sp-capture ${o.from} ${select.join(' ')} | sp-redact`);
    const captured = await $({ nothrow: true, env })`${node} ${bin('capture')} ${o.from} ${select} ${home} --quiet | ${node} ${bin('redact')} --quiet > ${events}`;
    if (captured.exitCode !== 0) await fail('capture', captured);
    const first = JSON.parse(readFileSync(events, 'utf8').split('\n', 1)[0]);

    say(`2. store it: sp-sync ingest --store ${o.store}`);
    const stored = await $({ nothrow: true, env })`${node} ${bin('sync')} ingest --store ${o.store} --quiet --json ${events}`;
    if (stored.exitCode !== 0) await fail('sp-sync ingest', stored);

    const toCwd = o.toCwd ?? o.cwd;
    const target = [...(o.toHome ? ['--home', o.toHome] : []), ...(toCwd ? ['--cwd', toCwd] : []), ...(o.model ? ['--model', o.model] : []), ...(o.mkcwd ? ['--mkcwd'] : [])];
    say(`3. relay: sp-materialize ${o.to} ${target.join(' ')} --report ledger.ndjson`);
    // Step 4 records the handoff (with the note); sp-materialize itself records one only with
    // --handoff, and runs with an SP_HOME that holds no store besides, so there is one receipt.
    const written = await $({ nothrow: true, env: { ...env, SP_HOME: join(work, 'no-store') } })`${node} ${bin('materialize')} ${o.to} ${events} ${target} --report ${ledger}`;
    if (written.exitCode !== 0) await fail('sp-materialize', written);
    const result = JSON.parse(written.stdout.split('\n', 1)[0]);
    // The ledger: one row per source event; the ones not carried as they were say what they became.
    const rows = readFileSync(ledger, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).payload)
      .filter((p) => p.key === 'sp.materialize.ledger')
      .map((p) => p.value);
    const totals = {};
    for (const action of ['carried', 'translated', 'rendered', 'transformed', 'stubbed', 'dropped']) totals[action] = rows.filter((row) => row.action === action).length;
    const changed = rows.filter((row) => row.action !== 'carried');
    const byKind = {};
    for (const row of changed) {
      const kind = `${row.action} ${row.code}${row.from !== undefined ? ` ${row.from} → ${row.to}` : ''}`;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    }
    say(`   ${result.path}`);
    say(`   ledger: ${rows.length} events: ${Object.entries(totals).map(([action, n]) => `${n} ${action}`).join(', ')}`);
    for (const [kind, n] of Object.entries(byKind).sort((a, b) => b[1] - a[1])) say(`   ${n}× ${kind}`);

    say('4. receipt: a handoff event in the stored session, signed');
    const { Store, recordHandoff } = await import(join(root, 'dist/lib/store/index.js'));
    const previous = process.env.SP_HOME;
    if (env.SP_HOME) process.env.SP_HOME = env.SP_HOME; // the store signs with $SP_HOME's key
    let receipt;
    const store = Store.open(o.store);
    try {
      receipt = recordHandoff(store, { sourceSession: first.session, fromAgent: o.from, toAgent: o.to, targetSessionId: result.session_id, note: o.note });
    } finally {
      store.close();
      if (previous === undefined) delete process.env.SP_HOME;
      else process.env.SP_HOME = previous;
    }
    say(`   ${receipt.receiptPath}`);
    say(`5. continue with:`);
    if (o.json) process.stdout.write(JSON.stringify({ session: first.session, result, ledger: { events: rows.length, totals, by_kind: byKind, changed }, receipt: receipt.receipt, receipt_path: receipt.receiptPath }) + '\n');
    else process.stdout.write(`${result.resume}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (argv.help) {
  const adapters = await registry().catch(() => ({}));
  process.stdout.write(HELP.replace('${registered}', Object.keys(adapters).sort().join(', ') || 'see sp-capture --help') + '\n');
  process.exit(0);
}

if (argv.demo) {
  const work = demoFolder('sp-handoff-demo-', argv.keep);
  const { homes } = await demoHomes('handoff', join(work, 'homes'), ['claude']);
  const claudeHome = homes.claude.find((h) => h.includes('S2-debug')) ?? homes.claude[0];
  const codexHome = join(work, 'codex-home');
  mkdirSync(codexHome);
  say(`handoff --demo: the newest Claude Code session of ${claudeHome} to Codex (${codexHome})\n`);
  await handoff({
    from: 'claude',
    to: 'codex',
    latest: true,
    home: claudeHome,
    toHome: codexHome,
    toCwd: join(work, 'acme-api'),
    mkcwd: true,
    store: join(work, 'store'),
    json: argv.json,
    env: { SP_HOME: join(work, 'sp-home'), CODEX_HOME: codexHome },
  });
  say(argv.keep ? `(the Codex home is a temporary one: run the command with CODEX_HOME=${codexHome}; npm run demo resumes a relay with the real client)` : '(the temporary homes are removed on exit: --keep keeps them; npm run demo resumes a relay with the real client)');
  process.exit(0);
}

const [from, to, ...extra] = argv._.map(String);
if (!from || !to) usage('say FROM and TO, e.g. handoff.mjs claude codex --latest');
if (extra.length) usage(`unexpected argument ${extra[0]}`);
await handoff({
  from,
  to,
  session: argv.session,
  latest: argv.latest,
  cwd: argv.cwd ? resolve(argv.cwd) : undefined,
  toCwd: argv['to-cwd'] ? resolve(argv['to-cwd']) : undefined,
  home: argv.home,
  toHome: argv['to-home'],
  store: resolve(argv.store ?? join(process.env.SP_HOME || join(process.env.HOME ?? tmpdir(), '.sp'), 'store')),
  model: argv.model,
  mkcwd: argv.mkcwd,
  note: argv.note,
  json: argv.json,
  env: {},
});
