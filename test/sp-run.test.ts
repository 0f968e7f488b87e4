// sp run: the stages in one process give the bytes the same binaries give joined by shell pipes
// (`set -o pipefail`), on sessions recorded by real Claude Code, Codex and Pi clients; bad stages,
// bad stage arguments and a failing middle stage end as the pipe would, with the binary's message.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runProcess } from './support/run.js';

const root = new URL('..', import.meta.url).pathname;
const bin = (name: string) => join(root, 'dist/bin', `${name}.js`);
// One SP_HOME for both sides: the same redaction key, so the same placeholders.
const spHome = mkdtempSync(join(tmpdir(), 'sp-run-test-'));
const env = { ...process.env, SP_HOME: spHome, SP_PROGRESS: '0', NO_COLOR: '1' };
afterAll(() => rmSync(spHome, { recursive: true, force: true }));

const sessions = {
  claude: join(root, 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl'),
  codex: join(root, 'fixtures/codex/corpus/S2-debug/sessions/2026/11/30/rollout-2026-11-30T05-07-06-01a22ad9-7cda-7dc3-af4a-0f4bdf56c072.jsonl'),
  pi: join(root, 'fixtures/pi/corpus/S2-debug/agent/sessions/--home-carol-acme-api--/2026-11-30T05-02-18-208Z_01a22ad5-1860-75b1-a6ae-a6566d610280.jsonl'),
};

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** The stages as the shell pipeline of their binaries. */
function pipe(stages: string[][]) {
  const script = stages.map(([name, ...args]) => [process.execPath, bin(`sp-${name}`), ...args].map(quote).join(' ')).join(' | ');
  return runProcess('bash', ['-o', 'pipefail', '-c', script], { env });
}

/** The same stages in one process. */
function inProcess(stages: string[][]) {
  return runProcess(process.execPath, [bin('sp'), 'run', ...stages.flatMap((stage, i) => (i === 0 ? stage : [':', ...stage]))], { env });
}

const T = 120_000;

describe('sp run: the bytes of the pipe', () => {
  for (const [agent, file] of Object.entries(sessions)) {
    const capture = ['capture', agent, '--path', file];
    const combinations: Array<[string, string[][]]> = [
      ['capture : redact : verify', [capture, ['redact'], ['verify']]],
      ['capture --raw : redact --public : verify --json', [[...capture, '--raw'], ['redact', '--public'], ['verify', '--json']]],
      ['capture : redact : compile --for codex', [capture, ['redact', '-q'], ['compile', '--for', 'codex']]],
      ['capture : compile --for claude --render', [capture, ['compile', '--for', 'claude', '--render', '--no-workspace']]],
      ['capture : redact : compile --for pi : verify', [capture, ['redact', '-q'], ['compile', '--for', 'pi', '--budget', '6000'], ['verify']]],
    ];
    // Every combination on the Claude session; the main three on the others (the machine is shared).
    for (const [title, stages] of agent === 'claude' ? combinations : combinations.slice(0, 3)) {
      it(`${agent}: ${title}`, { timeout: T }, async () => {
        const [piped, run] = await Promise.all([pipe(stages), inProcess(stages)]);
        expect(piped.stdout.length).toBeGreaterThan(0);
        expect(run.stdout).toBe(piped.stdout);
        expect(run.code).toBe(piped.code);
      });
    }
  }

  it('materialize: the same session written, line for line (its new id and times aside)', { timeout: T }, async () => {
    const stages = [['capture', 'claude', '--path', sessions.claude], ['redact', '-q'], ['materialize', 'codex', '--dry-run', '--cwd', '/work/acme']];
    const [piped, run] = await Promise.all([pipe(stages), inProcess(stages)]);
    expect(piped.code).toBe(0);
    expect(run.code).toBe(0);
    // A new session gets a fresh time-ordered id and the time of writing: the rest is the same.
    const fresh = (text: string) =>
      text
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'ID')
        .replace(/\d{4}-\d\d-\d\dT\d\d[-:]\d\d[-:]\d\d(?:\.\d+)?Z?/g, 'TIME')
        .replace(/\/\d{4}\/\d\d\/\d\d\//g, '/DATE/');
    expect(run.stdout.split('\n').length).toBeGreaterThan(10);
    expect(fresh(run.stdout)).toBe(fresh(piped.stdout));
  });

  it('the first stage reads standard input, and a stage given a file reads it instead', { timeout: T }, async () => {
    const script = (command: string) => runProcess('bash', ['-o', 'pipefail', '-c', command], { env });
    const sp = `${quote(process.execPath)} ${quote(bin('sp'))}`;
    const captured = `${quote(process.execPath)} ${quote(bin('sp-capture'))} pi --path ${quote(sessions.pi)}`;
    const piped = await script(`${captured} | ${quote(process.execPath)} ${quote(bin('sp-redact'))} -q | ${quote(process.execPath)} ${quote(bin('sp-verify'))}`);
    const run = await script(`${captured} | ${sp} run redact -q : verify`);
    expect(run.stdout).toBe(piped.stdout);
    expect(run.stdout).toMatch(/verified/);
    // `verify FILE` reads the file, not the stage before it (as `a | sp-verify FILE` would).
    const fromFile = await script(`${captured} > "$SP_HOME/s.ndjson" && ${sp} run capture codex --path ${quote(sessions.codex)} : verify "$SP_HOME/s.ndjson"`);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toMatch(/^ok\s+sess_\S+ \(\d+ events/);
    expect(fromFile.stdout).toBe((await script(`${sp} verify "$SP_HOME/s.ndjson"`)).stdout);
  });
});

describe('sp run: errors', () => {
  it('an unknown stage: one line with the nearest name, exit 2, nothing run', { timeout: T }, async () => {
    const r = await inProcess([['capture', 'claude', '--path', sessions.claude], ['redcat'], ['verify']]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('sp-run: unknown stage "redcat" (did you mean "redact"?); stages: capture, redact, verify, compile, materialize\n');
    const empty = await inProcess([['capture', 'claude', '--path', sessions.claude], [], ['verify']]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^sp-run: stage 2 is empty/);
    const none = await runProcess(process.execPath, [bin('sp'), 'run'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^sp-run: say which stages/);
  });

  it("bad arguments of a stage: the binary's own message after the stage's name, before anything runs", { timeout: T }, async () => {
    const cases: string[][] = [
      ['redact', '--bogus'],
      ['compile', '--for', 'codex', '--budget', 'x'],
      ['compile', '--for', 'emacs'],
      ['materialize'],
      ['verify', '--allow-fragmant'],
    ];
    for (const stage of cases) {
      const run = await inProcess([['capture', 'claude', '--path', sessions.claude], stage]);
      const alone = await runProcess(process.execPath, [bin(`sp-${stage[0]}`), ...stage.slice(1)], { env });
      expect(alone.code).toBe(2);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      const message = alone.stderr.trim().replace(/^sp-\w+: /, '');
      expect(message.length).toBeGreaterThan(5);
      expect(run.stderr).toBe(`sp-run: ${stage[0]}: ${message}\n`);
    }
  });

  it('a failing middle stage: its error after its name, the stages after it read what it wrote, the exit status as with pipefail', { timeout: T }, async () => {
    for (const agent of ['claude', 'codex'] as const) {
      const stages = [['capture', agent, '--path', sessions[agent]], ['compile', '--for', 'codex', '--budget', '10'], ['verify']];
      const [piped, run] = await Promise.all([pipe(stages), inProcess(stages)]);
      expect(piped.code).toBe(2);
      expect(run.code).toBe(piped.code);
      expect(run.stdout).toBe(piped.stdout);
      expect(run.stderr).toMatch(/^sp-run: compile: budget: the must-keep \(P0\) items need/);
    }
  });

  it('--help: its own, and a stage\'s is its binary\'s', { timeout: T }, async () => {
    const own = await runProcess(process.execPath, [bin('sp'), 'run', '--help'], { env: { ...env, COLUMNS: '100' } });
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(/^sp-run STAGE \[ARGS…\]/);
    for (const stage of ['capture', 'redact', 'verify', 'compile', 'materialize']) expect(own.stdout).toContain(stage);
    const stageHelp = await runProcess(process.execPath, [bin('sp'), 'run', 'compile', '--help'], { env: { ...env, COLUMNS: '100' } });
    const binHelp = await runProcess(process.execPath, [bin('sp-compile'), '--help'], { env: { ...env, COLUMNS: '100' } });
    expect(stageHelp.code).toBe(0);
    expect(stageHelp.stdout).toBe(binHelp.stdout);
  });
});
