// The resume command every writer prints must find the session where it was written: a home that is
// not the client's built-in one is named on the line (CODEX_HOME=… codex resume ID), quoted as data.
// Each writer runs as the real sp-materialize binary; its line is run by bash against a stub client
// that records its arguments and the home variable it was given.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatResume, homeAssignment, resumeCommand } from '../lib/write/writer.js';
import { root, runBin, tempDir } from './support/streams.js';

const OPENCODE_DB = join(root, 'fixtures/opencode/corpus/.local/share/opencode/opencode.db');

/** Each writer, its client binary, its variable, and where a scratch home goes and what the variable must then say. */
const WRITERS: Array<{ agent: string; bin: string; variable: string; home: (dir: string) => string; value: (home: string) => string; builtIn: (userHome: string) => string }> = [
  { agent: 'claude', bin: 'claude', variable: 'CLAUDE_CONFIG_DIR', home: (d) => join(d, 'claude home'), value: (h) => h, builtIn: (u) => join(u, '.claude') },
  { agent: 'codex', bin: 'codex', variable: 'CODEX_HOME', home: (d) => join(d, "codex 'home'"), value: (h) => h, builtIn: (u) => join(u, '.codex') },
  { agent: 'pi', bin: 'pi', variable: 'PI_CODING_AGENT_DIR', home: (d) => join(d, 'pi-home'), value: (h) => h, builtIn: (u) => join(u, '.pi', 'agent') },
  { agent: 'qwen', bin: 'qwen', variable: 'QWEN_HOME', home: (d) => join(d, 'qwen-home'), value: (h) => h, builtIn: (u) => join(u, '.qwen') },
  { agent: 'qoder', bin: 'qodercli', variable: 'QODER_CONFIG_DIR', home: (d) => join(d, 'qoder-home'), value: (h) => h, builtIn: (u) => join(u, '.qoder') },
  { agent: 'copilot', bin: 'copilot', variable: 'COPILOT_HOME', home: (d) => join(d, 'copilot-home'), value: (h) => h, builtIn: (u) => join(u, '.copilot') },
  { agent: 'hermes', bin: 'hermes', variable: 'HERMES_HOME', home: (d) => join(d, 'hermes$(x)home'), value: (h) => h, builtIn: (u) => join(u, '.hermes') },
  { agent: 'cursor', bin: 'cursor-agent', variable: 'CURSOR_HOME', home: (d) => join(d, 'cursor-home'), value: (h) => h, builtIn: (u) => join(u, '.cursor') },
  // These two name the folder that holds the home.
  { agent: 'gemini', bin: 'gemini', variable: 'GEMINI_CLI_HOME', home: (d) => join(d, 'g home', '.gemini'), value: (h) => join(h, '..'), builtIn: (u) => join(u, '.gemini') },
  { agent: 'opencode', bin: 'opencode', variable: 'XDG_DATA_HOME', home: (d) => join(d, 'share', 'opencode'), value: (h) => join(h, '..'), builtIn: (u) => join(u, '.local', 'share', 'opencode') },
];

const ALL_VARIABLES = Object.fromEntries(WRITERS.map((w) => [w.variable, '']));

function session(agent: string, cwd: string): string {
  let seq = 0;
  const ev = (type: string, payload: Record<string, unknown>): string => JSON.stringify({ session: 'sess-home', seq, ts: 1_764_480_000 + seq++, agent, type, payload });
  return [ev('session.start', { model: 'model-1', native_id: 'x', cwd }), ev('message.user', { content: [{ type: 'text', text: 'hi' }] }), ev('message.assistant', { content: [{ type: 'text', text: 'hello' }], model: 'model-1' })].join('\n') + '\n';
}

/** A stub client that records its argv and the value of `variable` ("<unset>" when it has none). */
function stub(dir: string, bin: string, variable: string): { path: string; seen: () => { argv: string[]; home: string } } {
  const stubs = join(dir, 'stubs');
  mkdirSync(stubs, { recursive: true });
  writeFileSync(join(stubs, bin), `#!/bin/sh\nprintf '%s\\0' "$@" > "${join(stubs, 'argv')}"\nprintf '%s' "\${${variable}-<unset>}" > "${join(stubs, 'home')}"\n`);
  chmodSync(join(stubs, bin), 0o755);
  return {
    path: stubs,
    seen: () => ({ argv: readFileSync(join(stubs, 'argv'), 'utf8').slice(0, -1).split('\0'), home: readFileSync(join(stubs, 'home'), 'utf8') }),
  };
}

function materialize(agent: string, home: string, project: string, userHome: string) {
  if (agent === 'opencode') {
    mkdirSync(home, { recursive: true });
    if (!existsSync(join(home, 'opencode.db'))) copyFileSync(OPENCODE_DB, join(home, 'opencode.db'));
  } else mkdirSync(home, { recursive: true });
  const r = runBin('sp-materialize', [agent, '--home', home, '--experimental', '--no-redact', '--cwd', project], { input: session(agent, project), cwd: project, env: { ...ALL_VARIABLES, HOME: userHome, SP_HOME: join(userHome, 'sp') } });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.split('\n')[0]) as { resume: string; resume_exec: { cwd?: string; argv: string[]; env: Record<string, string> }; session_id: string };
}

describe('resume commands name a non-default home', () => {
  for (const w of WRITERS) {
    it(`${w.agent}: a scratch --home is set on the line (${w.variable}), and bash hands the client exactly that home`, () => {
      const dir = realpathSync(tempDir('sp-resume-home-'));
      const project = join(dir, 'proj');
      mkdirSync(project);
      const home = w.home(dir);
      const result = materialize(w.agent, home, project, join(dir, 'user'));
      const expected = realpathSync(w.value(home));
      expect(result.resume_exec.env).toEqual({ [w.variable]: expected });
      expect(result.resume).toContain(`${w.variable}=`);
      const client = stub(dir, w.bin, w.variable);
      const run = spawnSync('bash', ['-c', result.resume], { cwd: dir, env: { PATH: `${client.path}:/usr/bin:/bin`, HOME: dir }, encoding: 'utf8' });
      expect(run.status, `${result.resume}: ${run.stderr}`).toBe(0);
      expect(client.seen().home).toBe(expected);
      expect(client.seen().argv).toEqual(result.resume_exec.argv.slice(1));
      expect(existsSync(join(dir, 'x'))).toBe(false);
    });
  }

  it("the client's built-in home needs no variable (claude, codex, pi in a user home of their own)", () => {
    const dir = realpathSync(tempDir('sp-resume-home-'));
    const project = join(dir, 'proj');
    mkdirSync(project);
    const userHome = join(dir, 'user');
    for (const w of WRITERS.filter((x) => ['claude', 'codex', 'pi'].includes(x.agent))) {
      const result = materialize(w.agent, w.builtIn(userHome), project, userHome);
      expect(result.resume_exec.env, w.agent).toEqual({});
      expect(result.resume.startsWith(`cd ${project} && ${w.bin} `), result.resume).toBe(true);
    }
  });
});

describe('homeAssignment', () => {
  const home = { variable: 'CODEX_HOME', value: '/srv/x/.codex', builtIn: '/home/u/.codex' };
  it('sets the variable for a home that is not built in, and none for the built-in one', () => {
    expect(homeAssignment(home, {})).toEqual({ CODEX_HOME: '/srv/x/.codex' });
    expect(homeAssignment({ ...home, value: '/home/u/.codex/' }, {})).toEqual({});
    expect(homeAssignment(undefined, {})).toEqual({});
  });
  it('sets it also for the built-in home when the environment points the client elsewhere', () => {
    expect(homeAssignment({ ...home, value: '/home/u/.codex' }, { CODEX_HOME: '/elsewhere' })).toEqual({ CODEX_HOME: '/home/u/.codex' });
    expect(homeAssignment({ ...home, value: '/home/u/.codex' }, { CODEX_HOME: '  ' })).toEqual({});
  });
  it('a home with quotes, spaces and $() stays one quoted value', () => {
    const value = "/tmp/a b/it's $(touch X)";
    expect(resumeCommand('/p', ['codex', 'resume', 'id'], { ...home, value })).toBe(`cd /p && CODEX_HOME='/tmp/a b/it'\\''s $(touch X)' codex resume id`);
    expect(formatResume({ argv: ['hermes', '--resume', 'id'], env: {} })).toBe('hermes --resume id');
  });
});
