// Acceptance with the real clients: `sp hooks install` into a scratch home, one real turn against a
// local mock model, and the store then holds that session — redacted (a secret planted in the
// prompt is not there), verifying — with the events of the turn; a second turn (resume) adds only
// the new events. The hook's own time (what the agent waits) is measured from its log line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runClaude } from '../support/claudeClient.js';
import { startMockAnthropic } from '../support/mockAnthropic.js';
import { runCodexExec, writeCodexConfig } from '../support/codexClient.js';
import { startMockResponses } from '../support/mockResponses.js';
import { FAKE } from '../support/fakeSecrets.js';
import { agentHome, preparePlace, resumeWith, runLimit } from '../support/geminiClients.js';
import { startMockGemini } from '../support/mockGemini.js';
import { startMockModel } from '../pi/mockModel.js';
import { COPILOT_BIN, copilotEnv } from '../support/copilotClient.js';
import { runClient } from '../support/run.js';
import { configureAgentDir, runPi } from '../pi/piClient.js';
import { configureOpenCode, opencodeEnv, opencodeHome, OPENCODE_BIN } from '../support/opencodeClient.js';
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

/**
 * Waits (bounded) until the store satisfies `ready`. The worker runs detached from the hook and logs
 * a line when it is done; the store (two node processes to read) is looked at when the log grew,
 * and every 10 s in any case.
 */
async function waitFor(spHome: string, ready: (s: Stored[]) => boolean, timeoutMs = 120_000): Promise<Stored[]> {
  const until = Date.now() + timeoutMs;
  let seen = -1;
  let lastLook = 0;
  let last: Stored[] = [];
  while (Date.now() < until) {
    const size = readLog(spHome).length;
    if (size !== seen || Date.now() - lastLook > 10_000) {
      seen = size;
      lastLook = Date.now();
      last = stored(spHome);
      if (ready(last)) return last;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the store did not get there in ${timeoutMs} ms; hooks.log:\n${readLog(spHome)}`);
}

function readLog(spHome: string): string {
  const log = join(spHome, 'logs', 'hooks.log');
  return existsSync(log) ? readFileSync(log, 'utf8') : '(no log)';
}

const textOf = (events: Array<Record<string, any>>) => JSON.stringify(events);

/** Two client runs at a time: each is a CPU-heavy start-up, and more than the cores only makes each slower. */
const clients = runLimit(2);

interface Client {
  /** `sp hooks install AGENT --home HOME`'s home for this scratch place. */
  agentHome: string;
  /** One real turn with `prompt`; returns the native session id. */
  turn(prompt: string): Promise<string>;
  /** A second real turn in that session (resume). */
  resume(id: string, prompt: string): Promise<void>;
  close(): Promise<void>;
}

/** The scenario every client goes through: install, a turn, the store checked, a resumed turn, checked again. */
async function scenario(agent: string, base: string, client: Client): Promise<void> {
  const spHome = join(base, 'sp');
  try {
    const installed = sp('sp-hooks', ['install', agent, '--home', client.agentHome], spHome);
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toMatch(new RegExp(`^${agent}\tinstalled\t`));

    const secret = FAKE.awsKeyId;
    const sessionId = await clients(() => client.turn(`first turn, my key is ${secret}`));
    const one = await waitFor(spHome, (s) => s.length === 1 && s[0].events.some((e) => e.type === 'message.assistant'));
    const firstCount = one[0].events.length;
    expect(textOf(one[0].events)).toContain('first turn, my key is');
    expect(textOf(one[0].events)).not.toContain(secret);
    expect(one[0].events[0].type).toBe('session.start');
    expect(JSON.stringify(one[0].events[0])).toContain(sessionId);

    await clients(() => client.resume(sessionId, 'second turn'));
    const two = await waitFor(spHome, (s) => s.length === 1 && textOf(s[0].events).includes('second turn') && s[0].events.filter((e) => e.type === 'message.assistant').length >= 2);
    const events = two[0].events;
    // Only the new events were added: the first turn's are there once, as they were; seq runs without gaps.
    expect(events.slice(0, firstCount)).toEqual(one[0].events);
    expect(events.length).toBeGreaterThan(firstCount);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k));
    expect(events.filter((e) => e.type === 'session.start')).toHaveLength(1);
    expect(textOf(events).split('first turn, my key is').length).toBe(textOf(one[0].events).split('first turn, my key is').length);
  } finally {
    await client.close();
  }
  const verified = sp('sp-verify', ['--store', join(spHome, 'store')], spHome);
  expect(verified.status, verified.stdout + verified.stderr).toBe(0);
  const log = readLog(spHome);
  expect(log).not.toMatch(/exited|not under|not JSON|cannot/);
  expect(statSync(join(spHome, 'logs', 'hooks.log')).mode & 0o777).toBe(0o600);
  // Uninstall: the exact bytes from before install, or — when the client rewrote its own settings
  // file meanwhile (Qwen Code does) — that file without sp's entry.
  const un = sp('sp-hooks', ['uninstall', agent, '--home', client.agentHome], spHome);
  expect(un.stdout).toMatch(/\t(restored|removed)\t/);
  const status = JSON.parse(sp('sp-hooks', ['status', agent, '--home', client.agentHome, '--json'], spHome).stdout);
  expect(status.installed).toBe(false);
}

describe.concurrent('sp hooks with the real clients', () => {
  it('Claude Code 2.1.332: Stop/SessionEnd hooks capture each turn, redacted and verifying; a resumed turn adds only its events', async () => {
    const base = join(work, 'claude');
    const home = join(base, 'home');
    const cwd = join(base, 'project');
    mkdirSync(cwd, { recursive: true });
    mkdirSync(join(home, '.claude'), { recursive: true });
    const mock = await startMockAnthropic();
    const run = async (args: string[]) => {
      const r = await runClaude([...args, '--dangerously-skip-permissions', '--output-format', 'json'], { cwd, home, port: mock.port, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).session_id as string;
    };
    await scenario('claude', base, {
      agentHome: join(home, '.claude'),
      turn: (prompt) => run(['-p', prompt]),
      resume: async (id, prompt) => void (await run(['-p', prompt, '--resume', id])),
      close: () => mock.close(),
    });
  }, 420_000);

  it('Codex 0.171.0: the notify program captures each turn, redacted and verifying; a resumed turn adds only its events', async () => {
    const base = join(work, 'codex');
    const home = join(base, 'codex-home');
    const cwd = join(base, 'project');
    mkdirSync(cwd, { recursive: true });
    const mock = await startMockResponses('OK');
    writeCodexConfig(home, mock.baseUrl);
    const run = async (args: string[]) => {
      const r = await runCodexExec(args, { home, work: base, cwd, timeoutMs: 120_000 });
      expect(r.code, r.stderr).toBe(0);
      return r.threadId!;
    };
    await scenario('codex', base, {
      agentHome: home,
      turn: (prompt) => run([prompt]),
      resume: async (id, prompt) => void (await run(['resume', id, prompt])),
      close: () => mock.close(),
    });
  }, 420_000);

  for (const agent of ['gemini', 'qwen'] as const) {
    const version = agent === 'gemini' ? 'Gemini CLI 0.61.0' : 'Qwen Code 0.24.4';
    const events = agent === 'gemini' ? 'AfterAgent/SessionEnd' : 'Stop/SessionEnd';
    it(`${version}: ${events} hooks capture each turn, redacted and verifying; a resumed turn adds only its events`, async () => {
      const base = join(work, agent);
      const place = preparePlace(agent, base);
      const mock = agent === 'gemini' ? await startMockGemini('OK') : await startMockModel('OK');
      const url = agent === 'gemini' ? (mock as { url: string }).url : `http://127.0.0.1:${(mock as { port: number }).port}`;
      const run = async (id: string | undefined, prompt: string) => {
        const r = await resumeWith(agent, place, url, id, prompt);
        expect(r.code, r.stderr.slice(-2000)).toBe(0);
        // Gemini prints one object, Qwen a list of stream events; both name session_id.
        const found = /"session_id"\s*:\s*"([^"]+)"/.exec(r.stdout)?.[1];
        expect(found, r.stdout.slice(0, 500)).toBeDefined();
        return found!;
      };
      await scenario(agent, base, {
        agentHome: agentHome(agent, place),
        turn: (prompt) => run(undefined, prompt),
        resume: async (id, prompt) => void (await run(id, prompt)),
        close: () => mock.close(),
      });
    }, 420_000);
  }

  it('Copilot CLI 1.0.102: an agentStop hook file captures each turn, redacted and verifying; a resumed turn adds only its events', async () => {
    const base = join(work, 'copilot');
    const home = join(base, 'home');
    const cwd = join(base, 'project');
    mkdirSync(cwd, { recursive: true });
    mkdirSync(join(home, '.copilot'), { recursive: true });
    const mock = await startMockModel('OK');
    const run = async (args: string[]) => {
      const r = await runClient(COPILOT_BIN, [...args, '--allow-all', '--no-auto-update', '--output-format', 'json', '--no-ask-user'], { cwd, env: copilotEnv(home, mock), timeoutMs: 120_000, killGroup: true });
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      const found = /"sessionId"\s*:\s*"([^"]+)"/.exec(r.stdout)?.[1];
      expect(found, r.stdout.slice(-500)).toBeDefined();
      return found!;
    };
    await scenario('copilot', base, {
      agentHome: join(home, '.copilot'),
      turn: (prompt) => run(['-p', prompt]),
      resume: async (id, prompt) => void (await run([`--resume=${id}`, '-p', prompt])),
      close: () => mock.close(),
    });
  }, 420_000);

  it('Pi 0.73.1: an agent_end extension captures each turn, redacted and verifying; a resumed turn adds only its events', async () => {
    const base = join(work, 'pi');
    const home = join(base, 'home');
    const agentDir = join(base, 'agent');
    const cwd = join(base, 'project');
    mkdirSync(cwd, { recursive: true });
    const mock = await startMockModel('OK');
    configureAgentDir(agentDir, mock, [{ provider: 'anthropic', model: 'claude-sonnet-4-5', api: 'anthropic-messages' }]);
    const sessionFile = () => {
      const found: string[] = [];
      const walk = (dir: string) => {
        for (const e of readdirSync(dir, { withFileTypes: true })) (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.jsonl') && found.push(join(dir, e.name)));
      };
      walk(join(agentDir, 'sessions'));
      expect(found).toHaveLength(1);
      return found[0];
    };
    const run = async (args: string[]) => {
      const r = await runPi(args, { cwd, agentDir, home, timeoutMs: 120_000 });
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
    };
    await scenario('pi', base, {
      agentHome: agentDir,
      turn: async (prompt) => {
        await run(['-p', prompt]);
        return /_([0-9a-f-]{36})\.jsonl$/.exec(sessionFile())![1];
      },
      resume: async (_id, prompt) => void (await run(['--session', sessionFile(), '-p', prompt])),
      close: () => mock.close(),
    });
  }, 420_000);

  it('OpenCode 1.18.33: a session.idle plugin captures each turn, redacted and verifying; a resumed turn adds only its events', async () => {
    const base = join(work, 'opencode');
    const cwd = join(base, 'project');
    mkdirSync(cwd, { recursive: true });
    const { home, data } = opencodeHome(base);
    const mock = await startMockModel('OK');
    configureOpenCode(home, mock);
    const run = async (args: string[]) => {
      const r = await runClient(OPENCODE_BIN, ['run', '--format', 'json', ...args], { cwd, env: opencodeEnv(home), timeoutMs: 240_000, killGroup: true });
      expect(r.code, r.stderr.slice(-2000)).toBe(0);
      const found = /"sessionID"\s*:\s*"(ses_[A-Za-z0-9]+)"/.exec(r.stdout)?.[1];
      expect(found, r.stdout.slice(-500)).toBeDefined();
      return found!;
    };
    await scenario('opencode', base, {
      // sp's --home for OpenCode is the data dir; the plugin goes to the config dir beside it.
      agentHome: data,
      turn: (prompt) => run([prompt]),
      resume: async (id, prompt) => void (await run(['--session', id, prompt])),
      close: () => mock.close(),
    });
    expect(existsSync(join(home, '.config', 'opencode', 'plugin', 'sp-capture.js'))).toBe(false);
  }, 600_000);
});
