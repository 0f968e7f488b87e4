// sp-capture on damaged native session files, for every adapter that reads a file: each case ends
// with exit 0 (a valid chained stream, plus a warning when the input was damaged) or exit 2 and a
// one-line diagnostic — never a stack trace — and the agent's files stay exactly as they were.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { fileCases, mustReport, pathCases, rng } from './support/cases.js';
import { IS_ROOT, NOBODY, expectWellBehaved, outcomeOf, record, removeTempDirs, runBin, tempDir, treeHash, verifyStream } from './support/harness.js';
import { KNOWN } from './support/known.js';
import { nativeSeeds } from './support/seeds.js';

const seeds = await nativeSeeds();
afterAll(removeTempDirs);

for (const seed of seeds) {
  describe.concurrent(`sp-capture ${seed.agent}`, () => {
    if (!seed.file) {
      test(`no file seed: ${seed.skip}`, () => {
        record({ bin: 'sp-capture', target: seed.agent, case: '*', outcome: 'skip', note: seed.skip });
      });
      return;
    }
    const file = seed.file;

    for (const c of fileCases) {
      const known = KNOWN[`sp-capture ${seed.agent}/${c.name}`];
      (known ? test.fails : test)(`${c.name}${known ? ` (known: ${known})` : ''}`, { timeout: 300_000 }, async () => {
        const dir = tempDir();
        const input = join(dir, basename(file.path));
        writeFileSync(input, c.make(readFileSync(file.path), file.kind, rng(c.name, seed.agent)));
        const before = treeHash(dir);
        const run = await runBin('sp-capture', [seed.agent, '--path', input]);
        record({ bin: 'sp-capture', target: seed.agent, case: c.name, outcome: outcomeOf(run), code: run.code, ms: Math.round(run.ms), note: run.stderr.split('\n')[0] });
        expect(treeHash(dir), 'the agent file changed').toBe(before);
        expectWellBehaved('sp-capture', run, { codes: [0, 2], mustReport: mustReport(c, file.kind) });
        if (run.code === 0) expect((await verifyStream(run.stdout)).damage).toBe('');
      });
    }

    for (const c of pathCases) {
      test(c.name, { timeout: 300_000 }, async () => {
        const dir = tempDir();
        chmodSync(dir, 0o755);
        const input = join(dir, basename(file.path));
        if (c.name === 'directory') mkdirSync(input);
        if (c.name === 'unreadable') {
          copyFileSync(file.path, input);
          chmodSync(input, 0o000);
        }
        const before = treeHash(dir);
        // As root permission bits are not enforced: the unreadable case runs as nobody.
        const run = await runBin('sp-capture', [seed.agent, '--path', input], { asUid: c.name === 'unreadable' && IS_ROOT ? NOBODY : undefined });
        record({ bin: 'sp-capture', target: seed.agent, case: c.name, outcome: outcomeOf(run), code: run.code, ms: Math.round(run.ms), note: run.stderr.split('\n')[0] });
        expect(treeHash(dir)).toBe(before);
        expectWellBehaved('sp-capture', run, { codes: [2] });
      });
    }
  });
}
