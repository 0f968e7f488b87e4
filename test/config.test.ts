// sp config: $SP_HOME/config.toml and .sp.toml, precedence flags > env > project > user > default,
// checked keys, owner-only atomic writes, and the defaults reaching sp-compile, sp-redact and sp-capture.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'sp-config-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const spHome = join(work, 'sp-home');
const home = join(work, 'home');
const project = join(home, 'src', 'acme');
mkdirSync(join(project, '.git'), { recursive: true });
mkdirSync(join(project, 'sub'), { recursive: true });
const env = { PATH: process.env.PATH, HOME: home, SP_HOME: spHome, SP_PROGRESS: '0' } as Record<string, string>;

function sp(bin: string, args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}) {
  const r = spawnSync(process.execPath, [join(root, 'dist/bin', `sp-${bin}.js`), ...args], { cwd: options.cwd ?? project, env: { ...env, ...options.env }, encoding: 'utf8', input: options.input });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const config = (args: string[], options?: Parameters<typeof sp>[2]) => sp('config', args, options);

describe('sp config', () => {
  it('set writes the user file owner-only; get reads it back; unset removes it', () => {
    expect(config(['set', 'agents.codex.budget', '8000']).code).toBe(0);
    const file = join(spHome, 'config.toml');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(spHome).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8')).toMatch(/\[agents\.codex\]\s*\nbudget = 8000/);
    expect(config(['get', 'agents.codex.budget']).stdout).toBe('8000\n');
    expect(config(['set', 'serve.port', '8123']).code).toBe(0);
    expect(config(['unset', 'serve.port']).code).toBe(0);
    const missing = config(['get', 'serve.port']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
  });

  it('rejects unknown keys (with the nearest one) and bad values, writing nothing', () => {
    const before = readFileSync(join(spHome, 'config.toml'), 'utf8');
    const unknown = config(['set', 'compile.budgte', '5']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe('sp-config: unknown key compile.budgte (did you mean "compile.budget"?); sp config list shows the keys');
    const bad = config(['set', 'compile.budget', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^sp-config: value: compile.budget must be a whole number/);
    expect(config(['set', 'serve.port', '70000']).code).toBe(2);
    expect(config(['set', 'sync.remote', '../../etc']).code).toBe(2);
    expect(readFileSync(join(spHome, 'config.toml'), 'utf8')).toBe(before);
  });

  it('precedence: flags > env > project .sp.toml (found upward to the git root) > user file > default, shown by list --origin', () => {
    config(['set', 'compile.budget', '9000']);
    writeFileSync(join(project, '.sp.toml'), 'compile.budget = 7000\ncompile.target = "pi"\n');
    // Above the git root: not this project's file.
    writeFileSync(join(home, 'src', '.sp.toml'), 'compile.budget = 1\n');
    const listed = config(['list', '--origin'], { cwd: join(project, 'sub') });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`compile.budget = 7000 +# project ${join(project, '.sp.toml')}`));
    expect(listed.stdout).toMatch(/agents\.codex\.budget = 8000 +# user /);
    expect(listed.stdout).toMatch(/redact\.profile = "default" +# default/);
    const fromEnv = config(['list', '--origin', '--json'], { env: { SP_COMPILE_BUDGET: '6000' } });
    const rows = fromEnv.stdout.trim().split('\n').map((l) => JSON.parse(l) as { key: string; value: unknown; origin: string });
    expect(rows.find((r) => r.key === 'compile.budget')).toEqual({ key: 'compile.budget', value: 6000, origin: 'env SP_COMPILE_BUDGET' });
    expect(config(['get', 'compile.budget'], { cwd: home }).stdout).toBe('9000\n');
  });

  it('warns about an unknown key in a file with the nearest one; a project file cannot move agent homes', () => {
    writeFileSync(join(project, '.sp.toml'), '[compile]\ntraget = "pi"\n[agents.claude]\nhome = "/tmp/elsewhere"\n');
    const r = config(['list']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`sp-config: ${join(project, '.sp.toml')}: unknown key compile.traget, ignored (did you mean "compile.target"?)`);
    expect(r.stderr).toContain('agents.claude.home is read from the user\'s file only');
    expect(r.stdout).not.toContain('elsewhere');
    expect(config(['set', 'agents.claude.home', '/x', '--project']).code).toBe(2);
    writeFileSync(join(project, '.sp.toml'), 'compile = [1\n');
    const broken = config(['list']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^sp-config: .*\.sp\.toml(:\d+)?: not valid TOML/);
    expect(broken.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    rmSync(join(project, '.sp.toml'));
  });

  it('sp-compile takes its target and per-agent budget from the config; a flag still wins', () => {
    const fixture = join(root, 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl');
    const events = sp('capture', ['claude', '--path', fixture]).stdout;
    writeFileSync(join(project, '.sp.toml'), '[compile]\ntarget = "codex"\n');
    const compiled = sp('compile', [], { input: events });
    expect(compiled.code, compiled.stderr).toBe(0);
    const event = JSON.parse(compiled.stdout.trim().split('\n').pop()!) as { payload: { target: string; budget: number } };
    expect(event.payload.target).toBe('codex');
    expect(event.payload.budget).toBe(8000);
    const flagged = sp('compile', ['--budget', '5000'], { input: events });
    expect((JSON.parse(flagged.stdout.trim().split('\n').pop()!) as { payload: { budget: number } }).payload.budget).toBe(5000);
    rmSync(join(project, '.sp.toml'));
    const none = sp('compile', [], { input: events, cwd: home });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^sp-compile: say which agent continues the work: --for/);
  }, 120_000);

  it('sp-capture reads an agent home from the user file unless the agent\'s own variable is set', () => {
    const claudeHome = join(root, 'fixtures/claude/corpus/S2-debug/.claude');
    config(['set', 'agents.claude.home', claudeHome]);
    const listed = sp('capture', ['claude', '--list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('9a1dc580-54f5-46ea-bece-7461fb46da3a');
    const overridden = sp('capture', ['claude', '--list'], { env: { CLAUDE_CONFIG_DIR: join(work, 'empty-claude') } });
    expect(overridden.stdout).not.toContain('9a1dc580');
    config(['unset', 'agents.claude.home']);
  }, 60_000);
});
