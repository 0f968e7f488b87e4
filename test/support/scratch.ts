// A fresh folder per test, all under one temp folder made before a file's tests and removed after them.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** Call at a test file's top level; the function it returns makes the next empty folder. */
export function freshDirs(prefix: string): () => string {
  let work = '';
  let n = 0;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });
  return () => {
    const dir = join(work, String(n++));
    mkdirSync(dir, { recursive: true });
    return dir;
  };
}
