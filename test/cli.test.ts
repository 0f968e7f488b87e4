import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { root, runBin } from './support/streams.js';

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

describe('every sp binary', () => {
  const names = Object.keys(pkg.bin);
  // The compiled file a bin name runs (`session-portability` is another name for `sp`, for npx).
  const file = (name: string) => basename(pkg.bin[name], '.js');

  it('is declared in package.json and compiled to the path it names', () => {
    expect(names.sort()).toEqual(['session-portability', 'sp', 'sp-capture', 'sp-compile', 'sp-config', 'sp-doctor', 'sp-export', 'sp-hooks', 'sp-materialize', 'sp-mcp', 'sp-redact', 'sp-resume', 'sp-serve', 'sp-show', 'sp-sync', 'sp-usage', 'sp-verify', 'sp-watch', 'sp-adapter', 'sp-run'].sort());
    for (const [name, path] of Object.entries(pkg.bin)) {
      expect(readFileSync(join(root, path), 'utf8').startsWith('#!/usr/bin/env node'), name).toBe(true);
    }
  });

  it.each(Object.keys(pkg.bin))('%s prints its version', (name) => {
    const r = runBin(file(name), ['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  it.each(Object.keys(pkg.bin))('%s has --help naming itself, with exit codes', (name) => {
    const r = runBin(file(name), ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(file(name));
    // The umbrella passes on the status of the command it runs.
    expect(r.stdout).toContain(file(name) === 'sp' ? 'Exit status: that of the command run; 2 for an unknown command' : 'Exit status: 0 ok, 1 a check failed, 2 usage error');
  });
});
