#!/usr/bin/env node
// relay: continue a session of one agent in another — capture | redact | (compile) | materialize | verify, then print the resume command.
//
//   sp-capture FROM (--session ID | --latest)     the session as canonical events
//   sp-redact                                    secrets out
//   sp-compile --for TO --budget N               (--compile) a token-budgeted handoff: context mode
//   sp-materialize TO --report LEDGER            a new native session of TO, one ledger row per source event
//   sp-capture TO --session NEW | sp-verify      the written session read back by sp's own reader, chain checked
//
// stdout is the resume command alone (`eval "$(relay.mjs --from claude --to codex --latest)"`
// continues at once); the steps and the ledger totals go to stderr.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { $, minimist } from 'zx';
import { demoFolder, demoHomes, registry, root } from './fixture-homes.mjs';

const HELP = `relay.mjs — continue a session of one agent in another, print the resume command

Usage: relay.mjs --from AGENT --to AGENT (--session ID | --latest) [options]
       relay.mjs --demo [--compile]

  --from, --to     agents (\${registered})
  --session ID     the session to relay (a unique prefix is enough)
  --latest         the newest session (with --cwd: of that project)
  --cwd DIR        with --latest: the project's newest session; also where TO continues
  --home DIR       FROM's home (default: its environment variable, else e.g. ~/.claude)
  --to-home DIR    TO's home (default: its environment variable, else e.g. ~/.codex)
  --compile        context mode: a compiled handoff plus the newest turns instead of the whole history
  --budget N       with --compile: the handoff's token budget (default: sp-compile's for TO)
  --thinking M     keep-text (default) or drop: reasoning TO cannot take natively
  --branches M     active (default) or all: a linear TO gets one session per branch
  --model NAME     the model TO continues with
  --mkcwd          create the project folder when it does not exist
  --report FILE    keep the loss ledger (one row per source event) here
  --demo           a bundled Claude Code fixture session to Codex, in temporary homes
  --keep           with --demo: keep its temporary folder (removed on exit otherwise)
  --help, -h       this text

Examples:
  eval "$(node examples/relay.mjs --from claude --to codex --latest --cwd .)"
  node examples/relay.mjs --from codex --to pi --session 01a22ad9 --compile --budget 8000 --mkcwd

Exit status: 0 ok, 1 a stage failed (its diagnostics on stderr), 2 usage error.`;

const argv = minimist(process.argv.slice(2), {
  string: ['from', 'to', 'session', 'cwd', 'home', 'to-home', 'budget', 'thinking', 'branches', 'model', 'report'],
  boolean: ['latest', 'compile', 'mkcwd', 'demo', 'keep', 'help'],
  alias: { h: 'help' },
  unknown: (arg) => {
    if (arg.startsWith('-')) usage(`unknown option ${arg}`);
    return true;
  },
});

function usage(message) {
  process.stderr.write(`relay: ${message} (see --help)\n`);
  process.exit(2);
}
const say = (line) => process.stderr.write(`${line}\n`);
const bin = (name) => join(root, 'dist/bin', `sp-${name}.js`);
const node = process.execPath;
$.quiet = true;
$.verbose = false;

function fail(stage, run) {
  process.stderr.write(`relay: ${stage} failed (exit ${run.exitCode})\n${run.stderr.trim().replace(/^/gm, '  ')}\n`);
  process.exit(1);
}

async function relay(o) {
  const adapters = await registry();
  const known = Object.keys(adapters).sort().join(', ');
  if (!o.from || !o.to) usage('say --from AGENT and --to AGENT');
  for (const agent of [o.from, o.to]) if (!adapters[agent]) usage(`unknown agent "${agent}"; known agents: ${known}`);
  if (!adapters[o.to].materialize) usage(`${o.to} sessions cannot be written`);
  if ((o.session === undefined) === !o.latest) usage('say which session: --session ID or --latest');
  if (o.budget !== undefined && !o.compile) usage('--budget goes with --compile');
  if (o.thinking && !['keep-text', 'drop'].includes(o.thinking)) usage('--thinking is keep-text or drop');
  if (o.branches && !['active', 'all'].includes(o.branches)) usage('--branches is active or all');
  const env = { ...process.env, ...o.env, SP_PROGRESS: '0' };
  const work = mkdtempSync(join(tmpdir(), 'sp-relay-'));
  try {
    const events = join(work, 'events.ndjson');
    const report = o.report ?? join(work, 'ledger.ndjson');
    const select = o.session !== undefined ? ['--session', o.session] : ['--latest', ...(o.cwd ? ['--cwd', o.cwd] : [])];
    const home = o.home ? ['--home', o.home] : [];
    const compile = o.compile ? ['--for', o.to, ...(o.budget !== undefined ? ['--budget', o.budget] : [])] : undefined;

    say(`1. sp-capture ${o.from} ${select.join(' ')} | sp-redact${compile ? ` | sp-compile ${compile.join(' ')}` : ''}`);
    const captured = compile
      ? await $({ nothrow: true, env })`${node} ${bin('capture')} ${o.from} ${select} ${home} --quiet | ${node} ${bin('redact')} --quiet | ${node} ${bin('compile')} ${compile} > ${events}`
      : await $({ nothrow: true, env })`${node} ${bin('capture')} ${o.from} ${select} ${home} --quiet | ${node} ${bin('redact')} --quiet > ${events}`;
    if (captured.exitCode !== 0) fail(compile ? 'capture | redact | compile' : 'capture | redact', captured);

    const target = [
      ...(o.toHome ? ['--home', o.toHome] : []),
      ...((o.toCwd ?? o.cwd) ? ['--cwd', o.toCwd ?? o.cwd] : []),
      ...(o.model ? ['--model', o.model] : []),
      ...(o.thinking ? ['--thinking', o.thinking] : []),
      ...(o.branches ? ['--branches', o.branches] : []),
      ...(o.mkcwd ? ['--mkcwd'] : []),
    ];
    say(`2. sp-materialize ${o.to} ${target.join(' ')} --report ${o.report ?? 'ledger.ndjson'}`);
    const written = await $({ nothrow: true, env })`${node} ${bin('materialize')} ${o.to} ${events} ${target} --report ${report}`;
    if (written.exitCode !== 0) fail('sp-materialize', written);
    const results = written.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const totals = written.stderr.split('\n').find((l) => l.startsWith('sp-materialize: ledger: '));
    for (const r of results) say(`   ${r.mode ?? ''} ${r.branch ? `branch from seq ${r.branch.fork_seq}` : 'session'} ${r.session_id}: ${r.path}`);
    if (totals) say(`   ${totals.replace('sp-materialize: ', '')}`);

    say(`3. sp-capture ${o.to} --session ${results[0].session_id} | sp-verify`);
    const toHome = o.toHome ? ['--home', o.toHome] : [];
    for (const r of results) {
      const verified = await $({ nothrow: true, env })`${node} ${bin('capture')} ${o.to} ${toHome} --session ${r.session_id} --quiet | ${node} ${bin('verify')}`;
      if (verified.exitCode !== 0) fail(`verify of ${r.session_id}`, verified);
    }
    const reportCheck = await $({ nothrow: true, env })`${node} ${bin('verify')} ${report}`;
    if (reportCheck.exitCode !== 0) fail('verify of the ledger', reportCheck);
    say(`   ${results.length === 1 ? 'the written session reads back and verifies' : `${results.length} sessions read back and verify`}; so does the ledger`);

    say('4. continue with:');
    for (const r of results) process.stdout.write(`${r.resume}\n`);
    return results;
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
  const work = demoFolder('sp-relay-demo-', argv.keep);
  const { homes } = await demoHomes('relay', join(work, 'homes'), ['claude']);
  const claudeHome = homes.claude.find((h) => h.includes('S2-debug')) ?? homes.claude[0];
  const codexHome = join(work, 'codex-home');
  mkdirSync(codexHome);
  say(`relay --demo: the newest Claude Code session of ${claudeHome} to Codex (${codexHome})${argv.compile ? ', context mode' : ''}\n`);
  await relay({
    from: 'claude',
    to: 'codex',
    latest: true,
    home: claudeHome,
    toHome: codexHome,
    toCwd: join(work, 'acme-api'),
    mkcwd: true,
    compile: argv.compile,
    budget: argv.budget,
    report: argv.report,
    env: { SP_HOME: join(work, 'sp-home'), CODEX_HOME: codexHome },
  });
  say(argv.keep ? `(the Codex home ${codexHome} is kept, and the command above names it; npm run demo resumes a relay with the real client)` : '(the temporary homes are removed on exit: --keep keeps them; npm run demo resumes a relay with the real client)');
  process.exit(0);
}

if (argv._.length) usage(`unexpected argument ${argv._[0]}`);
await relay({
  from: argv.from,
  to: argv.to,
  session: argv.session,
  latest: argv.latest,
  cwd: argv.cwd ? resolve(argv.cwd) : undefined,
  home: argv.home,
  toHome: argv['to-home'],
  compile: argv.compile,
  budget: argv.budget,
  thinking: argv.thinking,
  branches: argv.branches,
  model: argv.model,
  mkcwd: argv.mkcwd,
  report: argv.report ? resolve(argv.report) : undefined,
  env: {},
});
