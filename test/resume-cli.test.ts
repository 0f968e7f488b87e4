// sp-resume, the real binary against a real store: a recorded Codex session (fixture S2, moved to
// /home/alice/acme-api with its repository's origin URL) is found by prefix, its paths mapped to
// another checkout, written into a scratch home; and the refusals: no checkout, several, an
// ambiguous prefix, bad mappings, hostile new roots (data, never a command).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { S2 } from './support/codexFixtures.js';
import { runBin, tempDir } from './support/streams.js';

const OLD = '/home/alice/acme-api';
const ORIGIN = 'git@github.com:acme/acme-api.git';

let spHome: string;
let capturedS2: string | undefined;

/** The S2 recording as if made on Alice's machine: her project root, her repository's origin. */
function aliceSession(sessionSuffix = ''): string {
  if (capturedS2 === undefined) {
    const captured = runBin('sp-capture', ['codex', '--path', S2]);
    expect(captured.code, captured.stderr).toBe(0);
    capturedS2 = captured.stdout;
  }
  return (
    capturedS2
      .trim()
      .split('\n')
      .map((line) => {
        const event = JSON.parse(line.replaceAll('/home/bob/acme-api', OLD)) as Record<string, unknown> & { payload: Record<string, unknown> };
        delete event.checksum;
        if (sessionSuffix) event.session = `${String(event.session)}${sessionSuffix}`;
        if (event.type === 'session.start') event.payload.git_origin = ORIGIN;
        return JSON.stringify(event);
      })
      .join('\n') + '\n'
  );
}

function resume(args: string[], cwd: string, env: Record<string, string> = {}) {
  return runBin('sp-resume', args, { cwd, env: { SP_HOME: spHome, SP_PROGRESS: '0', CODEX_HOME: '', ...env } });
}

function checkout(dir: string, origin = 'https://github.com/acme/acme-api'): string {
  mkdirSync(dir, { recursive: true });
  const git = (...a: string[]) => expect(spawnSync('git', ['-C', dir, ...a]).status).toBe(0);
  git('init', '-q');
  git('remote', 'add', 'origin', origin);
  return realpathSync(dir);
}

function rolloutOf(home: string): string {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name)) : e.name.startsWith('rollout-') && found.push(join(d, e.name));
  };
  walk(join(home, 'sessions'));
  expect(found).toHaveLength(1);
  return readFileSync(found[0], 'utf8');
}

/** One diagnostic line, no stack. */
function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^sp-resume: /);
  return lines[0];
}

beforeAll(() => {
  spHome = tempDir('sp-resume-home-');
  const r = runBin('sp-sync', ['ingest', '-'], { input: aliceSession(), env: { SP_HOME: spHome, SP_PROGRESS: '0' } });
  expect(r.code, r.stderr).toBe(0);
});

describe('sp-resume', () => {
  it('by native id prefix, with --map-cwd: the new paths only, a path-mapped ledger, the command with the scratch home', () => {
    const dir = realpathSync(tempDir('sp-resume-'));
    const project = checkout(join(dir, 'src', 'acme'));
    const home = join(dir, 'codex-home');
    const r = resume(['01a22ad9-7cda', '--in', 'codex', '--home', home, '--map-cwd', `${OLD}/=${project}`], dir);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^cd ${project} && CODEX_HOME=${home} codex resume [0-9a-f-]{36}$`));
    expect(r.stderr).toMatch(/path-mapped: session\.start 1 \(2 paths\)/);
    const rollout = rolloutOf(home);
    expect(rollout).not.toContain(OLD);
    expect(rollout).toContain(`${project}/src/routes/todos.js`);
    expect(JSON.parse(rollout.split('\n')[0]).payload.cwd).toBe(project);
    expect(r.stderr).toMatch(/handoff: recorded in the store/);
  });

  it('--json: the result says what was mapped; the default mapping finds the checkout by its origin URL (any URL form)', () => {
    const dir = realpathSync(tempDir('sp-resume-'));
    checkout(join(dir, 'other'), 'https://github.com/acme/other-repo.git');
    const project = checkout(join(dir, 'work', 'acme-api'), 'ssh://git@GitHub.com/acme/acme-api');
    const home = join(dir, 'codex-home');
    const r = resume(['01a22ad9', '--in', 'codex', '--home', home, '--json'], dir);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { cwd: string; ledger: { transformed: number }; path_mapped: Record<string, { events: number }>; resume_exec: { env: Record<string, string> } };
    expect(result.cwd).toBe(project);
    expect(result.path_mapped['session.start']).toEqual({ events: 1, paths: 2 });
    expect(result.path_mapped['tool.call'].events).toBeGreaterThan(0);
    expect(result.ledger.transformed).toBeGreaterThanOrEqual(Object.values(result.path_mapped).reduce((n, c) => n + c.events, 0) - 10);
    expect(result.resume_exec.env).toEqual({ CODEX_HOME: home });
    expect(rolloutOf(home)).not.toContain(OLD);
  });

  it('no checkout of the repository and the old folder missing: exit 2 asking for --map-cwd, nothing written', () => {
    const dir = realpathSync(tempDir('sp-resume-'));
    checkout(join(dir, 'unrelated'), 'https://example.com/x/y.git');
    const home = join(dir, 'codex-home');
    const r = resume(['01a22ad9', '--in', 'codex', '--home', home], dir);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/no checkout of git@github\.com:acme\/acme-api\.git .*give --map-cwd \/home\/alice\/acme-api=/);
    expect(existsSync(home)).toBe(false);
  });

  it('two checkouts of the repository: exit 2 naming both', () => {
    const dir = realpathSync(tempDir('sp-resume-'));
    checkout(join(dir, 'a'));
    checkout(join(dir, 'b'), 'https://github.com/acme/acme-api.git/');
    const r = resume(['01a22ad9', '--in', 'codex', '--home', join(dir, 'h')], dir);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/2 checkouts .*\/a, .*\/b/);
  });

  it('an ambiguous prefix lists the candidates; an unknown one says so', () => {
    const home = tempDir('sp-resume-amb-');
    const ingest = runBin('sp-sync', ['ingest', '-'], { input: aliceSession('') + aliceSession('-copy'), env: { SP_HOME: home, SP_PROGRESS: '0' } });
    expect(ingest.code, ingest.stderr).toBe(0);
    const dir = tempDir('sp-resume-');
    const r = runBin('sp-resume', ['sess_', '--in', 'codex', '--home', join(dir, 'h')], { cwd: dir, env: { SP_HOME: home } });
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/2 stored sessions match "sess_": sess_\S+ \(codex 01a22ad9[^)]*\).*; sess_\S+ \(codex/);
    const none = runBin('sp-resume', ['nothing-like-this', '--in', 'codex'], { cwd: dir, env: { SP_HOME: home } });
    expect(none.code).toBe(2);
    expect(oneLine(none.stderr)).toMatch(/no stored session matches "nothing-like-this"/);
  });

  it('refuses bad mappings before reading anything (the rest of the cases: test/map-paths.test.ts)', () => {
    const dir = tempDir('sp-resume-');
    for (const spec of [`${OLD}=relative/dir`, `/=${dir}`]) {
      const r = resume(['01a22ad9', '--in', 'codex', '--home', join(dir, 'h'), '--map-cwd', spec], dir);
      expect(r.code, spec).toBe(2);
      oneLine(r.stderr);
    }
    expect(existsSync(join(dir, 'h'))).toBe(false);
  });

  it('a new root full of shell syntax stays data: the printed line and --exec run only the client, in that folder', () => {
    const dir = realpathSync(tempDir('sp-resume-'));
    const project = join(dir, "it's $(touch CANARY) `touch CANARY` a;b");
    mkdirSync(project);
    const stubs = join(dir, 'stubs');
    mkdirSync(stubs);
    writeFileSync(join(stubs, 'codex'), `#!/bin/sh\nprintf '%s\\0' "$@" > "${stubs}/argv"\npwd -P > "${stubs}/pwd"\nprintf '%s' "$CODEX_HOME" > "${stubs}/home"\nexit 7\n`);
    chmodSync(join(stubs, 'codex'), 0o755);
    const home = join(dir, 'codex home');
    const printed = resume(['01a22ad9', '--in', 'codex', '--home', home, '--map-cwd', `${OLD}=${project}`], dir);
    expect(printed.code, printed.stderr).toBe(0);
    const run = spawnSync('bash', ['-c', printed.stdout.trim()], { cwd: dir, env: { PATH: `${stubs}:/usr/bin:/bin`, HOME: dir }, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(7);
    expect(readFileSync(join(stubs, 'pwd'), 'utf8').trim()).toBe(project);
    expect(readFileSync(join(stubs, 'home'), 'utf8')).toBe(home);
    const id = readFileSync(join(stubs, 'argv'), 'utf8').split('\0')[1];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    // --exec: the same, spawned without a shell; the client's exit code is sp-resume's.
    const executed = resume(['01a22ad9', '--in', 'codex', '--home', home, '--map-cwd', `${OLD}=${project}`, '--exec'], dir, { PATH: `${stubs}:${process.env.PATH}` });
    expect(executed.code, executed.stderr).toBe(7);
    expect(readFileSync(join(stubs, 'pwd'), 'utf8').trim()).toBe(project);
    expect(readFileSync(join(stubs, 'home'), 'utf8')).toBe(home);
    expect(readFileSync(join(stubs, 'argv'), 'utf8').split('\0')[1]).not.toBe(id); // a second new session
    expect(existsSync(join(dir, 'CANARY')) || existsSync(join(project, 'CANARY'))).toBe(false);
  });

  it('--dry-run writes nothing and records no handoff', () => {
    const dir = realpathSync(tempDir('sp-resume-'));
    const project = checkout(join(dir, 'p'));
    const receipts = () => (existsSync(join(spHome, 'store', 'receipts')) ? readdirSync(join(spHome, 'store', 'receipts')).length : 0);
    const before = receipts();
    const r = resume(['01a22ad9', '--in', 'codex', '--home', join(dir, 'h'), '--dry-run'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^cd ${project} && CODEX_HOME=`));
    expect(existsSync(join(dir, 'h', 'sessions'))).toBe(false);
    expect(receipts()).toBe(before);
  });
});
