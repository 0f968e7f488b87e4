// Acceptance with the real clients: `sp hooks install` into a scratch home, one real turn against a
// local mock model, and the store then holds that session — redacted (a secret planted in the
// prompt is not there), verifying — with the events of the turn; a second turn (resume) adds only
// the new events. The hook's own time (what the agent waits) is measured from its log line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runClaude } from '../support/claudeClient.js';
import { startMockAnthropic } from '../support/mockAnthropic.js';
import { runCodexExec, writeCodexConfig } from '../support/codexClient.js';
import { startMockResponses } from '../support/mockResponses.js';
import { FAKE } from '../support/fakeSecrets.js';
import { bin, parseLines } from '../support/store.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-hooks-acceptance-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function sp(name: string, args: string[], spHome: string) {
  const r = spawnSync(process.execPath, [bin(name), ...args], { encoding: 'utf8', env: { ...process.env, SP_HOME: spHome, SP_PROGRESS: '0' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Stored {
  session: string;
  events: Array<Record<string, any>>;
}

/** Every stored session with its events (sp-sync ls + log). */
function stored(spHome: string): Stored[] {
  const ls = sp('sp-sync', ['ls', '--json'], spHome);
  if (ls.status !== 0) return [];
  return parseLines(ls.stdout).map((row) => {
    const id = String(row.session ?? row.id);
    return { session: id, events: parseLines(sp('sp-sync', ['log', id], spHome).stdout) };
  });
}

/** Polls the store (bounded) until `ready` holds; the worker runs detached from the hook. */
async function waitFor(spHome: string, ready: (s: Stored[]) => boolean, timeoutMs = 30_000): Promise<Stored[]> {
  const until = Date.now() + timeoutMs;
  let last: Stored[] = [];
  while (Date.now() < until) {
    // Each worker logs a line when its capture is done; only then is the store worth reading.
    last = stored(spHome);
    if (ready(last)) return last;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the store did not get there in ${timeoutMs} ms; hooks.log:\n${readLog(spHome)}`);
}

function readLog(spHome: string): string {
  const log = join(spHome, 'logs', 'hooks.log');
  return existsSync(log) ? readFileSync(log, 'utf8') : '(no log)';
}

const textOf = (events: Array<Record<string, any>>) => JSON.stringify(events);

describe('sp hooks with the real Claude Code client (2.1.197)', () => {
  it('captures each turn into the store, redacted and verifying; a resumed turn adds only its events', async () => {
    const base = join(work, 'claude');
    const home = join(base, 'home');
    const cwd = join(base, 'project');
    const spHome = join(base, 'sp');
    mkdirSync(cwd, { recursive: true });
    mkdirSync(join(home, '.claude'), { recursive: true });
    const installed = sp('sp-hooks', ['install', 'claude', '--home', join(home, '.claude')], spHome);
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toMatch(/^claude\tinstalled\t/);

    const secret = FAKE.awsKeyId;
    const mock = await startMockAnthropic();
    try {
      const first = await runClaude(['-p', `first turn, my key is ${secret}`, '--dangerously-skip-permissions', '--output-format', 'json'], { cwd, home, port: mock.port, timeoutMs: 60_000 });
      expect(first.code, first.stderr).toBe(0);
      const sessionId = JSON.parse(first.stdout).session_id as string;
      const one = await waitFor(spHome, (s) => s.length === 1 && s[0].events.some((e) => e.type === 'message.assistant'));
      const firstCount = one[0].events.length;
      expect(textOf(one[0].events)).toContain('first turn, my key is');
      expect(textOf(one[0].events)).not.toContain(secret);
      expect(one[0].events[0].type).toBe('session.start');

      const second = await runClaude(['-p', 'second turn', '--resume', sessionId, '--dangerously-skip-permissions', '--output-format', 'json'], { cwd, home, port: mock.port, timeoutMs: 60_000 });
      expect(second.code, second.stderr).toBe(0);
      const two = await waitFor(spHome, (s) => s.length === 1 && textOf(s[0].events).includes('second turn') && s[0].events.filter((e) => e.type === 'message.assistant').length >= 2);
      const events = two[0].events;
      // Only the new events were added: the first turn's are there once, seq runs without gaps.
      expect(events.slice(0, firstCount)).toEqual(one[0].events);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k));
      expect(events.filter((e) => e.type === 'session.start')).toHaveLength(1);
      expect(textOf(events).split('first turn, my key is').length - 1).toBe(textOf(one[0].events).split('first turn, my key is').length - 1);
    } finally {
      await mock.close();
    }
    const verified = sp('sp-verify', ['--store', join(spHome, 'store')], spHome);
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);
    const log = readLog(spHome);
    expect(log).not.toMatch(/exited|not under|not JSON/);
    expect(statSync(join(spHome, 'logs', 'hooks.log')).mode & 0o777).toBe(0o600);
  }, 150_000);
});
