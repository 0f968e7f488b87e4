// One selector, the same answer in every door (lib/ops resolveSessions): sp-capture --session, the
// sp-mcp tools and `sp relay` take a canonical sess_… id and a unique prefix alike; sp-mcp now takes
// a session file too, confined to its roots before anything opens it (the attack: a file outside).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalSessionId } from '../lib/core/event.js';
import { toolCalls } from './support/mcpClient.js';
import { runProcess } from './support/run.js';

const root = new URL('..', import.meta.url).pathname;
const CLAUDE_ID = 'e05d2652-6a94-447f-8b60-cded66e4199a';
const CANONICAL = canonicalSessionId('claude', CLAUDE_ID);
const work = mkdtempSync(join(tmpdir(), 'sp-ops-doors-'));
const claudeHome = join(work, 'claude');
const transcript = join(claudeHome, 'projects/-home-alice-acme-api', `${CLAUDE_ID}.jsonl`);
const outside = mkdtempSync(join(tmpdir(), 'sp-ops-doors-outside-'));
const env = { ...process.env, SP_HOME: join(work, 'sp-home'), HOME: join(work, 'home'), SP_PROGRESS: '0', CLAUDE_CONFIG_DIR: claudeHome };

let client: Client;
const { ok, fails } = toolCalls(() => client);
const node = (args: string[]) => runProcess(process.execPath, args, { cwd: root, env });

beforeAll(async () => {
  cpSync(join(root, 'fixtures/claude/corpus/S1-feature/.claude'), claudeHome, { recursive: true });
  // The same transcript outside every root, under another id: sp-mcp must not read it.
  writeFileSync(join(outside, 'f0f0f0f0-1111-4222-8333-944455556666.jsonl'), readFileSync(transcript, 'utf8').replaceAll(CLAUDE_ID, 'f0f0f0f0-1111-4222-8333-944455556666'));
  mkdirSync(join(work, 'home'));
  client = new Client({ name: 'ops-doors-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'dist/bin/sp-mcp.js'), '--home', `claude=${claudeHome}`],
      env: { PATH: process.env.PATH ?? '', HOME: join(work, 'home'), SP_HOME: join(work, 'sp-home'), CLAUDE_CONFIG_DIR: claudeHome },
      stderr: 'pipe',
    }),
  );
}, 120_000);

afterAll(async () => {
  await client?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('one selector in every door', () => {
  it('sp-capture --session takes a canonical sess_ id (it took only native ids before) and a prefix, the same session', async () => {
    const byCanonical = await node([join(root, 'dist/bin/sp-capture.js'), 'claude', '--home', claudeHome, '--session', CANONICAL, '--json']);
    expect(byCanonical.code, byCanonical.stderr).toBe(0);
    const byPrefix = await node([join(root, 'dist/bin/sp-capture.js'), 'claude', '--home', claudeHome, '--session', 'e05d', '--json']);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(byCanonical.stdout).toBe(byPrefix.stdout);
    expect(JSON.parse(byCanonical.stdout.split('\n')[0]).session).toBe(CANONICAL);
    // Not found: one line, exit 2, no stack.
    const none = await node([join(root, 'dist/bin/sp-capture.js'), 'claude', '--home', claudeHome, '--session', canonicalSessionId('claude', 'nope'), '--json']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^sp-capture: no Claude Code session "sess_[0-9a-f]{32}" under [^\n]*\n$/);
  }, 120_000);

  it('sp-mcp get_session: the same session by canonical id, prefix and file; a file outside the roots is refused unread', async () => {
    const byCanonical = await ok('get_session', { session: CANONICAL });
    const byPrefix = await ok('get_session', { session: 'e05d', agent: 'claude' });
    const byFile = await ok('get_session', { session: transcript, agent: 'claude' });
    expect(byCanonical.session).toBe(CANONICAL);
    expect(byPrefix.session).toBe(CANONICAL);
    expect(byFile.session).toBe(CANONICAL);
    const text = await fails('get_session', { session: join(outside, 'f0f0f0f0-1111-4222-8333-944455556666.jsonl'), agent: 'claude' }, /outside|not under|readable|root/i);
    expect(text).not.toContain('Add a DELETE');
    await fails('get_session', { session: '../../../../etc/passwd', agent: 'claude' }, /get_session: /);
    await fails('get_session', { session: transcript }, /is a path: say which agent/);
    await fails('get_session', { session: 'ffffffff', agent: 'claude' }, /no session "ffffffff" \(looked in claude: .*\); list_sessions shows the sessions/);
  }, 120_000);

  it('sp relay FROM TO SESSION (positionals) takes the canonical id too, and writes a session that reads back', async () => {
    const codexHome = join(work, 'codex');
    const cwd = join(work, 'project');
    const r = await node([join(root, 'dist/bin/sp.js'), 'relay', 'claude', 'codex', CANONICAL, '--home', claudeHome, '--to-home', codexHome, '--cwd', cwd, '--mkcwd']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^cd .* && CODEX_HOME=.* codex resume [0-9a-f-]{36}\n$/);
    expect(r.stderr).toContain('the written session reads back and verifies');
    const bad = await node([join(root, 'dist/bin/sp.js'), 'relay', 'claude', 'codex', '--home', claudeHome, '--session', 'e05d', '--to-home', codexHome, '--cwd', cwd, '--latest']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('relay: say which session: --session ID (or the third positional) or --latest\n');
  }, 180_000);
});
