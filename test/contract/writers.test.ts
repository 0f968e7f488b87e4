// The writer section of the contract suite (testWriter.ts) run by the writers that pair tool calls
// with results: the same damaged session, the same loss codes, read back through their own capture.
import { afterAll, describe } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claude } from '../../adapters/claude/index.js';
import { cline } from '../../adapters/cline/index.js';
import { codex } from '../../adapters/codex/index.js';
import { continueCli } from '../../adapters/continue/index.js';
import { copilot } from '../../adapters/copilot/index.js';
import { droid } from '../../adapters/droid/index.js';
import { hermes } from '../../adapters/hermes/index.js';
import { kilo } from '../../adapters/kilo/index.js';
import { pi } from '../../adapters/pi/index.js';
import { aider } from '../../adapters/aider/index.js';
import { atif } from '../../adapters/atif/index.js';
import { auggie } from '../../adapters/auggie/index.js';
import { cursor } from '../../adapters/cursor/index.js';
import { gemini } from '../../adapters/gemini/index.js';
import { qoder } from '../../adapters/qoder/index.js';
import { qwen } from '../../adapters/qwen/index.js';
import { testWriter } from './testWriter.js';
import { copyDb as copyKiloDb } from '../kilo/support.js';

const root = mkdtempSync(join(tmpdir(), 'sp-writer-contract-'));
let n = 0;
const scratch = (): string => mkdtempSync(join(root, `${n++}-`));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('writer contract', () => {
  testWriter(claude, scratch, { options: (home, cwd) => ({ home, cwd }) });
  testWriter(cline, scratch, { options: (home, cwd) => ({ home, cwd }) });
  testWriter(codex, scratch, { options: (home, cwd) => ({ home, cwd }), repairsIds: false });
  testWriter(continueCli, scratch, { options: (home, cwd) => ({ home, cwd }) });
  testWriter(copilot, scratch, { options: (home, cwd) => ({ home, cwd }) });
  testWriter(droid, scratch, { options: (home, cwd) => ({ home, cwd }) });
  testWriter(hermes, scratch, { options: (home, cwd) => ({ home, cwd }) });
  testWriter(pi, scratch, { options: (home, cwd) => ({ home, cwd }), idlessCallStubbed: true });
  testWriter(gemini, scratch, { options: (home, cwd) => ({ home: join(home, '.gemini'), cwd }), orphanAction: 'rendered' });
  testWriter(qwen, scratch, { options: (home, cwd) => ({ home, cwd }), orphanAction: 'rendered' });
  testWriter(atif, scratch, { options: (home, cwd) => ({ home, cwd }), orphanAction: 'transformed', repairsIds: false });
  testWriter(aider, scratch, { options: (home, cwd) => ({ home, cwd }), repairsIds: false });
  testWriter(cursor, scratch, { options: (home, cwd) => ({ home, cwd }), repairsIds: false });
  testWriter(qoder, scratch, { options: (home, cwd) => ({ home, cwd }) });
  testWriter(auggie, scratch, { options: (home, cwd) => ({ home, cwd }) });
  // Kilo's writer adds rows to a database the client made: a copy of the recorded one.
  testWriter(kilo, scratch, { options: (home, cwd) => (copyKiloDb(home), { home, cwd, backup: false }) });
});
