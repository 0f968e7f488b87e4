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
// is added beside it — the nearest release that exists, named in the output.
// The cache is $SP_CLIENTS_CACHE (default ~/.cache/sp-clients), one folder per package@version.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
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

function npm(args, cwd) {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: 600_000 });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

/** The launcher's optional dependencies that are meant for this machine (os/cpu in their names). */
function platformPackages(folder, client) {
  const manifest = JSON.parse(readFileSync(join(folder, 'node_modules', client.package, 'package.json'), 'utf8'));
  const platform = `${process.platform}-${process.arch}`;
  return Object.keys(manifest.optionalDependencies ?? {}).filter((name) => name.endsWith(`-${platform}`));
}

function install(client) {
  const folder = folderOf(client);
  if (existsSync(binOf(client))) return folder;
  // Built in a scratch folder and renamed into place, so a half-done install is never taken for a whole one.
  const scratch = `${folder}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const spec = `${client.package}@${client.pinned}`;
  const first = npm(['install', '--prefix', scratch, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', spec], scratch);
  if (!first.ok) fail(`${spec}: npm install failed: ${first.output.split('\n').pop()}`);
  for (const name of platformPackages(scratch, client)) {
    if (existsSync(join(scratch, 'node_modules', name))) continue;
    const [major, minor] = client.pinned.split('.');
    const nearest = `${name}@~${major}.${minor}.0`;
    const added = npm(['install', '--prefix', scratch, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', spec, nearest], scratch);
    if (!added.ok) fail(`${nearest}: npm install failed: ${added.output.split('\n').pop()}`);
    const got = JSON.parse(readFileSync(join(scratch, 'node_modules', name, 'package.json'), 'utf8')).version;
    log(`${spec}: its ${name}@${client.pinned} is not on the registry; took ${got}, the nearest patch release`);
  }
  rmSync(folder, { recursive: true, force: true });
  renameSync(scratch, folder);
  return folder;
}

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
