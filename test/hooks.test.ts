// sp hooks: install/uninstall/status on scratch homes (the built binary), the structural edits that
// keep every other byte, the refusals (symlink, not JSON/TOML, huge), and the hook script's handling
// of hostile payloads (a transcript outside the home, a symlink out of it, junk) and its speed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { bin, CORPUS, parseLines, root } from './support/store.js';
import { copyFileSync } from 'node:fs';
import { appendItem, insertMember, parseSpans, removeItems } from '../lib/hooks/json-edit.js';
import { FAKE } from './support/fakeSecrets.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-hooks-'));
});
afterAll(() => {
  // Detached workers of the timing case may still be writing their log line.
  if (work) rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function hooks(args: string[], spHome: string) {
  const r = spawnSync(process.execPath, [bin('sp-hooks'), ...args], { encoding: 'utf8', env: { ...process.env, SP_HOME: spHome } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let n = 0;
function scratch(): { home: string; spHome: string } {
  n += 1;
  const base = join(work, `case-${n}`);
  mkdirSync(join(base, 'home'), { recursive: true });
  return { home: join(base, 'home'), spHome: join(base, 'sp') };
}

/** A settings file with the user's own hooks and odd formatting (tabs, CRLF, unicode, numbers as written). */
const CLAUDE_SETTINGS =
  '{\r\n\t"model" : "opus",  "cleanupPeriodDays": 1.50e1,\r\n\t"hooks": {\r\n\t\t"Stop": [ { "matcher": "", "hooks": [ { "type": "command", "command": "echo mine \\u00e9" } ] } ],\r\n' +
  '\t\t"PreToolUse": []\r\n\t},\r\n\t"env": {"ÄÖ": "ü"}\r\n}';

const CODEX_CONFIG = `# my Codex config
model = "o3"   # inline comment
approval_policy = 'never'

[profiles.fast]
model = "gpt-5"
notify_me = true

# trailing comment
[[mcp_servers_list]]
name = "x"
`;

describe('sp hooks install / uninstall / status', () => {
  it('Claude Code: install twice = once, keeps the user\'s hooks, and uninstall restores the exact bytes', () => {
    const { home, spHome } = scratch();
    const file = join(home, 'settings.json');
    writeFileSync(file, CLAUDE_SETTINGS);
    const before = sha(file);
    const first = hooks(['install', 'claude', '--home', home], spHome);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('claude\tinstalled\t');
    const after = readFileSync(file, 'utf8');
    const parsed = JSON.parse(after);
    // The user's entries are all there, sp's is added for Stop and SessionEnd.
    expect(parsed.hooks.Stop[0].hooks[0].command).toBe('echo mine é');
    expect(parsed.hooks.Stop[1].hooks[0].command).toContain('sp-hook.js');
    expect(parsed.hooks.SessionEnd[0].hooks[0].command).toContain('sp-hook.js');
    expect(parsed.env).toEqual({ ÄÖ: 'ü' });
    // Every byte of the original is still there in order: install only inserted text.
    expect(after.startsWith('{\r\n\t"model" : "opus",  "cleanupPeriodDays": 1.50e1,\r\n')).toBe(true);
    expect(after).toContain('"hooks": [ { "type": "command", "command": "echo mine \\u00e9" } ]');

    const second = hooks(['install', 'claude', '--home', home], spHome);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('already installed');
    expect(readFileSync(file, 'utf8')).toBe(after);

    const st = hooks(['status', 'claude', '--home', home, '--json'], spHome);
    expect(JSON.parse(st.stdout)).toMatchObject({ agent: 'claude', installed: true, file });

    // The backup and the record are private.
    expect(statSync(join(spHome, 'hooks')).mode & 0o777).toBe(0o700);
    for (const sub of ['backups', 'installed']) for (const name of readdirSync(join(spHome, 'hooks', sub))) expect(statSync(join(spHome, 'hooks', sub, name)).mode & 0o777).toBe(0o600);

    const un = hooks(['uninstall', 'claude', '--home', home], spHome);
    expect(un.status, un.stderr).toBe(0);
    expect(un.stdout).toContain('restored');
    expect(sha(file)).toBe(before);
    expect(JSON.parse(hooks(['status', 'claude', '--home', home, '--json'], spHome).stdout).installed).toBe(false);
  });

  it('a file changed after install: uninstall removes only sp\'s entries and says so', () => {
    const { home, spHome } = scratch();
    const file = join(home, 'settings.json');
    writeFileSync(file, CLAUDE_SETTINGS);
    expect(hooks(['install', 'claude', '--home', home], spHome).status).toBe(0);
    // The user edits the file after install (a new setting at the top).
    writeFileSync(file, readFileSync(file, 'utf8').replace('"model" : "opus"', '"model" : "sonnet"'));
    const un = hooks(['uninstall', 'claude', '--home', home], spHome);
    expect(un.status, un.stderr).toBe(0);
    expect(un.stdout).toContain('removed');
    expect(un.stdout).toContain('changed since install');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('sp-hook.js');
    expect(text).toContain('"model" : "sonnet"');
    expect(JSON.parse(text).hooks.Stop).toEqual([{ matcher: '', hooks: [{ type: 'command', command: 'echo mine é' }] }]);
  });

  it('no settings file: install creates it, uninstall removes it again', () => {
    const { home, spHome } = scratch();
    const claudeHome = join(home, 'fresh', '.claude');
    expect(hooks(['install', 'claude', '--home', claudeHome], spHome).status).toBe(0);
    expect(JSON.parse(readFileSync(join(claudeHome, 'settings.json'), 'utf8')).hooks.Stop).toHaveLength(1);
    expect(hooks(['uninstall', 'claude', '--home', claudeHome], spHome).stdout).toContain('restored');
    expect(existsSync(join(claudeHome, 'settings.json'))).toBe(false);
  });

  it('Codex: notify goes before the first table; comments and the rest stay; uninstall restores the bytes', () => {
    const { home, spHome } = scratch();
    const file = join(home, 'config.toml');
    writeFileSync(file, CODEX_CONFIG);
    const before = sha(file);
    const r = hooks(['install', 'codex', '--home', home], spHome);
    expect(r.status, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.replace(/^notify = .*\n/m, '')).toBe(CODEX_CONFIG);
    expect(text.indexOf('notify = [')).toBeLessThan(text.indexOf('[profiles.fast]'));
    expect(hooks(['install', 'codex', '--home', home], spHome).stdout).toContain('already installed');
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(hooks(['uninstall', 'codex', '--home', home], spHome).stdout).toContain('restored');
    expect(sha(file)).toBe(before);
  });

  it('Codex: a user\'s own notify program is kept, and install says why it stops', () => {
    const { home, spHome } = scratch();
    const file = join(home, 'config.toml');
    writeFileSync(file, 'notify = ["my-notifier"]\nmodel = "o3"\n');
    const r = hooks(['install', 'codex', '--home', home], spHome);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^sp-hooks: .*config\.toml: already has a notify program/);
    expect(readFileSync(file, 'utf8')).toBe('notify = ["my-notifier"]\nmodel = "o3"\n');
  });

  it('refuses a settings file that is not JSON, a symlink to elsewhere, huge, or of the wrong shape; nothing written', () => {
    const cases: Array<[string, (file: string, home: string) => void, RegExp]> = [
      ['not JSON', (f) => writeFileSync(f, '{ "model": "opus", }'), /settings\.json:1:\d+: not valid JSON/],
      ['symlink', (f, home) => {
        const elsewhere = join(home, '..', 'elsewhere.json');
        writeFileSync(elsewhere, '{}');
        symlinkSync(elsewhere, f);
      }, /is a symlink/],
      ['huge', (f) => writeFileSync(f, '{"x": "' + 'a'.repeat((1 << 20) + 10) + '"}'), /over 1048576/],
      ['array', (f) => writeFileSync(f, '[1, 2]'), /is not a JSON object/],
      ['hooks not an object', (f) => writeFileSync(f, '{"hooks": [1]}'), /"hooks" is not an object/],
      ['a folder', (f) => mkdirSync(f), /is not a regular file/],
    ];
    for (const [name, plant, message] of cases) {
      const { home, spHome } = scratch();
      const file = join(home, 'settings.json');
      plant(file, home);
      const before = lstatSync(file).isFile() ? sha(file) : undefined;
      const r = hooks(['install', 'claude', '--home', home], spHome);
      expect(r.status, name).toBe(2);
      expect(r.stderr, name).toMatch(message);
      expect(r.stderr.split('\n').filter(Boolean), name).toHaveLength(1);
      expect(r.stderr, name).not.toMatch(/at .*\.js:\d+/);
      if (before !== undefined) expect(sha(file), name).toBe(before);
      expect(existsSync(join(spHome, 'hooks', 'backups')), name).toBe(false);
    }
    const { home, spHome } = scratch();
    writeFileSync(join(home, 'config.toml'), 'model = "o3"\n[x\n');
    const r = hooks(['install', 'codex', '--home', home], spHome);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/config\.toml:2:\d+: not valid TOML/);
  });

  it('usage errors are one line, exit 2', () => {
    const { spHome } = scratch();
    for (const args of [['install'], ['install', 'nosuch'], ['install', 'claude', 'codex', '--home', '/tmp/x'], ['frobnicate']]) {
      const r = hooks(args, spHome);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^sp-hooks: /);
    }
  });
});

describe('json-edit: structural edits', () => {
  it('inserts members and items in the file\'s own indentation and removes them again exactly', () => {
    const text = '{\n    "a": [1,2],\n    "b": {}\n}\n';
    const root = parseSpans(text);
    const added = insertMember(text, root as never, 'c', { d: [1] });
    expect(JSON.parse(added)).toEqual({ a: [1, 2], b: {}, c: { d: [1] } });
    expect(added).toContain('\n    "c": {\n        "d": [\n            1\n        ]\n    }\n}');
    const arr = (parseSpans(text) as any).members[0].value;
    const appended = appendItem(text, arr, 3);
    expect(JSON.parse(appended).a).toEqual([1, 2, 3]);
    const arr2 = (parseSpans(appended) as any).members[0].value;
    expect(removeItems(appended, arr2, new Set([2]))).toBe(text);
    // Removing the first items, the middle, all.
    const list = '[ 1 , 2 , 3 , 4 ]';
    const node = parseSpans(list) as any;
    expect(JSON.parse(removeItems(list, node, new Set([0, 1])))).toEqual([3, 4]);
    expect(JSON.parse(removeItems(list, node, new Set([1, 3])))).toEqual([1, 3]);
    expect(removeItems(list, node, new Set([0, 1, 2, 3]))).toBe('[]');
  });

  it('rejects what JSON.parse rejects', () => {
    for (const bad of ['{', '{"a":1,}', '[1 2]', '{"a" 1}', '"\u0001"', '01', '{} x', 'nul']) {
      expect(() => parseSpans(bad), bad).toThrow();
      expect(() => JSON.parse(bad), bad).toThrow();
    }
    for (const good of ['{}', '[]', '{"a":[{"b":null}],"c":-1.5e-3,"d":"\\"x\\u0041"}', '\ufeff{"x":true}']) {
      expect(() => parseSpans(good), good).not.toThrow();
    }
  });
});

describe('the hook script (what the agent runs)', () => {
  /** Runs the built hook as the agent would; returns its wall time in ms and the log. */
  function runHook(agent: string, home: string, spHome: string, payload: string, viaArgv = false) {
    const script = join(root, 'dist', 'lib', 'hooks', 'sp-hook.js');
    const args = [script, agent, '--home', home, '--sp-home', spHome, ...(viaArgv ? [payload] : [])];
    const started = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { input: viaArgv ? '' : payload, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home } });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const log = join(spHome, 'logs', 'hooks.log');
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms, log: existsSync(log) ? readFileSync(log, 'utf8') : '' };
  }

  it('refuses transcripts outside the home, symlinks out of it and junk, exits 0 and writes nothing to the agent', () => {
    const { home, spHome } = scratch();
    const outside = join(home, '..', 'outside.jsonl');
    writeFileSync(outside, '{"type":"user"}\n');
    mkdirSync(join(home, 'projects', 'p'), { recursive: true });
    symlinkSync(outside, join(home, 'projects', 'p', 'link.jsonl'));
    const hostile = [
      JSON.stringify({ session_id: 'x', transcript_path: outside }),
      JSON.stringify({ session_id: 'x', transcript_path: join(home, 'projects', '..', '..', 'outside.jsonl') }),
      JSON.stringify({ session_id: 'x', transcript_path: join(home, 'projects', 'p', 'link.jsonl') }),
      JSON.stringify({ session_id: '../../etc', transcript_path: '' }),
      JSON.stringify({ transcript_path: ['array'] }),
      JSON.stringify({ session_id: 'x', transcript_path: join(home, 'projects') }),
      'not json at all',
      '[1,2]',
      '',
    ];
    for (const payload of hostile) {
      const r = runHook('claude', home, spHome, payload);
      expect(r.status, payload).toBe(0);
      expect(r.stdout + r.stderr, payload).toBe('');
    }
    const lines = runHook('claude', home, spHome, '{}').log.trim().split('\n');
    expect(lines).toHaveLength(hostile.length + 1);
    expect(lines.filter((l) => /not under the agent's home/.test(l))).toHaveLength(3);
    expect(statSync(join(spHome, 'logs', 'hooks.log')).mode & 0o777).toBe(0o600);
    // No worker ran: nothing was captured or stored.
    expect(existsSync(join(spHome, 'store'))).toBe(false);
    expect(existsSync(join(spHome, 'hooks', 'sessions'))).toBe(false);
    // An unknown agent or a relative home: logged, exit 0.
    expect(runHook('bash -c id', home, spHome, '{}').status).toBe(0);
    expect(runHook('claude', 'relative/home', spHome, '{}').status).toBe(0);
    expect(readFileSync(join(spHome, 'logs', 'hooks.log'), 'utf8')).toMatch(/unknown agent "bash -c id"[\s\S]*--home must be an absolute path/);
  });

  it('adds little to node\'s own start-up: the time the agent waits', () => {
    const { home, spHome } = scratch();
    // A session id the worker will not find: the hook's own time, the worker's failure goes to the log.
    const times: number[] = [];
    for (let k = 0; k < 5; k += 1) times.push(runHook('codex', home, spHome, JSON.stringify({ type: 'agent-turn-complete', 'thread-id': `0000000${k}-0000-0000-0000-000000000000` }), true).ms);
    // The floor on this machine: node starting and doing nothing.
    const bare: number[] = [];
    for (let k = 0; k < 5; k += 1) {
      const started = process.hrtime.bigint();
      spawnSync(process.execPath, ['-e', '0']);
      bare.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[2];
    console.log(`sp-hook wall time, median of 5: ${median(times).toFixed(0)} ms (node -e 0 on this machine: ${median(bare).toFixed(0)} ms)`);
    // Loose on a shared CI machine; what matters is that the hook adds little to node's own start.
    expect(median(times)).toBeLessThan(median(bare) + 500);
    // Each hook started a worker, which found no such session and said so in the log (bounded wait).
    const until = Date.now() + 30_000;
    const failures = () => (existsSync(join(spHome, 'logs', 'hooks.log')) ? readFileSync(join(spHome, 'logs', 'hooks.log'), 'utf8').match(/sp-capture exited 2/g)?.length ?? 0 : 0);
    while (failures() < 5 && Date.now() < until) spawnSync('sleep', ['0.2']);
    expect(failures()).toBe(5);
  });

  it('three hooks for one session at once: one worker at a time, every event stored once, and a later turn adds only what is new', async () => {
    const { home, spHome } = scratch();
    const dir = join(home, 'projects', '-home-alice-acme-api');
    mkdirSync(dir, { recursive: true });
    const transcript = join(dir, '9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl');
    const lines = readFileSync(join(root, CORPUS.claudeDebug), 'utf8').split('\n').filter((l) => l !== '');
    // The first half of the session, then (a later turn) the rest.
    const half = Math.floor(lines.length / 2);
    writeFileSync(transcript, lines.slice(0, half).join('\n') + '\n');
    const payload = JSON.stringify({ session_id: '9a1dc580-54f5-46ea-bece-7461fb46da3a', transcript_path: transcript, hook_event_name: 'Stop' });
    const script = join(root, 'dist', 'lib', 'hooks', 'sp-hook.js');
    const fire = () => new Promise<void>((done) => {
      const child = spawn(process.execPath, [script, 'claude', '--home', home, '--sp-home', spHome], { stdio: ['pipe', 'ignore', 'ignore'] });
      child.stdin!.end(payload);
      child.on('close', () => done());
    });
    const log = () => (existsSync(join(spHome, 'logs', 'hooks.log')) ? readFileSync(join(spHome, 'logs', 'hooks.log'), 'utf8') : '');
    await Promise.all([fire(), fire(), fire()]);
    const stored = () => {
      const ls = parseLines(spawnSync(process.execPath, [bin('sp-sync'), 'ls', '--json'], { encoding: 'utf8', env: { ...process.env, SP_HOME: spHome } }).stdout);
      expect(ls.length).toBeLessThanOrEqual(1);
      if (ls.length === 0) return [];
      return parseLines(spawnSync(process.execPath, [bin('sp-sync'), 'log', String(ls[0].session ?? ls[0].id)], { encoding: 'utf8', env: { ...process.env, SP_HOME: spHome } }).stdout);
    };
    const direct = (text: string) => {
      writeFileSync(join(home, 'whole.jsonl'), text);
      return parseLines(spawnSync(process.execPath, [bin('sp-capture'), 'claude', '--path', join(home, 'whole.jsonl')], { encoding: 'utf8', env: { ...process.env, SP_HOME: spHome } }).stdout).length;
    };
    /** The store once it holds `count` events and no worker runs any more (bounded). */
    const settled = async (count: number) => {
      const until = Date.now() + 90_000;
      for (;;) {
        const busy = existsSync(join(spHome, 'hooks', 'sessions')) && readdirSync(join(spHome, 'hooks', 'sessions')).some((f) => f.endsWith('.lock') || f.endsWith('.again'));
        const events = stored();
        if ((events.length >= count && !busy) || Date.now() > until) return events;
        await new Promise((r) => setTimeout(r, 300));
      }
    };
    const firstCount = direct(lines.slice(0, half).join('\n') + '\n');
    const first = await settled(firstCount);
    expect(first.map((e) => e.seq)).toEqual(first.map((_, k) => k));
    expect(first.length).toBe(firstCount);
    // Workers that found the lock held said so; none stored anything twice.
    expect(log()).not.toMatch(/exited/);

    writeFileSync(transcript, lines.join('\n') + '\n');
    await fire();
    const wholeCount = direct(lines.join('\n') + '\n');
    const second = await settled(wholeCount);
    expect(second.slice(0, first.length)).toEqual(first);
    expect(second.map((e) => e.seq)).toEqual(second.map((_, k) => k));
    expect(second.length).toBe(wholeCount);
  }, 180_000);
});

/** The events of the one session in the store (at most one). */
function storedEvents(spHome: string): Array<Record<string, any>> {
  const env = { ...process.env, SP_HOME: spHome };
  const ls = parseLines(spawnSync(process.execPath, [bin('sp-sync'), 'ls', '--json'], { encoding: 'utf8', env }).stdout);
  expect(ls.length).toBeLessThanOrEqual(1);
  if (ls.length === 0) return [];
  return parseLines(spawnSync(process.execPath, [bin('sp-sync'), 'log', String(ls[0].session ?? ls[0].id)], { encoding: 'utf8', env }).stdout);
}

/** The store once it holds at least `count` events and no hook worker runs (bounded). */
async function settledStore(spHome: string, count: number): Promise<Array<Record<string, any>>> {
  const until = Date.now() + 90_000;
  for (;;) {
    const dir = join(spHome, 'hooks', 'sessions');
    const busy = existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.lock') || f.endsWith('.again'));
    const events = storedEvents(spHome);
    if ((events.length >= count && !busy) || Date.now() > until) return events;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Runs an installed hook command line as a client that runs it through a shell does, payload on stdin. */
function fireCommand(command: string, payload: string): Promise<number | null> {
  return new Promise((done) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin!.end(payload);
    child.on('close', (code) => done(code));
  });
}

const hookLog = (spHome: string) => (existsSync(join(spHome, 'logs', 'hooks.log')) ? readFileSync(join(spHome, 'logs', 'hooks.log'), 'utf8') : '');

describe('Qoder, Hermes and OpenCode (payloads as their clients send them)', () => {
  it('Qoder CLI: Stop/SessionEnd hooks in settings.json; a payload captures the transcript, redacted; the next adds only what is new; uninstall restores the bytes', async () => {
    const { home, spHome } = scratch();
    const file = join(home, 'settings.json');
    writeFileSync(file, CLAUDE_SETTINGS);
    const before = sha(file);
    const r = hooks(['install', 'qoder', '--home', home], spHome);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^qoder\tinstalled\t/);
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    expect(settings.hooks.Stop[0].hooks[0].command).toBe('echo mine é');
    const stop = settings.hooks.Stop[1].hooks[0];
    const end = settings.hooks.SessionEnd[0].hooks[0];
    expect(stop).toMatchObject({ type: 'command', timeout: 10 });
    expect(stop.command).toContain('sp-hook.js');
    expect(hooks(['install', 'qoder', '--home', home], spHome).stdout).toContain('already installed');

    // A transcript where Qoder keeps it, the first turn's lines with a secret in the prompt.
    const id = '7c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5';
    const source = readFileSync(join(root, 'fixtures/qoder/assembled/.qoder/projects/-home-ivan-probe', `${id}.jsonl`), 'utf8').replace('read NOTES.md and reply', `read NOTES.md and reply, my key is ${FAKE.awsKeyId}`);
    const lines = source.split('\n').filter((l) => l !== '');
    const transcript = join(home, 'projects', '-home-ivan-probe', `${id}.jsonl`);
    mkdirSync(dirname(transcript), { recursive: true });
    writeFileSync(transcript, lines.slice(0, 5).join('\n') + '\n');
    const payload = (event: string) => JSON.stringify({ session_id: id, transcript_path: transcript, cwd: '/home/ivan/probe', hook_event_name: event });
    const direct = (count: number) => {
      writeFileSync(join(home, 'whole.jsonl'), lines.slice(0, count).join('\n') + '\n');
      return parseLines(spawnSync(process.execPath, [bin('sp-capture'), 'qoder', '--path', join(home, 'whole.jsonl')], { encoding: 'utf8' }).stdout).length;
    };
    // A transcript outside the home is refused (logged), and the hook still exits 0.
    expect(await fireCommand(stop.command, JSON.stringify({ session_id: id, transcript_path: join(root, 'fixtures/qoder/harness/minimal-resumable.jsonl') }))).toBe(0);
    expect(hookLog(spHome)).toMatch(/not under the agent's home/);

    expect(await fireCommand(stop.command, payload('Stop'))).toBe(0);
    const firstCount = direct(5);
    const first = await settledStore(spHome, firstCount);
    expect(first.length).toBe(firstCount);
    expect(JSON.stringify(first)).toContain('read NOTES.md and reply, my key is');
    expect(JSON.stringify(first)).not.toContain(FAKE.awsKeyId);

    writeFileSync(transcript, lines.join('\n') + '\n');
    expect(await fireCommand(end.command, payload('SessionEnd'))).toBe(0);
    const wholeCount = direct(lines.length);
    const second = await settledStore(spHome, wholeCount);
    expect(second.length).toBe(wholeCount);
    expect(second.slice(0, first.length)).toEqual(first);
    expect(second.map((e) => e.seq)).toEqual(second.map((_, k) => k));
    expect(hookLog(spHome)).not.toMatch(/exited/);
    const verified = spawnSync(process.execPath, [bin('sp-verify'), '--store', join(spHome, 'store')], { encoding: 'utf8', env: { ...process.env, SP_HOME: spHome } });
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);

    expect(hooks(['uninstall', 'qoder', '--home', home], spHome).stdout).toContain('restored');
    expect(sha(file)).toBe(before);
  }, 180_000);

  const HERMES_CONFIG = '# my Hermes config\r\nmodel:\r\n  default: "anthropic/claude-sonnet-4.6"   # inline comment\r\nagent:\r\n  max_turns: 60\r\n';

  it('Hermes: shell hooks appended to config.yaml (nothing else changes), refused where sp cannot edit safely; a payload captures the session, the next turn adds only its events', async () => {
    const { home, spHome } = scratch();
    const file = join(home, 'config.yaml');
    writeFileSync(file, HERMES_CONFIG);
    const before = sha(file);
    const r = hooks(['install', 'hermes', '--home', home], spHome);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^hermes\tinstalled\t.*approve/);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith(HERMES_CONFIG + '\r\n# sp hooks:')).toBe(true);
    expect(text).toMatch(/\r\nhooks:\r\n {2}on_session_end:\r\n {4}- command: "[^"\r\n]*sp-hook\.js hermes --home [^"\r\n]*"\r\n {6}timeout: 10\r\n {2}on_session_finalize:\r\n/);
    expect(hooks(['install', 'hermes', '--home', home], spHome).stdout).toContain('already installed');
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(JSON.parse(hooks(['status', 'hermes', '--home', home, '--json'], spHome).stdout)).toMatchObject({ installed: true });

    // Hermes splits the command like a POSIX shell line: sh -c runs the same argv.
    const command = JSON.parse(/- command: (".*")/.exec(text)![1]) as string;
    const db = join(home, 'state.db');
    copyFileSync(join(root, 'fixtures/hermes/corpus/state.db'), db);
    const id = '20261130_051619_bb4de5';
    const payload = JSON.stringify({ hook_event_name: 'on_session_end', tool_name: null, tool_input: null, session_id: id, cwd: '/home/dave/acme-api', profile: 'default', extra: { completed: true, interrupted: false } });
    // A hostile session id is refused (logged); the hook exits 0 all the same.
    expect(await fireCommand(command, JSON.stringify({ hook_event_name: 'on_session_end', session_id: '../../etc/passwd' }))).toBe(0);
    expect(hookLog(spHome)).toMatch(/no transcript_path and no valid session id/);
    expect(await fireCommand(command, payload)).toBe(0);
    const direct = () => parseLines(spawnSync(process.execPath, [bin('sp-capture'), 'hermes', '--session', id, '--home', home], { encoding: 'utf8' }).stdout).length;
    const firstCount = direct();
    const first = await settledStore(spHome, firstCount);
    expect(first.length).toBe(firstCount);

    // The next turn: Hermes appends the rows of one more exchange.
    const Database = (await import('better-sqlite3')).default;
    const handle = new Database(db);
    const at = (handle.prepare('SELECT max(timestamp) AS t FROM messages WHERE session_id = ?').get(id) as { t: number }).t;
    const add = handle.prepare('INSERT INTO messages (session_id, role, content, timestamp, finish_reason) VALUES (?, ?, ?, ?, ?)');
    add.run(id, 'user', `one more thing, the token is ${FAKE.awsKeyId}`, at + 10, null);
    add.run(id, 'assistant', 'Noted.', at + 12, 'stop');
    handle.close();
    expect(await fireCommand(command, payload)).toBe(0);
    const wholeCount = direct();
    expect(wholeCount).toBeGreaterThan(firstCount);
    const second = await settledStore(spHome, wholeCount);
    expect(second.length).toBe(wholeCount);
    expect(second.slice(0, first.length)).toEqual(first);
    expect(second.filter((e) => e.type === 'session.start')).toHaveLength(1);
    expect(JSON.stringify(second)).toContain('one more thing, the token is');
    expect(JSON.stringify(second)).not.toContain(FAKE.awsKeyId);
    expect(hookLog(spHome)).not.toMatch(/exited/);

    expect(hooks(['uninstall', 'hermes', '--home', home], spHome).stdout).toContain('restored');
    expect(sha(file)).toBe(before);
    // Changed after install: only sp's block goes.
    expect(hooks(['install', 'hermes', '--home', home], spHome).status).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8').replace('max_turns: 60', 'max_turns: 90'));
    expect(hooks(['uninstall', 'hermes', '--home', home], spHome).stdout).toContain('removed');
    expect(readFileSync(file, 'utf8')).toBe(HERMES_CONFIG.replace('max_turns: 60', 'max_turns: 90'));

    // What sp cannot append to without a YAML parser is refused, one line, nothing written.
    for (const [name, body, message] of [
      ['own hooks', 'model: x\nhooks:\n  pre_tool_call:\n    - command: "~/.hermes/agent-hooks/x.sh"\n', /already has a top-level hooks: mapping/],
      ['quoted hooks key', '"hooks": {}\n', /already has a top-level hooks: mapping/],
      ['flow style', '# c\n{model: x}\n', /is flow-style YAML/],
      ['two documents', 'model: x\n---\nmodel: y\n', /more than one YAML document/],
    ] as Array<[string, string, RegExp]>) {
      const c = scratch();
      writeFileSync(join(c.home, 'config.yaml'), body);
      const refused = hooks(['install', 'hermes', '--home', c.home], c.spHome);
      expect(refused.status, name).toBe(2);
      expect(refused.stderr, name).toMatch(message);
      expect(refused.stderr.trim().split('\n'), name).toHaveLength(1);
      expect(readFileSync(join(c.home, 'config.yaml'), 'utf8'), name).toBe(body);
    }
  }, 180_000);

  it('OpenCode: sp\'s plugin goes to the config dir beside the data dir, refuses a foreign file of its name, and goes again on uninstall', () => {
    const { home, spHome } = scratch();
    const data = join(home, '.local', 'share', 'opencode');
    const plugin = join(home, '.config', 'opencode', 'plugin', 'sp-capture.js');
    mkdirSync(join(home, '.config', 'opencode', 'plugin'), { recursive: true });
    writeFileSync(join(home, '.config', 'opencode', 'plugin', 'mine.js'), 'export const Mine = async () => ({})\n');
    const r = hooks(['install', 'opencode', '--home', data], spHome);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`opencode\tinstalled\t${plugin}\n`);
    const text = readFileSync(plugin, 'utf8');
    expect(text).toContain("event?.type !== 'session.idle'");
    expect(text).toContain(JSON.stringify(join(root, 'dist', 'lib', 'hooks', 'sp-hook.js')));
    expect(text).toContain(JSON.stringify(data));
    expect(statSync(plugin).mode & 0o777).toBe(0o600);
    expect(hooks(['install', 'opencode', '--home', data], spHome).stdout).toContain('already installed');
    expect(JSON.parse(hooks(['status', 'opencode', '--home', data, '--json'], spHome).stdout)).toMatchObject({ installed: true, file: plugin });
    expect(hooks(['uninstall', 'opencode', '--home', data], spHome).stdout).toContain('restored');
    expect(existsSync(plugin)).toBe(false);
    expect(readFileSync(join(home, '.config', 'opencode', 'plugin', 'mine.js'), 'utf8')).toBe('export const Mine = async () => ({})\n');

    writeFileSync(plugin, '// the user\'s own plugin of that name\n');
    const refused = hooks(['install', 'opencode', '--home', data], spHome);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^sp-hooks: .*sp-capture\.js: is not sp's plugin/);
    expect(readFileSync(plugin, 'utf8')).toBe('// the user\'s own plugin of that name\n');
  });
});
