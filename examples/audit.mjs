#!/usr/bin/env node
// audit: verify every session in the sp store (hash chain, schema, signed manifest) and every handoff receipt, as one summary table.
//
//   sp-sync ls --json                        what is stored (agent, events, owner, title)
//   sp-verify --store DIR receipts/*.json    each stored session's log against its signed manifest
//
// Exit 0 when everything verifies, 1 when anything does not (the table says what and where).
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { $, minimist } from 'zx';
import { demoFolder, demoHomes, root } from './fixture-homes.mjs';

const HELP = `audit.mjs — verify every session in the sp store and every handoff receipt; a summary table

Usage: audit.mjs [--store DIR] [--json] [--demo]

  --store DIR   the store (default $SP_HOME/store; SP_HOME defaults to ~/.sp)
  --json        print the rows as JSON lines instead of the table
  --demo        store a few fixture sessions in a temporary store, audit it, then change one byte of
                one stored event in a copy and audit that
  --keep        with --demo: keep its temporary folder (removed on exit otherwise)
  --help, -h    this text

Exit status: 0 everything verifies, 1 something does not, 2 usage error or no store.`;

const argv = minimist(process.argv.slice(2), {
  string: ['store'],
  boolean: ['json', 'demo', 'keep', 'help'],
  alias: { h: 'help' },
  unknown: (arg) => {
    process.stderr.write(`audit: ${arg.startsWith('-') ? 'unknown option' : 'unexpected argument'} ${arg} (see --help)\n`);
    process.exit(2);
  },
});

const bin = (name) => join(root, 'dist/bin', `sp-${name}.js`);
const node = process.execPath;
$.quiet = true;
$.verbose = false;

async function audit(store, env, json) {
  if (!existsSync(join(store, 'sessions'))) {
    process.stderr.write(`audit: no store at ${store} (fill it with sp-sync ingest, or examples/archive.mjs)\n`);
    return 2;
  }
  const listed = await $({ nothrow: true, env })`${node} ${bin('sync')} ls --store ${store} --json`;
  if (listed.exitCode !== 0) {
    process.stderr.write(`audit: sp-sync ls failed (exit ${listed.exitCode})\n${listed.stderr}`);
    return listed.exitCode === 2 ? 2 : 1;
  }
  const sessions = listed.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const receiptDir = join(store, 'receipts');
  const receipts = existsSync(receiptDir) ? readdirSync(receiptDir).filter((f) => f.endsWith('.json')).map((f) => join(receiptDir, f)) : [];
  const verified = await $({ nothrow: true, env })`${node} ${bin('verify')} --store ${store} --json ${receipts}`;
  let report;
  try {
    report = JSON.parse(verified.stdout);
  } catch {
    process.stderr.write(`audit: sp-verify failed (exit ${verified.exitCode})\n${verified.stderr}`);
    return 1;
  }
  // Problems name files inside the store: shown relative to it, so the table says what broke.
  const relative = (text) => text.split(`${store}/`).join('');
  const byId = new Map(report.stored.map((s) => [s.session, s]));
  const rows = sessions.map((s) => {
    const v = byId.get(s.id);
    return {
      session: s.id,
      agent: s.agent ?? '',
      events: s.events,
      owner: s.owner ?? '',
      title: s.title ?? '',
      status: v ? (v.ok ? 'ok' : 'FAILED') : 'not verified',
      signature: v?.signature?.status ?? '',
      problem: v && !v.ok ? relative(v.problems[0] ?? '') : '',
    };
  });
  // Sessions the log has but the index does not list (a damaged index) are reported too.
  for (const v of report.stored) {
    if (!sessions.some((s) => s.id === v.session)) rows.push({ session: v.session, agent: '', events: v.events, owner: '', title: '', status: v.ok ? 'ok' : 'FAILED', signature: v.signature?.status ?? '', problem: v.problems[0] ?? '' });
  }
  const failedReceipts = report.receipts.filter((r) => !r.ok);
  if (json) {
    for (const row of rows) process.stdout.write(JSON.stringify(row) + '\n');
    for (const r of report.receipts) process.stdout.write(JSON.stringify({ receipt: r.receipt, status: r.ok ? 'ok' : 'FAILED', problem: r.problems[0] ?? '' }) + '\n');
  } else {
    const cut = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);
    table(
      ['session', 'agent', 'events', 'owner', 'status', 'title / problem'],
      rows.map((r) => [r.session, r.agent, String(r.events), r.owner, r.status, cut(r.problem || r.title, 90)]),
    );
    const bad = rows.filter((r) => r.status !== 'ok').length;
    process.stdout.write(
      `\n${rows.length} sessions: ${rows.length - bad} verified, ${bad} failed; ` +
        `${report.receipts.length} handoff receipts: ${report.receipts.length - failedReceipts.length} verified, ${failedReceipts.length} failed\n`,
    );
    for (const r of failedReceipts) process.stdout.write(`FAILED receipt ${r.receipt}: ${r.problems[0] ?? ''}\n`);
  }
  return rows.every((r) => r.status === 'ok') && failedReceipts.length === 0 ? 0 : 1;
}

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  process.stdout.write([line(header), ...rows.map(line)].join('\n') + '\n');
}

if (argv.help) {
  process.stdout.write(HELP + '\n');
  process.exit(0);
}
if (!existsSync(bin('verify'))) {
  process.stderr.write('audit: the project is not built: run npm ci (or npm run build) first\n');
  process.exit(2);
}

if (argv.demo) {
  const work = demoFolder('sp-audit-demo-', argv.keep);
  const { homes } = await demoHomes('audit', join(work, 'homes'), []);
  const env = { ...process.env, SP_HOME: join(work, 'sp-home'), SP_PROGRESS: '0' };
  const store = join(work, 'store');
  // One recorded scenario per agent is enough to show the table.
  for (const [agent, list] of Object.entries(homes)) {
    const stored = await $({ nothrow: true, env })`${node} ${bin('capture')} ${agent} --all --home ${list[0]} --quiet | ${node} ${bin('redact')} --quiet | ${node} ${bin('sync')} ingest --store ${store} --quiet`;
    if (stored.exitCode !== 0) process.stderr.write(`audit --demo: storing ${agent} failed: ${stored.stderr}\n`);
  }
  process.stdout.write(`audit --demo: the store ${store}\n\n`);
  const clean = await audit(store, env, argv.json);
  // The same store with one byte of one stored event changed: the audit names the session and the damage.
  const tampered = join(work, 'store-tampered');
  cpSync(store, tampered, { recursive: true });
  const victim = readdirSync(join(tampered, 'sessions')).sort()[0];
  const log = join(tampered, 'sessions', victim, 'events.jsonl');
  const text = readFileSync(log, 'utf8');
  const at = text.indexOf('"text":"') + 8;
  writeFileSync(log, text.slice(0, at) + (text[at] === 'X' ? 'Y' : 'X') + text.slice(at + 1));
  process.stdout.write(`\nthe same store with one character of ${victim} changed (${tampered}):\n\n`);
  const damaged = await audit(tampered, env, argv.json);
  process.exit(clean === 0 && damaged === 1 ? 0 : 1);
}

const store = resolve(argv.store ?? join(process.env.SP_HOME || join(process.env.HOME ?? tmpdir(), '.sp'), 'store'));
process.exit(await audit(store, process.env, argv.json));
