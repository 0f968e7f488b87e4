#!/usr/bin/env node
// audit: verify every session in the sp store (hash chain, schema, signed manifest) and every handoff receipt, as one summary table.
//
// What sp-sync ls lists and sp-verify --store checks, in this process: one row per stored session
// (agent, events, owner, status, the title or the first problem) and a line per receipt. Exit 0 when
// everything verifies, 1 when anything does not (the table says what and where), 2 without a store.
import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adapters } from '../adapters/index.js';
import { runCli, writeJsonLine } from '../lib/cli/cli.js';
import { colorEnabled } from '../lib/cli/color.js';
import { EXIT_CHECK_FAILED, EXIT_OK, UserError, note, warn } from '../lib/cli/diagnostics.js';
import { createValidator } from '../lib/core/schema.js';
import { capture, ingest, resolveSessions } from '../lib/ops/index.js';
import { Redactor } from '../lib/redact/ensure.js';
import { Store, resolveStoreDir, spHome, trustedKeys, verifyStoredInputs, type StoredVerifyReport } from '../lib/store/index.js';
import { palette } from '../lib/term/color.js';
import { renderTable } from '../lib/term/table.js';
import { demoHomes } from './demo.js';

interface Args {
  store?: string;
  json: boolean;
  demo: boolean;
  keep: boolean;
}

export interface AuditRow {
  session: string;
  agent: string;
  events: number;
  owner: string;
  title: string;
  status: 'ok' | 'FAILED' | 'not verified';
  signature: string;
  problem: string;
}

/** The store's sessions as listed (titles redacted, as sp-sync ls shows them) joined with what verification found. */
function auditRows(store: Store, report: StoredVerifyReport, redactor: Redactor): AuditRow[] {
  // Problems name files inside the store: shown relative to it, so the row says what broke.
  const relative = (text: string) => text.split(`${store.dir}/`).join('');
  const byId = new Map(report.stored.map((s) => [s.session, s]));
  const listed = store.sessions();
  const rows: AuditRow[] = listed.map((s) => {
    const v = byId.get(s.id);
    return {
      session: s.id,
      agent: s.agent ?? '',
      events: s.events,
      owner: s.owner ?? '',
      title: redactor.redactText(s.title) ?? '',
      status: v ? (v.ok ? 'ok' : 'FAILED') : 'not verified',
      signature: v?.signature.status ?? '',
      problem: v && !v.ok ? relative(v.problems[0] ?? '') : '',
    };
  });
  // Sessions the logs hold but the index does not list (a damaged index) are reported too.
  const seen = new Set(listed.map((s) => s.id));
  for (const v of report.stored) {
    if (!seen.has(v.session)) rows.push({ session: v.session, agent: '', events: v.events, owner: '', title: '', status: v.ok ? 'ok' : 'FAILED', signature: v.signature.status, problem: relative(v.problems[0] ?? '') });
  }
  return rows;
}

/** Audits one store; resolves to the exit status. */
export async function audit(storeDir: string, json: boolean): Promise<number> {
  if (!existsSync(join(storeDir, 'sessions'))) throw new UserError('no store here (fill it with sp-sync ingest, or sp archive; --store DIR names another)', storeDir);
  const receiptDir = join(storeDir, 'receipts');
  const receipts = existsSync(receiptDir) ? readdirSync(receiptDir).filter((f) => f.endsWith('.json')).sort().map((f) => join(receiptDir, f)) : [];
  const report = await verifyStoredInputs({ storeDirs: [storeDir], sessionDirs: [], receipts, streams: [] }, trustedKeys(spHome()), await createValidator(), storeDir);
  const store = Store.open(storeDir, { readonly: true });
  let rows: AuditRow[];
  try {
    rows = auditRows(store, report, await Redactor.load());
  } finally {
    store.close();
  }
  const failedReceipts = report.receipts.filter((r) => !r.ok);
  if (json) {
    for (const row of rows) writeJsonLine(row);
    for (const r of report.receipts) writeJsonLine({ receipt: r.receipt, status: r.ok ? 'ok' : 'FAILED', problem: r.problems[0] ?? '' });
  } else {
    const columns = [{ header: 'session' }, { header: 'agent' }, { header: 'events', align: 'right' as const }, { header: 'owner' }, { header: 'status' }, { header: 'title / problem', max: 90 }];
    const cells = rows.map((r) => [r.session, r.agent, String(r.events), r.owner, r.status, r.problem || r.title]);
    process.stdout.write(renderTable(columns, cells, { width: 400, palette: palette(colorEnabled()) }));
    const bad = rows.filter((r) => r.status !== 'ok').length;
    process.stdout.write(
      `\n${rows.length} sessions: ${rows.length - bad} verified, ${bad} failed; ` +
        `${report.receipts.length} handoff receipts: ${report.receipts.length - failedReceipts.length} verified, ${failedReceipts.length} failed\n`,
    );
    for (const r of failedReceipts) process.stdout.write(`FAILED receipt ${r.receipt}: ${r.problems[0] ?? ''}\n`);
  }
  return rows.every((r) => r.status === 'ok') && failedReceipts.length === 0 && report.artifacts.every((a) => a.ok) ? EXIT_OK : EXIT_CHECK_FAILED;
}

/** --demo: one fixture home per agent stored, audited; then a copy with one character of one event changed, audited. */
async function demo(keep: boolean, json: boolean): Promise<number> {
  const { work, homes } = await demoHomes('audit', keep);
  process.env.SP_HOME = join(work, 'sp-home');
  const storeDir = join(work, 'store');
  const store = Store.open(storeDir);
  try {
    for (const [agent, list] of Object.entries(homes)) {
      const sessions = await resolveSessions({ all: true }, { registry: adapters, agent, home: list[0], onDiagnostic: () => {} });
      await ingest(store, capture(sessions, { onDiagnostic: () => {} })); // redacted again: the manifest records it
    }
  } finally {
    store.close();
  }
  note(undefined, `audit --demo: the store ${storeDir}`);
  const clean = await audit(storeDir, json);
  const tampered = join(work, 'store-tampered');
  cpSync(storeDir, tampered, { recursive: true });
  const victim = readdirSync(join(tampered, 'sessions')).sort()[0];
  const log = join(tampered, 'sessions', victim, 'events.jsonl');
  const text = readFileSync(log, 'utf8');
  const at = text.indexOf('"text":"') + 8;
  writeFileSync(log, text.slice(0, at) + (text[at] === 'X' ? 'Y' : 'X') + text.slice(at + 1));
  if (!json) process.stdout.write(`\nthe same store with one character of ${victim} changed (${tampered}):\n\n`);
  else note(undefined, `the same store with one character of ${victim} changed (${tampered})`);
  const damaged = await audit(tampered, json);
  if (damaged !== EXIT_CHECK_FAILED) warn('--demo', 'the tampered copy was not caught');
  return clean === EXIT_OK && damaged === EXIT_CHECK_FAILED ? EXIT_OK : EXIT_CHECK_FAILED;
}

await runCli<Args>({
  name: 'audit',
  summary: 'Verifies every session in the sp store (hash chain, schema, signed manifest) and every handoff receipt, as one summary table.',
  usage: '[--store DIR] [--json] [--demo]',
  examples: [
    ['sp audit', 'the default store ($SP_HOME/store)'],
    ['sp audit --store /backup/sp-store --json', 'one JSON line per session, then one per receipt'],
    ['sp audit --demo', 'a few fixture sessions stored and audited, then a copy with one byte changed'],
  ],
  epilogue: 'Exit 0 when everything verifies, 1 when something does not (the table says what and where), 2 when there is no store.',
  options: (y) =>
    y
      .option('store', { type: 'string', describe: 'the store (default $SP_HOME/store; SP_HOME defaults to ~/.sp)' })
      .option('json', { type: 'boolean', default: false, describe: 'the rows as JSON lines instead of the table' })
      .option('demo', { type: 'boolean', default: false, describe: 'store a few fixture sessions in a temporary store, audit it, then audit a copy with one changed character' })
      .option('keep', { type: 'boolean', default: false, describe: 'with --demo: keep its temporary folder (removed on exit otherwise)' }) as never,
  run: async (args) => (args.demo ? demo(args.keep, args.json) : audit(resolveStoreDir(args.store), args.json)),
});
