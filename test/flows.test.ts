// The TypeScript flows archive, handoff and audit (flows/*.ts, run by `sp <flow>` and as
// dist/flows/<flow>.js): --help, one-line usage errors (exit 2), a bad session selector, the
// default redaction, and each flow's real job on temporary copies of the fixtures.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess, type ProcessRun } from './support/run.js';

const root = new URL('..', import.meta.url).pathname;
const CLAUDE_ID = 'e05d2652-6a94-447f-8b60-cded66e4199a';
// A GitHub token planted in the first prompt: no flow may store or write it as it is.
const SECRET = 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';
const work = mkdtempSync(join(tmpdir(), 'sp-flows-test-'));
const claudeHome = join(work, 'claude');
const piHome = join(work, 'pi');
cpSync(join(root, 'fixtures/claude/corpus/S1-feature/.claude'), claudeHome, { recursive: true });
cpSync(join(root, 'fixtures/pi/corpus/S1-feature/agent'), piHome, { recursive: true });
const claudeFile = join(claudeHome, 'projects/-home-alice-acme-api', `${CLAUDE_ID}.jsonl`);
writeFileSync(claudeFile, readFileSync(claudeFile, 'utf8').replaceAll('endpoint with a test.', `endpoint with a test. The token is ${SECRET}.`));
const env = { ...process.env, SP_HOME: join(work, 'sp-home'), HOME: join(work, 'home'), SP_PROGRESS: '0', NO_COLOR: '1' };

// Asynchronous, so that a flow running for a while does not block the test worker.
const run = (args: string[]): Promise<ProcessRun> => runProcess(process.execPath, args, { cwd: root, env });
const flow = (name: string, args: string[]) => run([join(root, 'dist/flows', `${name}.js`), ...args]);
const sp = (args: string[]) => run([join(root, 'dist/bin/sp.js'), ...args]);
const lines = (text: string) => text.split('\n').filter(Boolean);
/** Every file under a folder, as text (to look for the planted secret). */
const allText = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map((name) => join(dir, String(name)))
    .filter((file) => statSync(file).isFile())
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
const LONG = 120_000;

describe.each(['archive', 'handoff', 'audit'])('sp %s', (name) => {
  it('--help says what it does and how (exit 0); an unknown option is one line, exit 2', async () => {
    const help = await sp([name, '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(new RegExp(`^${name} `));
    expect(help.stdout).toContain('--demo');
    expect(help.stdout).toContain('--json');
    expect(help.stdout).toContain('Exit status');
    const bad = await flow(name, ['--frobnicate']);
    expect(bad.code).toBe(2);
    expect(lines(bad.stderr)).toHaveLength(1);
    expect(bad.stderr).toMatch(new RegExp(`^${name}: .*frobnicate`));
  });
});

describe('sp archive', () => {
  const store = join(work, 'archive-store');
  const homes = ['--home', `claude=${claudeHome}`, '--home', `pi=${piHome}`];

  it('stores every session of the given homes, redacted and silently; a second run adds nothing', async () => {
    const first = await sp(['archive', '--store', store, ...homes]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toBe('');
    const listed = await run([join(root, 'dist/bin/sp-sync.js'), 'ls', '--store', store, '--json']);
    const sessions = lines(listed.stdout).map((l) => JSON.parse(l));
    expect(sessions.map((s) => s.agent).sort()).toEqual(['claude', 'pi']);
    expect(sessions.find((s) => s.agent === 'claude').native_id).toBe(CLAUDE_ID);
    const stored = allText(join(store, 'sessions'));
    expect(stored).not.toContain(SECRET);
    expect(stored).toContain('[REDACTED:github-pat:');

    const again = await flow('archive', ['--store', store, ...homes, '--verbose']);
    expect(again.code).toBe(0);
    // Unchanged since the first run: not even read (the watch state's digests), nothing new.
    expect(again.stdout).toMatch(/^claude\s+1\s+1\s+0\s+0\s+0\s+ok$/m);
    expect(again.stdout).toContain('0 new events stored');
    const json = await flow('archive', ['--store', store, ...homes, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ store, added: 0, errors: 0, busy: false });
    expect((await run([join(root, 'dist/bin/sp-verify.js'), '--store', store])).code).toBe(0);
  }, LONG);

  it('a run while another holds the lock does nothing and exits 0; a stale or forged lock is taken over', async () => {
    const lockFile = `${store}.archive.lock`;
    const holder = spawn('sleep', ['60']);
    try {
      writeFileSync(lockFile, String(holder.pid));
      const blocked = await flow('archive', ['--store', store, ...homes, '--verbose']);
      expect(blocked.code).toBe(0);
      expect(blocked.stderr).toContain('another archive run holds the lock');
      expect(blocked.stdout).toBe('');
    } finally {
      holder.kill();
    }
    await new Promise((r) => holder.once('exit', r));
    const stale = await flow('archive', ['--store', store, ...homes, '--verbose']);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toContain('0 new events stored');
    expect(existsSync(lockFile)).toBe(false);
    // Not a pid (e.g. "-1", which would name every process to kill(2)): not an owner.
    writeFileSync(lockFile, '-1');
    const forged = await flow('archive', ['--store', store, ...homes, '--verbose']);
    expect(forged.code).toBe(0);
    expect(forged.stdout).toContain('0 new events stored');
  }, LONG);

  it('an unreadable home is one line and exit 1; bad --home and an unknown agent are exit 2', async () => {
    const r = await flow('archive', ['--store', join(work, 'other-store'), '--home', `claude=${join(work, 'no-such-home')}`]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/^archive: .*no-such-home: cannot read the Claude Code home/);
    const badHome = await flow('archive', ['--home', 'claude']);
    expect(badHome.code).toBe(2);
    expect(badHome.stderr).toContain('--home wants AGENT=DIR');
    const unknown = await flow('archive', ['--agents', 'vim']);
    expect(unknown.code).toBe(2);
    expect(lines(unknown.stderr)).toHaveLength(1);
    expect(unknown.stderr).toMatch(/unknown agent "vim".*; known agents: .*claude/);
  }, LONG);

  it('--demo archives the fixtures of every registered agent that has some, twice (the second adds nothing)', async () => {
    const r = await sp(['archive', '--demo']);
    expect(r.code, r.stderr).toBe(0);
    const [first, second] = r.stdout.split('again (idempotent');
    for (const agent of ['claude', 'codex', 'pi', 'hermes']) expect(first).toMatch(new RegExp(`^${agent}\\s+\\d+\\s+(\\d+)\\s+\\1\\s+[1-9]\\d*\\s+0\\s+ok$`, 'm'));
    for (const agent of ['claude', 'codex', 'pi', 'hermes']) expect(second).toMatch(new RegExp(`^${agent}\\s+\\d+\\s+[1-9]\\d*\\s+0\\s+0\\s+0\\s+ok$`, 'm'));
    expect(second).not.toMatch(/FAILED/);
  }, LONG);
});

describe('sp handoff', () => {
  const store = join(work, 'handoff-store');
  const codexHome = join(work, 'codex-target');

  it('relays (redacted), records a signed receipt in the store, prints the resume command', async () => {
    mkdirSync(codexHome, { recursive: true });
    const r = await sp(['handoff', '--from', 'claude', '--to', 'codex', '--session', CLAUDE_ID.slice(0, 8), '--home', claudeHome, '--to-home', codexHome, '--to-cwd', join(work, 'proj'), '--mkcwd', '--store', store]);
    expect(r.code, r.stderr).toBe(0);
    const resume = r.stdout.trim();
    expect(resume.split('\n')).toHaveLength(1);
    expect(resume).toMatch(/codex resume [0-9a-f-]{36}$/);
    const rollouts = readdirSync(join(codexHome, 'sessions'), { recursive: true }).map(String).filter((f) => f.endsWith('.jsonl'));
    expect(rollouts).toHaveLength(1);
    expect(rollouts[0]).toContain(resume.split(' ').pop());
    // The ledger: a row per source event (82), totals by action, the translated tool calls.
    const line = r.stderr.match(/ledger: 82 events: (.*)/);
    expect(line, r.stderr).not.toBeNull();
    const totals = Object.fromEntries([...line![1].matchAll(/(\d+) (\w+)/g)].map((m) => [m[2], Number(m[1])]));
    expect(Object.values(totals).reduce((a, b) => a + b, 0)).toBe(82);
    expect(totals.translated).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/^handoff: +\d+× translated tool-name Bash → exec_command$/m);
    expect(r.stderr).not.toMatch(/× carried/);
    // Redacted before it was stored and before it was written.
    for (const dir of [join(codexHome, 'sessions'), join(store, 'sessions')]) {
      const text = allText(dir);
      expect(text).not.toContain(SECRET);
      expect(text).toContain('[REDACTED:github-pat:');
    }
    const receipts = readdirSync(join(store, 'receipts'));
    expect(receipts).toHaveLength(1);
    const receipt = JSON.parse(readFileSync(join(store, 'receipts', receipts[0]), 'utf8'));
    // The store's manifest says so (the flow used to store it as unredacted, as if opted out).
    const manifest = JSON.parse(readFileSync(join(store, 'sessions', receipt.session_id, 'manifest.json'), 'utf8'));
    expect(manifest.redaction).toMatchObject({ state: 'redacted', profile: 'default' });
    expect(receipt).toMatchObject({ from_agent: 'claude', to_agent: 'codex', target_session: resume.split(' ').pop() });
    expect((await run([join(root, 'dist/bin/sp-verify.js'), '--store', store, join(store, 'receipts', receipts[0])])).code).toBe(0);
    // The stored session now ends with the handoff event.
    const log = await run([join(root, 'dist/bin/sp-sync.js'), 'log', receipt.session_id, '--store', store]);
    const last = JSON.parse(lines(log.stdout).pop()!);
    expect(last.type).toBe('handoff');
    expect(last.payload).toMatchObject({ from_agent: 'claude', to_agent: 'codex' });
  }, LONG);

  it('positionals as shortcuts, -q and --json: one record on stdout, nothing on stderr', async () => {
    const target = join(work, 'codex-json');
    mkdirSync(target);
    const r = await flow('handoff', ['claude', 'codex', CLAUDE_ID, '--home', claudeHome, '--to-home', target, '--to-cwd', join(work, 'proj'), '--store', join(work, 'json-store'), '--note', 'over to you', '--json', '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const record = JSON.parse(r.stdout);
    expect(record.session).toMatch(/^sess_[0-9a-f]{32}$/);
    expect(record.ledger.events).toBe(82);
    expect(record.receipt).toMatchObject({ note: 'over to you', to_agent: 'codex', target_session: record.result.session_id });
    expect(existsSync(record.receipt_path)).toBe(true);
  }, LONG);

  it('a session that does not exist is one line, exit 2; usage errors are exit 2 and name the fix', async () => {
    const missing = await flow('handoff', ['claude', 'codex', 'ffffffff', '--home', claudeHome, '--store', join(work, 's2'), '-q']);
    expect(missing.code).toBe(2);
    expect(lines(missing.stderr)).toHaveLength(1);
    expect(missing.stderr).toMatch(/^handoff: .*ffffffff/);
    expect(existsSync(join(work, 's2'))).toBe(false); // nothing stored
    const none = await flow('handoff', ['claude', 'codex', '--home', claudeHome]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--session ID (or the third positional) or --latest');
    const unknown = await flow('handoff', ['--from', 'claude', '--to', 'vim', '--latest']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown agent "vim"/);
    const disagree = await flow('handoff', ['claude', 'codex', '--from', 'pi', '--latest']);
    expect(disagree.code).toBe(2);
    expect(disagree.stderr).toContain('--from pi and the positional claude disagree');
  }, LONG);

  it('--demo: a fixture Claude Code session to a temporary Codex home', async () => {
    const r = await sp(['handoff', '--demo']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^cd .*acme-api && CODEX_HOME=\S+ codex resume [0-9a-f-]{36}$/);
    expect(r.stderr).toMatch(/4\. receipt[\s\S]*receipts\/rcpt_[0-9a-f]+\.json/);
  }, LONG);
});

describe('sp audit', () => {
  it('a verified store with a handoff receipt: a table, exit 0; one changed character: FAILED, exit 1', async () => {
    const store = join(work, 'handoff-store');
    expect(existsSync(store), 'runs after the handoff test: its store is audited').toBe(true);
    const ok = await sp(['audit', '--store', store]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^session\s+agent\s+events\s+owner\s+status/);
    expect(ok.stdout).toMatch(/sess_[0-9a-f]+\s+claude\s+83\s+codex\s+ok/); // 82 captured and the handoff
    expect(ok.stdout).toContain('1 sessions: 1 verified, 0 failed; 1 handoff receipts: 1 verified, 0 failed');

    const copy = join(work, 'audit-tampered');
    cpSync(store, copy, { recursive: true });
    const dir = join(copy, 'sessions', readdirSync(join(copy, 'sessions'))[0]);
    const log = readFileSync(join(dir, 'events.jsonl'), 'utf8');
    writeFileSync(join(dir, 'events.jsonl'), log.replace('DELETE', 'DELETF'));
    const bad = await flow('audit', ['--store', copy, '--json']);
    expect(bad.code).toBe(1);
    const rows = lines(bad.stdout).map((l) => JSON.parse(l));
    expect(rows[0]).toMatchObject({ agent: 'claude', status: 'FAILED' });
    expect(rows[0].problem).toMatch(/^sessions\/sess_[0-9a-f]+\/events\.jsonl/);
  }, LONG);

  it('no store is one line, exit 2, with what to do', async () => {
    const r = await flow('audit', ['--store', join(work, 'nothing-here')]);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain('sp-sync ingest');
  });

  it('--demo: the fixture store verifies, the tampered copy does not', async () => {
    const r = await sp(['audit', '--demo']);
    expect(r.code, r.stderr).toBe(0);
    const [clean, tampered] = r.stdout.split('the same store with one character');
    expect(clean).toMatch(/(\d+) sessions: \1 verified, 0 failed/);
    expect(tampered).toMatch(/\d+ sessions: \d+ verified, 1 failed/);
  }, LONG);
});
