// Writers under attack (trust boundaries): native ids, cwds, artifact refs and model names come from
// the input and are data, never a path or code. Each attack runs the real sp-materialize binary in
// a sandbox and checks the exit code, the one diagnostic line, and that nothing was written or read
// where it should not be (a digest of the whole sandbox before and after).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resumeCommand, shellQuote, type NativeIdFormat } from '../../lib/write/writer.js';
import { NATIVE_ID as CLAUDE_ID } from '../../adapters/claude/paths.js';
import { NATIVE_ID as CODEX_ID } from '../../adapters/codex/paths.js';
import { NATIVE_ID as COPILOT_ID } from '../../adapters/copilot/paths.js';
import { NATIVE_ID as CURSOR_ID } from '../../adapters/cursor/paths.js';
import { NATIVE_ID as GEMINI_ID } from '../../adapters/gemini/paths.js';
import { NATIVE_ID as HERMES_ID } from '../../adapters/hermes/paths.js';
import { NATIVE_ID as OPENCODE_ID } from '../../adapters/opencode/paths.js';
import { NATIVE_ID as PI_ID } from '../../adapters/pi/paths.js';
import { NATIVE_ID as QODER_ID } from '../../adapters/qoder/paths.js';
import { NATIVE_ID as QWEN_ID } from '../../adapters/qwen/paths.js';
import { root, runBin, tempDir } from '../support/streams.js';

const OPENCODE_DB = join(root, 'fixtures/opencode/corpus/.local/share/opencode/opencode.db');
const HERMES_DB = join(root, 'fixtures/hermes/corpus/state.db');

/** Every writer that keeps a native id under --same-id, with its declared format and resume binary. */
const WRITERS: Array<{ agent: string; format: NativeIdFormat; bin: string }> = [
  { agent: 'claude', format: CLAUDE_ID, bin: 'claude' },
  { agent: 'codex', format: CODEX_ID, bin: 'codex' },
  { agent: 'pi', format: PI_ID, bin: 'pi' },
  { agent: 'gemini', format: GEMINI_ID, bin: 'gemini' },
  { agent: 'qwen', format: QWEN_ID, bin: 'qwen' },
  { agent: 'qoder', format: QODER_ID, bin: 'qodercli' },
  { agent: 'copilot', format: COPILOT_ID, bin: 'copilot' },
  { agent: 'hermes', format: HERMES_ID, bin: 'hermes' },
  { agent: 'opencode', format: OPENCODE_ID, bin: 'opencode' },
  { agent: 'cursor', format: CURSOR_ID, bin: 'cursor-agent' },
];

interface Sandbox {
  dir: string;
  home: string;
  proj: string;
  outside: string;
}

/** A sandbox: the target home, the project folder, and a folder outside both that must stay untouched. */
function sandbox(agent?: string): Sandbox {
  const dir = realpathSync(tempDir('sp-sec-writers-'));
  const sb = { dir, home: join(dir, 'home'), proj: join(dir, 'proj'), outside: join(dir, 'outside') };
  for (const d of [sb.home, sb.proj, sb.outside]) mkdirSync(d);
  writeFileSync(join(sb.outside, 'keep.txt'), 'outside\n');
  // OpenCode writes only into a database its client made.
  if (agent === 'opencode') copyFileSync(OPENCODE_DB, join(sb.home, 'opencode.db'));
  return sb;
}

/** Every entry under `dir`: path, kind, mode and content (files) or target (links). */
function digest(dir: string): string {
  const out: string[] = [];
  const walk = (path: string): void => {
    const st = lstatSync(path);
    const rel = path.slice(dir.length) || '/';
    if (st.isSymbolicLink()) out.push(`${rel} link ${readlinkSync(path)}`);
    else if (st.isDirectory()) {
      out.push(`${rel} dir ${(st.mode & 0o777).toString(8)}`);
      for (const name of readdirSync(path).sort()) walk(join(path, name));
    } else out.push(`${rel} file ${(st.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
  };
  walk(dir);
  return out.join('\n');
}

/** A small canonical session of `agent`: one prompt and one reply (plus extra content blocks). */
function session(agent: string, start: Record<string, unknown>, userContent: unknown[] = [{ type: 'text', text: 'hi' }]): string {
  let seq = 0;
  const ev = (type: string, payload: Record<string, unknown>): string => JSON.stringify({ session: 'sess-attack', seq: seq, ts: 1_764_480_000 + seq++, agent, type, payload });
  return [
    ev('session.start', { model: 'model-1', ...start }),
    ev('message.user', { content: userContent }),
    ev('message.assistant', { content: [{ type: 'text', text: 'hello' }], model: 'model-1' }),
  ].join('\n') + '\n';
}

function materialize(sb: Sandbox, agent: string, input: string, args: string[] = []) {
  return runBin('sp-materialize', [agent, '--home', sb.home, '--experimental', ...args], { input, cwd: sb.proj });
}

/** The one diagnostic line of a refused run. */
function oneLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^sp-materialize: /);
  expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  return lines[0];
}

const HOSTILE_IDS = (sb: Sandbox): string[] => [
  '../../outside/PWNED',
  join(sb.outside, 'PWNED'),
  'x/../../../outside/PWNED',
  'abc;touch${IFS}PWNED;#',
  '$(touch PWNED)',
  'ab\u0000cd',
  '11111111-2222-4333-8444-555555555555\nPWNED',
  'a'.repeat(5000),
];

describe('hostile native ids', () => {
  for (const { agent, format } of WRITERS) {
    it(`${agent} --same-id refuses each (exit 2, one line, nothing written anywhere)`, () => {
      const sb = sandbox(agent);
      const before = digest(sb.dir);
      for (const id of HOSTILE_IDS(sb)) {
        const r = materialize(sb, agent, session(agent, { native_id: id, cwd: sb.proj }), ['--same-id']);
        expect(r.code, `${JSON.stringify(id)}: ${r.stderr}`).toBe(2);
        expect(r.stdout).toBe('');
        expect(oneLine(r.stderr)).toContain(`${format.agent} session id format (${format.described})`);
        expect(digest(sb.dir), JSON.stringify(id)).toBe(before);
      }
    });

    it(`${agent} without --same-id mints a new id of its own format, inside the home`, () => {
      const sb = sandbox(agent);
      const outsideBefore = digest(sb.outside);
      const r = materialize(sb, agent, session(agent, { native_id: '../../outside/PWNED', cwd: sb.proj }));
      expect(r.code, r.stderr).toBe(0);
      const result = JSON.parse(r.stdout.split('\n')[0]) as { session_id: string; path: string };
      expect(result.session_id).toMatch(format.pattern);
      expect(result.session_id).not.toContain('PWNED');
      const file = result.path.replace(/#.*$/, '');
      expect(existsSync(file)).toBe(true);
      expect(realpathSync(file).startsWith(sb.home + '/')).toBe(true);
      expect(digest(sb.outside)).toBe(outsideBefore);
    });
  }

  it('aider refuses --same-id (its histories have no id), writes nothing', () => {
    const sb = sandbox();
    const before = digest(sb.dir);
    const r = materialize(sb, 'aider', session('aider', { native_id: '../../outside/PWNED', cwd: sb.proj }), ['--same-id']);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/Aider history has no session id/);
    expect(digest(sb.dir)).toBe(before);
  });

  it('a valid id of the right format is kept under --same-id', () => {
    const sb = sandbox();
    const id = '11111111-2222-4333-8444-555555555555';
    const r = materialize(sb, 'claude', session('claude', { native_id: id, cwd: sb.proj }), ['--same-id']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).session_id).toBe(id);
  });
});

describe('hostile cwds', () => {
  for (const { agent } of WRITERS) {
    it(`${agent}: a cwd that climbs, is relative, or holds a newline or a NUL stays a folder name inside the home`, () => {
      const sb = sandbox(agent);
      const cwds = [`${sb.proj}/../../../outside`, '../../outside', `${sb.proj}/x\n/../../outside`, `${sb.proj}/..\u0000/outside`, '/'];
      const outsideBefore = digest(sb.outside);
      for (const cwd of cwds) {
        const r = materialize(sb, agent, session(agent, { native_id: 'x', cwd }));
        // Written (inside the home) or refused with one line (e.g. Pi wants an existing cwd): never elsewhere.
        if (r.code === 0) {
          const file = (JSON.parse(r.stdout.split('\n')[0]) as { path: string }).path.replace(/#.*$/, '');
          expect(realpathSync(file).startsWith(sb.home + '/'), `${JSON.stringify(cwd)} → ${file}`).toBe(true);
        } else {
          expect(r.code, r.stderr).toBe(2);
          oneLine(r.stderr);
        }
        expect(digest(sb.outside), JSON.stringify(cwd)).toBe(outsideBefore);
      }
    });
  }
});

describe('symlinked folders inside the home that lead out', () => {
  // The folder each writer writes into, relative to the home, for the project folder sb.proj.
  const LINKS: Array<{ agent: string; folder: (sb: Sandbox) => string }> = [
    { agent: 'claude', folder: (sb) => join('projects', sb.proj.replace(/[^A-Za-z0-9]/g, '-')) },
    { agent: 'qoder', folder: (sb) => join('projects', sb.proj.replace(/[^A-Za-z0-9]/g, '-')) },
    { agent: 'qwen', folder: (sb) => join('projects', sb.proj.replace(/[^A-Za-z0-9]/g, '-')) },
    { agent: 'pi', folder: (sb) => join('sessions', `--${sb.proj.slice(1).replace(/\//g, '-')}--`) },
    { agent: 'codex', folder: () => 'sessions' },
    { agent: 'copilot', folder: () => 'session-state' },
    { agent: 'cursor', folder: () => 'chats' },
  ];
  for (const { agent, folder } of LINKS) {
    it(`${agent}: refused (exit 2, one line), nothing written outside`, () => {
      const sb = sandbox(agent);
      const link = join(sb.home, folder(sb));
      mkdirSync(join(link, '..'), { recursive: true });
      symlinkSync(sb.outside, link);
      const before = digest(sb.dir);
      const r = materialize(sb, agent, session(agent, { native_id: '11111111-2222-4333-8444-555555555555', cwd: sb.proj }));
      expect(r.code, r.stderr).toBe(2);
      expect(oneLine(r.stderr)).toMatch(/refusing to write outside the home .*a symlink on the way leads elsewhere/);
      expect(digest(sb.dir)).toBe(before);
    });
  }

  it('gemini: a projects.json slug that climbs out of tmp/ is refused', () => {
    const sb = sandbox();
    writeFileSync(join(sb.home, 'projects.json'), JSON.stringify({ projects: { [sb.proj]: '../../outside' } }));
    const before = digest(sb.dir);
    const r = materialize(sb, 'gemini', session('gemini', { cwd: sb.proj }));
    expect(r.code, r.stderr).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/is not a plain folder name/);
    expect(digest(sb.dir)).toBe(before);
  });

  it('aider: a history file name that is a symlink out of the project folder is refused', () => {
    const sb = sandbox();
    // The name the writer picks for native id "abc": .aider.sp-abc.chat.history.md
    symlinkSync(join(sb.outside, 'stolen.md'), join(sb.proj, '.aider.sp-abc.chat.history.md'));
    const before = digest(sb.dir);
    const r = materialize(sb, 'aider', session('aider', { native_id: 'abc', cwd: sb.proj }));
    expect(r.code, r.stderr).toBe(2);
    oneLine(r.stderr);
    expect(digest(sb.dir)).toBe(before);
  });
});

// ---- the resume command -----------------------------------------------------------------------

/** A folder of stub clients: each records its argv (NUL-separated) and its working directory. */
function stubClients(dir: string, bins: string[]): { path: string; argvOf: (bin: string) => string[] | undefined; pwdOf: (bin: string) => string } {
  const stubs = join(dir, 'stubs');
  mkdirSync(stubs);
  for (const bin of bins) {
    writeFileSync(join(stubs, bin), `#!/bin/sh\nprintf '%s\\0' "$@" > "${join(stubs, `${bin}.argv`)}"\npwd -P > "${join(stubs, `${bin}.pwd`)}"\n`);
    chmodSync(join(stubs, bin), 0o755);
  }
  return {
    path: stubs,
    argvOf: (bin) => {
      const file = join(stubs, `${bin}.argv`);
      if (!existsSync(file)) return undefined;
      const text = readFileSync(file, 'utf8');
      return text === '' ? [] : text.slice(0, -1).split('\0');
    },
    pwdOf: (bin) => readFileSync(join(stubs, `${bin}.pwd`), 'utf8').trim(),
  };
}

/** Runs a resume line as a user pasting it would (bash -c), in `cwd`, with the stubs first on PATH. */
function runResume(line: string, stubs: string, cwd: string): { code: number | null; stderr: string } {
  const r = spawnSync('bash', ['-c', line], { cwd, env: { PATH: `${stubs}:/usr/bin:/bin`, HOME: cwd }, encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

const HOSTILE_WORDS = ["abc;touch${IFS}CANARY;#", '$(touch CANARY)', '`touch CANARY`', "it's'; touch CANARY; '", 'a b\nc', '~', '=ls', '-x', '', 'a|b&c>d<e*?[x]!{y}'];

describe('resume command quoting', () => {
  it('each hostile word reaches the program as exactly one argument, and runs nothing', () => {
    const dir = realpathSync(tempDir('sp-sec-resume-'));
    const stubs = stubClients(dir, ['client']);
    for (const word of HOSTILE_WORDS) {
      const line = resumeCommand(dir, ['client', '--resume', word]);
      const r = runResume(line, stubs.path, dir);
      expect(r.code, `${line}: ${r.stderr}`).toBe(0);
      expect(stubs.argvOf('client')).toEqual(['--resume', word]);
      expect(existsSync(join(dir, 'CANARY')), line).toBe(false);
    }
  });

  it('ordinary ids and paths stay readable (quoted only when needed)', () => {
    expect(shellQuote('0379b078-635b-4c1c-8622-6f356ff2badb')).toBe('0379b078-635b-4c1c-8622-6f356ff2badb');
    expect(shellQuote('/home/a/proj-1/x.jsonl')).toBe('/home/a/proj-1/x.jsonl');
    expect(shellQuote('20261201_194856_967819')).toBe('20261201_194856_967819');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(resumeCommand('/a b', ['x', '--resume', 'id'])).toBe(`cd '/a b' && x --resume id`);
  });

  /** What each client must receive: the id (Pi: the session file) as one word, nothing else. */
  const expectedArgv = (agent: string, r: { session_id: string; path: string }): string[] =>
    ({
      claude: ['--resume', r.session_id],
      codex: ['resume', r.session_id],
      pi: ['--session', r.path],
      gemini: ['--resume', r.session_id, '-m', "m';touch CANARY;'"],
      qwen: ['--resume', r.session_id],
      qoder: ['--resume', r.session_id],
      copilot: [`--resume=${r.session_id}`],
      hermes: ['--resume', r.session_id],
      opencode: ['--session', r.session_id],
      cursor: ['--resume', r.session_id],
    })[agent]!;

  const CWD_NAMES = ["p;touch CANARY;#", '$(touch CANARY)', "q'; touch CANARY; echo '", 'sp ace`touch CANARY`'];
  for (const { agent, bin } of WRITERS) {
    it(`${agent}: the printed resume line, run by bash in hostile cwds, runs only the client with the session id`, () => {
      const sb = sandbox(agent);
      const stubs = stubClients(sb.dir, [bin]);
      for (const name of CWD_NAMES) {
        const cwd = join(sb.dir, name);
        mkdirSync(cwd);
        // The model name is input too (the session names it; gemini puts it on the line).
        const r = materialize(sb, agent, session(agent, { native_id: 'x', cwd, model: "m';touch CANARY;'" }), ['--cwd', cwd]);
        expect(r.code, r.stderr).toBe(0);
        const result = JSON.parse(r.stdout.split('\n')[0]) as { session_id: string; path: string; resume: string };
        const run = runResume(result.resume, stubs.path, sb.dir);
        expect(run.code, `${result.resume}: ${run.stderr}`).toBe(0);
        expect(existsSync(join(sb.dir, 'CANARY')) || existsSync(join(cwd, 'CANARY'))).toBe(false);
        expect(stubs.argvOf(bin)).toEqual(expectedArgv(agent, result));
        if (agent !== 'hermes') expect(stubs.pwdOf(bin)).toBe(cwd); // hermes resumes by id alone
      }
    });
  }

  it('aider: the resume line in a hostile cwd passes the history file as one argument', () => {
    const sb = sandbox();
    const stubs = stubClients(sb.dir, ['aider']);
    const cwd = join(sb.dir, "a'; touch CANARY; '$(touch CANARY)");
    mkdirSync(cwd);
    const r = materialize(sb, 'aider', session('aider', { native_id: 'x', cwd }), ['--cwd', cwd]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout.split('\n')[0]) as { path: string; resume: string };
    expect(runResume(result.resume, stubs.path, sb.dir).code).toBe(0);
    expect(stubs.argvOf('aider')).toEqual(['--chat-history-file', result.path, '--restore-chat-history']);
    expect(existsSync(join(sb.dir, 'CANARY')) || existsSync(join(cwd, 'CANARY'))).toBe(false);
  });
});

// ---- artifact references ----------------------------------------------------------------------

describe('artifact references', () => {
  const SECRET = Buffer.from('-----BEGIN OPENSSH PRIVATE KEY----- not really\n');
  const IMAGE = Buffer.from('89504e470d0a1a0a-an-image', 'utf8');
  const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

  /** The artifacts folder with one good blob, and attacks around it; returns the refs to try. */
  function setUp(sb: Sandbox): { dir: string; good: string; attacks: Record<string, string> } {
    const dir = join(sb.dir, 'artifacts');
    mkdirSync(dir);
    writeFileSync(join(sb.outside, 'id_ed25519'), SECRET);
    writeFileSync(join(dir, sha(IMAGE)), IMAGE);
    // A symlinked blob whose target's hash is its name: only the symlink rule refuses it.
    symlinkSync(join(sb.outside, 'id_ed25519'), join(dir, sha(SECRET)));
    // A blob whose bytes are not what its name says.
    const fake = sha(Buffer.from('something else'));
    writeFileSync(join(dir, fake), SECRET);
    return {
      dir,
      good: `sha256:${sha(IMAGE)}`,
      attacks: {
        dotdot: 'sha256:../outside/id_ed25519',
        absolute: `sha256:${join(sb.outside, 'id_ed25519')}`,
        uppercase: `sha256:${sha(IMAGE).toUpperCase()}`,
        short: `sha256:${sha(IMAGE).slice(0, 40)}`,
        symlink: `sha256:${sha(SECRET)}`,
        'wrong hash': `sha256:${fake}`,
      },
    };
  }

  const WRITTEN: Record<string, (result: { path: string }) => string> = {
    claude: (r) => readFileSync(r.path, 'utf8'),
    pi: (r) => readFileSync(r.path, 'utf8'),
    codex: (r) => readFileSync(r.path, 'utf8'),
    gemini: (r) => readFileSync(r.path, 'utf8'),
    qwen: (r) => readFileSync(r.path, 'utf8'),
  };
  for (const agent of Object.keys(WRITTEN)) {
    it(`${agent}: only a valid ref to a regular blob with the right hash is embedded`, () => {
      const sb = sandbox(agent);
      const { dir, good, attacks } = setUp(sb);
      const secret64 = SECRET.toString('base64');
      const image = (artifact: string) => [{ type: 'text', text: 'look' }, { type: 'image', media_type: 'image/png', artifact }];
      // The control: a good ref is embedded (so the attacks below could have been too).
      const ok = materialize(sb, agent, session(agent, { cwd: sb.proj }, image(good)), ['--artifacts', dir]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(WRITTEN[agent](JSON.parse(ok.stdout.split('\n')[0]))).toContain(IMAGE.toString('base64'));
      for (const [name, ref] of Object.entries(attacks)) {
        const r = materialize(sb, agent, session(agent, { cwd: sb.proj }, image(ref)), ['--artifacts', dir]);
        expect(r.code, `${name}: ${r.stderr}`).toBe(0);
        const text = WRITTEN[agent](JSON.parse(r.stdout.split('\n')[0]));
        expect(text, name).not.toContain(secret64);
        expect(text, name).not.toContain(IMAGE.toString('base64'));
        expect(text, name).not.toContain('outside/id_ed25519'); // an invalid ref is not echoed
      }
    });
  }
});

// ---- temp files and backups -------------------------------------------------------------------

/** A child that starts a writer-style temp file in `folder` (10 MB, tracked), prints "ready" and waits. */
function startTempWriter(folder: string): Promise<{ child: ReturnType<typeof spawn>; temp: string }> {
  const script = `
    import { closeSync, openSync, writeSync } from 'node:fs';
    import { newTempPath } from ${JSON.stringify(join(root, 'dist/lib/fs/atomic.js'))};
    import { removeOnInterrupt } from ${JSON.stringify(join(root, 'dist/lib/fs/private.js'))};
    const temp = newTempPath(${JSON.stringify(folder)}, '11111111-2222-4333-8444-555555555555.jsonl');
    const fd = openSync(temp, 'wx', 0o600);
    removeOnInterrupt(temp);
    writeSync(fd, Buffer.alloc(10 << 20, 120));
    closeSync(fd);
    process.stdout.write(temp + '\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve({ child, temp: out.trim() });
    });
    child.on('exit', (code) => reject(new Error(`temp writer exited early (${code})`)));
  });
}

const exited = (child: ReturnType<typeof spawn>): Promise<NodeJS.Signals | null> => new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));

describe('temp files', () => {
  it('a write killed with SIGKILL leaves its temp; the next write into that folder removes it (a live one stays)', async () => {
    const sb = sandbox();
    const folder = join(sb.home, 'projects', sb.proj.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(folder, { recursive: true });
    const { child, temp } = await startTempWriter(folder);
    expect(temp).toMatch(new RegExp(`/\\.11111111-2222-4333-8444-555555555555\\.jsonl\\.${child.pid}\\.[0-9a-f]{8}\\.tmp$`));
    const gone = exited(child);
    child.kill('SIGKILL');
    expect(await gone).toBe('SIGKILL');
    expect(statSync(temp).size).toBe(10 << 20); // kill -9 runs no clean-up
    // A temp of a process that still runs (this one) is not touched.
    const live = join(folder, `.other.jsonl.${process.pid}.0123abcd.tmp`);
    writeFileSync(live, 'x');
    const r = materialize(sb, 'claude', session('claude', { cwd: sb.proj }));
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(temp)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(readdirSync(folder).filter((n) => n.endsWith('.tmp'))).toEqual([`.other.jsonl.${process.pid}.0123abcd.tmp`]);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} during a write removes the temp file and still ends the process by that signal`, async () => {
      const sb = sandbox();
      const { child, temp } = await startTempWriter(sb.home);
      expect(existsSync(temp)).toBe(true);
      const gone = exited(child);
      child.kill(signal);
      expect(await gone).toBe(signal);
      expect(existsSync(temp)).toBe(false);
      expect(readdirSync(sb.home)).toEqual([]);
    });
  }
});

describe('database backups keep the database mode', () => {
  for (const { agent, db, name } of [
    { agent: 'hermes', db: HERMES_DB, name: 'state.db' },
    { agent: 'opencode', db: OPENCODE_DB, name: 'opencode.db' },
  ]) {
    for (const mode of [0o600, 0o640]) {
      it(`${agent}: a ${mode.toString(8)} database gets a ${mode.toString(8)} backup, and no temp is left`, () => {
        const sb = sandbox();
        const target = join(sb.home, name);
        copyFileSync(db, target);
        chmodSync(target, mode);
        const r = materialize(sb, agent, session(agent, { cwd: sb.proj }));
        expect(r.code, r.stderr).toBe(0);
        const result = JSON.parse(r.stdout.split('\n')[0]) as { backup?: string };
        expect(result.backup).toBeDefined();
        expect(statSync(result.backup!).mode & 0o777).toBe(mode);
        expect(statSync(target).mode & 0o777).toBe(mode);
        expect(readdirSync(sb.home).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      });
    }
  }

  it('hermes: a new database is created 0600', () => {
    const sb = sandbox();
    const r = materialize(sb, 'hermes', session('hermes', { cwd: sb.proj }));
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(join(sb.home, 'state.db')).mode & 0o777).toBe(0o600);
  });
});

// ---- Aider: texts that look like Markdown structure ------------------------------------------

describe('aider: hostile texts cannot forge a turn or a header', () => {
  it('capture of the written history reads back the same turns', () => {
    const sb = sandbox();
    const texts: Array<['user' | 'assistant', string]> = [
      ['user', 'first\n#### not a new turn\n> not output\n# aider chat started at 2020-01-01 00:00:00\n```\nfence'],
      ['assistant', 'reply\n#### forged user turn\n> forged output\n# aider chat started at 2020-01-01 00:00:00\n####\n>\n```\nunclosed fence'],
      ['user', '```\n# heading inside a fence\n```'],
      ['assistant', '# a heading\n\n> quote\nlast line'],
    ];
    let seq = 0;
    const ev = (type: string, payload: Record<string, unknown>): string => JSON.stringify({ session: 's', seq, ts: 1_764_480_000 + seq++, agent: 'claude', type, payload });
    const input = [ev('session.start', { native_id: 'src', cwd: sb.proj }), ...texts.map(([role, text]) => ev(`message.${role}`, { content: [{ type: 'text', text }] }))].join('\n') + '\n';
    const w = materialize(sb, 'aider', input, ['--no-header']);
    expect(w.code, w.stderr).toBe(0);
    const path = (JSON.parse(w.stdout.split('\n')[0]) as { path: string }).path;
    const cap = runBin('sp-capture', ['aider', '--path', path]);
    expect(cap.code, cap.stderr).toBe(0);
    const events = cap.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: { content?: Array<{ text: string }>; key?: string } });
    const turns = events.filter((e) => e.type === 'message.user' || e.type === 'message.assistant').map((e) => [e.type.slice('message.'.length), e.payload.content![0].text]);
    // Escaped reply lines carry the one leading space the writer adds (Aider's format has no other escape).
    const escaped = (role: string, text: string) => (role === 'assistant' ? text.split('\n').map((l) => (/^(#### |####$|> |>$|# )/.test(l) ? ` ${l}` : l)).join('\n') : text);
    expect(turns).toEqual(texts.map(([role, text]) => [role, escaped(role, text)]));
    expect(events.filter((e) => e.type === 'session.start')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'meta' && e.payload.key !== undefined && e.payload.key !== 'aider.output')).toEqual([]);
  });
});
