// lib/cli/progress.ts: when the progress line draws, and that one stage of a pipeline draws at a time.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDrawLock, createProgress, formatCount, lockPath, releaseDrawLock, wantsProgress } from '../lib/cli/progress.js';

const root = new URL('..', import.meta.url).pathname;

function fakeTty() {
  const out: string[] = [];
  return { stream: { isTTY: true, columns: 60, write: (t: string) => out.push(t) }, out };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterEach(() => {
  const path = lockPath();
  if (existsSync(path)) unlinkSync(path);
});

describe('progress', () => {
  it('draws only on a terminal, never with --quiet or SP_PROGRESS=0; SP_PROGRESS=1 forces it', () => {
    expect(wantsProgress({ isTTY: true, env: {} })).toBe(true);
    expect(wantsProgress({ isTTY: false, env: {} })).toBe(false);
    expect(wantsProgress({ isTTY: undefined, env: {} })).toBe(false);
    expect(wantsProgress({ isTTY: true, quiet: true, env: {} })).toBe(false);
    expect(wantsProgress({ isTTY: true, env: { SP_PROGRESS: '0' } })).toBe(false);
    expect(wantsProgress({ isTTY: false, env: { SP_PROGRESS: '1' } })).toBe(true);
    const { stream, out } = fakeTty();
    const silent = createProgress({ unit: 'sessions', stream: { ...stream, isTTY: false }, env: {}, interval: 0 });
    silent.tick(5);
    silent.done();
    expect(silent.drawing).toBe(false);
    expect(out).toEqual([]);
  });

  it('redraws one line in place, cut to the terminal width, and clears it when done', async () => {
    const { stream, out } = fakeTty();
    const p = createProgress({ unit: 'sessions', total: 3, stream, env: {}, interval: 1 });
    await sleep(5);
    p.tick(1, 'x'.repeat(200));
    await sleep(5);
    p.tick(1, 'second');
    p.done();
    p.done();
    expect(out.length).toBe(3);
    expect(out[0]).toMatch(/^\r\x1b\[K.*: 1\/3 sessions · x+…$/);
    expect(out[0].length - 4).toBeLessThanOrEqual(59);
    expect(out[1]).toMatch(/: 2\/3 sessions · second$/);
    expect(out[2]).toBe('\r\x1b[K');
    expect(existsSync(lockPath())).toBe(false);
  });

  it('a terminal that reports 0 columns (a pty under script) gets 80', async () => {
    const out: string[] = [];
    const p = createProgress({ unit: 'events', stream: { isTTY: true, columns: 0, write: (t: string) => out.push(t) }, env: {}, interval: 1 });
    await sleep(5);
    p.tick(7, 'sess_1');
    p.done();
    expect(out[0]).toMatch(/: 7 events · sess_1$/);
  });

  it('a run shorter than one interval draws nothing and never takes the lock', () => {
    const { stream, out } = fakeTty();
    const p = createProgress({ unit: 'sessions', stream, env: {}, interval: 10_000 });
    p.tick(1);
    p.done();
    expect(out).toEqual([]);
    expect(existsSync(lockPath())).toBe(false);
  });

  it('waits while another live stage of the pipeline holds the lock; takes over a dead owner\'s lock', async () => {
    const other = spawn('sleep', ['30']);
    try {
      writeFileSync(lockPath(), String(other.pid));
      const { stream, out } = fakeTty();
      const p = createProgress({ unit: 'events', stream, env: {}, interval: 1 });
      await sleep(5);
      p.tick(1);
      expect(out).toEqual([]);
      p.done();
      expect(readFileSync(lockPath(), 'utf8')).toBe(String(other.pid));
    } finally {
      other.kill();
    }
    await new Promise((r) => other.once('exit', r));
    // The owner is gone: its stale lock is taken over.
    expect(acquireDrawLock()).toBe(true);
    expect(readFileSync(lockPath(), 'utf8')).toBe(String(process.pid));
    releaseDrawLock();
    expect(existsSync(lockPath())).toBe(false);
  });

  it('sp-capture --all prints no progress when stderr is not a terminal', () => {
    const home = join(root, 'fixtures/claude/corpus/S1-feature/.claude');
    const run = spawnSync(process.execPath, [join(root, 'dist/bin/sp-capture.js'), 'claude', '--all', '--home', home], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n').length).toBeGreaterThan(10);
    expect(run.stderr).not.toContain('\r');
    expect(run.stderr).not.toContain('sessions');
  });
});

describe('formatCount', () => {
  it("writes counts as toLocaleString('en-US') does, without Intl", () => {
    for (const n of [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 123_456_789, -1234, -999, Number.MAX_SAFE_INTEGER, 1.5, 1e21]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});
