// Helpers for tests on streams: chained synthetic events as lines, tampering, running bins.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalize } from '../../lib/core/jcs.js';
import { syntheticChained } from '../../adapters/claude/synthetic.js';

export const root = new URL('../..', import.meta.url).pathname;

export function chainedLines(events: number, options: { sessions?: number; seed?: number } = {}): string[] {
  return [...syntheticChained({ events, ...options })].map((e) => canonicalize(e));
}

export function tempDir(prefix = 'sp-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeLines(lines: string[], options: { newline?: boolean; name?: string } = {}): string {
  const path = join(tempDir(), options.name ?? 'events.ndjson');
  writeFileSync(path, lines.join('\n') + (options.newline === false ? '' : '\n'));
  return path;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a compiled sp binary (npm test builds first). */
export function runBin(name: string, args: string[], options: { input?: string | Buffer; env?: Record<string, string>; cwd?: string } = {}): RunResult {
  const r = spawnSync(process.execPath, [join(root, 'dist', 'bin', `${name}.js`), ...args], {
    input: options.input,
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** sp-redact's output less the sp.redacted marker it closes each session with (the rest must be the input, byte for byte). */
export function withoutMarkers(text: string): string {
  return text
    .split(/(?<=\n)/)
    .filter((line) => {
      if (!line.includes('"sp.redacted"')) return true;
      const e = JSON.parse(line) as { type?: string; payload?: { key?: string } };
      return !(e.type === 'meta' && e.payload?.key === 'sp.redacted');
    })
    .join('');
}
