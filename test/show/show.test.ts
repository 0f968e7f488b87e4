// sp show through the compiled binary: goldens of real recorded sessions (Claude Code with CJK, an
// image and a diff; Codex; Pi) rendered plain at a fixed width; colour, redaction, terminal escape
// injection, --tools / --since / --full, stdin, the store, and the pager on a pseudo-terminal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, runBin, tempDir } from '../support/streams.js';
import { FAKE } from '../support/fakeSecrets.js';
import { imageSize } from '../../lib/show/image.js';
import { summarizeInput } from '../../lib/show/render.js';

const CLAUDE_S2 = join(root, 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl');
const CODEX_S2 = join(root, 'fixtures/codex/corpus/S2-debug/sessions/2026/11/30/rollout-2026-11-30T05-07-06-01a22ad9-7cda-7dc3-af4a-0f4bdf56c072.jsonl');
const PI_S2 = join(root, 'fixtures/pi/corpus/S2-debug/agent/sessions/--home-carol-acme-api--/2026-11-30T05-02-18-208Z_01a22ad5-1860-75b1-a6ae-a6566d610280.jsonl');
const GOLDEN = join(root, 'test/show/golden');
const UPDATE = process.env.SP_UPDATE_GOLDEN === '1';

let work: string;
let env: Record<string, string>;
beforeAll(() => {
  work = tempDir('sp-show-');
  env = { SP_HOME: join(work, 'sp'), TZ: 'UTC', NO_COLOR: '', FORCE_COLOR: '', SP_FORCE_TTY: '', COLUMNS: '' };
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const show = (args: string[], input?: string, extra: Record<string, string> = {}) => runBin('sp-show', args, { env: { ...env, ...extra }, input });
/** The same run asked for by several tests is run once (each spawn costs a node start-up). */
const memo = new Map<string, ReturnType<typeof show>>();
const showOnce = (args: string[], input?: string) => {
  const key = JSON.stringify([args, input]);
  if (!memo.has(key)) memo.set(key, show(args, input));
  return memo.get(key)!;
};

function golden(name: string, text: string): void {
  const path = join(GOLDEN, name);
  if (UPDATE) writeFileSync(path, text);
  expect(text).toBe(readFileSync(path, 'utf8'));
}

/** A chained-enough session of canonical events (sp show reads any event stream). */
function session(events: Array<Record<string, unknown>>): string {
  return events.map((e, i) => JSON.stringify({ session: 'sess_test', seq: i, ts: 1796015689 + i, agent: 'claude', ...e })).join('\n') + '\n';
}

describe('goldens: recorded sessions, plain, 80 columns', () => {
  it('Claude Code: CJK turns, an image, a failing command, a missing file, an edit diff', () => {
    const r = show(['claude', '--path', CLAUDE_S2, '--width', '80', '--color', 'never']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    golden('claude-S2.txt', r.stdout);
    expect(r.stdout).toContain('[image 8×8 png]');
    expect(r.stdout).toContain('exit 1');
    expect(r.stdout).toContain('-    const id = match[1];');
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80); // UTF-16 units ≥ columns here
  });

  it('Codex: injected context folded, apply_patch diff', () => {
    const r = show(['codex', '--path', CODEX_S2, '--width', '80', '--color', 'never']);
    expect(r.code).toBe(0);
    golden('codex-S2.txt', r.stdout);
    expect(r.stdout).toMatch(/⚙ context #2 \(\d+ lines/);
  });

  it('Pi: thinking folded to one line each', () => {
    const r = show(['pi', '--path', PI_S2, '--width', '80', '--color', 'never']);
    expect(r.code).toBe(0);
    golden('pi-S2.txt', r.stdout);
    expect(r.stdout).toMatch(/∴ thinking \(\d+ words\)/);
  });

  it('the same session from a file of canonical events and from stdin renders the same', () => {
    const events = runBin('sp-capture', ['claude', '--path', CLAUDE_S2], { env }).stdout;
    const file = join(work, 'claude.ndjson');
    writeFileSync(file, events);
    const fromFile = show([file, '--width', '80', '--color', 'never']);
    const fromStdin = show(['-', '--width', '80', '--color', 'never'], events);
    expect(fromFile.stdout).toBe(readFileSync(join(GOLDEN, 'claude-S2.txt'), 'utf8'));
    expect(fromStdin.stdout).toBe(fromFile.stdout);
  });
});

describe('options', () => {
  it('--tools shows only calls with their results; --since starts at a seq; --full unfolds', () => {
    const tools = show(['claude', '--path', CLAUDE_S2, '--width', '80', '--color', 'never', '--tools']).stdout;
    expect(tools).not.toContain('测试失败了');
    expect(tools).not.toContain('thinking');
    expect(tools.match(/● /g)?.length).toBe(8);
    const since = show(['claude', '--path', CLAUDE_S2, '--width', '80', '--color', 'never', '--since', '35']).stdout;
    expect(since).not.toContain('npm test');
    expect(since).toContain('好的，谢谢');
    const full = show(['claude', '--path', CLAUDE_S2, '--width', '80', '--color', 'never', '--full']).stdout;
    expect(full).not.toMatch(/more lines?$/m);
    expect(full.split('\n').length).toBeGreaterThan(readFileSync(join(GOLDEN, 'claude-S2.txt'), 'utf8').split('\n').length + 50);
  });

  it('colour: diffs green/red, errors red; none with --color never or NO_COLOR', () => {
    const coloured = show(['claude', '--path', CLAUDE_S2, '--width', '80', '--color', 'always']).stdout;
    expect(coloured).toContain('\x1b[32m+    const id = Number(match[1]);\x1b[39m');
    expect(coloured).toContain('\x1b[31m-    const id = match[1];\x1b[39m');
    expect(coloured).toContain('\x1b[31m\x1b[1mexit 1');
    const noColor = show(['claude', '--path', CLAUDE_S2, '--width', '80'], undefined, { NO_COLOR: '1', SP_FORCE_TTY: '1', SP_PAGER: '' }).stdout;
    expect(noColor).not.toContain('\x1b[');
    const forced = show(['claude', '--path', CLAUDE_S2, '--width', '80'], undefined, { FORCE_COLOR: '1' }).stdout;
    expect(forced).toContain('\x1b[');
  });

  it('usage errors: exit 2 and one line', () => {
    for (const args of [['claude'], ['--color', 'sometimes', '-'], ['--session', 'abc', '-']]) {
      const r = show(args, '');
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^sp-show: /);
    }
  });

  it('a native file given as events is refused line by line (exit 2), not rendered as nonsense', () => {
    const r = show([CLAUDE_S2, '--color', 'never']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/:1: not a canonical event/);
  });
});

describe('hostile content', () => {
  const secret = FAKE.githubPat;
  const events = session([
    { type: 'session.start', payload: { native_id: 'n1', title: `deploy with ${secret}` } },
    { type: 'message.user', actor: 'user', payload: { content: [{ type: 'text', text: `use token ${secret} then \x1b[2J\x1b]0;pwned\x07clear` }] } },
    { type: 'message.assistant', actor: 'agent:claude', payload: { content: [{ type: 'text', text: 'ok' }, { type: 'image', media_type: 'image/jpeg', data: jpegHeader(640, 480).toString('base64') }] } },
    { type: 'tool.call', payload: { call_id: 'c1', name: 'Bash\x1b[31m', input: { command: `curl -H "Authorization: token ${secret}" x` } } },
    { type: 'tool.result', payload: { call_id: 'c1', content: 'line\rOVERWRITE\x9b2J', is_error: true } },
    { type: 'message.user', actor: 'user', parent_seq: 1, payload: { content: [{ type: 'text', text: 'try again differently' }] } },
    { type: 'message.assistant', actor: 'agent:claude', payload: { content: 'not an array' } },
    { type: 'tool.call', payload: 'not an object' },
    { seq: 'x', type: 'message.user' },
  ]);

  it('secrets are shown redacted by default, placeholders highlighted; --no-redact says so', () => {
    const r = showOnce(['-', '--width', '100', '--color', 'never'], events);
    // The event without an integer seq is skipped and named; the rest is shown.
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sp-show: stdin:9: not a canonical event/);
    expect(r.stdout).not.toContain(secret);
    expect(r.stdout).toMatch(/\[REDACTED:github-pat:[0-9a-f]{8}\]/);
    const coloured = showOnce(['-', '--width', '100', '--color', 'always'], events).stdout;
    expect(coloured).toMatch(/\x1b\[7;33m\[REDACTED:github-pat:[0-9a-f]{8}\]\x1b\[27;39m/);
    const raw = showOnce(['-', '--width', '200', '--color', 'never', '--no-redact'], events);
    expect(raw.stdout).toContain(secret);
    expect(raw.stderr).toContain('shown unredacted (--no-redact)');
  });

  it('no control character of the input reaches the terminal', () => {
    const r = showOnce(['-', '--width', '100', '--color', 'never'], events);
    expect(r.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    expect(r.stdout).toContain('␛[2J');
    const coloured = showOnce(['-', '--width', '100', '--color', 'always'], events).stdout;
    // Only the renderer's own SGR sequences: ESC [ digits ; m.
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });

  it('images by size, branches marked, malformed events skipped', () => {
    const r = showOnce(['-', '--width', '100', '--color', 'never'], events);
    expect(r.stdout).toContain('[image 640×480 jpeg]');
    expect(r.stdout).toContain('⑂ branch: #5 continues from #1');
    expect(r.stdout).toContain('error');
  });
});

describe('the store', () => {
  it('shows a stored session by id prefix, redacted', () => {
    const events = runBin('sp-capture', ['pi', '--path', PI_S2], { env }).stdout;
    const ingest = runBin('sp-sync', ['ingest', '-q'], { env, input: events });
    expect(ingest.code).toBe(0);
    const id = (JSON.parse(events.split('\n')[0]!) as { session: string }).session;
    const r = show(['--store', id.slice(0, 12), '--width', '80', '--color', 'never']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(GOLDEN, 'pi-S2.txt'), 'utf8'));
    const unknown = show(['--store', 'sess_ffffffffffff', '--color', 'never']);
    expect(unknown.code).toBe(2);
  });
});

describe('pager on a pseudo-terminal', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;
  const onTty = (cmd: string, extra: Record<string, string>, cwd: string) =>
    spawnSync('script', ['-qec', cmd, '/dev/null'], { env: { ...process.env, ...env, ...extra }, cwd, encoding: 'utf8', timeout: 30_000 });
  const cmd = `${process.execPath} ${join(root, 'dist/bin/sp-show.js')} claude --path ${CLAUDE_S2} --color never --width 80`;

  it.runIf(hasScript)('a text taller than the screen goes through $PAGER, spawned without a shell', () => {
    const dir = join(work, 'pager');
    mkdirSync(dir, { recursive: true });
    const r = onTty(cmd, { PAGER: `tee paged.txt $(touch${' '}pwned)`, LINES: '10' }, dir);
    expect(r.status).toBe(0);
    const paged = readFileSync(join(dir, 'paged.txt'), 'utf8');
    expect(paged).toBe(readFileSync(join(GOLDEN, 'claude-S2.txt'), 'utf8'));
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
  });

  it.runIf(hasScript)('a short text, --no-pager, or a pager that does not exist: straight to stdout', () => {
    const dir = join(work, 'nopager');
    mkdirSync(dir, { recursive: true });
    onTty(cmd, { PAGER: 'tee short.txt', LINES: '1000' }, dir);
    expect(existsSync(join(dir, 'short.txt'))).toBe(false);
    onTty(`${cmd} --no-pager`, { PAGER: 'tee nopager.txt', LINES: '10' }, dir);
    expect(existsSync(join(dir, 'nopager.txt'))).toBe(false);
    const missing = onTty(cmd, { PAGER: join(dir, 'no-such-pager'), LINES: '10' }, dir);
    expect(missing.status).toBe(0);
    expect(missing.stdout).toContain('修复 todos 测试失败');
  });
});

describe('units', () => {
  it('image sizes from PNG, GIF, JPEG and WebP headers; garbage gives none', () => {
    const png = Buffer.alloc(24);
    png.writeUInt32BE(0x89504e47, 0);
    png.write('IHDR', 12, 'latin1');
    png.writeUInt32BE(1280, 16);
    png.writeUInt32BE(720, 20);
    expect(imageSize(png)).toEqual({ width: 1280, height: 720 });
    const gif = Buffer.from('GIF89a\x40\x01\xf0\x00', 'latin1');
    expect(imageSize(gif)).toEqual({ width: 320, height: 240 });
    expect(imageSize(jpegHeader(640, 480))).toEqual({ width: 640, height: 480 });
    const webp = Buffer.alloc(30);
    webp.write('RIFF', 0, 'latin1');
    webp.write('WEBPVP8X', 8, 'latin1');
    webp.writeUIntLE(99, 24, 3);
    webp.writeUIntLE(49, 27, 3);
    expect(imageSize(webp)).toEqual({ width: 100, height: 50 });
    expect(imageSize(Buffer.from('not an image at all'))).toBeUndefined();
    expect(imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x00, 0, 0, 0, 0, 0, 0]))).toBeUndefined();
  });

  it('a call summarised by what it does', () => {
    expect(summarizeInput({ command: 'npm test', description: 'run' })).toBe('npm test');
    expect(summarizeInput({ command: ['bash', '-lc', 'git status'] })).toBe('git status');
    expect(summarizeInput({ file_path: '/a/b.js' })).toBe('/a/b.js');
    expect(summarizeInput('*** Begin Patch\n*** Update File: x')).toBe('*** Begin Patch');
    expect(summarizeInput({ x: 1 })).toBe('{"x":1}');
    expect(summarizeInput({})).toBe('');
  });
});

/** The start of a baseline JPEG: SOI, an APP0 segment, then SOF0 with the frame size. */
function jpegHeader(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, ...Buffer.from('JFIF\0'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 8, height >> 8, height & 255, width >> 8, width & 255, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof]);
}
