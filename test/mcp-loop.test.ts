// The MCP tools for agents in the loop, over stdio with the SDK's own client, against a real store:
// current_session (the caller's session from its folder and environment), handoff (a note and an
// expectation, recorded and signed) and resume_elsewhere (sp resume, write-confined): its attacks
// (a home, a mapping or a checkout outside --allow-write, a symlink out, bad mappings) are refused.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCalls } from './support/mcpClient.js';
import { ALICE_ROOT, aliceRecording } from './support/resume.js';
import { root, runBin, tempDir } from './support/streams.js';

const CLAUDE_ID = 'e05d2652-6a94-447f-8b60-cded66e4199a';
const OLD = ALICE_ROOT;
const work = realpathSync(tempDir('sp-mcp-loop-'));
const allowed = join(work, 'allowed');
const outside = join(work, 'outside');
const spHome = join(work, 'sp-home');
const claudeHome = join(work, 'claude');
const WRITE_RULE = /outside the folders this server may write \(--allow-write\)/;

let client: Client;
let stderr = '';

const { call, ok, fails } = toolCalls(() => client);

function checkout(dir: string, origin: string): string {
  mkdirSync(dir, { recursive: true });
  expect(spawnSync('git', ['-C', dir, 'init', '-q']).status).toBe(0);
  expect(spawnSync('git', ['-C', dir, 'remote', 'add', 'origin', origin]).status).toBe(0);
  return dir;
}

/** Files under a folder (recursively), for "nothing was written there". */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

beforeAll(async () => {
  for (const d of [allowed, outside]) mkdirSync(d);
  cpSync(join(root, 'fixtures/claude/corpus/S1-feature/.claude'), claudeHome, { recursive: true });
  // The store holds the Codex S2 recording as made in Alice's checkout, with its repository's origin.
  const recorded = aliceRecording('https://github.com/acme/acme-api.git');
  const ingest = runBin('sp-sync', ['ingest', '-'], { input: recorded + '\n', env: { SP_HOME: spHome, SP_PROGRESS: '0' } });
  expect(ingest.code, ingest.stderr).toBe(0);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, 'dist/bin/sp-mcp.js'), '--root', allowed, '--allow-write', allowed],
    // Started by Claude Code: its marker and its home in the environment.
    env: { PATH: process.env.PATH ?? '', HOME: join(work, 'home'), SP_HOME: spHome, CLAUDECODE: '1', CLAUDE_CONFIG_DIR: claudeHome },
    cwd: allowed,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  client = new Client({ name: 'sp-loop-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
});

describe('current_session', () => {
  it("finds the calling agent's newest session of its folder from the environment", async () => {
    const r = await ok('current_session', { cwd: OLD });
    expect(r).toMatchObject({ agent: 'claude', native_id: CLAUDE_ID, cwd: OLD });
    expect(r.session).toMatch(/^sess_/);
    expect(r.found_by).toEqual(expect.arrayContaining(['claude: CLAUDECODE is set', `newest session in ${OLD}`]));
  });
  it('a folder without sessions, and a home outside the roots, are tool errors', async () => {
    await fails('current_session', { cwd: '/nowhere/at/all' }, /no session of claude recorded in \/nowhere\/at\/all/);
    await fails('current_session', { agent: 'claude', home: outside }, /outside/);
    await fails('current_session', { agent: 'no-such-agent' }, /no-such-agent/);
  });
});

describe('handoff', () => {
  it('records the note and the expectation in the store: event and signed receipt', async () => {
    const r = await ok('handoff', { session: '01a22ad9', to_agent: 'claude', note: 'the todo tests fail on a missing title', expect: 'make npm test pass and report back' });
    expect(r).toMatchObject({ from_agent: 'codex', to_agent: 'claude' });
    const receipt = JSON.parse(readFileSync(r.receipt, 'utf8'));
    expect(receipt).toMatchObject({ note: 'the todo tests fail on a missing title', expect: 'make npm test pass and report back', to_agent: 'claude' });
    expect(receipt.signature.sig).toEqual(expect.any(String));
    const log = runBin('sp-sync', ['log', r.session], { env: { SP_HOME: spHome } });
    const last = JSON.parse(log.stdout.trim().split('\n').pop()!);
    expect(last).toMatchObject({ type: 'handoff', seq: r.seq, payload: { to_agent: 'claude', expect: 'make npm test pass and report back' } });
    const verified = runBin('sp-verify', [r.receipt], { env: { SP_HOME: spHome } });
    expect(verified.code, verified.stderr + verified.stdout).toBe(0);
  });
  it('refuses an unknown agent, an unknown session and a store outside --allow-write', async () => {
    await fails('handoff', { session: '01a22ad9', to_agent: 'nobody' }, /nobody/);
    await fails('handoff', { session: 'zzzzzzzz', to_agent: 'claude' }, /no stored session matches "zzzzzzzz"/);
    await fails('handoff', { session: '01a22ad9', to_agent: 'claude', store: outside }, WRITE_RULE);
  });
});

describe('resume_elsewhere', () => {
  it('writes the session with its paths mapped into a home under --allow-write and returns the command', async () => {
    const project = join(allowed, 'proj');
    mkdirSync(project);
    const home = join(allowed, 'codex-home');
    const r = await ok('resume_elsewhere', { session: '01a22ad9', target: 'codex', target_home: home, map_cwd: [`${OLD}=${project}`] });
    expect(r.to.cwd).toBe(project);
    expect(r.resume).toBe(`cd ${project} && CODEX_HOME=${home} codex resume ${r.to.session_id}`);
    expect(r.resume_exec).toEqual({ cwd: project, argv: ['codex', 'resume', r.to.session_id], env: { CODEX_HOME: home } });
    expect(r.path_mapped['session.start']).toEqual({ events: 1, paths: 2 });
    const text = readFileSync(r.to.path, 'utf8');
    expect(text).not.toContain(OLD);
    expect(text).toContain(`${project}/src/routes/todos.js`);
  });

  it('finds the checkout by the recorded origin under search_root', async () => {
    const found = checkout(join(allowed, 'src', 'acme-api'), 'git@github.com:acme/acme-api.git');
    const r = await ok('resume_elsewhere', { session: '01a22ad9', target: 'pi', target_home: join(allowed, 'pi-home'), search_root: allowed, dry_run: true });
    expect(r.to.cwd).toBe(found);
    expect(r.mappings).toEqual([{ from: OLD, to: found }]);
    expect(existsSync(join(allowed, 'pi-home'))).toBe(false);
  });

  it('refuses a home, a mapping, a found checkout or a symlink outside --allow-write, and writes nothing', async () => {
    const before = filesUnder(outside).length;
    const project = join(allowed, 'proj2');
    mkdirSync(project);
    await fails('resume_elsewhere', { session: '01a22ad9', target: 'codex', target_home: join(outside, 'codex'), map_cwd: [`${OLD}=${project}`] }, WRITE_RULE);
    // No target_home: the codex default (~/.codex of the server's HOME) is not writable here.
    await fails('resume_elsewhere', { session: '01a22ad9', target: 'codex', map_cwd: [`${OLD}=${project}`] }, WRITE_RULE);
    await fails('resume_elsewhere', { session: '01a22ad9', target: 'codex', target_home: join(allowed, 'h1'), map_cwd: [`${OLD}=${outside}`] }, WRITE_RULE);
    // A folder inside the allowed one that links out: the mapped project resolves outside.
    symlinkSync(outside, join(allowed, 'link-out'));
    await fails('resume_elsewhere', { session: '01a22ad9', target: 'codex', target_home: join(allowed, 'h2'), map_cwd: [`${OLD}=${join(allowed, 'link-out')}`] }, WRITE_RULE);
    // A mapping whose new root is fine, but a second one moves the session's folder outside.
    await fails('resume_elsewhere', { session: '01a22ad9', target: 'codex', target_home: join(allowed, 'h3'), map_cwd: [`/home/alice=${allowed}`, `${OLD}=${join(outside, 'x')}`] }, WRITE_RULE);
    // A search root outside the read roots; and one that is readable (the Claude home) with the checkout found
    // there, which is not writable.
    await fails('resume_elsewhere', { session: '01a22ad9', target: 'codex', target_home: join(allowed, 'h4'), search_root: outside }, /outside the roots this server may read/);
    checkout(join(claudeHome, 'acme-api'), 'https://github.com/acme/acme-api');
    await fails('resume_elsewhere', { session: '01a22ad9', target: 'codex', target_home: join(allowed, 'h4'), search_root: claudeHome }, WRITE_RULE);
    await fails('resume_elsewhere', { session: '01a22ad9', target: 'codex', target_home: join(allowed, 'h5'), map_cwd: ['relative=/x'] }, /not an absolute path/);
    await fails('resume_elsewhere', { session: '01a22ad9', target: 'codex', target_home: join(allowed, 'h6'), map_cwd: [`${OLD}=${allowed}/../outside`] }, /\. or \.\. component/);
    expect(filesUnder(outside).length).toBe(before);
    for (const h of ['h1', 'h2', 'h3', 'h4', 'h5', 'h6']) expect(existsSync(join(allowed, h)), h).toBe(false);
    expect(stderr).not.toMatch(/internal error|\n\s+at /);
  });
});
