// sp config: $SP_HOME/config.toml and .sp.toml, precedence flags > env > project > user > default,
// checked keys, owner-only atomic writes, and the defaults reaching sp-compile, sp-redact and sp-capture.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
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

  it('sp-sync push, pull and status take sync.remote when no remote is named: flag > env > project > user', () => {
    const syncHome = join(work, 'sync-home');
    const at = { env: { SP_HOME: syncHome } };
    const fixture = join(root, 'fixtures/claude/corpus/S1-feature/.claude/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl');
    const events = sp('capture', ['claude', '--path', fixture], at).stdout;
    expect(sp('sync', ['ingest', '-q'], { ...at, input: events }).code).toBe(0);
    const folders = { a: join(work, 'remote-a'), b: join(work, 'remote-b'), c: join(work, 'remote-c') };
    for (const [name, dir] of Object.entries(folders)) {
      mkdirSync(dir, { recursive: true });
      const added = sp('sync', ['remote', 'add', name, `dir:${dir}`, '-q'], at);
      expect(added.code, added.stderr).toBe(0);
    }
    const filled = () => Object.entries(folders).filter(([, dir]) => readdirSync(dir).length > 0).map(([name]) => name);
    // Three remotes and none named origin: without a default, sp-sync asks which.
    const unnamed = sp('sync', ['push'], at);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toMatch(/several remotes/);
    expect(filled()).toEqual([]);
    // The user file says b.
    expect(config(['set', 'sync.remote', 'b'], at).code).toBe(0);
    const pushed = sp('sync', ['push', '--json'], at);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(filled()).toEqual(['b']);
    // A project file says c, and wins over the user file.
    writeFileSync(join(project, '.sp.toml'), '[sync]\nremote = "c"\n');
    expect(sp('sync', ['push', '-q'], at).code).toBe(0);
    expect(filled()).toEqual(['b', 'c']);
    // The environment says a, over both; status then compares with a only.
    const status = sp('sync', ['status', '--json'], { env: { ...at.env, SP_SYNC_REMOTE: 'a' } });
    const remotes = new Set(status.stdout.trim().split('\n').flatMap((l) => (JSON.parse(l) as { remotes: Array<{ remote: string }> }).remotes.map((r) => r.remote)));
    expect(status.code).toBe(1); // a has nothing yet: out of sync
    expect([...remotes]).toEqual(['a']);
    expect(sp('sync', ['push', '-q'], { env: { ...at.env, SP_SYNC_REMOTE: 'a' } }).code).toBe(0);
    expect(filled()).toEqual(['a', 'b', 'c']);
    // A named remote wins over all of them; pull takes the default too.
    const named = sp('sync', ['pull', 'b', '--json'], { env: { ...at.env, SP_SYNC_REMOTE: 'nope' } });
    expect(named.code, named.stderr).toBe(0);
    const missing = sp('sync', ['pull'], { env: { ...at.env, SP_SYNC_REMOTE: 'nope' } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^sp-sync: .*no remote named nope/);
    // A value that is not a remote name is refused before anything is read.
    const hostile = sp('sync', ['push'], { env: { ...at.env, SP_SYNC_REMOTE: '../../x' } });
    expect(hostile.code).toBe(2);
    expect(hostile.stderr.trim()).toMatch(/^sp-sync: SP_SYNC_REMOTE: sync.remote must be a name/);
    rmSync(join(project, '.sp.toml'));
  }, 120_000);

  it('sp serve listens on serve.port when --port is not given', async () => {
    const free = () =>
      new Promise<number>((resolve) => {
        const server = createServer().listen(0, '127.0.0.1', () => {
          const { port } = server.address() as { port: number };
          server.close(() => resolve(port));
        });
      });
    const startLine = (args: string[], extra: Record<string, string>) =>
      new Promise<{ url: string; port: number }>((resolve, reject) => {
        const child = spawn(process.execPath, [join(root, 'dist/bin/sp-serve.js'), '--json', '-q', ...args], { cwd: project, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.stderr.on('data', (d) => (err += d));
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('\n')) child.kill('SIGTERM');
        });
        child.on('close', (code) => {
          clearTimeout(timer);
          if (!out.includes('\n')) return reject(new Error(`exit ${code}: ${err}`));
          resolve(JSON.parse(out.split('\n')[0]) as { url: string; port: number });
        });
      });
    const fromUser = await free();
    expect(config(['set', 'serve.port', String(fromUser)]).code).toBe(0);
    expect((await startLine([], {})).port).toBe(fromUser);
    const fromEnv = await free();
    expect((await startLine([], { SP_SERVE_PORT: String(fromEnv) })).port).toBe(fromEnv);
    // --port wins (0: a free one, neither of the configured).
    const flagged = await startLine(['--port', '0'], { SP_SERVE_PORT: String(fromEnv) });
    expect(flagged.port).not.toBe(fromEnv);
    expect(flagged.url).toContain(`:${flagged.port}/`);
    const bad = spawnSync(process.execPath, [join(root, 'dist/bin/sp-serve.js')], { cwd: project, env: { ...env, SP_SERVE_PORT: '99999' }, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^sp-serve: SP_SERVE_PORT: serve.port must be a port number/);
    config(['unset', 'serve.port']);
    expect(existsSync(join(spHome, 'config.toml'))).toBe(true);
  }, 90_000);
});
