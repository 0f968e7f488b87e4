// sp-mcp attacked as a prompt-injected agent would: the real server over stdio with the MCP SDK's
// client, each case one attack. Every case asserts the tool error names the rule, that the server
// still answers the next call, and that nothing under the test folder changed (a hash of the whole
// tree before and after, $SP_HOME aside: the server writes its redaction key there).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE } from '../support/fakeSecrets.js';

const root = new URL('../..', import.meta.url).pathname;
const CLAUDE_ID = 'e05d2652-6a94-447f-8b60-cded66e4199a';
const work = mkdtempSync(join(tmpdir(), 'sp-mcp-security-'));
const spHome = join(work, 'sp-home');
const allowed = join(work, 'allowed'); // --root
const writable = join(work, 'writable'); // --allow-write
const outside = join(work, 'outside'); // named by nothing
const homes = { claude: join(work, 'homes/claude'), codex: join(work, 'homes/codex') };
const secretText = `DB_PASSWORD=${FAKE.githubPat}\n`;
const CANARY = 'canary-line-text not-json 7f3a';
const BIG_ID = '22222222-3333-4444-8555-666666666666';
const READ_RULE = /is outside the roots this server may read \(agent homes, --root, the store\); start sp-mcp with --root DIR to allow it/;
const WRITE_RULE = /is outside the folders this server may write \(--allow-write\); start sp-mcp with --allow-write DIR to allow it/;

type Result = { isError?: boolean; content: Array<{ type: string; text: string }> };

/** One sp-mcp process and its client. */
class Server {
  client = new Client({ name: 'sp-security-test', version: '1.0.0' });
  stderr = '';
  private transport?: StdioClientTransport;
  constructor(private readonly flags: string[]) {}
  async start(): Promise<this> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'dist/bin/sp-mcp.js'), ...this.flags],
      // Relative paths in calls resolve against this folder, which is not a root itself.
      cwd: work,
      env: { PATH: process.env.PATH ?? '', HOME: join(work, 'home'), SP_HOME: spHome, CLAUDE_CONFIG_DIR: homes.claude, CODEX_HOME: homes.codex },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.transport = transport;
    await this.client.connect(transport);
    return this;
  }
  /** The server process's resident memory, in MiB. */
  rssMiB(): number {
    const status = readFileSync(`/proc/${this.transport!.pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
  }
  async call(name: string, args: Record<string, unknown>): Promise<Result> {
    return (await this.client.callTool({ name, arguments: args })) as Result;
  }
  /** The call is a tool error naming `rule`; the text of the error is returned. */
  async refused(name: string, args: Record<string, unknown>, rule: RegExp): Promise<string> {
    const r = await this.call(name, args);
    expect(r.isError, r.content?.[0]?.text).toBe(true);
    expect(r.content).toHaveLength(1);
    expect(r.content[0].text).toMatch(rule);
    expect(r.content[0].text.split('\n')).toHaveLength(1);
    return r.content[0].text;
  }
  /** The server still answers: a verify of a small good stream under --root. */
  async answers(): Promise<void> {
    const r = await this.call('verify', { path: goodStream });
    expect(r.isError, r.content[0].text).toBeFalsy();
    expect(JSON.parse(r.content[0].text).ok).toBe(true);
  }
}

/** Every entry under `dir` (type, mode, size, content or link target), $SP_HOME aside; big files by size. */
function treeHash(dir = work): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (p === spHome) continue;
      const st = lstatSync(p);
      h.update(`${p}\0${st.mode}\0${st.size}\0`);
      if (st.isSymbolicLink()) h.update(readlinkSync(p));
      else if (st.isDirectory()) walk(p);
      else if (st.isFile() && st.size < 8 * 1024 * 1024) h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

let goodStream: string;
let main: Server;
let noWrite: Server;
let slow: Server;
let keyLines: string[];

beforeAll(async () => {
  for (const d of [allowed, writable, outside, join(work, 'home')]) mkdirSync(d, { recursive: true });
  cpSync(join(root, 'fixtures/claude/corpus/S1-feature/.claude'), homes.claude, { recursive: true });
  cpSync(join(root, 'fixtures/codex/corpus/S2-debug'), homes.codex, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), secretText);
  // A canonical stream under --root, three events (under every server's --max-events): what `answers()` verifies.
  const capture = spawnSync(process.execPath, [join(root, 'dist/bin/sp-capture.js'), 'claude', '--session', CLAUDE_ID, '--home', homes.claude], { encoding: 'utf8' });
  expect(capture.status, capture.stderr).toBe(0);
  goodStream = join(allowed, 'good.ndjson');
  writeFileSync(goodStream, capture.stdout.split('\n').slice(0, 3).join('\n') + '\n');
  // A private key and an .env file under --root: readable, but not event streams.
  keyLines = FAKE.rsaKey.split('\n').filter((l) => l.trim() !== '');
  writeFileSync(join(allowed, 'id_rsa'), FAKE.rsaKey + '\n');
  // JSON objects whose session and checksum fields carry secrets: not canonical ids, so never echoed.
  writeFileSync(
    join(allowed, 'objects.ndjson'),
    [JSON.stringify({ session: `pw-${FAKE.githubPat}`, seq: 0, checksum: `tok-${FAKE.githubPat}` }), JSON.stringify({ user: 'alice', password: 'hunter2-hunter2' })].join('\n') + '\n',
  );
  // Symlinks inside what is allowed, pointing out.
  symlinkSync(join(outside, 'secret.txt'), join(allowed, 'link-to-secret'));
  symlinkSync(outside, join(homes.claude, 'escape'));
  symlinkSync(outside, join(writable, 'link-out'));
  symlinkSync(join(outside, 'not-yet'), join(writable, 'dangling'));
  // A transcript of 1.2 MB: over the byte limit of the server started with --max-bytes 1M.
  const project0 = join(homes.claude, 'projects/-home-alice-acme-api');
  writeFileSync(
    join(project0, `${BIG_ID}.jsonl`),
    readFileSync(join(project0, `${CLAUDE_ID}.jsonl`), 'utf8').replaceAll(CLAUDE_ID, BIG_ID) + JSON.stringify({ type: 'padding', text: 'x'.repeat(1_200_000) }) + '\n',
  );
  // A session file in the Claude home that is a symlink to a transcript outside it.
  const project = join(homes.claude, 'projects/-home-alice-acme-api');
  // A line in a transcript that is not JSON: the adapter's diagnostic about it must not quote it.
  writeFileSync(join(project, `${CLAUDE_ID}.jsonl`), readFileSync(join(project, `${CLAUDE_ID}.jsonl`), 'utf8') + `${CANARY}\n`);
  const planted = '11111111-2222-4333-8444-555555555555';
  cpSync(join(project, `${CLAUDE_ID}.jsonl`), join(outside, 'transcript.jsonl'));
  writeFileSync(join(outside, 'transcript.jsonl'), readFileSync(join(outside, 'transcript.jsonl'), 'utf8').replaceAll(CLAUDE_ID, planted));
  symlinkSync(join(outside, 'transcript.jsonl'), join(project, `${planted}.jsonl`));
  // A target home whose sessions folder leads out.
  mkdirSync(join(writable, 'codex-home'));
  symlinkSync(outside, join(writable, 'codex-home/sessions'));
  // A FIFO and a 2 GB sparse file under --root.
  expect(spawnSync('mkfifo', [join(allowed, 'fifo')]).status).toBe(0);
  truncateSync((writeFileSync(join(allowed, 'sparse.bin'), ''), join(allowed, 'sparse.bin')), 2 * 1024 ** 3);
  // 2 MiB: over the byte limit of the server started with --max-bytes 1M.
  writeFileSync(join(allowed, 'two-mib.ndjson'), Buffer.alloc(2 * 1024 * 1024, 0x20));
  // Many short lines that are not JSON: about a minute of work on a 2-core machine, for the time limit.
  writeFileSync(join(allowed, 'slow.txt'), 'not json at all\n'.repeat(4_000_000));

  const roots = ['--home', `claude=${homes.claude}`, '--home', `codex=${homes.codex}`, '--root', allowed];
  [main, noWrite, slow] = await Promise.all([
    new Server([...roots, '--allow-write', writable]).start(),
    new Server([...roots, '--root', '/dev', '--max-events', '5', '--max-bytes', '1M']).start(),
    new Server([...roots, '--timeout', '3']).start(),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([main, noWrite, slow].map((s) => s?.client.close()));
});

/** Runs `attack` on `server`; then the server must still answer, and nothing under the test folder changed. */
async function unchanged(server: Server, attack: () => Promise<void>): Promise<void> {
  const before = treeHash();
  await attack();
  await server.answers();
  expect(treeHash()).toBe(before);
  expect(server.stderr).not.toMatch(/internal error/);
}

describe('sp-mcp under attack', { timeout: 180_000 }, () => {
  it('verify: an absolute path outside the roots is refused, its content never read', () =>
    unchanged(main, async () => {
      const text = await main.refused('verify', { path: join(outside, 'secret.txt') }, READ_RULE);
      expect(text).toContain(`path ${join(outside, 'secret.txt')} is outside`);
      expect(text).not.toContain('DB_PASSWORD');
      await main.refused('verify', { path: '/etc/passwd' }, READ_RULE);
    }));

  it('verify: a relative path resolves against the server folder and is checked like any other', () =>
    unchanged(main, async () => {
      await main.refused('verify', { path: 'outside/secret.txt' }, READ_RULE);
      // The same rule lets a relative path under a root through.
      const ok = await main.call('verify', { path: 'allowed/good.ndjson' });
      expect(ok.isError, ok.content[0].text).toBeFalsy();
      expect(JSON.parse(ok.content[0].text).ok).toBe(true);
    }));

  it('verify: ".." out of a root is refused, absolute or relative', () =>
    unchanged(main, async () => {
      await main.refused('verify', { path: join(allowed, '..', 'outside', 'secret.txt') }, READ_RULE);
      await main.refused('verify', { path: 'allowed/../outside/secret.txt' }, READ_RULE);
      await main.refused('verify', { path: `${allowed}/../../../../../../etc/passwd` }, READ_RULE);
    }));

  it('verify: a symlink inside a root or an agent home that points outside is refused', () =>
    unchanged(main, async () => {
      await main.refused('verify', { path: join(allowed, 'link-to-secret') }, READ_RULE);
      const text = await main.refused('verify', { path: join(homes.claude, 'escape', 'secret.txt') }, READ_RULE);
      expect(text).not.toContain('DB_PASSWORD');
    }));

  it('verify: /proc/self/environ and /dev/zero are outside the roots', () =>
    unchanged(main, async () => {
      await main.refused('verify', { path: '/proc/self/environ' }, READ_RULE);
      await main.refused('verify', { path: '/dev/zero' }, READ_RULE);
    }));

  it('verify: a FIFO under a root is refused without being opened (the call returns at once)', () =>
    unchanged(main, async () => {
      const started = Date.now();
      await main.refused('verify', { path: join(allowed, 'fifo') }, /fifo is not a regular file \(a FIFO, device or socket\): only regular files are read/);
      expect(Date.now() - started).toBeLessThan(10_000);
    }));

  it('verify: /dev/zero under a --root /dev is refused as a device, and the server does not grow', () =>
    unchanged(noWrite, async () => {
      const before = noWrite.rssMiB();
      await noWrite.refused('verify', { path: '/dev/zero' }, /\/dev\/zero is not a regular file \(a FIFO, device or socket\): only regular files are read/);
      await noWrite.refused('verify', { path: '/dev/urandom' }, /not a regular file/);
      await noWrite.refused('verify', { path: '/dev' }, /\/dev is a directory, not a file/);
      expect(noWrite.rssMiB() - before).toBeLessThan(64);
    }));

  it('verify: a 2 GB sparse file is refused by its size before any read', () =>
    unchanged(main, async () => {
      const started = Date.now();
      await main.refused('verify', { path: join(allowed, 'sparse.bin') }, /sparse\.bin is 2147483648 bytes, over the limit of 268435456 bytes this server reads \(--max-bytes\): not read/);
      expect(Date.now() - started).toBeLessThan(10_000);
      await noWrite.refused('verify', { path: join(allowed, 'two-mib.ndjson') }, /is 2097152 bytes, over the limit of 1048576 bytes this server reads \(--max-bytes\)/);
    }));

  it('verify: a private key under a root comes back as line numbers and byte ranges, none of its text', () =>
    unchanged(main, async () => {
      const r = await main.call('verify', { path: join(allowed, 'id_rsa') });
      expect(r.isError, r.content[0].text).toBeFalsy();
      const answer = r.content[0].text;
      const report = JSON.parse(answer);
      expect(report.ok).toBe(false);
      expect(report.malformed.count).toBe(keyLines.length);
      expect(report.malformed.positions[0]).toEqual({ line: 1, bytes: [0, keyLines[0].length + 1] });
      expect(report.stream_damage[0].message).toMatch(/^line 1 \(bytes 0–\d+\) is not JSON$/);
      for (const line of keyLines) expect(answer).not.toContain(line.slice(0, 16));
      expect(answer).not.toMatch(/PRIVATE KEY|BEGIN/);
      // JSON lines: session ids and checksums that are not sp's shapes, and schema paths, are not echoed.
      const objects = (await main.call('verify', { path: join(allowed, 'objects.ndjson') })).content[0].text;
      expect(JSON.parse(objects).ok).toBe(false);
      expect(objects).not.toMatch(/pw-|tok-|hunter2|password|alice/);
      expect(objects).toContain('not a canonical session id');
    }));

  it('list_sessions / get_session: home and homes outside the roots are refused, directly, by "..", relative or by symlink', () =>
    unchanged(main, async () => {
      await main.refused('list_sessions', { agent: 'claude', home: outside }, READ_RULE);
      await main.refused('list_sessions', { agent: 'claude', home: 'outside' }, READ_RULE);
      await main.refused('list_sessions', { agent: 'claude', home: join(homes.claude, '..', '..', 'outside') }, READ_RULE);
      await main.refused('list_sessions', { agent: 'claude', home: join(homes.claude, 'escape') }, READ_RULE);
      await main.refused('list_sessions', { homes: { claude: homes.claude, codex: '/etc' } }, /homes\.codex \/etc is outside the roots/);
      await main.refused('get_session', { session: CLAUDE_ID, agent: 'claude', home: '/' }, READ_RULE);
      await main.refused('compile_context', { session: CLAUDE_ID, target: 'codex', homes: { claude: outside } }, READ_RULE);
      await main.refused('verify', { session: CLAUDE_ID, agent: 'claude', home: outside }, READ_RULE);
      await main.refused('search', { query: 'x', store: outside }, /store .* is outside the roots/);
    }));

  it('get_session: a session file in an agent home that is a symlink to a file outside is not read, and not listed', () =>
    unchanged(main, async () => {
      // The Claude adapter skips a symlinked transcript (not found); were it followed, the server's own check refuses it.
      await main.refused('get_session', { session: '11111111-2222-4333-8444-555555555555', agent: 'claude' }, /no session "11111111-2222-4333-8444-555555555555"|the session file .* is outside the roots/);
      const list = await main.call('list_sessions', { agent: 'claude' });
      const listed = JSON.parse(list.content[0].text);
      const ids = listed.sessions.map((s: { native_id: string }) => s.native_id);
      expect(ids).toContain(CLAUDE_ID);
      expect(ids).not.toContain('11111111-2222-4333-8444-555555555555');
    }));

  it('relay: a server started without --allow-write writes nothing, whatever the target', () =>
    unchanged(noWrite, async () => {
      const text = await noWrite.refused('relay', { session: CLAUDE_ID, agent: 'claude', target: 'codex', target_home: join(allowed, 'codex'), cwd: allowed }, /start sp-mcp with --allow-write DIR/);
      expect(text).toMatch(/writes nowhere/);
      await noWrite.refused('relay', { session: CLAUDE_ID, agent: 'claude', target: 'codex', cwd: allowed, mkcwd: true }, /writes nowhere/);
      expect(existsSync(join(allowed, 'codex'))).toBe(false);
    }));

  it('relay: target_home outside the allowed folder, directly, by ".." or by a symlink, writes nothing', () =>
    unchanged(main, async () => {
      const base = { session: CLAUDE_ID, agent: 'claude', target: 'codex', cwd: writable };
      await main.refused('relay', { ...base, target_home: join(outside, 'codex') }, WRITE_RULE);
      await main.refused('relay', { ...base, target_home: join(writable, '..', 'outside', 'codex') }, WRITE_RULE);
      await main.refused('relay', { ...base, target_home: join(writable, 'link-out', 'codex') }, WRITE_RULE);
      // A home readable but not writable (an agent home) is not a place to write either.
      await main.refused('relay', { ...base, target_home: homes.codex }, WRITE_RULE);
      // The target's default home (CODEX_HOME) is not under --allow-write.
      await main.refused('relay', base, /target_home .* is outside the folders this server may write/);
    }));

  it('relay: a symlink inside the allowed target home that leads out is caught before the write', () =>
    unchanged(main, async () => {
      // Caught twice over: by the writer's own check that every path it writes lies under the home
      // after resolving symlinks (it runs first, in the dry run), else by the server's write rule.
      await main.refused(
        'relay',
        { session: CLAUDE_ID, agent: 'claude', target: 'codex', target_home: join(writable, 'codex-home'), cwd: writable },
        /codex-home\/sessions\/.*(: refusing to write outside the home .*: a symlink on the way leads elsewhere| \(it resolves to .*outside\/.*\) is outside the folders this server may write)/,
      );
      expect(readdirSync(outside).sort()).toEqual(['secret.txt', 'transcript.jsonl']);
    }));

  it('relay: a cwd outside the allowed folder, by ".." or by a symlink (live or dangling), creates no folder', () =>
    unchanged(main, async () => {
      const base = { session: CLAUDE_ID, agent: 'claude', target: 'codex', target_home: join(writable, 'codex-ok'), mkcwd: true };
      await main.refused('relay', { ...base, cwd: join(outside, 'project') }, WRITE_RULE);
      await main.refused('relay', { ...base, cwd: join(writable, '..', 'outside', 'project') }, WRITE_RULE);
      await main.refused('relay', { ...base, cwd: join(writable, 'link-out', 'project') }, WRITE_RULE);
      await main.refused('relay', { ...base, cwd: join(writable, 'dangling', 'project') }, /goes through a symlink that points nowhere/);
      // Without cwd, the session's own folder (/home/alice/acme-api) is held to the same rule.
      await main.refused('relay', { session: CLAUDE_ID, agent: 'claude', target: 'codex', target_home: join(writable, 'codex-ok'), mkcwd: true }, /cwd \(the session's own folder\) .* is outside the folders this server may write/);
      expect(existsSync(join(outside, 'project'))).toBe(false);
      expect(existsSync(join(outside, 'not-yet'))).toBe(false);
      expect(existsSync(join(writable, 'codex-ok'))).toBe(false);
    }));

  it("get_session: an adapter's diagnostic about a damaged line says where and what, without the line's text", () =>
    unchanged(main, async () => {
      const r = await main.call('get_session', { session: CLAUDE_ID, agent: 'claude' });
      expect(r.isError, r.content[0].text).toBeFalsy();
      const brief = JSON.parse(r.content[0].text);
      const lines = readFileSync(join(homes.claude, 'projects/-home-alice-acme-api', `${CLAUDE_ID}.jsonl`), 'utf8').trimEnd().split('\n').length;
      expect(brief.diagnostics).toContainEqual(expect.stringMatching(new RegExp(`${CLAUDE_ID}\\.jsonl:${lines}: \\S`)));
      expect(r.content[0].text).not.toContain('canary');
    }));

  it('get_session: a session file over --max-bytes is refused before it is captured', () =>
    unchanged(noWrite, async () => {
      await noWrite.refused('get_session', { session: BIG_ID, agent: 'claude' }, new RegExp(`the session file .*${BIG_ID}\\.jsonl is \\d+ bytes, over the limit of 1048576 bytes this server reads \\(--max-bytes\\): not read`));
    }));

  it('get_session: a session over --max-events is a tool error', () =>
    unchanged(noWrite, async () => {
      await noWrite.refused('get_session', { session: CLAUDE_ID, agent: 'claude' }, /more than 5 events, the limit per call \(--max-events\): stopped/);
    }));

  it('a call over --timeout is a tool error at the limit, and the server answers the next call', () =>
    unchanged(slow, async () => {
      // Warm the server (schemas, redaction rules) so that the next call's time is the file's.
      await slow.call('verify', { path: goodStream });
      const started = Date.now();
      await slow.refused('verify', { path: join(allowed, 'slow.txt') }, /took longer than the limit of 3 s per call \(--timeout\): stopped/);
      // Answered at the limit, not when the work would have ended (a loaded machine adds some seconds).
      expect(Date.now() - started).toBeLessThan(15_000);
      // Four million damaged lines were met, but the server keeps only the first hundred of them.
      expect(slow.rssMiB()).toBeLessThan(400);
    }));
});

describe('sp-mcp start-up flags', () => {
  const start = (...flags: string[]) => spawnSync(process.execPath, [join(root, 'dist/bin/sp-mcp.js'), ...flags], { encoding: 'utf8', input: '', env: { PATH: process.env.PATH ?? '', HOME: join(work, 'home'), SP_HOME: spHome } });
  it.each([
    [['--allow-write', join(work, 'no-such-folder')], /^sp-mcp: --allow-write .*no-such-folder: no such folder$/],
    [['--root', join(outside, 'secret.txt')], /^sp-mcp: --root .*secret\.txt: not a folder$/],
    [['--home', 'vim=/tmp'], /^sp-mcp: --home vim=\/tmp: unknown agent "vim"; known agents: .*claude/],
    [['--home', 'claude'], /^sp-mcp: --home takes AGENT=DIR, got "claude"$/],
    [['--max-bytes', '12Q'], /^sp-mcp: --max-bytes takes a byte count such as 268435456 or 256M, got "12Q"$/],
    [['--timeout', '0'], /^sp-mcp: --timeout takes seconds above 0, got 0$/],
    [['--max-events', '0'], /^sp-mcp: --max-events takes a whole number of at least 1, got 0$/],
  ])('%j is a usage error: one line, exit 2, nothing served', (flags, message) => {
    const r = start(...flags);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr.trimEnd()).toMatch(message);
  });

  it('--help documents the roots, --allow-write and the limits with their defaults', () => {
    const r = start('--help');
    expect(r.status).toBe(0);
    for (const flag of ['--home', '--root', '--allow-write', '--store', '--max-bytes', '--max-events', '--timeout']) expect(r.stdout).toContain(flag);
    expect(r.stdout).toMatch(/default 256M/);
    expect(r.stdout).toMatch(/default 10000/);
    expect(r.stdout).toMatch(/default 60/);
  });
});

describe('red team', { timeout: 180_000 }, () => {
  const HARD_ID = '33333333-4444-4555-8666-777777777777';
  const HARD_LINK = /is a hard link \(\d+ names\): a file under a root may be another name of a file outside, so it is not read/;

  it('verify: a hard link under a root to a file outside is refused, its content never read', async () => {
    linkSync(join(outside, 'secret.txt'), join(allowed, 'hard-secret'));
    await unchanged(main, async () => {
      const text = await main.refused('verify', { path: join(allowed, 'hard-secret') }, HARD_LINK);
      expect(text).not.toContain('DB_PASSWORD');
    });
  });

  it('get_session / list_sessions: a transcript in an agent home hard-linked to one outside is neither read nor listed', async () => {
    const project = join(homes.claude, 'projects/-home-alice-acme-api');
    writeFileSync(join(outside, 'hard-transcript.jsonl'), readFileSync(join(project, `${CLAUDE_ID}.jsonl`), 'utf8').replaceAll(CLAUDE_ID, HARD_ID).replaceAll('acme', 'outside-only-marker'));
    linkSync(join(outside, 'hard-transcript.jsonl'), join(project, `${HARD_ID}.jsonl`));
    await unchanged(main, async () => {
      const text = await main.refused('get_session', { session: HARD_ID, agent: 'claude' }, HARD_LINK);
      expect(text).not.toContain('outside-only-marker');
      const list = await main.call('list_sessions', { agent: 'claude' });
      const listed = JSON.parse(list.content[0].text) as { sessions: Array<{ native_id: string }>; diagnostics: string[] };
      expect(listed.sessions.map((s) => s.native_id)).toContain(CLAUDE_ID);
      expect(listed.sessions.map((s) => s.native_id)).not.toContain(HARD_ID);
      expect(list.content[0].text).not.toContain('outside-only-marker');
      // Left out, and said so.
      expect(JSON.stringify(listed.diagnostics)).toMatch(/hard link/);
    });
  });
});
