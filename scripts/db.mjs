#!/usr/bin/env node
// A throwaway PostgreSQL cluster for tests and benches (`npm run db:start`, `npm run db:stop`).
//
//   start   initdb into a fresh temp folder, listen on 127.0.0.1 only (a free port), the unix
//           socket inside that folder, trust auth for loopback only; create database `sp`.
//           Prints the postgres:// URL and the data folder, and writes both to .sp-test-db.json
//           (or --state FILE). Exits 0 with the server running in the background.
//   stop    stops the cluster named in the state file and removes its folder.
//
// initdb refuses to run as root: as root the cluster is made and run by the `postgres` OS user
// (Debian's postgresql package creates it) through runuser. The binaries come from $PG_BIN, else
// the newest /usr/lib/postgresql/<version>/bin, else PATH.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_STATE = join(root, '.sp-test-db.json');

/** The folder holding initdb and pg_ctl; undefined when none is installed. */
export function findPgBin() {
  if (process.env.PG_BIN && existsSync(join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN;
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base).filter((v) => /^\d+$/.test(v) && existsSync(join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(base, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  return undefined;
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** The OS user the cluster runs as: postgres when we are root (initdb refuses root), else us. */
function runAs() {
  if (process.getuid?.() !== 0) return undefined;
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0) throw new Error('running as root and there is no `postgres` OS user to run the cluster as (initdb refuses root)');
  return { name: 'postgres', uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function run(user, command, args) {
  const full = user ? ['runuser', ['-u', user.name, '--', command, ...args]] : [command, args];
  const r = spawnSync(full[0], full[1], { encoding: 'utf8', cwd: tmpdir() });
  if (r.status !== 0) throw new Error(`${command.split('/').pop()} failed (exit ${r.status}): ${(r.stderr || r.stdout || r.error?.message || '').trim().split('\n').slice(-3).join(' / ')}`);
  return r.stdout;
}

/** Starts a cluster; returns { url, dir, port, bin, user }. */
export async function startCluster() {
  const bin = findPgBin();
  if (!bin) throw new Error('no PostgreSQL binaries (initdb, pg_ctl) found: install postgresql-15 (apt-get install -y --no-install-recommends postgresql-15) or set PG_BIN');
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'sp-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  run(user, join(bin, 'initdb'), ['-D', data, '-U', 'sp', '--auth-local=trust', '--auth-host=reject', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  // Loopback only: trust for 127.0.0.1/32 and ::1, nothing else is listened on or accepted.
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
  const port = await freePort();
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100 -c shared_buffers=128MB`;
  run(user, join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
  run(user, join(bin, 'createdb'), ['-h', dir, '-p', String(port), '-U', 'sp', 'sp']);
  return { url: `postgres://sp@127.0.0.1:${port}/sp`, dir, port, bin, user: user?.name };
}

/** Stops a cluster startCluster made and removes its folder. */
export function stopCluster(state) {
  const user = state.user ? runAs() : undefined;
  const data = join(state.dir, 'data');
  if (existsSync(data)) {
    try {
      run(user, join(state.bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch (err) {
      if (!/not running|No such file|does not exist/i.test(String(err.message))) throw err;
    }
  }
  rmSync(state.dir, { recursive: true, force: true });
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const at = rest.indexOf('--state');
  const statePath = at >= 0 ? resolve(rest[at + 1]) : DEFAULT_STATE;
  try {
    if (command === 'start') {
      if (existsSync(statePath)) throw new Error(`${statePath} exists: a cluster is running (npm run db:stop first)`);
      const state = await startCluster();
      writeFileSync(statePath, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
      process.stdout.write(`${state.url}\n`);
      process.stderr.write(`db: PostgreSQL at ${state.url}, data in ${state.dir} (state: ${statePath}); stop with: npm run db:stop\n`);
      return 0;
    }
    if (command === 'stop') {
      if (!existsSync(statePath)) throw new Error(`${statePath}: no cluster started (npm run db:start)`);
      stopCluster(JSON.parse(readFileSync(statePath, 'utf8')));
      rmSync(statePath, { force: true });
      process.stderr.write('db: stopped and removed\n');
      return 0;
    }
    process.stderr.write('usage: node scripts/db.mjs start|stop [--state FILE]\n');
    return 2;
  } catch (err) {
    process.stderr.write(`db: ${err.message}\n`);
    return 2;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await main();
