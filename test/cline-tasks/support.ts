// Contract-suite hooks for the task-folder stores: a record is one message of the API history (a
// JSON array), so records are injected as array elements, and a copy is the whole task folder.
import { afterAll } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { ContractOptions, Injected } from '../contract/testAdapter.js';

/** The temporary folders this test file made, removed once it is done. */
const made: string[] = [];
afterAll(() => {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A fresh folder for a built storage, `<temp>/Code/User/globalStorage/<extension id>`, removed after the test file. */
export function scratchStorage(label: string, extensionId: string): string {
  const root = mkdtempSync(join(tmpdir(), `sp-${label}-`));
  made.push(root);
  return join(root, 'Code', 'User', 'globalStorage', extensionId);
}

/** A copy of a fixture's task folder in `dir` (same id); returns the same file in the copy. */
export function copyTask(fixture: string, dir: string): string {
  const folder = join(dir, basename(dirname(fixture)));
  cpSync(dirname(fixture), folder, { recursive: true });
  return join(folder, basename(fixture));
}

/** A copy whose API history has `message` inserted after the first message (record 2). */
export function injectMessage(fixture: string, dir: string, message: unknown): Injected {
  const path = copyTask(fixture, dir);
  const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  const list = Array.isArray(value) ? value : (value as { messages: unknown[] }).messages;
  list.splice(1, 0, message);
  writeFileSync(path, JSON.stringify(value));
  return { path, marker: '', line: 2 };
}

/** The contract options every task-store adapter shares (fixtures[0] must have an API history). */
export function taskContract(fixtures: string[], home: string): ContractOptions {
  const marker = `sp-contract-marker-${process.pid}`;
  return {
    fixtures,
    home,
    copy: copyTask,
    injectUnknown: (fixture, dir) => ({ ...injectMessage(fixture, dir, { role: 'sp-contract-future-record', marker, nested: { kept: [1, 2, 3] } }), marker }),
    injectBroken: (fixture, dir) => ({ ...injectMessage(fixture, dir, '{"role":"user","content":"cut off'), marker: 'cut off' }),
    // The extensions rewrite both files whole: a task is read whole (capabilities.incremental says why).
    incremental: false,
  };
}
