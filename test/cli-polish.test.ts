// The finished CLI: yargs' messages in sp's one-line style with "did you mean", unknown agents and
// sp commands with suggestions, --color/--no-color and NO_COLOR, sp-materialize -q, a missing store
// that says so, completion scripts generated at build time (bash, zsh, fish) printed fast, man
// pages from the same help, and help examples never wrapped inside a command.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rewriteUsageError } from '../lib/cli/usage-errors.js';
import { closest, editDistance } from '../lib/cli/suggest.js';
import { colorEnabled, setColor } from '../lib/cli/color.js';

const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'sp-cli-polish-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const env = { PATH: process.env.PATH, HOME: join(work, 'home'), SP_HOME: join(work, 'sp-home'), SP_PROGRESS: '0' } as Record<string, string>;
const run = (bin: string, args: string[], extra: Record<string, string> = {}, input?: string) => {
  const r = spawnSync(process.execPath, [join(root, 'dist/bin', `${bin}.js`), ...args], { env: { ...env, ...extra }, encoding: 'utf8', input, cwd: work });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};
const oneLine = (stderr: string) => expect(stderr.trimEnd().split('\n')).toHaveLength(1);

describe('messages', () => {
  it('rewrites every kind of yargs message into one line', () => {
    const usage = 'sp-capture <agent> [options]';
    expect(rewriteUsageError('Not enough non-option arguments: got 0, need at least 1', [], usage)).toBe('missing argument: usage: sp-capture <agent> [options]');
    expect(rewriteUsageError('Too many non-option arguments: got 3, maximum of 1', [], usage)).toBe('too many arguments (at most 1): usage: sp-capture <agent> [options]');
    expect(rewriteUsageError('Unknown argument: lates', ['latest', 'list'], usage)).toBe('unknown option --lates (did you mean "--latest"?)');
    expect(rewriteUsageError('Unknown arguments: zzzzzz, yyyyyy', ['latest'], usage)).toBe('unknown option --zzzzzz (and 1 more)');
    // yargs names a stray word like an unknown option; the typed words tell which it was.
    expect(rewriteUsageError('Unknown argument: ../etc', ['latest'], usage, ['kimi', '../etc'])).toBe('unexpected argument "../etc": usage: sp-capture <agent> [options]');
    expect(rewriteUsageError('Unknown argument: lates', ['latest'], usage, ['kimi', '--lates'])).toBe('unknown option --lates (did you mean "--latest"?)');
    expect(rewriteUsageError('Missing required argument: for', [], usage)).toBe('--for is required');
    expect(rewriteUsageError('Not enough arguments following: session', [], usage)).toBe('--session needs a value');
    expect(rewriteUsageError('Invalid values:\n  Argument: format, Given: "mesage", Choices: "message", "agents-md", "files"', [], usage)).toBe(
      '--format must be one of message, agents-md, files, not "mesage" (did you mean "message"?)',
    );
    expect(rewriteUsageError('Arguments budget and window are mutually exclusive', [], usage)).toBe('--budget and --window cannot be combined');
    expect(rewriteUsageError('Missing dependent arguments:\n reserve -> window', [], usage)).toBe('--reserve needs --window');
  });
  it('suggests within an edit distance of 2 only', () => {
    expect(editDistance('claud', 'claude')).toBe(1);
    expect(closest('codx', ['claude', 'codex', 'pi'])).toBe('codex');
    expect(closest('xyz', ['claude', 'codex'])).toBeUndefined();
  });
  it('binaries print them as sp-<name>: …, exit 2, never the raw yargs text', () => {
    const missing = run('sp-capture', []);
    expect(missing.code).toBe(2);
    oneLine(missing.stderr);
    expect(missing.stderr).toMatch(/^sp-capture: missing argument: usage: sp-capture <agent>/);
    expect(missing.stderr).not.toContain('non-option');
    const typo = run('sp-capture', ['claude', '--lates']);
    expect(typo.code).toBe(2);
    expect(typo.stderr.trim()).toBe('sp-capture: unknown option --lates (did you mean "--latest"?) (see --help)');
    const agent = run('sp-capture', ['claud', '--list']);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toMatch(/^sp-capture: unknown agent "claud" \(did you mean "claude"\?\); known agents: /);
    const command = run('sp', ['captur']);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/^sp: unknown command "captur" \(did you mean "capture"\?\)/);
    const choice = run('sp-compile', ['--for', 'codx'], {}, '');
    expect(choice.code).toBe(2);
    expect(choice.stderr).toMatch(/^sp-compile: --for must be one of ([\w-]+, )+markdown, not "codx" \(did you mean "codex"\?\)/);
  }, 60_000);
});

describe('colour', () => {
  it('--color/--no-color win; else NO_COLOR turns it off, FORCE_COLOR on, else only a terminal', () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    setColor(false);
    expect(colorEnabled({ isTTY: true }, {})).toBe(false);
    setColor(true);
    expect(colorEnabled({ isTTY: false }, { NO_COLOR: '1' })).toBe(true);
    setColor(undefined);
  });
  it('every binary accepts --color and --no-color', () => {
    for (const bin of ['sp-capture', 'sp-redact', 'sp-verify', 'sp-config']) {
      const r = run(bin, ['--no-color', '--help']);
      expect(r.code, `${bin}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain('--color');
    }
  }, 60_000);
});

describe('help, quiet, missing store', () => {
  it('help examples are whole commands on their own lines, at any width', () => {
    const help = run('sp-capture', ['--help'], { COLUMNS: '60' }).stdout;
    const examples = help.slice(help.indexOf('Examples:'));
    expect(examples).toContain("  sp-capture claude --latest | sp-redact | sp-compile --for codex | sp-materialize codex\n");
  });
  it('sp-materialize -q prints the result line and no ledger summary', () => {
    const fixture = join(root, 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl');
    const events = run('sp-capture', ['claude', '--path', fixture]).stdout;
    const loud = run('sp-materialize', ['codex', '--dry-run', '--home', join(work, 'codex')], {}, events);
    const quiet = run('sp-materialize', ['codex', '--dry-run', '-q', '--home', join(work, 'codex')], {}, events);
    expect(loud.stderr).toContain('sp-materialize: ledger:');
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(JSON.parse(quiet.stdout.split('\n')[0]).dry_run).toBe(true);
  }, 60_000);
  it('sp-sync ls and search on a missing store: exit 1 and a hint, not silence', () => {
    for (const args of [['ls'], ['search', 'todos']]) {
      const r = run('sp-sync', [...args, '--store', join(work, 'no-store')]);
      expect(r.code).toBe(1);
      oneLine(r.stderr);
      expect(r.stderr).toMatch(/^sp-sync: .*no-store: no store here \(sp-sync ingest creates it/);
    }
  }, 60_000);
});

describe('completion and man pages (built by scripts/finish-build.mjs)', () => {
  it('sp completion bash|zsh|fish prints the built script in well under 100 ms of its own work', () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const built = readFileSync(join(root, 'dist/completion', `sp.${shell}`), 'utf8');
      const r = run('sp', ['completion', shell]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(built);
      expect(built).toContain('capture');
      expect(built).toContain('codex');
    }
    expect(readFileSync(join(root, 'dist/completion/sp.fish'), 'utf8')).toMatch(/complete -c sp -n '__fish_seen_subcommand_from capture' -l latest\n/);
    // CPU time (user + system) of the whole process, reported by a preloaded hook at exit: wall
    // times on a shared 2-core machine say more about the neighbours than about sp.
    const hook = join(work, 'cpu.cjs');
    writeFileSync(hook, "process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('cpu ' + (u.user + u.system) / 1000 + '\\n'); });\n");
    const cpu = (args: string[]) => {
      const r = spawnSync(process.execPath, ['--require', hook, ...args], { env, encoding: 'utf8' });
      return Number(/cpu ([\d.]+)/.exec(r.stderr)![1]);
    };
    const bares: number[] = [];
    const completions: number[] = [];
    for (let i = 0; i < 5; i++) {
      bares.push(cpu(['-e', '']));
      completions.push(cpu([join(root, 'dist/bin/sp.js'), 'completion', 'bash']));
    }
    const bare = Math.min(...bares);
    const completion = Math.min(...completions);
    process.stderr.write(`sp completion bash: ${completion.toFixed(0)} ms CPU (node -e '': ${bare.toFixed(0)} ms)\n`);
    expect(completion - bare).toBeLessThan(100);
    expect(run('sp', ['completion', 'tcsh']).code).toBe(2);
  }, 60_000);
  it('a man page per binary, roff, from its help', () => {
    const bins = readdirSync(join(root, 'dist/bin')).filter((f) => /^sp-[a-z-]+\.js$/.test(f)).map((f) => f.slice(0, -3));
    for (const bin of [...bins, 'sp']) {
      const page = join(root, 'dist/man', `${bin}.1`);
      expect(existsSync(page), page).toBe(true);
      const text = readFileSync(page, 'utf8');
      expect(text).toMatch(new RegExp(`^\\.TH ${bin.toUpperCase()} 1 `));
      expect(text).toContain('.SH NAME');
    }
    expect(readFileSync(join(root, 'dist/man/sp-capture.1'), 'utf8')).toContain('--latest');
  });
});
