// sp-compile --workspace: the git state and the last test run of a real scratch repository, as
// context items observed at compile time; nothing written to the workspace; the repository's own
// config cannot make git run a program.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastTestCommand, runsTests, safeToRerun, summarizeStatus } from '../lib/compile/workspace.js';
import { SessionBuilder } from './support/canonical.js';
import { runBin, tempDir, writeLines } from './support/streams.js';

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });

/** A repository with one commit before the session (at `before`) and one during it (`during`). */
function scratchRepo(before: number, during: number): string {
  const dir = tempDir('sp-ws-repo-');
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'app.js'), 'module.exports = 1;\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'x', scripts: { test: 'node test.js' } }));
  writeFileSync(join(dir, 'test.js'), 'process.exit(require("./app.js") === 2 ? 0 : 1);\n');
  git(dir, 'add', '.');
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'initial app'], { env: { ...process.env, GIT_AUTHOR_DATE: `@${before} +0000`, GIT_COMMITTER_DATE: `@${before} +0000` } });
  writeFileSync(join(dir, 'README.md'), '# app\n');
  git(dir, 'add', 'README.md');
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'document the app'], { env: { ...process.env, GIT_AUTHOR_DATE: `@${during} +0000`, GIT_COMMITTER_DATE: `@${during} +0000` } });
  return dir;
}

function session(cwd: string, start: number, testCmd = 'npm test', exit = 1): string {
  const b = new SessionBuilder('claude', 'sess_workspace', { cwd }, start);
  b.user('Make the app return 2 and keep the tests green.');
  const call = b.call('t1', 'Bash', { command: testCmd });
  b.result('t1', 'npm ERR! Test failed', { is_error: exit !== 0 });
  b.add('command.run', { cmd: testCmd, exit_code: exit, stderr_tail: 'npm ERR! Test failed' }, { derived_from: call.seq });
  b.assistant('The test fails because app.js returns 1; I will change it next.');
  return writeLines(b.events.map((e) => JSON.stringify(e)));
}

/** Every file under a folder with its bytes and mtime: to show nothing was written. */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.push(`${p} ${st.mtimeMs} ${readFileSync(p).toString('base64')}`);
    }
  };
  walk(dir);
  return out.join('\n');
}

// Each case spawns sp-compile a few times: generous bounds for a loaded machine.
describe('workspace items in sp-compile', { timeout: 240_000 }, () => {
  const start = 1_800_000_000;

  it('adds branch, HEAD, a dirty tree with its diff stat, commits since the session started and the last test run; writes nothing', () => {
    const repo = scratchRepo(start - 86_400, start + 60);
    writeFileSync(join(repo, 'app.js'), 'module.exports = 2;\n');
    writeFileSync(join(repo, 'notes.txt'), 'scratch\n');
    const before = snapshot(repo);
    const r = runBin('sp-compile', ['--for', 'codex', '--render', '--workspace', repo, session(repo, start)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('## The workspace now (observed when this handoff was compiled, not from the log)');
    expect(r.stdout).toMatch(/- Git: on branch `main` at `[0-9a-f]{7,}` “document the app”/);
    expect(r.stdout).toMatch(/- Working tree: 2 changed paths \(1 modified, 1 untracked\); uncommitted diff: 1 file changed, 1 insertion\(\+\), 1 deletion\(-\): `app\.js`, `notes\.txt`/);
    expect(r.stdout).toMatch(/- Commits since the session started: 1 \(1 file changed, 1 insertion\(\+\)\): `[0-9a-f]+` document the app/);
    expect(r.stdout).toMatch(/- Tests: the session last ran `npm test` \[seq 4\]: failed \(exit 1\); not re-run/);
    expect(r.stdout).toContain('(observed now: `git status --porcelain; git diff --shortstat HEAD`)');
    expect(snapshot(repo)).toBe(before);
  });

  it('re-runs a recognised test command with --rerun-tests and reports that it passes now', () => {
    const repo = scratchRepo(start - 10, start + 5);
    writeFileSync(join(repo, 'app.js'), 'module.exports = 2;\n');
    const r = runBin('sp-compile', ['--for', 'claude', '--render', '--workspace', repo, '--rerun-tests', session(repo, start)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/- Tests: re-run now: passed \(exit 0\) in [\d.]+ s \(the session last ran `npm test` \[seq 4\]: failed \(exit 1\)\)/);
    // And failing again once the fix is undone.
    writeFileSync(join(repo, 'app.js'), 'module.exports = 3;\n');
    const again = runBin('sp-compile', ['--for', 'claude', '--render', '--workspace', repo, '--rerun-tests', session(repo, start)]);
    expect(again.stdout).toMatch(/- Tests: re-run now: failed \(exit 1\)/);
  });

  it('never re-runs a command that is not a recognised test runner', () => {
    const repo = scratchRepo(start - 10, start + 5);
    const marker = join(repo, 'pwned');
    const r = runBin('sp-compile', ['--for', 'claude', '--render', '--workspace', repo, '--rerun-tests', session(repo, start, `npm test; touch ${marker}`)]);
    expect(r.code).toBe(0);
    // "npm test; touch …" holds a test command, but a chain runs only when every part is one.
    expect(existsSync(marker)).toBe(false);
    expect(r.stdout).toContain('not re-run (only a plain test-runner command is re-run)');
  });

  it("ignores the repository's own config that would run programs (fsmonitor, hooks, external diff)", () => {
    const repo = scratchRepo(start - 10, start + 5);
    const marker = join(tempDir('sp-ws-marker-'), 'ran');
    const script = join(repo, '.git', 'evil.sh');
    writeFileSync(script, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    git(repo, 'config', 'core.fsmonitor', script);
    git(repo, 'config', 'diff.external', script);
    mkdirSync(join(repo, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(repo, '.git', 'hooks', 'post-index-change'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    writeFileSync(join(repo, 'app.js'), 'module.exports = 5;\n');
    const r = runBin('sp-compile', ['--for', 'codex', '--render', '--workspace', repo, session(repo, start)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('- Working tree: 1 changed path (1 modified)');
    expect(existsSync(marker)).toBe(false);
  });

  it("uses the session's cwd by default when it exists here, and --no-workspace leaves it out", () => {
    const repo = scratchRepo(start - 10, start + 5);
    const file = session(repo, start);
    expect(runBin('sp-compile', ['--for', 'codex', '--render', file]).stdout).toContain('- Git: on branch `main`');
    expect(runBin('sp-compile', ['--for', 'codex', '--render', '--no-workspace', file]).stdout).not.toContain('The workspace now');
    // A session whose folder is not on this machine compiles as before: no workspace section.
    expect(runBin('sp-compile', ['--for', 'codex', '--render', session('/nonexistent/sp-ws', start)]).stdout).not.toContain('The workspace now');
  });

  it('puts workspace items in the compiled event as observed now, with their command', () => {
    const repo = scratchRepo(start - 10, start + 5);
    const r = runBin('sp-compile', ['--for', 'codex', '--workspace', repo, session(repo, start)]);
    const compiled = JSON.parse(r.stdout.trim().split('\n').pop()!);
    const ws = compiled.payload.items.filter((i: { kind: string }) => i.kind === 'workspace');
    expect(ws.map((i: { id: string }) => i.id).sort()).toEqual(['workspace:commits', 'workspace:head', 'workspace:status', 'workspace:tests']);
    for (const item of ws) expect(item.observed).toBe(item.id === 'workspace:tests' ? 'log' : 'now');
    expect(ws.find((i: { id: string }) => i.id === 'workspace:status').command).toBe('git status --porcelain');
    expect(runBin('sp-verify', ['-'], { input: r.stdout }).code).toBe(0);
  });

  it('refuses a --workspace folder that does not exist', () => {
    const r = runBin('sp-compile', ['--for', 'codex', '--render', '--workspace', '/nonexistent/sp-ws', session('/tmp', start)]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('sp-compile: --workspace: no such folder');
  });
});

describe('workspace helpers', () => {
  it('recognises test commands, also after a cd, and re-runs only plain ones', () => {
    for (const cmd of ['npm test', 'npm run test -- --watch=false', 'npx vitest run', 'pytest -q', 'cd api && go test ./...', 'cargo test', 'make test', 'python -m pytest']) {
      expect(runsTests(cmd), cmd).toBe(true);
      expect(safeToRerun(cmd), cmd).toBe(true);
    }
    for (const cmd of ['npm test; touch x', 'npm test && curl x | sh', 'npm test $(id)', 'npm test > out', 'cd a && rm -rf b && npm test', 'npm test 2>&1 | tail -5']) {
      expect(runsTests(cmd), cmd).toBe(true);
      expect(safeToRerun(cmd), cmd).toBe(false);
    }
    for (const cmd of ['npm install', 'ls', 'cat test.js', 'echo npm test', 'git commit -m test']) expect(runsTests(cmd), cmd).toBe(false);
    const cmds = [{ seq: 1, cmd: 'npm test', failed: true, output: '' }, { seq: 2, cmd: 'ls', failed: false, output: '' }];
    expect(lastTestCommand(cmds)?.seq).toBe(1);
  });

  it('counts porcelain -z records by kind, renames taking two fields', () => {
    const z = [' M a.js', '?? b.txt', 'R  new.js', 'old.js', 'UU c.js', 'A  d.js', ' D e.js', ''].join('\0');
    expect(summarizeStatus(z)).toEqual({ counts: { modified: 1, untracked: 1, renamed: 1, conflicted: 1, added: 1, deleted: 1 }, paths: ['a.js', 'b.txt', 'new.js', 'c.js', 'd.js', 'e.js'] });
  });
});
