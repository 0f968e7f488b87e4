// sp-mcp driven by the MCP SDK's own client over stdio, on temp copies of the corpus fixtures:
// the tool list, each tool with good and bad arguments, pagination, redaction of what leaves, and
// a relay whose new Codex rollout is on disk with its resume command.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCalls } from './support/mcpClient.js';
import { FAKE } from './support/fakeSecrets.js';

const root = new URL('..', import.meta.url).pathname;
const CLAUDE_ID = 'e05d2652-6a94-447f-8b60-cded66e4199a';
const work = mkdtempSync(join(tmpdir(), 'sp-mcp-test-'));
const homes = {
  claude: join(work, 'claude'),
  codex: join(work, 'codex'),
  pi: join(work, 'pi'),
  hermes: join(work, 'hermes'),
};
const secret = FAKE.githubPat;

let client: Client;
let stderr = '';

const { call, ok, fails } = toolCalls(() => client);

beforeAll(async () => {
  cpSync(join(root, 'fixtures/claude/corpus/S1-feature/.claude'), homes.claude, { recursive: true });
  cpSync(join(root, 'fixtures/codex/corpus/S2-debug'), homes.codex, { recursive: true });
  cpSync(join(root, 'fixtures/pi/corpus/S1-feature/agent'), homes.pi, { recursive: true });
  mkdirSync(homes.hermes);
  cpSync(join(root, 'fixtures/hermes/corpus/state.db'), join(homes.hermes, 'state.db'));
  // A secret in the Claude session's first prompt: it must not come out of any tool.
  const transcript = join(homes.claude, 'projects/-home-alice-acme-api', `${CLAUDE_ID}.jsonl`);
  writeFileSync(transcript, readFileSync(transcript, 'utf8').replaceAll('Add a DELETE /todos/:id endpoint with a test.', `Add a DELETE /todos/:id endpoint with a test. My token is ${secret}`));
  const transport = new StdioClientTransport({
    command: process.execPath,
    // The fixture homes named at start-up, the temp folder readable (verify's files, the store, empty homes)
    // and writable (the relay's target home and project folder): sp-mcp reads and writes nothing else.
    args: [
      join(root, 'dist/bin/sp-mcp.js'),
      ...Object.entries(homes).flatMap(([agent, dir]) => ['--home', `${agent}=${dir}`]),
      '--root',
      work,
      '--allow-write',
      work,
    ],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: join(work, 'home'),
      SP_HOME: join(work, 'sp-home'),
      CLAUDE_CONFIG_DIR: homes.claude,
      CODEX_HOME: homes.codex,
      PI_CODING_AGENT_DIR: homes.pi,
      HERMES_HOME: homes.hermes,
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  client = new Client({ name: 'sp-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
});

/** A store in the work folder filled by sp-capture claude --all | sp-redact | sp-sync ingest. */
function fillStore(name: string): string {
  const store = join(work, name);
  const bin = (stage: string) => join(root, 'dist/bin', `sp-${stage}.js`);
  const filled = spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${bin('capture')}" claude --all --home "${homes.claude}" | "${process.execPath}" "${bin('redact')}" -q | "${process.execPath}" "${bin('sync')}" ingest --store "${store}" -q`], {
    encoding: 'utf8',
    env: { ...process.env, SP_HOME: join(work, 'sp-home') },
  });
  expect(filled.status, filled.stderr).toBe(0);
  return store;
}

/**
 * Every file under `dir` (name and bytes): what a tool that writes nothing leaves as it was. Left out:
 * what SQLite makes for any reader of a WAL database, its -shm and an empty -wal.
 */
function treeDigest(dir: string): string {
  const hash = createHash('sha256');
  for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const path = join(dir, f);
    const stat = statSync(path);
    if (!stat.isFile() || f.endsWith('-shm') || (f.endsWith('-wal') && stat.size === 0)) continue;
    hash.update(`${f}\0`).update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex');
}

// Generous: on a loaded 2-core machine one call that captures, redacts and compiles can take 20 s.
describe('sp-mcp', { timeout: 180_000 }, () => {
  it('lists its nine tools, each with a description and an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['compile_context', 'current_session', 'expand_context', 'get_session', 'handoff', 'list_sessions', 'relay', 'resume_elsewhere', 'search', 'verify']);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
    }
    const relay = tools.find((t) => t.name === 'relay')!;
    expect((relay.inputSchema as any).required).toEqual(expect.arrayContaining(['session', 'target']));
  });

  it('list_sessions: every registered agent, one agent, a cwd filter, pages; bad arguments are tool errors', async () => {
    const all = await ok('list_sessions', {});
    const agents = new Set(all.sessions.map((s: any) => s.agent));
    for (const a of ['claude', 'codex', 'pi', 'hermes']) expect(agents).toContain(a);
    const claude = await ok('list_sessions', { agent: 'claude' });
    expect(claude.sessions.map((s: any) => s.native_id)).toContain(CLAUDE_ID);
    expect(claude.sessions.every((s: any) => s.agent === 'claude')).toBe(true);
    // The prompt with the secret comes out redacted.
    const mine = claude.sessions.find((s: any) => s.native_id === CLAUDE_ID);
    expect(mine.first_prompt).toMatch(/\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]/);
    expect(JSON.stringify(all)).not.toContain(secret);
    const none = await ok('list_sessions', { agent: 'claude', cwd: '/no/such/project' });
    expect(none.sessions).toEqual([]);
    const page = await ok('list_sessions', { limit: 1 });
    expect(page.sessions).toHaveLength(1);
    expect(page.total).toBe(all.total);
    const next = await ok('list_sessions', { limit: 1, cursor: page.next_cursor });
    expect(next.sessions[0]).toEqual(all.sessions[1]);
    // A home given as an argument wins over the environment.
    mkdirSync(join(work, 'empty'));
    const elsewhere = await ok('list_sessions', { agent: 'claude', home: join(work, 'empty') });
    expect(elsewhere.sessions).toEqual([]);
    await fails('list_sessions', { agent: 'claude', home: join(work, 'missing') }, /missing: cannot read the Claude home: ENOENT/);

    await fails('list_sessions', { agent: 'vim' }, /unknown agent "vim"; known agents: .*claude.*codex/);
    await fails('list_sessions', { home: homes.claude }, /"home" needs "agent"/);
    await fails('list_sessions', { cursor: 'not-a-cursor' }, /"cursor" is not a cursor/);
    const invalid = await call('list_sessions', { limit: 'ten' });
    expect(invalid.isError).toBe(true);
  });

  it('get_session: brief, events paged with a cursor, full; redacted; unknown ids are tool errors', async () => {
    const b = await ok('get_session', { session: CLAUDE_ID.slice(0, 8) });
    expect(b.native_id).toBe(CLAUDE_ID);
    expect(b.agent).toBe('claude');
    expect(b.first_prompt.text).toContain('DELETE /todos/:id');
    expect(b.first_prompt.text).not.toContain(secret);
    expect(b.types['message.user']).toBeGreaterThan(0);
    expect(b.files_edited.length).toBeGreaterThan(0);

    // A Codex debugging session: its failed commands, in the brief.
    const codexSessions = (await ok('list_sessions', { agent: 'codex' })).sessions;
    const codexBrief = await ok('get_session', { session: codexSessions[0].native_id, agent: 'codex' });
    expect(codexBrief.failed_commands).toContainEqual(expect.objectContaining({ cmd: 'npm test', exit_code: 1 }));

    const seqs: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ok('get_session', { session: CLAUDE_ID, depth: 'events', limit: 20, cursor });
      expect(page.events.length).toBeLessThanOrEqual(20);
      for (const e of page.events) {
        seqs.push(e.seq);
        expect(e.origin?.raw).toBeUndefined();
      }
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    expect(seqs.length).toBe(b.events);

    const full = await ok('get_session', { session: b.session, depth: 'full', limit: 500 });
    expect(full.events).toHaveLength(b.events);
    expect(full.events[0].checksum).toMatch(/^sha256:/);
    expect(JSON.stringify(full)).not.toContain(secret);
    const calls = await ok('get_session', { session: CLAUDE_ID, depth: 'events', types: ['tool.call'], limit: 500 });
    expect(calls.events.length).toBeGreaterThan(0);
    expect(calls.events.every((e: any) => e.type === 'tool.call')).toBe(true);

    await fails('get_session', { session: 'ffffffff-0000' }, /no session "ffffffff-0000"/);
    await fails('get_session', { session: '' }, /"session" is empty/);
    // A named agent whose home cannot be read says so, rather than "no session".
    await fails('get_session', { session: CLAUDE_ID, agent: 'claude', home: join(work, 'nowhere') }, /nowhere: cannot read the Claude home/);
    await fails('get_session', { session: CLAUDE_ID, depth: 'events', cursor: Buffer.from('[1]').toString('base64url') }, /not a cursor/);
    const wrong = await call('get_session', { session: CLAUDE_ID, depth: 'everything' });
    expect(wrong.isError).toBe(true);
  });

  it('compile_context: the rendered handoff within the budget; bad targets and impossible budgets are tool errors', async () => {
    const r = await call('compile_context', { session: CLAUDE_ID, target: 'codex', budget: 3000 });
    expect(r.isError, r.content[0].text).toBeFalsy();
    const [text, meta] = [r.content[0].text, JSON.parse(r.content[1].text)];
    expect(text).toContain('DELETE /todos/:id');
    expect(text).toMatch(/\[seq \d+/);
    expect(text).not.toContain(secret);
    expect(meta.tokens).toBeLessThanOrEqual(3000);
    expect(meta.target).toBe('codex');
    await fails('compile_context', { session: CLAUDE_ID, target: 'emacs' }, /unknown target "emacs"; targets: ([\w-]+, )*claude, ([\w-]+, )*codex, ([\w-]+, )*markdown/);
    await fails('compile_context', { session: CLAUDE_ID, target: 'codex', budget: 5 }, /budget|P0|tokens/i);
  });

  it('relay: a new Codex rollout on disk with Codex tool names, its resume command and the ledger; context mode; dry_run writes nothing', async () => {
    const target = join(work, 'codex-target');
    const cwd = join(work, 'project');
    const dry = await ok('relay', { session: CLAUDE_ID, target: 'codex', target_home: target, cwd, mkcwd: true, dry_run: true });
    expect(dry.to.dry_run).toBe(true);
    expect(existsSync(join(target, 'sessions'))).toBe(false);

    const r = await ok('relay', { session: CLAUDE_ID, agent: 'claude', target: 'codex', target_home: target, cwd, mkcwd: true });
    expect(r.from).toMatchObject({ agent: 'claude', native_id: CLAUDE_ID });
    expect(r.to.agent).toBe('codex');
    expect(r.resume).toContain(r.to.session_id);
    expect(r.resume).toMatch(/codex/);
    expect(r.to.path.startsWith(target)).toBe(true);
    const written = readFileSync(r.to.path, 'utf8');
    expect(written).toContain('DELETE /todos/:id');
    // What went to the other agent was redacted first.
    expect(written).not.toContain(secret);
    // The relay's tool translation: Claude's Bash and Edit calls are Codex's own tools in the rollout.
    expect(r.mode).toBe('history');
    const payloads = written.trim().split('\n').map((l) => JSON.parse(l).payload);
    const toolNames = new Set(payloads.filter((p) => p?.type === 'function_call' || p?.type === 'custom_tool_call').map((p) => p.name));
    expect(toolNames).toContain('exec_command');
    expect(toolNames).toContain('apply_patch');
    expect([...toolNames].filter((n) => /^(Bash|Edit|Write|Read)$/.test(n))).toEqual([]);
    // The ledger: one row per source event, the non-carried ones listed with what they became.
    const t = r.ledger.totals;
    expect(t.events).toBe(r.from.events);
    expect(t.carried + t.translated + t.rendered + t.transformed + t.stubbed + t.dropped).toBe(t.events);
    expect(t.translated).toBeGreaterThan(0);
    expect(r.ledger.changed.every((row: any) => row.action !== 'carried')).toBe(true);
    expect(r.ledger.changed.length).toBe(Math.min(t.events - t.carried, 100));
    expect(r.ledger.changed).toContainEqual(expect.objectContaining({ action: 'translated', type: 'tool.call', from: 'Bash', to: 'exec_command' }));

    // The new session is listed for Codex from there.
    const listed = await ok('list_sessions', { agent: 'codex', home: target });
    expect(listed.sessions.map((s: any) => s.native_id)).toContain(r.to.session_id);

    // Context mode: the compiled handoff is the first user message; older turns are summarized in the ledger.
    const ctx = await ok('relay', { session: CLAUDE_ID, agent: 'claude', target: 'codex', target_home: target, cwd, mkcwd: true, mode: 'context', budget: 2000, dry_run: true });
    expect(ctx.mode).toBe('context');
    // Every source event plus the context.compiled event, which is rendered as the first user message.
    expect(ctx.ledger.totals.events).toBe(r.from.events + 1);
    expect(ctx.ledger.changed).toContainEqual(expect.objectContaining({ action: 'rendered', code: 'handoff', type: 'context.compiled' }));
    expect(ctx.ledger.totals.summarized).toBeGreaterThan(0);
    expect(ctx.ledger.changed).toContainEqual(expect.objectContaining({ action: 'dropped', code: 'summarized' }));
    expect(JSON.stringify(ctx)).not.toContain(secret);
    await fails('relay', { session: CLAUDE_ID, target: 'codex', budget: 2000 }, /"budget" is for mode "context"/);

    await fails('relay', { session: CLAUDE_ID, target: 'notepad' }, /unknown agent "notepad"/);
    await fails('relay', { session: CLAUDE_ID, target: 'codex', target_home: target, cwd: join(work, 'missing') }, /does not exist .*mkcwd/);
    await fails('relay', { session: 'nope', target: 'codex' }, /no session "nope"/);
  });

  it('verify: a file, a session, exactly one of them; damage is named', async () => {
    const capture = spawnSync(process.execPath, [join(root, 'dist/bin/sp-capture.js'), 'claude', '--session', CLAUDE_ID, '--home', homes.claude], { encoding: 'utf8' });
    const file = join(work, 'events.ndjson');
    writeFileSync(file, capture.stdout);
    expect((await ok('verify', { path: file })).ok).toBe(true);
    const lines = capture.stdout.trim().split('\n');
    const tampered = join(work, 'tampered.ndjson');
    writeFileSync(tampered, [...lines.slice(0, 5), ...lines.slice(6)].join('\n') + '\n');
    const bad = await ok('verify', { path: tampered });
    expect(bad.ok).toBe(false);
    expect(bad.sessions[0].damage.kind).toBe('deleted');
    const session = await ok('verify', { session: CLAUDE_ID, agent: 'claude' });
    expect(session.ok).toBe(true);
    expect(session.events).toBe(lines.length);
    await fails('verify', {}, /exactly one of "path", "session", "stored"/);
    await fails('verify', { path: file, session: CLAUDE_ID }, /exactly one .*got path, session/);
    await fails('verify', { path: join(work, 'nope.ndjson') }, /no such file/);
  });

  it('search: a clear tool error while the store is missing', async () => {
    const text = await fails('search', { query: 'DELETE endpoint', store: join(work, 'no-store') }, /store/);
    expect(text).toMatch(/sp-sync ingest|not available/);
    await fails('search', { query: '   ' }, /"query" is empty/);
  });

  it('search: hits from a store filled by sp-capture | sp-redact | sp-sync ingest, redacted', async () => {
    const store = fillStore('store');
    const found = await ok('search', { query: 'DELETE', store, limit: 5 });
    expect(found.hits.length).toBeGreaterThan(0);
    expect(found.hits.length).toBeLessThanOrEqual(5);
    expect(found.hits[0].session).toMatch(/^sess_[0-9a-f]{32}$/);
    const token = await ok('search', { query: 'token', store });
    expect(JSON.stringify(token)).not.toContain(secret);
    const stored = await ok('verify', { stored: found.hits[0].session, store });
    expect(stored.ok).toBe(true);
    await fails('verify', { stored: 'sess_00000000000000000000000000000000', store }, /no session "sess_0+" in the store/);
  });

  it('the tools annotated read-only leave the store as it was; search, which catches its index up, is annotated as writing', async () => {
    const store = fillStore('store-annotations');
    const { tools } = await client.listTools();
    // readOnlyHint means "does not modify its environment" (MCP spec); a search adds index rows, only
    // those (destructive: false), and a second search adds none (idempotent).
    expect(tools.find((t) => t.name === 'search')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    const id = readdirSync(join(store, 'sessions')).find((f) => f.startsWith('sess_'))!;
    const before = treeDigest(store);
    expect((await ok('verify', { stored: id, store })).ok).toBe(true);
    await fails('expand_context', { session: id, item: 'goal:1', store }, /context\.compiled|no handoff|handoff/);
    expect(treeDigest(store)).toBe(before);
    // What makes search a writer: the ingested events' text goes into the index on the first search.
    expect((await ok('search', { query: 'DELETE', store })).hits.length).toBeGreaterThan(0);
    const after = treeDigest(store);
    expect(after).not.toBe(before);
    await ok('search', { query: 'DELETE', store });
    expect(treeDigest(store)).toBe(after);
  });

  it('unknown tools are errors, and the server is still up after every bad call', async () => {
    await expect(client.callTool({ name: 'rm_rf', arguments: {} })).rejects.toThrow();
    const again = await ok('list_sessions', { agent: 'pi' });
    expect(again.sessions.length).toBeGreaterThan(0);
    expect(stderr).not.toMatch(/internal error/);
  });
});

// The relay target home holds exactly one new rollout after the relay test (dry runs wrote none).
afterAll(() => {
  const target = join(work, 'codex-target', 'sessions');
  if (existsSync(target)) {
    const files = readdirSync(target, { recursive: true }).filter((f) => String(f).endsWith('.jsonl'));
    expect(files).toHaveLength(1);
  }
});
