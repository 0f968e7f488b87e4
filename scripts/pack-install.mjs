// The published shape, as a user gets it: `npm pack` of this checkout (built already), then
// `npm i -g --prefix PREFIX TARBALL` with a clean HOME and npm cache, so only the runtime
// dependencies come in (from the registry). Used by test/package.test.ts and the bench.
//
// better-sqlite3 is the one native dependency. On the public internet its install script fetches
// a prebuilt binary from GitHub; where only the npm registry is reachable (CI here) it would build
// SQLite from source (minutes). `prebuilds` gives its installer a local prebuilt instead — the
// binary this checkout already built for the same version, packed the way its releases are — so
// the test measures what a user with a prebuilt gets. Without it, the from-source build runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;

/** `npm pack` without running the build again (the caller built dist/). Returns the tarball and npm's file list. */
export function pack(dest) {
  mkdirSync(dest, { recursive: true });
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest], { cwd: root, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' } });
  const [info] = JSON.parse(out);
  const tarball = join(dest, info.filename);
  return { tarball, size: statSync(tarball).size, unpackedSize: info.unpackedSize, files: info.files.map((f) => f.path) };
}

/** better-sqlite3's release asset name for this node, and a tarball of this checkout's build of it in `dir`; undefined without a build. */
export function localPrebuild(dir) {
  const pkg = join(root, 'node_modules/better-sqlite3');
  const binary = join(pkg, 'build/Release/better_sqlite3.node');
  if (!existsSync(binary)) return undefined;
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  mkdirSync(dir, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', join(dir, name), '-C', pkg, 'build/Release/better_sqlite3.node']);
  return dir;
}

const passThrough = (names) => Object.fromEntries(names.filter((n) => process.env[n]).map((n) => [n, process.env[n]]));

/** One npm setting as the current user has it (their npmrc is not read under the clean HOME). */
function npmSetting(name) {
  const r = spawnSync('npm', ['config', 'get', name], { encoding: 'utf8' });
  const value = r.status === 0 ? r.stdout.trim() : '';
  return value && value !== 'null' && value !== 'undefined' ? { [`npm_config_${name}`]: value } : {};
}

/**
 * `npm i -g --prefix PREFIX TARBALL` in a clean environment: HOME and the npm cache under `work`,
 * no audit or fund calls. Returns { ms, status, output }.
 */
export function installGlobal(tarball, work, { prebuilds } = {}) {
  const prefix = join(work, 'prefix');
  const home = join(work, 'home');
  mkdirSync(home, { recursive: true });
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    // The Node headers for a from-source native build, where the distribution ships them.
    ...(existsSync('/usr/include/node/node.h') ? { npm_config_nodedir: '/usr' } : {}),
    // How this machine reaches the registry (its CA bundle, proxy, registry URL), nothing else of the user's.
    ...passThrough(['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']),
    ...npmSetting('registry'),
    ...npmSetting('cafile'),
    ...(prebuilds ? { npm_config_better_sqlite3_local_prebuilds: prebuilds } : {}),
  };
  const started = process.hrtime.bigint();
  const r = spawnSync('npm', ['install', '--global', '--prefix', prefix, tarball], { env, encoding: 'utf8', timeout: 600_000 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { ms, status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}`, prefix, home, env };
}

// node scripts/pack-install.mjs [--from-source]: pack, install into a temp prefix, print the figures.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const work = mkdtempSync(join(tmpdir(), 'sp-pack-'));
  try {
    const packed = pack(join(work, 'pack'));
    const prebuilds = process.argv.includes('--from-source') ? undefined : localPrebuild(join(work, 'prebuilds'));
    const installed = installGlobal(packed.tarball, work, { prebuilds });
    const figures = {
      tarball_bytes: packed.size,
      unpacked_bytes: packed.unpackedSize,
      files: packed.files.length,
      install_seconds: +(installed.ms / 1000).toFixed(1),
      better_sqlite3: prebuilds ? 'prebuilt' : 'from source',
      install_status: installed.status,
    };
    process.stdout.write(JSON.stringify(figures) + '\n');
    if (installed.status !== 0) process.stderr.write(installed.output);
    process.exitCode = installed.status === 0 ? 0 : 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
