#!/usr/bin/env node
// Real agent clients that `npm ci` cannot pin, fetched once into a cache for the acceptance tests:
//
//   node scripts/clients.mjs prepare      installs every such client (quietly skips those present)
//   node scripts/clients.mjs bin AGENT    prints the path of AGENT's binary (exit 2 when absent)
//
// Which clients: every adapter whose `client` names a package that package.json does not list as a
// devDependency. Factory Droid is one: its launcher `@factory/cli` pins its per-platform binary
// package to the launcher's exact version, and a registry that lacks that release for a platform
// (the one this project's CI uses has only a later patch release of the Linux binary) makes
// `npm ci` of the whole project fail. Here the launcher is installed at its pinned version and,
// when its platform binary did not come with it, the newest patch release of the same minor version
// is added beside it — the nearest release that exists, named in the output. The drift watch
// (scripts/drift.mjs) installs a newest release the same way (installLauncher).
// The cache is $SP_CLIENTS_CACHE (default ~/.cache/sp-clients), one folder per package@version.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = resolve(process.env.SP_CLIENTS_CACHE ?? join(homedir(), '.cache', 'sp-clients'));
const fail = (what) => {
  process.stderr.write(`clients: ${what}\n`);
  process.exit(2);
};
const log = (what) => process.stderr.write(`clients: ${what}\n`);

/** Adapters' clients that are not devDependencies (read from the build: dist/adapters). */
async function fetchedClients() {
  const registry = join(root, 'dist', 'adapters', 'index.js');
  if (!existsSync(registry)) fail('dist/ is missing: run `npm run build` first');
  const { adapters } = await import(registry);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const pinnedHere = { ...pkg.dependencies, ...pkg.devDependencies };
  const out = new Map();
  for (const adapter of Object.values(adapters)) {
    const client = adapter.client;
    if (client && !(client.package in pinnedHere)) out.set(adapter.id, client);
  }
  return out;
}

const folderOf = (client) => join(cache, `${client.package.replace('/', '+')}@${client.pinned}`);
const binOf = (client) => join(folderOf(client), 'node_modules', '.bin', client.bin);

/** `npm ARGS` in `cwd`, bounded: whether it exited 0, and what it printed. */
export function npmRun(args, cwd) {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 600_000 });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

/** The launcher's optional dependencies that are meant for this machine (os/cpu in their names). */
export function platformPackages(folder, client, platform = `${process.platform}-${process.arch}`) {
  const manifest = JSON.parse(readFileSync(join(folder, 'node_modules', client.package, 'package.json'), 'utf8'));
  return Object.keys(manifest.optionalDependencies ?? {}).filter((name) => name.endsWith(`-${platform}`));
}

/** Why npm failed, in one line: its first error lines (its last line only points at a log file). */
export function npmReason(output) {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/A complete log of this run/.test(l));
  const errors = lines.filter((l) => /^npm (error|ERR!)/.test(l)).map((l) => l.replace(/^npm (error|ERR!)\s*/, '')).filter((l) => l !== '');
  return (errors.length > 0 ? errors.slice(0, 2).join('; ') : lines.pop() ?? 'no output').slice(0, 300);
}

/**
 * Installs `client.package@version` into the prefix `folder` and, when a per-platform binary package
 * the launcher names did not come with it (the registry lacks that exact release), the newest patch
 * release of the same minor version beside it. Returns the binary's path and a note per substitute;
 * throws with one line when npm fails. `ignoreScripts` false lets install scripts run (a scratch
 * prefix of the drift watch, whose packages may unpack their binary in one); `npm` is the seam the
 * tests replace.
 */
export function installLauncher(folder, client, version, { ignoreScripts = true, platform, npm = npmRun } = {}) {
  const spec = `${client.package}@${version}`;
  const flags = ['install', '--prefix', folder, '--no-save', '--no-audit', '--no-fund', ...(ignoreScripts ? ['--ignore-scripts'] : [])];
  const first = npm([...flags, spec], folder);
  if (!first.ok) throw new Error(`${spec}: npm install failed: ${npmReason(first.output)}`);
  const notes = [];
  for (const name of platformPackages(folder, client, platform)) {
    if (existsSync(join(folder, 'node_modules', name))) continue;
    const [major, minor] = version.split('.');
    const nearest = `${name}@~${major}.${minor}.0`;
    const added = npm([...flags, spec, nearest], folder);
    if (!added.ok) throw new Error(`${nearest}: npm install failed: ${npmReason(added.output)}`);
    const got = JSON.parse(readFileSync(join(folder, 'node_modules', name, 'package.json'), 'utf8')).version;
    notes.push(`${spec}: its ${name}@${version} is not on the registry; took ${got}, the nearest patch release`);
  }
  const bin = join(folder, 'node_modules', '.bin', client.bin);
  if (!existsSync(bin)) throw new Error(`${spec}: installed, but it has no ${client.bin} binary`);
  return { bin, notes };
}

function install(client) {
  const folder = folderOf(client);
  if (existsSync(binOf(client))) return folder;
  // Built in a scratch folder and renamed into place, so a half-done install is never taken for a whole one.
  const scratch = `${folder}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  try {
    for (const note of installLauncher(scratch, client, client.pinned).notes) log(note);
  } catch (err) {
    fail(err.message);
  }
  rmSync(folder, { recursive: true, force: true });
  renameSync(scratch, folder);
  return folder;
}

async function main() {
  const [command, agent] = process.argv.slice(2);
  const clients = await fetchedClients();
  if (command === 'prepare') {
    mkdirSync(cache, { recursive: true });
    for (const [id, client] of clients) {
      install(client);
      log(`${id}: ${client.package}@${client.pinned} in ${folderOf(client)}`);
    }
  } else if (command === 'bin') {
    const client = clients.get(agent ?? '');
    if (!client) fail(`no fetched client for ${JSON.stringify(agent)} (fetched: ${[...clients.keys()].join(', ') || 'none'})`);
    if (!existsSync(binOf(client))) fail(`${client.package}@${client.pinned} is not fetched yet: run \`node scripts/clients.mjs prepare\``);
    process.stdout.write(`${binOf(client)}\n`);
  } else {
    fail('usage: node scripts/clients.mjs prepare | bin AGENT');
  }
}

// Run as a script; imported (scripts/drift.mjs, the tests) it only lends installLauncher.
if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) await main();
