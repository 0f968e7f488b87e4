// The published shape: `npm pack` of the built checkout installed with `npm i -g --prefix` into a
// temporary prefix with a clean HOME and npm cache (scripts/pack-install.mjs), then every binary,
// every flow's --demo and the library API run from the installed copy — not from this checkout.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess, type ProcessRun } from './support/run.js';
// @ts-expect-error a plain .mjs helper shared with the bench
import { installGlobal, localPrebuild, pack } from '../scripts/pack-install.mjs';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string>; devDependencies: Record<string, string> };
const work = mkdtempSync(join(tmpdir(), 'sp-package-test-'));
const scratch = join(work, 'tmp');
mkdirSync(scratch);

interface Packed { tarball: string; size: number; unpackedSize: number; files: string[] }
interface Installed { ms: number; status: number | null; output: string; prefix: string; home: string; env: Record<string, string> }
let packed: Packed;
let installed: Installed;
let installedRoot: string;

type Run = ProcessRun;
function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  const env = { ...installed.env, PATH: `${join(installed.prefix, 'bin')}:${process.env.PATH}`, TMPDIR: scratch, SP_PROGRESS: '0', ...options.env };
  return runProcess(command, args, { cwd: options.cwd ?? installed.home, env });
}
const noStack = (r: Run) => expect(`${r.stdout}${r.stderr}`).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);

beforeAll(() => {
  packed = pack(join(work, 'pack'));
  installed = installGlobal(packed.tarball, work, { prebuilds: localPrebuild(join(work, 'prebuilds')) });
  installedRoot = join(installed.prefix, 'lib/node_modules/session-portability');
  // The figures the README and the closing note quote.
  process.stderr.write(`package: ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024 / 1024).toFixed(1)} MiB unpacked, ${packed.files.length} files; npm i -g: ${(installed.ms / 1000).toFixed(1)} s\n`);
  if (installed.status !== 0) throw new Error(`npm i -g failed (${installed.status}):\n${installed.output}`);
}, 420_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack', () => {
  it('ships the build, the schemas, the flows and their small demo fixtures — not the tests or the sources', () => {
    const files = packed.files;
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/bin/sp-capture.js', 'dist/lib/core/schema.validators.cjs', 'dist/examples/library.js', 'schema/event.schema.json', 'dist/flows/relay.js', 'dist/flows/handoff.js', 'README.md']) expect(files, f).toContain(f);
    expect(files.some((f) => f.startsWith('fixtures/claude/corpus/S2-debug/'))).toBe(true);
    expect(files.filter((f) => /^(test|bench|scripts|node_modules|lib|adapters|bin)\//.test(f))).toEqual([]);
    expect(packed.size).toBeLessThan(2 * 1024 * 1024);
  });
});

describe('installed from the tarball', () => {
  it('brings only the runtime dependencies (no agent clients, no test tools) and never ran the build', () => {
    const present = new Set(readdirSync(join(installedRoot, 'node_modules')).flatMap((d) => (d.startsWith('@') ? readdirSync(join(installedRoot, 'node_modules', d)).map((n) => `${d}/${n}`) : [d])));
    const dev = Object.keys(pkg.devDependencies).filter((d) => present.has(d));
    expect(dev).toEqual([]);
    expect(installed.output).not.toMatch(/tsc -p tsconfig/);
  });

  it('every binary answers --version', async () => {
    const runs = await Promise.all(Object.keys(pkg.bin).map(async (bin) => [bin, await run(bin, ['--version'])] as const));
    for (const [bin, r] of runs) {
      expect(r.code, `${bin}: ${r.stderr}`).toBe(0);
      expect(r.stdout.trim(), bin).toBe(pkg.version);
    }
  }, 60_000);

  it('every flow runs its --demo from the package, and leaves nothing in the temp folder', async () => {
    const demos: Array<[string, string[]]> = [
      ['relay', ['--demo']],
      ['handoff', ['--demo']],
      ['audit', ['--demo']],
      ['archive', ['--demo']],
      ['demo', ['--dry-run']],
    ];
    const runs = await Promise.all(demos.map(async ([flow, args]) => [flow, await run('sp', [flow, ...args])] as const));
    for (const [flow, r] of runs) {
      expect(r.code, `${flow}: ${r.stderr}`).toBe(0);
      noStack(r);
    }
    const byFlow = Object.fromEntries(runs);
    expect(byFlow.relay.stdout).toMatch(/codex resume [0-9a-f-]{36}/);
    expect(byFlow.archive.stdout).toMatch(/[1-9]\d* new events stored/);
    expect(byFlow.audit.stdout).toMatch(/sessions: \d+ verified, 0 failed/);
    expect(byFlow.demo.stdout).toContain('3. resume: skipped');
    // Colour only on a terminal: these ran into pipes.
    expect(byFlow.demo.stdout).not.toContain('\x1b[');
    expect(readdirSync(scratch)).toEqual([]);
  }, 300_000);

  it('the library example runs against the installed package, and another project imports it by name', async () => {
    const example = await run(process.execPath, [join(installedRoot, 'dist/examples/library.js')]);
    expect(example.code, example.stderr).toBe(0);
    expect(example.stdout).toMatch(/^verify: ok/m);
    expect(example.stdout).toMatch(/^materialize: Codex session /m);

    const consumer = join(work, 'consumer');
    mkdirSync(join(consumer, 'node_modules'), { recursive: true });
    symlinkSync(installedRoot, join(consumer, 'node_modules/session-portability'));
    writeFileSync(join(consumer, 'package.json'), '{"type":"module"}\n');
    writeFileSync(
      join(consumer, 'use.js'),
      "import * as sp from 'session-portability';\n" +
        "const names = ['capture', 'captureAll', 'redact', 'redactAll', 'compile', 'materialize', 'verify', 'openStore', 'listSessions', 'listSessionsAll', 'agents'];\n" +
        "console.log(JSON.stringify({ missing: names.filter((n) => typeof sp[n] !== 'function'), agents: sp.agents().map((a) => a.id) }));\n",
    );
    const used = await run(process.execPath, [join(consumer, 'use.js')], { cwd: consumer });
    expect(used.code, used.stderr).toBe(0);
    const result = JSON.parse(used.stdout) as { missing: string[]; agents: string[] };
    expect(result.missing).toEqual([]);
    expect(result.agents).toContain('claude');
    expect(existsSync(join(installedRoot, 'dist/index.d.ts'))).toBe(true);
  }, 120_000);

  it('installs the man pages where man finds them, and the completion scripts', async () => {
    // package.json "man" lists one page per sp binary and per compiled flow (`man sp-handoff`): a new
    // binary or flow needs its line there too.
    const listed = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { man: string[] }).man;
    // A flow is a compiled script that starts with `#!` (flows/args.ts and demo.ts are modules).
    const flows = readdirSync(join(root, 'dist/flows'))
      .filter((f) => f.endsWith('.js') && readFileSync(join(root, 'dist/flows', f), 'utf8').startsWith('#!'))
      .map((f) => `sp-${f.replace(/\.js$/, '')}`);
    const expected = [...Object.keys(pkg.bin).filter((b) => b.startsWith('sp')), ...flows];
    expect(listed.map((m) => m.replace(/^\.\/dist\/man\/(.*)\.1$/, '$1')).sort()).toEqual([...new Set(expected)].sort());
    for (const page of listed) expect(existsSync(join(installed.prefix, 'share/man/man1', page.replace(/^.*\//, ''))), page).toBe(true);
    const fish = await run('sp', ['completion', 'fish']);
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain('complete -c sp');
  }, 60_000);
});
