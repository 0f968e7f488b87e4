// The binaries that read canonical streams (sp-verify, sp-redact, sp-compile, sp-materialize into
// every writer) on damaged streams made from a real capture: a documented exit code, one-line
// diagnostics, the input unchanged, and on failure no output file at all (no vault, report,
// handoff file or session), on success no temp file left behind.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { fileCases, mustReport, pathCases, rng, type FileCase } from './support/cases.js';
import { IS_ROOT, NOBODY, expectWellBehaved, filesUnder, outcomeOf, record, removeTempDirs, runBin, tempDir, treeHash } from './support/harness.js';
import { KNOWN } from './support/known.js';
import { canonicalSeed, nativeSeeds, writerFlags, writers } from './support/seeds.js';

interface StreamBin {
  /** The table's name for it: binary and target. */
  label: string;
  bin: string;
  args(input: string, out: string): string[];
  codes: number[];
  /** sp-verify reports damage by its exit status: every changed stream must fail it. */
  checker?: boolean;
  /** A store: a failed ingest may leave the store it created (its own crash test covers the rest). */
  keepsOutputs?: boolean;
}

const seed = await canonicalSeed(await nativeSeeds());
afterAll(removeTempDirs);

const bins: StreamBin[] = [
  { label: 'sp-verify', bin: 'sp-verify', args: (input) => [input], codes: [0, 1, 2], checker: true },
  { label: 'sp-redact', bin: 'sp-redact', args: (input, out) => [input, '--vault', join(out, 'secrets.vault'), '--report', join(out, 'report.json')], codes: [0, 2] },
  { label: 'sp-redact --check', bin: 'sp-redact', args: (input) => ['--check', input], codes: [0, 1, 2] },
  { label: 'sp-compile', bin: 'sp-compile', args: (input, out) => ['--for', 'markdown', '--format', 'files', '--out', join(out, 'handoff'), input], codes: [0, 2] },
  { label: 'sp-sync ingest', bin: 'sp-sync', args: (input, out) => ['ingest', input, '--store', join(out, 'store')], codes: [0, 2], keepsOutputs: true },
  ...writers().map((agent) => ({
    label: `sp-materialize ${agent}`,
    bin: 'sp-materialize',
    args: (input: string, out: string) => [agent, input, ...writerFlags(agent), '--home', join(out, 'home'), '--cwd', join(out, 'project'), '--report', join(out, 'losses.ndjson')],
    codes: [0, 2],
  })),
];

/** Temp files an atomic writer names `.<name>.<pid>.<hex>.tmp` (lib/fs/atomic.ts), and other leftovers. */
const TEMP = /(^|\/)\.[^/]*\.tmp$|\.tmp-|\.partial$/;

async function runCase(b: StreamBin, caseName: string, prepare: (input: string) => void, report: boolean, pathCase = false) {
  const dir = tempDir();
  const out = tempDir('sp-hard-out-');
  chmodSync(dir, 0o755);
  chmodSync(out, 0o777);
  mkdirSync(join(out, 'project'), { mode: 0o777 });
  const input = join(dir, 'events.ndjson');
  prepare(input);
  const before = treeHash(dir);
  const run = await runBin(b.bin, b.args(input, out), {
    env: { SP_HOME: join(out, 'sp-home') },
    // As root permission bits are not enforced: the unreadable case runs as nobody.
    asUid: caseName === 'unreadable' && IS_ROOT ? NOBODY : undefined,
  });
  record({ bin: b.label, case: caseName, outcome: outcomeOf(run), code: run.code, ms: Math.round(run.ms), note: run.stderr.split('\n')[0] });
  expect(treeHash(dir), 'the input changed').toBe(before);
  expectWellBehaved(b.bin, run, { codes: pathCase ? [2] : b.codes, mustReport: report && !b.checker });
  if (b.checker && report) expect(run.code, `${b.label} passed a damaged stream: ${run.stdout.toString().slice(0, 500)}`).not.toBe(0);
  const written = filesUnder(out).filter((f) => !f.startsWith('sp-home/'));
  expect(written.filter((f) => TEMP.test(f)), 'temp files left behind').toEqual([]);
  if (run.code !== 0 && !b.keepsOutputs) expect(written, `${b.label} failed (exit ${run.code}) but left output files; stderr: ${run.stderr}`).toEqual([]);
}

/** Whether the case changes the stream in a way the binary must mention. */
const damaged = (b: StreamBin, c: FileCase) => (b.checker ? c.name !== 'empty' : c.name !== 'empty' && mustReport(c, 'lines'));

for (const b of bins) {
  describe.concurrent(b.label, () => {
    for (const c of fileCases) {
      const known = KNOWN[`${b.label}/${c.name}`];
      (known ? test.fails : test)(`${c.name}${known ? ` (known: ${known})` : ''}`, { timeout: 300_000 }, () =>
        runCase(b, c.name, (input) => writeFileSync(input, c.make(seed, 'lines', rng(c.name, b.label))), damaged(b, c)),
      );
    }
    for (const c of pathCases) {
      test(c.name, { timeout: 300_000 }, () =>
        runCase(
          b,
          c.name,
          (input) => {
            if (c.name === 'directory') mkdirSync(input);
            if (c.name === 'unreadable') {
              writeFileSync(input, seed);
              chmodSync(input, 0o000);
            }
          },
          true,
          true,
        ),
      );
    }
  });
}
