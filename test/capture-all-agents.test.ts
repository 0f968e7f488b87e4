// sp-capture --all-agents --list: every registered agent's sessions from its own home, newest
// first; a missing home is silent, a broken one is one diagnostic line and the others still list.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from './support/streams.js';
import { FAKE } from './support/fakeSecrets.js';

const fixtures = resolve('fixtures');
let dir: string;
/** Every agent's home variable, emptied, so the machine's own sessions never leak into a run. */
const AGENT_HOME_VARS = ['AIDER_HISTORY_ROOT', 'SP_ATIF_HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'COPILOT_HOME', 'CURSOR_HOME', 'GEMINI_CLI_HOME', 'HERMES_HOME', 'XDG_DATA_HOME', 'SP_OTEL_HOME', 'PI_CODING_AGENT_DIR', 'QODER_CONFIG_DIR', 'QWEN_HOME'];

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { HOME: join(dir, 'home'), SP_HOME: join(dir, 'sp'), XDG_CONFIG_HOME: join(dir, 'home', '.config'), SP_FORCE_TTY: '', NO_COLOR: '1' };
  for (const name of AGENT_HOME_VARS) env[name] = '';
  // An empty variable falls back to the default under HOME; point the ones with a cwd default elsewhere.
  env.AIDER_HISTORY_ROOT = join(dir, 'home', 'no-aider');
  env.XDG_DATA_HOME = join(dir, 'home', '.local', 'share');
  return env;
}

/** Homes from the recorded fixtures (the Hermes database copied: SQLite may leave side files beside it). */
function goodHomes(): Record<string, string> {
  const hermes = join(dir, 'hermes');
  mkdirSync(hermes, { recursive: true });
  copyFileSync(join(fixtures, 'hermes/corpus/state.db'), join(hermes, 'state.db'));
  return {
    CLAUDE_CONFIG_DIR: join(fixtures, 'claude/corpus/S2-debug/.claude'),
    CODEX_HOME: join(fixtures, 'codex/corpus/S1-feature'),
    PI_CODING_AGENT_DIR: join(fixtures, 'pi/corpus/S1-feature/agent'),
    HERMES_HOME: hermes,
  };
}

interface Row { agent: string; native_id: string; cwd?: string; title?: string; last_ts?: number; last_activity?: string; path: string }
const rowsOf = (stdout: string): Row[] => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
const list = (env: Record<string, string>, extra: string[] = ['--json']) =>
  runBin('sp-capture', ['--all-agents', '--list', ...extra], { env: { ...baseEnv(), ...env }, cwd: join(dir, 'cwd') });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sp-all-agents-'));
  mkdirSync(join(dir, 'home'), { recursive: true });
  mkdirSync(join(dir, 'cwd'), { recursive: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sp-capture --all-agents --list', () => {
  it('lists the sessions of every agent with a home, newest first; absent homes are silent', () => {
    const r = list(goodHomes());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = rowsOf(r.stdout);
    expect(new Set(rows.map((row) => row.agent))).toEqual(new Set(['claude', 'codex', 'hermes', 'pi']));
    for (const row of rows) {
      expect(typeof row.native_id).toBe('string');
      expect(row.last_activity).toBe(new Date(row.last_ts! * 1000).toISOString());
    }
    const times = rows.map((row) => row.last_ts!);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const claude = rows.find((row) => row.agent === 'claude')!;
    expect(claude).toMatchObject({ native_id: '9a1dc580-54f5-46ea-bece-7461fb46da3a', title: '修复 todos 测试失败' });
    expect(claude.cwd).toBeTruthy();
  });

  it('prints tab-separated lines without --json, in the same order', () => {
    const env = goodHomes();
    const json = rowsOf(list(env).stdout);
    const r = list(env, []);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t'));
    expect(lines.length).toBe(json.length);
    lines.forEach((fields, i) => {
      expect(fields).toHaveLength(5);
      expect(fields.slice(0, 3)).toEqual([json[i]!.last_activity, json[i]!.agent, json[i]!.native_id]);
    });
  });

  it('a symlink loop, a corrupt database and a folder where a file belongs: one line each, the rest still list', () => {
    const hostile = join(dir, 'hostile');
    mkdirSync(hostile, { recursive: true });
    // Gemini's home is itself a loop of symlinks.
    symlinkSync(join(hostile, 'loop-b'), join(hostile, 'loop-a'));
    symlinkSync(join(hostile, 'loop-a'), join(hostile, 'loop-b'));
    // Hermes: a state.db that is not a database.
    mkdirSync(join(hostile, 'hermes'));
    writeFileSync(join(hostile, 'hermes', 'state.db'), 'not a database\n'.repeat(100));
    // Claude: a loop inside projects/, and a "transcript" that is a folder.
    const claude = join(hostile, 'claude', 'projects', '-tmp-x');
    mkdirSync(join(claude, 'd.jsonl'), { recursive: true });
    symlinkSync(join(hostile, 'claude', 'projects'), join(claude, 'back'));
    const env = { ...goodHomes(), GEMINI_CLI_HOME: join(hostile, 'loop-a'), HERMES_HOME: join(hostile, 'hermes'), QWEN_HOME: join(hostile, 'loop-a') };
    const r = list({ ...env, CLAUDE_CONFIG_DIR: join(hostile, 'claude') });
    expect(r.code).toBe(0);
    const diagnostics = r.stderr.split('\n').filter(Boolean);
    for (const line of diagnostics) expect(line).toMatch(/^sp-capture: \S.*: .+/);
    expect(diagnostics.some((l) => l.includes('Gemini'))).toBe(true);
    expect(diagnostics.some((l) => l.includes('Hermes'))).toBe(true);
    expect(diagnostics.filter((l) => l.includes('Gemini'))).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /); // never a stack trace
    const agents = new Set(rowsOf(r.stdout).map((row) => row.agent));
    expect(agents.has('codex') && agents.has('pi')).toBe(true);
    expect(agents.has('hermes')).toBe(false);
  });

  it('exits 2 when homes exist and none could be read; 0 with nothing on the machine', () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, 'state.db'), 'garbage');
    const r = list({ HERMES_HOME: broken });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sp-capture: .*Hermes/);
    expect(r.stdout).toBe('');
    const empty = list({});
    expect(empty).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('titles are redacted by default (a pasted token never reaches the screen); --no-redact shows them', () => {
    const home = join(dir, 'secret-claude');
    const project = join(home, 'projects', '-home-alice-app');
    mkdirSync(project, { recursive: true });
    const id = '0b6f8c1e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
    const at = '2026-11-30T05:00:00.000Z';
    const lines = [
      { type: 'user', uuid: 'u1', parentUuid: null, sessionId: id, cwd: '/home/alice/app', timestamp: at, isSidechain: false, userType: 'external', version: '2.1.197', message: { role: 'user', content: `push with ${FAKE.githubPat} please` } },
    ];
    writeFileSync(join(project, `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const redacted = list({ CLAUDE_CONFIG_DIR: home });
    expect(redacted.code).toBe(0);
    expect(redacted.stdout).toContain(id);
    expect(redacted.stdout).not.toContain(FAKE.githubPat);
    const plain = list({ CLAUDE_CONFIG_DIR: home }, ['--json', '--no-redact']);
    expect(plain.stdout).toContain(FAKE.githubPat);
  });

  it('refuses what does not fit: an agent beside it, no --list, a per-agent --home', () => {
    for (const args of [['claude', '--all-agents', '--list'], ['--all-agents'], ['--all-agents', '--list', '--home', '/tmp']]) {
      const r = runBin('sp-capture', args, { env: baseEnv(), cwd: join(dir, 'cwd') });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^sp-capture: .+\n$/);
    }
    const missing = runBin('sp-capture', [], { env: baseEnv() });
    expect(missing.stderr).toMatch(/^sp-capture: missing argument: usage: sp-capture <agent>/);
  });
});
