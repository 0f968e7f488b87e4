// The zx flows in examples/: archive, handoff, audit — each with --help, --demo on the bundled
// fixtures, bad arguments (exit 2), and its real job on temp copies of the fixtures.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess, type ProcessRun } from './support/run.js';

const root = new URL('..', import.meta.url).pathname;
const CLAUDE_ID = 'e05d2652-6a94-447f-8b60-cded66e4199a';
const work = mkdtempSync(join(tmpdir(), 'sp-flows-test-'));
const claudeHome = join(work, 'claude');
const piHome = join(work, 'pi');
cpSync(join(root, 'fixtures/claude/corpus/S1-feature/.claude'), claudeHome, { recursive: true });
cpSync(join(root, 'fixtures/pi/corpus/S1-feature/agent'), piHome, { recursive: true });
const env = { ...process.env, SP_HOME: join(work, 'sp-home'), HOME: join(work, 'home'), SP_PROGRESS: '0' };

type Run = ProcessRun;
// Asynchronous, so that flows running for a while do not block the test worker.
function run(args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  return runProcess(process.execPath, args, { cwd: root, env: { ...env, ...extraEnv } });
}
const flow = (name: string, args: string[], extraEnv?: Record<string, string>) => run([join(root, 'examples', `${name}.mjs`), ...args], extraEnv);
const sp = (name: string, args: string[]) => run([join(root, 'dist/bin', `sp-${name}.js`), ...args]);
// The flows start many node processes; a loaded 2-core machine makes --demo take minutes.
const LONG = 600_000;

describe.each(['archive', 'handoff', 'audit'])('%s.mjs', (name) => {
  it('--help says what it does and how (exit 0); an unknown option is exit 2', async () => {
    const help = await flow(name, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^${name}\\.mjs — `));
    expect(help.stdout).toContain('--demo');
    expect(help.stdout).toContain('Exit status');
    const bad = await flow(name, ['--frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${name}: unknown option --frobnicate`);
  });
});

describe('archive.mjs', () => {
  const store = join(work, 'archive-store');
  const homes = ['--home', `claude=${claudeHome}`, '--home', `pi=${piHome}`];

  it('stores every session of the given homes, silently; a second run adds nothing', async () => {
    const first = await flow('archive', ['--store', store, ...homes]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toBe('');
    const listed = await run([join(root, 'dist/bin/sp-sync.js'), 'ls', '--store', store, '--json']);
    const sessions = listed.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(sessions.map((s) => s.agent).sort()).toEqual(['claude', 'pi']);
    expect(sessions.find((s) => s.agent === 'claude').native_id).toBe(CLAUDE_ID);

    const again = await flow('archive', ['--store', store, ...homes, '--verbose']);
    expect(again.code).toBe(0);
    // Unchanged since the first run: not even read (the watch state's digests), nothing new.
    expect(again.stdout).toMatch(/^claude\s+1\s+1\s+0\s+0\s+0\s+ok$/m);
    expect(again.stdout).toContain('0 new events stored');
    // What was stored is redacted and verifies.
    expect((await sp('verify', ['--store', store])).code).toBe(0);
  }, LONG);

  it('a run while another holds the lock does nothing and exits 0; a stale lock is taken over', async () => {
    const lockFile = `${store}.archive.lock`;
    const holder = spawn('sleep', ['60']);
    try {
      writeFileSync(lockFile, String(holder.pid));
      const blocked = await flow('archive', ['--store', store, ...homes, '--verbose']);
      expect(blocked.code).toBe(0);
      expect(blocked.stderr).toContain('another run holds the lock');
      expect(blocked.stdout).toBe('');
    } finally {
      holder.kill();
    }
    await new Promise((r) => holder.once('exit', r));
    const stale = await flow('archive', ['--store', store, ...homes, '--verbose']);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toContain('0 new events stored');
    expect(existsSync(lockFile)).toBe(false);
  }, LONG);

  it('a failing stage is reported with its diagnostics, exit 1; bad --home is exit 2', async () => {
    const r = await flow('archive', ['--store', join(work, 'other-store'), '--home', `claude=${join(work, 'no-such-home')}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/archive: sp-watch --once: failed \(exit 2\)/);
    expect(r.stderr).toContain('no-such-home');
    expect(r.stderr).toContain('cannot read the Claude Code home');
    expect((await flow('archive', ['--home', 'claude'])).code).toBe(2);
    const unknown = await flow('archive', ['--agents', 'vim']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown agent "vim"; known agents: .*claude/);
  }, LONG);

  it('--demo archives the fixtures of every registered agent that has some, twice (the second adds nothing)', async () => {
    const r = await flow('archive', ['--demo']);
    expect(r.code, r.stderr).toBe(0);
    const [first, second] = r.stdout.split('again (idempotent');
    for (const agent of ['claude', 'codex', 'pi', 'hermes']) expect(first).toMatch(new RegExp(`^${agent}\\s+\\d+\\s+(\\d+)\\s+\\1\\s+[1-9]\\d*\\s+0\\s+ok$`, 'm'));
    // The second run reads no session of these agents (nothing changed) and stores nothing.
    for (const agent of ['claude', 'codex', 'pi', 'hermes']) expect(second).toMatch(new RegExp(`^${agent}\\s+\\d+\\s+[1-9]\\d*\\s+0\\s+0\\s+0\\s+ok$`, 'm'));
    expect(second).not.toMatch(/FAILED/);
  }, LONG);
});

describe('handoff.mjs', () => {
  const store = join(work, 'handoff-store');
  const codexHome = join(work, 'codex-target');

  it('relays, records a signed receipt in the store, prints the resume command', async () => {
    mkdirSync(codexHome, { recursive: true });
    const r = await flow('handoff', ['claude', 'codex', '--session', CLAUDE_ID.slice(0, 8), '--home', claudeHome, '--to-home', codexHome, '--to-cwd', join(work, 'proj'), '--mkcwd', '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    const resume = r.stdout.trim();
    expect(resume.split('\n')).toHaveLength(1);
    expect(resume).toMatch(/codex resume [0-9a-f-]{36}$/);
    const rollouts = readdirSync(join(codexHome, 'sessions'), { recursive: true }).map(String).filter((f) => f.endsWith('.jsonl'));
    expect(rollouts).toHaveLength(1);
    expect(rollouts[0]).toContain(resume.split(' ').pop());
    // The ledger from --report: a row per source event (82), totals by action, the translated tool calls.
    const line = r.stderr.match(/ledger: 82 events: (.*)/);
    expect(line, r.stderr).not.toBeNull();
    const totals = Object.fromEntries([...line![1].matchAll(/(\d+) (\w+)/g)].map((m) => [m[2], Number(m[1])]));
    expect(Object.keys(totals)).toEqual(['carried', 'translated', 'rendered', 'transformed', 'stubbed', 'dropped']);
    expect(Object.values(totals).reduce((a, b) => a + b, 0)).toBe(82);
    expect(totals.translated).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/^ {3}\d+× translated tool-name Bash → exec_command$/m);
    expect(r.stderr).not.toMatch(/× carried/);
    const receipts = readdirSync(join(store, 'receipts'));
    expect(receipts).toHaveLength(1);
    const receipt = JSON.parse(readFileSync(join(store, 'receipts', receipts[0]), 'utf8'));
    expect(receipt).toMatchObject({ from_agent: 'claude', to_agent: 'codex', target_session: resume.split(' ').pop() });
    expect((await sp('verify', ['--store', store, join(store, 'receipts', receipts[0])])).code).toBe(0);
    // The stored session now ends with the handoff event.
    const log = await run([join(root, 'dist/bin/sp-sync.js'), 'log', receipt.session_id, '--store', store]);
    const last = JSON.parse(log.stdout.trim().split('\n').pop()!);
    expect(last.type).toBe('handoff');
    expect(last.payload).toMatchObject({ from_agent: 'claude', to_agent: 'codex' });
  }, LONG);

  it('usage errors are exit 2 and name the fix', async () => {
    const none = await flow('handoff', ['claude', 'codex', '--home', claudeHome]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--session ID or --latest');
    const unknown = await flow('handoff', ['claude', 'vim', '--latest']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown agent "vim"/);
    const missing = await flow('handoff', ['claude', 'codex', '--session', 'ffffffff', '--home', claudeHome, '--store', join(work, 's2')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/handoff: capture failed[\s\S]*ffffffff/);
  }, LONG);

  it('--demo: a fixture Claude Code session to a temporary Codex home', async () => {
    const r = await flow('handoff', ['--demo']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^cd .*acme-api && CODEX_HOME=\S+ codex resume [0-9a-f-]{36}$/); // a temporary home, named on the line
    expect(r.stderr).toMatch(/4\. receipt[\s\S]*receipts\/rcpt_[0-9a-f]+\.json/);
  }, LONG);
});

describe('audit.mjs', () => {
  it('a verified store with a handoff receipt: a table, exit 0; one changed character: FAILED, exit 1', async () => {
    const store = join(work, 'handoff-store');
    expect(existsSync(store), 'runs after the handoff test: its store is audited').toBe(true);
    const ok = await flow('audit', ['--store', store]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^session\s+agent\s+events\s+owner\s+status/);
    expect(ok.stdout).toMatch(/sess_[0-9a-f]+\s+claude\s+84\s+codex\s+ok/); // 82 captured, the sp.redacted marker, the handoff
    expect(ok.stdout).toContain('1 sessions: 1 verified, 0 failed; 1 handoff receipts: 1 verified, 0 failed');

    const copy = join(work, 'audit-tampered');
    cpSync(store, copy, { recursive: true });
    const dir = join(copy, 'sessions', readdirSync(join(copy, 'sessions'))[0]);
    const log = readFileSync(join(dir, 'events.jsonl'), 'utf8');
    writeFileSync(join(dir, 'events.jsonl'), log.replace('DELETE', 'DELETF'));
    const bad = await flow('audit', ['--store', copy, '--json']);
    expect(bad.code).toBe(1);
    const rows = bad.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(rows[0]).toMatchObject({ agent: 'claude', status: 'FAILED' });
    expect(rows[0].problem).toMatch(/sessions\/sess_[0-9a-f]+\/events\.jsonl/);
  }, LONG);

  it('no store is exit 2 with what to do', async () => {
    const r = await flow('audit', ['--store', join(work, 'nothing-here')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('sp-sync ingest');
  });

  it('--demo: the fixture store verifies, the tampered copy does not', async () => {
    const r = await flow('audit', ['--demo']);
    expect(r.code, r.stderr).toBe(0);
    const [clean, tampered] = r.stdout.split('the same store with one character');
    expect(clean).toMatch(/(\d+) sessions: \1 verified, 0 failed/);
    expect(tampered).toMatch(/\d+ sessions: \d+ verified, 1 failed/);
  }, LONG);
});

describe('sp <flow>', () => {
  it('runs a flow through the umbrella with its exit status', async () => {
    const help = await run([join(root, 'dist/bin/sp.js'), 'audit', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^audit\.mjs — /);
    const bad = await run([join(root, 'dist/bin/sp.js'), 'audit', '--store', join(work, 'nothing-here')]);
    expect(bad.code).toBe(2);
  });
});
