// `--json` on every binary: one JSON object per line on stdout (every line is parsed here), `-q` and
// `--color/--no-color` accepted everywhere, and the default output of each binary left as it was.
// One case per binary, each on a real run over a recorded Claude Code session (fixtures/claude/corpus).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE } from './support/fakeSecrets.js';

const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'sp-cli-json-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const claudeHome = join(root, 'fixtures/claude/corpus/S1-feature/.claude');
const events = join(work, 'session.ndjson');
const project = join(work, 'project');
const env = { PATH: process.env.PATH, HOME: join(work, 'home'), SP_HOME: join(work, 'sp-home'), SP_PROGRESS: '0', TZ: 'UTC' } as Record<string, string>;

const run = (bin: string, args: string[], input?: string, extra: Record<string, string> = {}) => {
  const r = spawnSync(process.execPath, [join(root, 'dist/bin', `${bin}.js`), ...args], { env: { ...env, ...extra }, encoding: 'utf8', input: input ?? '', cwd: work, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

/** Every stdout line is one JSON object; there is at least one. */
function jsonLines(stdout: string): Array<Record<string, unknown>> {
  const lines = stdout.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
  expect(lines.length).toBeGreaterThan(0);
  return lines.map((line) => {
    const value = JSON.parse(line) as unknown;
    expect(typeof value === 'object' && value !== null && !Array.isArray(value), line.slice(0, 120)).toBe(true);
    return value as Record<string, unknown>;
  });
}

/** A run that succeeded, with -q and --no-color given too (accepted by every binary). */
function ok(r: { code: number | null; stdout: string; stderr: string }) {
  expect(r.stderr, r.stderr).not.toMatch(/unknown option|internal error/);
  expect(r.code, r.stderr).toBe(0);
  return r;
}

let storedSession = '';
beforeAll(() => {
  mkdirSync(env.HOME, { recursive: true });
  mkdirSync(project, { recursive: true });
  const captured = run('sp-capture', ['claude', '--home', claudeHome, '--latest']);
  expect(captured.code, captured.stderr).toBe(0);
  writeFileSync(events, captured.stdout);
  const ingested = run('sp-sync', ['ingest', events, '-q']);
  expect(ingested.code, ingested.stderr).toBe(0);
  storedSession = String(jsonLines(run('sp-sync', ['ls', '--json']).stdout)[0].id);
}, 60_000);

describe('--json on every binary (every stdout line parses)', () => {
  it('sp --json lists the commands; shared flags before a command are passed on', () => {
    const rows = jsonLines(ok(run('sp', ['--json'])).stdout);
    expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(['capture', 'show', 'sync']));
    expect(jsonLines(ok(run('sp', ['--help', '--json'])).stdout)).toEqual(rows);
    const passed = ok(run('sp', ['--json', '-q', '--no-color', 'show', events]));
    expect(jsonLines(passed.stdout)[0].type).toBe('session.start');
    // The default listing is still text.
    expect(ok(run('sp', ['--help'])).stdout).toMatch(/^sp <command>/);
  });

  it('sp-capture', () => {
    const rows = jsonLines(ok(run('sp-capture', ['claude', '--home', claudeHome, '--list', '--json', '-q', '--no-color'])).stdout);
    expect(rows[0].agent).toBe('claude');
  });

  it('sp-compile: the event stream, not with --render', () => {
    const rows = jsonLines(ok(run('sp-compile', ['--for', 'codex', '--json', '-q', '--color=always', events])).stdout);
    expect(rows.at(-1)!.type).toBe('context.compiled');
    const both = run('sp-compile', ['--for', 'codex', '--json', '--render', events]);
    expect(both.code).toBe(2);
    expect(both.stderr.trim()).toMatch(/^sp-compile: --json and --render cannot be combined/);
    expect(ok(run('sp-compile', ['--for', 'codex', '--render', events])).stdout).not.toMatch(/^\{/);
  });

  it('sp-config', () => {
    const rows = jsonLines(ok(run('sp-config', ['list', '--origin', '--json', '--no-color'], undefined, { SP_SERVE_PORT: '7555' })).stdout);
    expect(rows).toContainEqual({ key: 'serve.port', value: 7555, origin: 'env SP_SERVE_PORT' });
  });

  it('sp-doctor', () => {
    const r = run('sp-doctor', ['--json', '--no-color']);
    expect(r.code === 0 || r.code === 1, r.stderr).toBe(true);
    expect(jsonLines(r.stdout).every((f) => typeof f.check === 'string' && typeof f.status === 'string')).toBe(true);
  });

  it('sp-export: what was exported, the page inside when it goes to stdout; -q leaves the note out', () => {
    const html = run('sp-export', ['html', '--file', events, '--json', '--no-color']);
    expect(html.code, html.stderr).toBe(0);
    const [line, ...more] = jsonLines(html.stdout);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ format: 'html', profile: 'default', encrypted: false, out: null });
    expect(String(line.html)).toMatch(/^<!doctype html>/i);
    expect(html.stderr).toMatch(/^sp-export: html: \d+ events/);
    const quiet = ok(run('sp-export', ['otel', events, '--out', join(work, 'trace.json'), '--json', '-q']));
    expect(quiet.stderr).toBe('');
    expect(jsonLines(quiet.stdout)).toEqual([expect.objectContaining({ format: 'otel', out: join(work, 'trace.json') })]);
    // Without --json the page itself is stdout, as before.
    expect(ok(run('sp-export', ['html', '--file', events, '-q'])).stdout).toMatch(/^<!doctype html>/i);
  });

  it('sp-hooks', () => {
    const home = join(work, 'claude-home');
    mkdirSync(home, { recursive: true });
    const rows = jsonLines(ok(run('sp-hooks', ['status', 'claude', '--home', home, '--json', '-q', '--no-color'])).stdout);
    expect(rows[0]).toMatchObject({ agent: 'claude', installed: false });
    // -q: install prints no line per agent; the file is written all the same.
    const installed = ok(run('sp-hooks', ['install', 'claude', '--home', home, '-q']));
    expect(installed.stdout).toBe('');
    expect(jsonLines(ok(run('sp-hooks', ['status', 'claude', '--home', home, '--json'])).stdout)[0].installed).toBe(true);
  });

  it('sp-materialize --dry-run: the preview lines come wrapped as JSON too', () => {
    const home = join(work, 'codex-home');
    const args = ['codex', events, '--dry-run', '--home', home, '--cwd', project];
    const rows = jsonLines(ok(run('sp-materialize', [...args, '--json', '-q', '--no-color'])).stdout);
    expect(rows[0]).toMatchObject({ agent: 'codex', session_id: expect.any(String) });
    const previews = rows.slice(1);
    expect(previews.length).toBeGreaterThan(0);
    expect(previews.every((p) => p.preview === rows[0].session_id && typeof p.line === 'string')).toBe(true);
    // The plain dry run: as many native lines, as they would be written (a new session id each run).
    const plain = ok(run('sp-materialize', [...args, '-q'])).stdout.trimEnd().split('\n');
    expect(plain).toHaveLength(previews.length + 1);
    expect(JSON.parse(plain[1]).type).toBe(JSON.parse(String(previews[0].line)).type);
  });

  it('sp-mcp: JSON-RPC on stdout, one message per line', () => {
    const request = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const rows = jsonLines(ok(run('sp-mcp', ['--json', '-q', '--no-color'], request + '\n')).stdout);
    expect(rows[0]).toMatchObject({ jsonrpc: '2.0', id: 1 });
  });

  it('sp-redact: events, --check findings, --list-rules and the --dry-run report', () => {
    const secret = FAKE.githubPat;
    const input = readFileSync(events, 'utf8').replace('Add a DELETE', `Add a DELETE (key ${secret})`);
    writeFileSync(join(work, 'secret.ndjson'), input);
    const redacted = jsonLines(ok(run('sp-redact', ['--json', '-q', '--no-color'], input)).stdout);
    expect(JSON.stringify(redacted)).not.toContain(secret);
    const check = run('sp-redact', ['--check', '--json', join(work, 'secret.ndjson')]);
    expect(check.code).toBe(1);
    expect(jsonLines(check.stdout)[0]).toMatchObject({ source: join(work, 'secret.ndjson'), rule: expect.any(String), path: expect.any(String) });
    expect(check.stdout).not.toContain(secret);
    expect(jsonLines(ok(run('sp-redact', ['--list-rules', '--json'])).stdout).every((r) => typeof r.id === 'string')).toBe(true);
    const dry = jsonLines(ok(run('sp-redact', ['--dry-run', '--json', '-q'], input)).stdout);
    expect(dry).toHaveLength(1);
    expect(dry[0]).toMatchObject({ mode: 'dry-run', findings: expect.any(Number) });
    expect(dry[0].findings).toBeGreaterThan(0);
    expect(JSON.stringify(dry)).not.toContain(secret);
  });

  it('sp-resume: the result line; -q leaves the notes out', () => {
    const args = [storedSession, '--in', 'codex', '--home', join(work, 'codex-resume'), '--map-cwd', `/home/alice/acme-api=${project}`, '--dry-run'];
    const r = ok(run('sp-resume', [...args, '--json', '-q', '--no-color']));
    expect(jsonLines(r.stdout)[0]).toMatchObject({ agent: 'codex', source_session: storedSession });
    expect(r.stderr).toBe('');
    expect(ok(run('sp-resume', args)).stderr).toMatch(/sp-resume: ledger: /);
  });

  it('sp-serve: the start line as JSON', async () => {
    const child = spawn(process.execPath, [join(root, 'dist/bin/sp-serve.js'), '--port', '0', '--json', '-q', '--no-color', '--home', `claude=${claudeHome}`], { env, cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        let out = '';
        let err = '';
        const timer = setTimeout(() => reject(new Error(`no start line in 30 s: ${err}`)), 30_000);
        child.stderr.on('data', (d) => (err += d));
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('\n')) {
            clearTimeout(timer);
            resolve(out);
          }
        });
        child.on('close', (code) => reject(new Error(`exited ${code}: ${err}`)));
      });
      const [line] = jsonLines(first);
      expect(line).toMatchObject({ mode: 'read-only', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//) });
      expect(line.port).toBe(Number(new URL(String(line.url)).port));
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('sp-show: the events, redacted, instead of the conversation', () => {
    const secret = FAKE.awsKeyId;
    const input = readFileSync(events, 'utf8').replace('Add a DELETE', `Add a DELETE (token ${secret})`);
    const rows = jsonLines(ok(run('sp-show', ['-', '--json', '-q', '--no-color', '--since', '3'], input)).stdout);
    expect(rows[0].seq).toBe(3);
    expect(rows.every((e) => typeof e.type === 'string')).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(ok(run('sp-show', [events, '--no-pager'])).stdout).not.toMatch(/^\{/m);
  });

  it('sp-sync', () => {
    const rows = jsonLines(ok(run('sp-sync', ['ls', '--json', '-q', '--no-color'])).stdout);
    expect(rows[0].id).toBe(storedSession);
  });

  it('sp-usage', () => {
    const rows = jsonLines(ok(run('sp-usage', ['claude', '--home', claudeHome, '--by', 'model', '--json', '-q', '--no-color'])).stdout);
    expect(rows[0]).toMatchObject({ by: 'model', input: expect.any(Number) });
  });

  it('sp-verify', () => {
    const rows = jsonLines(ok(run('sp-verify', [events, '--json', '--no-color'])).stdout);
    expect(rows[0].ok).toBe(true);
  });

  it('sp-watch: --once, and --install-service', () => {
    const store = join(work, 'watch-store');
    const rows = jsonLines(ok(run('sp-watch', ['claude', '--home', `claude=${claudeHome}`, '--store', store, '--once', '--json', '-q', '--no-color'])).stdout);
    expect(rows[0]).toMatchObject({ sessions: expect.any(Number), added: expect.any(Number) });
    const unit = jsonLines(ok(run('sp-watch', ['--store', store, '--install-service', '--service', 'systemd', '--json', '-q'])).stdout);
    expect(unit).toHaveLength(1);
    expect(unit[0]).toMatchObject({ service: 'systemd', written: false, text: expect.stringContaining('[Service]') });
    // Printed only (no --yes): no unit file under the home (other binaries' clients may have made ~/.config itself).
    expect(existsSync(join(env.HOME, '.config', 'systemd'))).toBe(false);
  });
});

describe('-q/--quiet, --json and --color/--no-color on every binary', () => {
  const bins = readdirSync(join(root, 'bin'))
    .filter((f) => /^sp-[a-z]+\.ts$/.test(f))
    .map((f) => f.replace(/\.ts$/, ''));
  it.each(bins)('%s documents and accepts them', (bin) => {
    // Given with --help they are parsed like any run's (an unknown one would exit 2); one run per binary.
    const help = ok(run(bin, ['-q', '--no-color', '--json', '--help']));
    for (const flag of ['--json', '--quiet', '-q', '--color']) expect(help.stdout, `${bin} ${flag}`).toContain(flag);
    // A binary that declares a common option again must not list its alias twice ("-q, -q, --quiet").
    for (const line of help.stdout.split('\n')) {
      const flags = line.trim().split(/\s{2,}/)[0].split(', ').filter((f) => f.startsWith('-'));
      expect(new Set(flags).size, `${bin}: ${line.trim()}`).toBe(flags.length);
    }
  });
});
