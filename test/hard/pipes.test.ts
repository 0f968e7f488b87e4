// Output that cannot go anywhere: `| head -1` closes the pipe early (SIGPIPE/EPIPE: exit quietly, 0
// or 141, nothing on stderr), and `> /dev/full` fails every write (ENOSPC: one line, exit 2).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { syntheticChained } from '../../adapters/claude/synthetic.js';
import { binPath, diagnosticProblems, record, removeTempDirs, tempDir } from './support/harness.js';
import { nativeSeeds } from './support/seeds.js';

const seeds = await nativeSeeds();
afterAll(removeTempDirs);
const dir = tempDir();

// Far more output than a pipe buffer holds (64 KiB), so the writer meets the closed pipe.
const stream = join(dir, 'events.ndjson');
writeFileSync(stream, [...syntheticChained({ events: 3000, seed: 3, sessions: 600 })].map((e) => JSON.stringify(e)).join('\n') + '\n');
// sp-compile and sp-materialize take one session.
const single = join(dir, 'single.ndjson');
writeFileSync(single, [...syntheticChained({ events: 2000, seed: 4 })].map((e) => JSON.stringify(e)).join('\n') + '\n');

/** A native file of the seed's records repeated until it is a few MB (lines seeds only). */
function bigNative(agent: string, path: string): string {
  const seed = readFileSync(path);
  const copies = Math.max(1, Math.ceil(4_000_000 / seed.length));
  const out = join(dir, `${agent}-${path.split('/').pop()}`);
  writeFileSync(out, Buffer.concat(Array.from({ length: copies }, () => (seed[seed.length - 1] === 0x0a ? seed : Buffer.concat([seed, Buffer.from('\n')])))));
  return out;
}

interface Pipeline {
  label: string;
  bin: string;
  args: string[];
}

const pipelines: Pipeline[] = [
  ...seeds
    .filter((s) => s.file)
    .map((s) => ({ label: `sp-capture ${s.agent}`, bin: 'sp-capture', args: [s.agent, '--path', s.file!.kind === 'lines' ? bigNative(s.agent, s.file!.path) : s.file!.path] })),
  { label: 'sp-redact', bin: 'sp-redact', args: [stream] },
  { label: 'sp-verify', bin: 'sp-verify', args: [stream] },
  { label: 'sp-compile', bin: 'sp-compile', args: ['--for', 'codex', single] },
  { label: 'sp-materialize --dry-run', bin: 'sp-materialize', args: ['claude', '--dry-run', '--home', dir, single] },
];

/** Runs `sp-… 2>$ERR | head -1` (or `> /dev/full`) in a shell; returns the binary's status and its stderr ($ERR). */
function shell(command: string): Promise<{ status: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const errFile = join(tempDir(), 'stderr');
    const child = spawn('bash', ['-c', `${command.replace('$ERR', errFile)}; echo "\${PIPESTATUS[0]}"`], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, SP_HOME: join(dir, 'sp-home') } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', () => resolve({ status: Number(out.trim().split('\n').pop()), stderr: readFileSync(errFile, 'utf8') }));
  });
}

const quote = (args: string[]) => args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');

describe.concurrent('| head -1 (SIGPIPE)', () => {
  for (const p of pipelines) {
    test(p.label, { timeout: 300_000 }, async () => {
      const run = await shell(`'${process.execPath}' '${binPath(p.bin)}' ${quote(p.args)} 2>'$ERR' | head -1 >/dev/null`);
      record({ bin: p.label, case: 'sigpipe', outcome: run.stderr === '' ? 'ok' : 'warn', code: run.status, note: run.stderr.split('\n')[0] });
      expect([0, 141], `exit ${run.status}, stderr: ${run.stderr}`).toContain(run.status);
      // The closed pipe adds nothing to stderr (diagnostics about the input itself may be there).
      expect(diagnosticProblems(p.bin, run.stderr), run.stderr).toEqual([]);
      expect(run.stderr, run.stderr).not.toMatch(/EPIPE|stdout|write after end/);
    });
  }
});

describe.concurrent('> /dev/full (ENOSPC on stdout)', () => {
  for (const p of pipelines) {
    test(p.label, { timeout: 300_000 }, async () => {
      const run = await shell(`'${process.execPath}' '${binPath(p.bin)}' ${quote(p.args)} 2>'$ERR' >/dev/full`);
      record({ bin: p.label, case: 'stdout /dev/full', outcome: run.status === 2 ? 'error' : 'ok', code: run.status, note: run.stderr.split('\n').find((l) => /stdout/.test(l)) });
      expect(run.status, run.stderr).toBe(2);
      expect(diagnosticProblems(p.bin, run.stderr)).toEqual([]);
      expect(run.stderr).toMatch(new RegExp(`^${p.bin}: stdout: cannot write: ENOSPC$`, 'm'));
    });
  }
});
