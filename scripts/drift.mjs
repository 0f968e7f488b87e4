#!/usr/bin/env node
// npm run drift: the day a client changes its format, this says so. For every adapter that names
// its real client (adapters/<agent>/index.ts `client`), it asks the npm registry for the newest
// version, installs a newer one into a scratch prefix (never into node_modules, whose pinned
// clients the tests run), has it record a fresh turn against the mock model, captures it with sp,
// names the record types and fields no fixture of the agent has, and relays the session into every
// writer target whose client then resumes it (test/drift/check.drift.ts, run through vitest so the
// acceptance runners are reused as they are). It prints one row per agent and exits 1 on a
// regression: a read or resume that fails on the newest client and passes on the pinned one.
//
//   node scripts/drift.mjs [--only claude,codex] [--json] [--markdown FILE] [--force] [--budget SECONDS]
//   node scripts/drift.mjs --pins-from drift.json     (the README's pinned/newest table from a --json run)
//
// --force checks a client whose newest version is the pinned one too, with the pinned binary, and
// the pinned one when the newest cannot be installed here (by
// default that row says "same": the suite's acceptance tests check the pinned clients). --scratch DIR
// keeps the installed clients and recordings there (else a temp folder, removed at the end).
// Exit 0 ok, 1 regression, 2 usage or nothing could be looked up.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installLauncher } from './clients.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

// ---- record shapes: what a native file holds, by record type and field -------------------------

/** The record type of a native JSON record: its `type` (or `kind`, `event`), with a nested payload's type. */
export function recordType(record) {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return '(not an object)';
  const own = [record.type, record.kind, record.event].find((v) => typeof v === 'string') ?? '(untyped)';
  const inner = record.payload && typeof record.payload === 'object' && typeof record.payload.type === 'string' ? record.payload.type : undefined;
  return inner === undefined ? own : `${own}/${inner}`;
}

/** The fields a record has: its own keys, and one level into the objects that carry the content. */
function recordFields(record, type, into) {
  for (const [key, value] of Object.entries(record)) {
    into.add(`${type}.${key}`);
    if ((key === 'payload' || key === 'message' || key === 'data') && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const inner of Object.keys(value)) into.add(`${type}.${key}.${inner}`);
    }
  }
}

/** Record types and fields of JSON-lines text (lines that are not JSON are skipped: the capture reports them). */
export function shapesOfText(text, shapes = { types: new Set(), fields: new Set() }, file = '') {
  // A record with no type is named by its file, cut at the first digit (ids and dates differ per session):
  // usage_record.jsonl, session-*.
  const name = basename(file).replace(/\.jsonl?$/, '');
  const untyped = `(untyped${file ? `, ${name.search(/\d/) < 0 ? name : `${name.slice(0, name.search(/\d/))}*`}` : ''})`;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    const found = recordType(record);
    const type = found === '(untyped)' ? untyped : found;
    shapes.types.add(type);
    if (record && typeof record === 'object' && !Array.isArray(record)) recordFields(record, type, shapes.fields);
  }
  return shapes;
}

/**
 * The records of a JSON document session (Cline, Continue, Auggie keep a session as one document):
 * the document, named by its file with ids replaced by `*`, with its top-level fields, and each item
 * of a top-level list of objects as a record `<document>.<list>[]` with its fields and one level into
 * the objects they hold (an item's content sits one level down: `message`, `exchange` …).
 */
export function shapesOfDocument(text, shapes = { types: new Set(), fields: new Set() }, file = '') {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    return shapes;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return shapes;
  const name = `(document ${basename(file).replace(/\.json$/, '').replace(/[^.]*\d[^.]*/g, '*') || '*'})`;
  shapes.types.add(name);
  for (const [key, value] of Object.entries(doc)) {
    shapes.fields.add(`${name}.${key}`);
    if (!Array.isArray(value)) continue;
    for (const item of value) {
      if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
      const own = recordType(item);
      const type = `${name}.${key}[]${own === '(untyped)' ? '' : `/${own}`}`;
      shapes.types.add(type);
      for (const [field, inner] of Object.entries(item)) {
        shapes.fields.add(`${type}.${field}`);
        if (inner && typeof inner === 'object' && !Array.isArray(inner)) for (const k of Object.keys(inner)) shapes.fields.add(`${type}.${field}.${k}`);
      }
    }
  }
  return shapes;
}

/** Every file under `dir` whose name ends with `ext` (symlinks are not followed: a fixture tree is data). */
function filesEnding(dir, ext, into = []) {
  if (!existsSync(dir)) return into;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) filesEnding(path, ext, into);
    else if (entry.isFile() && entry.name.endsWith(ext)) into.push(path);
  }
  return into;
}

/** Every `.jsonl` file under `dir`. */
export const jsonlFiles = (dir, into = []) => filesEnding(dir, '.jsonl', into);

/**
 * An agent's session records among `files`: its JSON-lines files, or, for an agent that has none
 * (its sessions are JSON documents), its `.json` files. Used alike for the fixtures and a fresh
 * recording, so both sides are scanned the same way.
 */
export function recordFiles(files) {
  const lines = files.filter((f) => f.endsWith('.jsonl'));
  return lines.length ? lines : files.filter((f) => f.endsWith('.json'));
}

/**
 * The session records among the files a check saw the client write: for a session kept as one JSON
 * document, the documents in its folder (not the settings documents or logs a client writes beside
 * it: Cline appends a hooks.jsonl); else its JSON-lines files.
 */
export function freshRecordFiles(result) {
  if (result.session_dir !== undefined) return result.fresh_files.filter((f) => f.endsWith('.json') && f.startsWith(`${result.session_dir}/`));
  return result.fresh_files.filter((f) => f.endsWith('.jsonl'));
}

/** The session record files under an agent's fixture folder. */
export const fixtureRecordFiles = (dir) => recordFiles(filesEnding(dir, '.json').concat(jsonlFiles(dir)));

export function shapesOfFiles(files) {
  const shapes = { types: new Set(), fields: new Set() };
  for (const file of files) (file.endsWith('.json') ? shapesOfDocument : shapesOfText)(readFileSync(file, 'utf8'), shapes, file);
  return shapes;
}

/** What `fresh` has that `known` never had: new types, and new fields of types known before. */
export function newShapes(fresh, known) {
  const types = [...fresh.types].filter((t) => !known.types.has(t)).sort();
  // A new type's own fields are not listed again (matched by prefix: a document's type names hold dots).
  const fields = [...fresh.fields].filter((f) => !known.fields.has(f) && !types.some((t) => f.startsWith(`${t}.`))).sort();
  return { types, fields };
}

// ---- rows, the regression rule, the table --------------------------------------------------------

/** Whether a check passed where it ran: read ok and every target it reached resumed (one the budget did not reach is no failure). */
const passed = (check) => Boolean(check && check.read_ok && check.targets.every((t) => t.ok || /^not checked/.test(t.reason)));

/**
 * The regression rule: the newest client fails a read or a resume that the pinned one passes. A
 * failure the pinned client shares is a known gap, not drift; a failure with no pinned run to compare
 * (it could not run) counts as a regression, since nothing shows it is old.
 */
export function regressionsOf(newest, pinned) {
  if (!newest) return [];
  const found = [];
  if (!newest.read_ok && (!pinned || pinned.read_ok)) found.push(`read: ${newest.read_reason}`);
  for (const t of newest.targets) {
    if (t.ok || /^not checked/.test(t.reason)) continue;
    const before = pinned?.targets.find((p) => p.target === t.target);
    if (!pinned || !before || before.ok) found.push(`${t.target}: ${t.reason}`);
  }
  return found;
}

/** One table row from the version lookup, the checks and the fixtures' shapes. */
export function rowOf({ agent, pkg, pinned, newest, checkedAt, error, installError, check, pinnedCheck, fresh, known }) {
  const row = { agent, package: pkg, pinned, newest: newest ?? null, checked_at: checkedAt, status: 'checked', read_ok: null, new_types: [], new_fields: [], targets: [], write_resume_ok: null, regressions: [], notes: [] };
  if (error) return { ...row, status: 'error', notes: [error] };
  if (!check) return { ...row, status: 'same' };
  // No recorder for this agent yet (no relay target to record with): said, never a regression.
  if (check.no_recorder) return { ...row, status: 'no recorder', notes: [check.read_reason] };
  row.read_ok = check.read_ok;
  if (!check.read_ok) row.notes.push(check.read_reason);
  if (fresh && known && fresh.types.size > 0) Object.assign(row, (({ types, fields }) => ({ new_types: types, new_fields: fields }))(newShapes(fresh, known)));
  else row.notes.push('record shapes not scanned: the client wrote no JSON records (a database)');
  row.targets = check.targets;
  if (installError) row.notes.unshift(`the newest (${newest}) cannot be installed here, so the pinned ${pinned} was checked: ${installError}`);
  const reached = check.targets.filter((t) => !/^not checked/.test(t.reason));
  row.write_resume_ok = check.read_ok ? reached.length > 0 && reached.every((t) => t.ok) : false;
  for (const t of check.targets) if (!t.ok) row.notes.push(`${t.target}: ${t.reason}`);
  row.regressions = regressionsOf(check, pinnedCheck);
  return row;
}

/** The exit code of a run: 1 on any regression, 2 when no version could be looked up, else 0. */
export function exitCodeOf(rows) {
  if (rows.some((r) => r.regressions.length > 0)) return 1;
  if (rows.length > 0 && rows.every((r) => r.status === 'error')) return 2;
  return 0;
}

const yesNo = (v) => (v === null ? '-' : v ? 'yes' : 'NO');
function resumeCell(row) {
  if (row.write_resume_ok === null) return '-';
  const ok = row.targets.filter((t) => t.ok).map((t) => t.target);
  const unchecked = row.targets.filter((t) => !t.ok && /^not checked/.test(t.reason)).map((t) => t.target);
  const bad = row.targets.filter((t) => !t.ok && !unchecked.includes(t.target)).map((t) => t.target);
  const more = [bad.length ? `failed: ${bad.join(', ')}` : '', unchecked.length ? `not reached in the budget: ${unchecked.join(', ')}` : ''].filter(Boolean);
  return `${row.write_resume_ok ? 'yes' : 'NO'} (${ok.length}/${row.targets.length}${more.length ? `; ${more.join('; ')}` : ''})`;
}
function newCell(row) {
  const parts = [...row.new_types.map((t) => `type ${t}`), ...row.new_fields];
  if (parts.length) return parts.join(', ');
  if (row.status !== 'checked') return '-';
  return row.notes.some((n) => n.startsWith('record shapes not scanned')) ? 'not scanned (database)' : 'none';
}

export const COLUMNS = ['agent', 'pinned', 'newest', 'read ok', 'new record types / fields', 'write+resume ok'];
export function cellsOf(row) {
  const newest = row.status === 'error' ? `? (${row.notes[0]})` : row.status === 'same' || (row.status !== 'checked' && row.newest === row.pinned) ? `${row.newest} (= pinned)` : row.newest;
  return [row.agent, row.pinned, newest, yesNo(row.read_ok), newCell(row), resumeCell(row) + (row.regressions.length ? ' REGRESSION' : '')];
}

/** A plain-text table (aligned columns) for the terminal and the CI log. */
export function renderTable(rows) {
  const cells = [COLUMNS, ...rows.map(cellsOf)];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  return cells.map((c) => c.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd()).join('\n') + '\n';
}

/** The same rows as a Markdown table (the README's compatibility table is written from it). */
export function renderMarkdown(rows) {
  const esc = (v) => v.replace(/\|/g, '\\|');
  const lines = [`| ${COLUMNS.join(' | ')} |`, `|${COLUMNS.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${cellsOf(row).map(esc).join(' | ')} |`);
  return lines.join('\n') + '\n';
}

/**
 * The README's "pinned and newest" table from a saved `--json` report: per agent its client, the
 * pinned version, and the newest version the run checked with the run's date and outcome.
 */
export function renderPins(report) {
  const day = String(report.checked_at ?? '').slice(0, 10);
  const lines = ['| agent | client (npm) | pinned | newest checked | outcome |', '|---|---|---|---|---|'];
  for (const row of report.rows) {
    const outcome =
      row.status === 'error' ? `not looked up: ${row.notes[0] ?? ''}` :
      row.status === 'same' ? 'the pinned version is the newest' :
      row.status === 'no recorder' ? `not recorded: ${row.notes[0] ?? ''}` :
      row.regressions.length ? `regression: ${row.regressions.join('; ')}` :
      `read ${row.read_ok ? 'ok' : 'failed'}; write+resume ${row.write_resume_ok ? 'ok' : 'failed'} (${row.targets.filter((t) => t.ok).length}/${row.targets.length} targets)` +
        (row.new_types.length ? `; new record types: ${row.new_types.join(', ')}` : '');
    lines.push(`| ${row.agent} | \`${row.package}\` | ${row.pinned} | ${row.newest ?? '?'} (${day}) | ${outcome.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n') + '\n';
}

// ---- the run ------------------------------------------------------------------------------------

/** `npm view <pkg> version`, bounded. */
export function npmView(pkg) {
  const r = spawnSync('npm', ['view', pkg, 'version'], { encoding: 'utf8', timeout: 60_000 });
  const version = (r.stdout ?? '').trim().split('\n').pop()?.trim();
  if (r.status !== 0 || !version || !/^\d+\.\d+\.\d+[\w.+-]*$/.test(version)) throw new Error(`npm view ${pkg} version failed: ${(r.stderr || r.error?.message || 'no answer').trim().split('\n').pop()}`);
  return version;
}

/** The version of a package in this checkout's node_modules (what the tests run), or undefined. */
export function installedVersion(pkg) {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/**
 * Whether a client's install scripts run, as where the tests get it: a devDependency unless
 * package.json's allowScripts says false; a fetched client never (scripts/clients.mjs ignores them).
 */
export function scriptsAllowed(pkg, manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))) {
  return pkg in (manifest.devDependencies ?? {}) && manifest.allowScripts?.[pkg] !== false;
}

/**
 * Installs pkg@version into its own scratch prefix; returns the path of its binary. A launcher whose
 * per-platform binary package lacks that exact release (Cline, Droid) gets the nearest patch release
 * beside it, as `node scripts/clients.mjs prepare` does (the same code: installLauncher).
 */
export function installClient(scratch, client, version, log = () => {}) {
  const prefix = join(scratch, `${client.package.replace(/[^\w.-]+/g, '_')}-${version}`);
  const bin = join(prefix, 'node_modules', '.bin', client.bin);
  if (existsSync(bin)) return bin;
  mkdirSync(prefix, { recursive: true });
  writeFileSync(join(prefix, 'package.json'), '{"private":true}\n');
  const installed = installLauncher(prefix, client, version, { ignoreScripts: !scriptsAllowed(client.package) });
  for (const note of installed.notes) log(note);
  return installed.bin;
}

const binVar = (agent) => `SP_CLIENT_BIN_${agent.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

/** Runs test/drift/check.drift.ts for one agent with these client binaries; resolves to its result. */
export function runCheck(agent, bins, { work, budgetMs }) {
  mkdirSync(work, { recursive: true });
  const out = join(work, 'result.json');
  const env = { ...process.env, SP_DRIFT_AGENT: agent, SP_DRIFT_OUT: out, SP_DRIFT_WORK: work, SP_DRIFT_BUDGET_MS: String(budgetMs) };
  for (const [id, bin] of Object.entries(bins)) env[binVar(id)] = bin;
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', '--config', 'vitest.drift.config.ts', 'test/drift/check.drift.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    // The budget bounds the targets; the grace lets the last resume finish and the result be written.
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, budgetMs + 120_000);
    child.on('close', () => {
      clearTimeout(timer);
      writeFileSync(join(work, 'vitest.log'), log);
      if (existsSync(out)) resolve(JSON.parse(readFileSync(out, 'utf8')));
      else resolve({ agent, read_ok: false, read_reason: `the check did not finish (see ${join(work, 'vitest.log')})`, fresh_files: [], targets: [], ms: 0 });
    });
  });
}

function parseArgs(argv) {
  const args = { only: undefined, json: false, markdown: undefined, force: false, budget: 120, scratch: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--only') args.only = value().split(',').map((s) => s.trim()).filter(Boolean);
    else if (a === '--json') args.json = true;
    else if (a === '--markdown') args.markdown = value();
    else if (a === '--force') args.force = true;
    else if (a === '--budget') args.budget = Number(value());
    else if (a === '--scratch') args.scratch = value(); // keep the installed clients and recordings there (reused by the next run)
    else if (a === '--pins-from') args.pinsFrom = value();
    else if (a === '--help' || a === '-h') args.help = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isFinite(args.budget) || args.budget <= 0 || args.budget > 600) throw new Error('--budget takes seconds, 1 to 600');
  return args;
}

/**
 * The whole run over `adapters` with its effects passed in (the test gives a fake registry answer
 * and a recorded check). Returns the rows; prints nothing.
 */
export async function drift({ adapters, only, force = false, view = npmView, installed = installedVersion, install, check, fixturesOf, freshOf, checkedAt = new Date().toISOString().slice(0, 10), log = () => {} }) {
  const clients = Object.values(adapters).filter((a) => a.client).sort((a, b) => a.id.localeCompare(b.id));
  if (only) {
    const unknown = only.filter((id) => !clients.some((a) => a.id === id));
    if (unknown.length) throw new Error(`--only: no adapter with a real client named ${unknown.join(', ')} (known: ${clients.map((a) => a.id).join(', ')})`);
  }
  const chosen = only ? clients.filter((a) => only.includes(a.id)) : clients;
  // Look every version up and install the newer ones first: a target's resume then runs its newest client too.
  const plans = [];
  const bins = {};
  for (const adapter of chosen) {
    const plan = { agent: adapter.id, pkg: adapter.client.package, pinned: adapter.client.pinned, checkedAt };
    try {
      plan.newest = view(adapter.client.package);
      // node_modules may still hold an older pin (package.json bumped, not yet reinstalled): then the scratch copy.
      if (plan.newest !== plan.pinned || (force && installed(adapter.client.package) !== plan.newest)) {
        log(`${adapter.id}: installing ${adapter.client.package}@${plan.newest}`);
        bins[adapter.id] = await install(adapter.client, plan.newest);
        plan.run = true;
      } else if (force) {
        plan.run = true; // the newest is the pinned one and node_modules has it: nothing to install
      }
    } catch (err) {
      const why = String(err.message ?? err);
      // A newest release that cannot be installed here (Kilo's platform binaries never reached the
      // registry): with --force the pinned client is checked instead, and the row says why.
      if (force && plan.newest !== undefined && plan.newest !== plan.pinned) {
        log(`${adapter.id}: the newest cannot be installed (${why}); checking the pinned ${plan.pinned}`);
        plan.installError = why;
        plan.run = true;
      } else plan.error = why;
    }
    plans.push(plan);
  }
  const rows = [];
  for (const plan of plans) {
    if (!plan.run) {
      rows.push(rowOf(plan));
      continue;
    }
    const onlyPinned = plan.installError !== undefined;
    log(`${plan.agent}: checking ${onlyPinned ? plan.pinned : plan.newest}`);
    const result = await check(plan.agent, bins, onlyPinned ? 'pinned' : 'newest');
    // At the pin, the newest is the pinned client: a failure there is a known gap, not drift.
    let pinnedCheck = plan.newest === plan.pinned || onlyPinned ? result : undefined;
    if (!passed(result) && !pinnedCheck) {
      // Compare before calling it drift: the same check with the pinned client (node_modules).
      log(`${plan.agent}: the newest failed; checking the pinned ${plan.pinned} to compare`);
      const pinnedBins = { ...bins };
      delete pinnedBins[plan.agent];
      pinnedCheck = await check(plan.agent, pinnedBins, 'pinned');
    }
    const fresh = shapesOfFiles(freshOf(plan.agent, result));
    rows.push(rowOf({ ...plan, check: result, pinnedCheck, fresh, known: shapesOfFiles(fixturesOf(plan.agent)) }));
  }
  return rows;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`drift: ${err.message}\n`);
    return 2;
  }
  if (args.help) {
    // The comment at the top of this file, up to the first import.
    const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
    process.stdout.write(lines.slice(1, lines.findIndex((l) => l.startsWith('import '))).map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
    return 0;
  }
  if (args.pinsFrom) {
    try {
      process.stdout.write(renderPins(JSON.parse(readFileSync(args.pinsFrom, 'utf8'))));
      return 0;
    } catch (err) {
      process.stderr.write(`drift: ${args.pinsFrom}: ${err.code ?? err.message}\n`);
      return 2;
    }
  }
  const registry = join(root, 'dist', 'adapters', 'index.js');
  if (!existsSync(registry)) {
    process.stderr.write('drift: dist/adapters/index.js: not built; run npm run build first\n');
    return 2;
  }
  const { adapters } = await import(pathToFileURL(registry).href);
  const scratch = args.scratch ?? mkdtempSync(join(tmpdir(), 'sp-drift-'));
  const works = new Map();
  const workOf = (agent, which) => join(scratch, 'work', `${agent}-${which}`);
  let rows;
  try {
    rows = await drift({
      adapters,
      only: args.only,
      force: args.force,
      install: (client, version) => installClient(join(scratch, 'clients'), client, version, (line) => process.stderr.write(`drift: ${line}\n`)),
      check: async (agent, bins, which) => {
        const work = workOf(agent, which);
        rmSync(work, { recursive: true, force: true });
        works.set(agent, workOf(agent, 'newest'));
        return runCheck(agent, bins, { work, budgetMs: args.budget * 1000 });
      },
      freshOf: (agent, result) => freshRecordFiles(result).map((f) => join(workOf(agent, 'newest'), 'fresh', f)),
      fixturesOf: (agent) => fixtureRecordFiles(join(root, 'fixtures', agent)),
      log: (line) => process.stderr.write(`drift: ${line}\n`),
    });
  } catch (err) {
    process.stderr.write(`drift: ${err.message}\n`);
    return 2;
  } finally {
    // A scratch folder of our own (the installed clients, the recordings) goes; one named with --scratch stays.
    if (args.scratch === undefined) rmSync(scratch, { recursive: true, force: true });
  }
  const report = { checked_at: new Date().toISOString(), node: process.version, rows };
  if (args.markdown) writeFileSync(args.markdown, renderMarkdown(rows));
  process.stdout.write(args.json ? JSON.stringify(report, null, 2) + '\n' : renderTable(rows));
  for (const row of rows) for (const r of row.regressions) process.stderr.write(`drift: ${row.agent} ${row.newest}: regression: ${r}\n`);
  return exitCodeOf(rows);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main();
