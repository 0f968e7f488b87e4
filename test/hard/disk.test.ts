// A full disk: every binary that writes files (sp-materialize into each writer, sp-compile --out,
// sp-redact --vault/--report, sp-capture --cursor) writing onto a 1 MiB tmpfs that is already full
// but for 16 KiB: a one-line ENOSPC error, exit 2, and no file left behind, partial or temp.
// Where mounting is not permitted (CI without root) the same runs under `prlimit --fsize` (EFBIG).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { syntheticChained } from '../../adapters/claude/synthetic.js';
import { binPath, diagnosticProblems, filesUnder, record, removeTempDirs, tempDir } from './support/harness.js';
import { KNOWN } from './support/known.js';
import { nativeSeeds, writerFlags, writers } from './support/seeds.js';

const seeds = await nativeSeeds();
const input = join(tempDir(), 'events.ndjson');
writeFileSync(input, [...syntheticChained({ events: 400, seed: 5 })].map((e) => JSON.stringify(e)).join('\n') + '\n');

const mountPoint = tempDir('sp-hard-full-');
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint]).status === 0;
const LIMIT = 16 * 1024;
if (mounted) {
  // Fill it but for 16 KiB: every writer meets ENOSPC early.
  const free = () => Number(spawnSync('df', ['-B1', '--output=avail', mountPoint]).stdout.toString().trim().split('\n').pop());
  writeFileSync(join(mountPoint, 'filler'), Buffer.alloc(Math.max(0, free() - LIMIT)));
}
afterAll(() => {
  if (mounted) spawnSync('umount', [mountPoint]);
  removeTempDirs();
});
const how = mounted ? 'tmpfs of 1 MiB, 16 KiB free' : `prlimit --fsize=${LIMIT} (mount not permitted)`;

/** Runs a binary writing under `out` with the disk full (tmpfs) or the file size limited (prlimit). */
function runFull(bin: string, args: string[]): { status: number | null; stderr: string; signal: NodeJS.Signals | null } {
  const command = mounted ? process.execPath : 'prlimit';
  const argv = mounted ? [binPath(bin), ...args] : [`--fsize=${LIMIT}`, process.execPath, binPath(bin), ...args];
  // stdout is not collected: spawnSync would kill a child that prints more than its maxBuffer.
  const r = spawnSync(command, argv, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SP_HOME: join(tempDir(), 'sp-home') }, timeout: 600_000 });
  return { status: r.status, stderr: r.stderr, signal: r.signal };
}

const outRoot = () => {
  const dir = mounted ? join(mountPoint, `out-${Math.random().toString(36).slice(2)}`) : tempDir('sp-hard-out-');
  mkdirSync(dir, { recursive: true });
  return dir;
};

interface Writer {
  label: string;
  bin: string;
  args(out: string): string[];
}

const claudeSeed = seeds.find((s) => s.agent === 'claude' && s.file)?.file?.path;
const cases: Writer[] = [
  ...writers().map((agent) => ({ label: `sp-materialize ${agent}`, bin: 'sp-materialize', args: (out: string) => [agent, input, ...writerFlags(agent), '--home', join(out, 'home'), '--cwd', out] })),
  { label: 'sp-compile --out', bin: 'sp-compile', args: (out) => ['--for', 'markdown', '--format', 'files', '--out', join(out, 'handoff'), input] },
  { label: 'sp-redact --vault --report', bin: 'sp-redact', args: (out) => [input, '--vault', join(out, 'vault'), '--report', join(out, 'report.json'), '--quiet'] },
  { label: 'sp-materialize --report', bin: 'sp-materialize', args: (out) => ['claude', input, '--dry-run', '--home', join(out, 'home'), '--report', join(out, 'losses.ndjson')] },
  ...(claudeSeed ? [{ label: 'sp-capture --cursor', bin: 'sp-capture', args: (out: string) => ['claude', '--path', claudeSeed, '--cursor', join(out, 'cursor.json')] }] : []),
];

describe(`full disk (${how})`, () => {
  for (const c of cases) {
    const known = KNOWN[`${c.label}/full-disk`];
    (known ? test.fails : test)(`${c.label}${known ? ` (known: ${known})` : ''}`, { timeout: 900_000 }, () => {
      const out = outRoot();
      const run = runFull(c.bin, c.args(out));
      const left = filesUnder(out);
      rmSync(out, { recursive: true, force: true });
      record({ bin: c.label, case: 'full disk', outcome: run.status === 2 ? 'error' : run.status === 0 ? 'ok' : 'warn', code: run.status, note: `${how}: ${run.stderr.split('\n').find((l) => /ENOSPC|EFBIG|space|large/i.test(l)) ?? run.stderr.split('\n')[0]}` });
      expect(run.signal, run.stderr).toBeNull();
      expect(diagnosticProblems(c.bin, run.stderr), run.stderr).toEqual([]);
      if (run.status === 0) {
        // It fitted (a writer that needs a client-made store exits 2 before writing): nothing to check but the files.
        expect(left.filter((f) => /\.tmp$/.test(f))).toEqual([]);
        return;
      }
      expect(run.status, run.stderr).toBe(2);
      expect(left, `files left after a failed write: ${run.stderr}`).toEqual([]);
    });
  }
});
