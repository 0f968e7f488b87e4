// Secrets never leave by default, end to end, tried as a new user would (no sp-redact in any pipe):
// a real Claude Code transcript holding many kinds of fake secret goes capture → sp-sync ingest →
// push to a bare git remote → clone on a second SP_HOME → materialize into every writer → compile →
// every MCP tool; then every byte that left (the remote's git objects, both stores with their
// index.sqlite, every agent file written, every MCP answer, the listings) is searched for every
// secret. The same run with --no-redact shows them on the remote, recorded as unredacted; push
// refuses such a store until `sp-sync redact` has replaced its sessions with redacted successors.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, runBin, tempDir } from '../support/streams.js';
import { FAKE } from '../support/fakeSecrets.js';
import { SECRET_KINDS } from './secret-kinds.js';

const CLAUDE_ID = 'e05d2652-6a94-447f-8b60-cded66e4199a';
const PROMPT = 'Add a DELETE /todos/:id endpoint with a test.';
/** Writers that can be written without a client-made database (opencode needs one: skipped). */
const WRITERS = ['claude', 'codex', 'pi', 'hermes', 'gemini', 'qwen', 'copilot'];

const work = tempDir('sp-secrets-e2e-');
const claudeHome = join(work, 'claude');
const project = join(work, 'project');
const esc = (text: string) => JSON.stringify(text).slice(1, -1);

/** Each way a secret can be spelled in a file: as is, JSON-escaped, and (multi-line ones) line by line. */
function needles(value: string): string[] {
  const lines = value.split('\n').filter((l) => l.length >= 20 && !l.startsWith('-----'));
  return [...new Set([value, esc(value), ...lines])];
}

/** The kinds whose secret occurs in `text`, by any spelling. */
function leaked(text: string | Buffer): string[] {
  const s = typeof text === 'string' ? text : text.toString('latin1');
  return SECRET_KINDS.filter((k) => needles(k.value).some((n) => s.includes(typeof text === 'string' ? n : Buffer.from(n).toString('latin1')))).map((k) => k.kind);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) out.push(...filesUnder(path));
    else if (st.isFile()) out.push(path);
  }
  return out;
}

/** Leaks per file under `dir` (binary files such as index.sqlite and state.db searched as bytes). */
function leaksIn(dir: string, options: { skip?: (path: string) => boolean } = {}): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const file of filesUnder(dir)) {
    if (options.skip?.(file)) continue;
    const kinds = leaked(readFileSync(file));
    if (kinds.length > 0) found[file.slice(work.length)] = kinds;
  }
  return found;
}

/** Every object of a git repository, decompressed (blobs, trees, commits). */
function gitObjects(repo: string): string {
  return execFileSync('git', ['-C', repo, 'cat-file', '--batch-all-objects', '--batch'], { encoding: 'latin1', maxBuffer: 512 << 20 });
}

const sp = (name: string, args: string[], home: string, input?: string) => runBin(name, args, { input, env: { SP_HOME: home } });

/** A real Claude Code home whose session carries every kind of secret: in the first prompt and in a Bash command. */
function makeClaudeHome(): void {
  cpSync(join(root, 'fixtures/claude/corpus/S1-feature/.claude'), claudeHome, { recursive: true });
  const transcript = join(claudeHome, 'projects/-home-alice-acme-api', `${CLAUDE_ID}.jsonl`);
  const pasted = SECRET_KINDS.map((k) => k.text).join('\n');
  const text = readFileSync(transcript, 'utf8')
    .replaceAll(PROMPT, esc(`${PROMPT} Credentials for the test:\n${pasted}`))
    .replace('"command":"npm test"', `"command":"${esc(`export GITHUB_TOKEN=${FAKE.githubPat} && npm test`)}"`);
  writeFileSync(transcript, text);
  mkdirSync(project, { recursive: true });
}

function bareRemote(name: string): string {
  const path = join(work, name);
  execFileSync('git', ['init', '-q', '--bare', path]);
  return path;
}

describe('the secret kinds', () => {
  it(`holds at least 30 kinds, each caught by the rules in force (${SECRET_KINDS.length} now)`, () => {
    expect(SECRET_KINDS.length).toBeGreaterThanOrEqual(30);
    const dir = tempDir('sp-kinds-');
    for (const k of SECRET_KINDS) {
      const event = { session: 'sess_k', seq: 0, ts: 1, agent: 'claude', type: 'message.user', payload: { content: [{ type: 'text', text: k.text }] } };
      const r = runBin('sp-redact', ['-q'], { input: JSON.stringify(event) + '\n', env: { SP_HOME: join(dir, 'h') } });
      expect(r.code, k.kind).toBe(0);
      expect(leaked(r.stdout), k.kind).toEqual([]);
      expect(r.stdout, k.kind).toMatch(/\[REDACTED:/);
    }
  });
});

describe('secrets never leave by default (no sp-redact in any pipe)', { timeout: 600_000 }, () => {
  const home1 = join(work, 'sp-one');
  const home2 = join(work, 'sp-two');
  const remote = bareRemote('remote.git');
  let captured = '';
  let session = '';
  const written: Record<string, { code: number; stdout: string; stderr: string }> = {};
  const answers: string[] = [];
  let client: Client | undefined;

  beforeAll(async () => {
    makeClaudeHome();
    const cap = sp('sp-capture', ['claude', '--session', CLAUDE_ID, '--home', claudeHome, '-q'], home1);
    expect(cap.code, cap.stderr).toBe(0);
    captured = cap.stdout;
    session = JSON.parse(captured.split('\n')[0]).session;

    const ingest = sp('sp-sync', ['ingest'], home1, captured);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(sp('sp-sync', ['remote', 'add', 'origin', remote], home1).code).toBe(0);
    const push = sp('sp-sync', ['push'], home1);
    expect(push.code, push.stderr).toBe(0);
    const clone = sp('sp-sync', ['clone', `file://${remote}`, '--trust-all'], home2);
    expect(clone.code, clone.stderr).toBe(0);

    // From the clone on the second machine, and from the raw capture (materialize redacts on its own).
    const cloned = sp('sp-sync', ['log', session], home2);
    expect(cloned.code, cloned.stderr).toBe(0);
    for (const agent of WRITERS) {
      written[`${agent} (from the clone)`] = sp('sp-materialize', [agent, '--home', join(work, 'out-clone', agent), '--cwd', project], home2, cloned.stdout);
      written[`${agent} (from the capture)`] = sp('sp-materialize', [agent, '--home', join(work, 'out-capture', agent), '--cwd', project], home1, captured);
    }

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(root, 'dist/bin/sp-mcp.js')],
      env: { PATH: process.env.PATH ?? '', HOME: join(work, 'home'), SP_HOME: home1, CLAUDE_CONFIG_DIR: claudeHome },
      stderr: 'pipe',
    });
    client = new Client({ name: 'sp-secrets-e2e', version: '1.0.0' });
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client!.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(r.isError, `${name}: ${r.content?.[0]?.text}`).toBeFalsy();
      const text = r.content.map((c) => c.text).join('\n');
      answers.push(text);
      return text;
    };
    await call('list_sessions', { agent: 'claude' });
    await call('get_session', { session: CLAUDE_ID, agent: 'claude' });
    await call('get_session', { session: CLAUDE_ID, agent: 'claude', depth: 'full', limit: 500 });
    await call('compile_context', { session: CLAUDE_ID, agent: 'claude', target: 'codex' });
    await call('search', { query: 'DELETE', limit: 50, store: join(home1, 'store') });
    await call('search', { query: 'Credentials for the test', limit: 50, store: join(home1, 'store') });
  }, 600_000);

  afterAll(async () => {
    await client?.close();
  });

  it('the capture itself stays faithful: it holds every secret (so the test tests something)', () => {
    expect(leaked(captured).sort()).toEqual(SECRET_KINDS.map((k) => k.kind).sort());
  });

  it('the git remote holds none: every object, decompressed', () => {
    const objects = gitObjects(remote);
    expect(objects).toContain(session); // the session was pushed
    expect(leaked(objects)).toEqual([]);
  });

  it('neither store holds one, in any file (index.sqlite included); both record the session as redacted', () => {
    for (const home of [home1, home2]) {
      expect(existsSync(join(home, 'store', 'index.sqlite'))).toBe(true);
      // The working clone's .git objects are compressed: the remote's objects are checked decompressed above.
      expect(leaksIn(join(home, 'store'), { skip: (p) => p.includes('/.git/') })).toEqual({});
      const manifest = JSON.parse(readFileSync(join(home, 'store', 'sessions', session, 'manifest.json'), 'utf8'));
      expect(manifest.redaction.state).toBe('redacted');
    }
    const manifest = JSON.parse(readFileSync(join(home1, 'store', 'sessions', session, 'manifest.json'), 'utf8'));
    expect(manifest.redaction).toMatchObject({ ruleset: expect.stringMatching(/^\d+:[0-9a-f]{16}$/), key_id: expect.stringMatching(/^sha256:[0-9a-f]{16}$/), profile: 'default' });
  });

  it('every writer wrote its session, and no file it wrote holds a secret (opencode skipped: it needs a client-made db)', () => {
    for (const [what, r] of Object.entries(written)) {
      expect(r.code, `${what}: ${r.stderr}`).toBe(0);
      const result = JSON.parse(r.stdout.split('\n')[0]);
      expect(existsSync(result.path), what).toBe(true);
      expect(result.redacted, what).toBeUndefined(); // only an opt-out is spelled out
      expect(leaked(r.stdout), what).toEqual([]);
    }
    expect(leaksIn(join(work, 'out-clone'))).toEqual({});
    expect(leaksIn(join(work, 'out-capture'))).toEqual({});
  });

  it('sp-compile (events and --render) holds none', () => {
    const events = sp('sp-compile', ['--for', 'codex'], home1, captured);
    expect(events.code, events.stderr).toBe(0);
    expect(leaked(events.stdout)).toEqual([]);
    expect(runBin('sp-verify', ['-'], { input: events.stdout }).code).toBe(0);
    const text = sp('sp-compile', ['--for', 'claude', '--render'], home1, captured);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('DELETE /todos/:id');
    expect(leaked(text.stdout)).toEqual([]);
  });

  it('no MCP answer holds one (list_sessions, get_session, compile_context, search)', () => {
    expect(answers.length).toBe(6);
    for (const a of answers) expect(leaked(a)).toEqual([]);
    expect(answers.join('\n')).toMatch(/\[REDACTED:/);
  });

  it('the listings hold none: sp-capture --list, sp-sync ls, sp-sync search', () => {
    const list = sp('sp-capture', ['claude', '--list', '--home', claudeHome], home1);
    expect(list.code, list.stderr).toBe(0);
    const row = list.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((r) => r.native_id === CLAUDE_ID);
    expect(row.first_prompt).toMatch(/\[REDACTED:/);
    expect(leaked(list.stdout)).toEqual([]);
    const ls = sp('sp-sync', ['ls'], home1);
    expect(ls.stdout).toContain(session);
    expect(ls.stdout).not.toContain('[unredacted]');
    expect(leaked(ls.stdout)).toEqual([]);
    const search = sp('sp-sync', ['search', 'Credentials for the test'], home1);
    expect(search.code).toBe(0);
    expect(leaked(search.stdout)).toEqual([]);
    for (const k of SECRET_KINDS.slice(0, 5)) expect(sp('sp-sync', ['search', k.value.slice(0, 24)], home1).code, k.kind).toBe(1);
  });
});

describe('opting out is explicit and recorded (--no-redact, --allow-unredacted)', { timeout: 600_000 }, () => {
  const home = join(work, 'sp-raw');
  const remote = bareRemote('remote-raw.git');
  let captured = '';
  let session = '';

  beforeAll(() => {
    if (!existsSync(claudeHome)) makeClaudeHome();
    captured = sp('sp-capture', ['claude', '--session', CLAUDE_ID, '--home', claudeHome, '-q'], home).stdout;
    session = JSON.parse(captured.split('\n')[0]).session;
    const ingest = sp('sp-sync', ['ingest', '--no-redact'], home, captured);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(ingest.stderr).toMatch(/stored unredacted \(--no-redact\)/);
    expect(sp('sp-sync', ['remote', 'add', 'origin', remote], home).code).toBe(0);
  }, 120_000);

  it('the manifest says unredacted, and sp-sync ls marks the session', () => {
    const manifest = JSON.parse(readFileSync(join(home, 'store', 'sessions', session, 'manifest.json'), 'utf8'));
    expect(manifest.redaction).toEqual({ state: 'unredacted' });
    const ls = sp('sp-sync', ['ls'], home);
    expect(ls.stdout).toMatch(new RegExp(`^${session} .*\\[unredacted\\] `, 'm'));
    // The title (the first prompt) is shown redacted even so.
    expect(leaked(ls.stdout)).toEqual([]);
    expect(JSON.parse(sp('sp-sync', ['ls', '--json'], home).stdout.split('\n')[0]).redaction).toBe('unredacted');
  });

  it('push refuses it: exit 2, one line naming the session, nothing sent', () => {
    const push = sp('sp-sync', ['push'], home);
    expect(push.code).toBe(2);
    expect(push.stderr.trim().split('\n')).toHaveLength(1);
    expect(push.stderr).toMatch(new RegExp(`^sp-sync: push: refusing to push 1 session stored unredacted \\(${session}\\): run \`sp-sync redact --all\` first, or send them as they are with --allow-unredacted\\n$`));
    expect(spawnSync('git', ['-C', remote, 'rev-parse', '--verify', '-q', 'refs/heads/main']).status).not.toBe(0);
    expect(gitObjects(remote)).toBe('');
  });

  it('--allow-unredacted sends it as it is: the secrets are on the remote', () => {
    const push = sp('sp-sync', ['push', '--allow-unredacted'], home);
    expect(push.code, push.stderr).toBe(0);
    expect(leaked(gitObjects(remote)).sort()).toEqual(SECRET_KINDS.map((k) => k.kind).sort());
  });

  it('sp-materialize --no-redact writes them, and its result line says "redacted": false', () => {
    const r = sp('sp-materialize', ['codex', '--no-redact', '--home', join(work, 'out-raw', 'codex'), '--cwd', project], home, captured);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout.split('\n')[0]);
    expect(result.redacted).toBe(false);
    expect(leaked(readFileSync(result.path))).not.toEqual([]);
  });

  it('sp-sync redact --all: a signed redacted successor (a fork), the original tombstoned and no longer pushed', () => {
    const r = sp('sp-sync', ['redact', '--all'], home);
    expect(r.code, r.stderr).toBe(0);
    const [original, successor] = r.stdout.trim().split(' -> ');
    expect(original).toBe(session);
    expect(successor).toMatch(/^sess_[0-9a-f]{32}$/);
    const manifest = JSON.parse(readFileSync(join(home, 'store', 'sessions', successor, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ redaction: { state: 'redacted' }, lineage: { fork_of: session }, parent_session: session });
    expect(manifest.signature).toBeDefined();
    expect(leaksIn(join(home, 'store', 'sessions', successor))).toEqual({});
    const ls = sp('sp-sync', ['ls'], home);
    expect(ls.stdout).toContain(successor);
    expect(ls.stdout).not.toContain(`${session} `);
    expect(sp('sp-verify', ['--store', join(home, 'store')], home).code).toBe(0);
    // The original stays in the append-only log, tombstoned: push now goes through, without it.
    const fresh = bareRemote('remote-after-redact.git');
    expect(sp('sp-sync', ['remote', 'add', 'clean', fresh], home).code).toBe(0);
    const push = sp('sp-sync', ['push', 'clean'], home);
    expect(push.code, push.stderr).toBe(0);
    const objects = gitObjects(fresh);
    expect(objects).toContain(successor);
    const paths = execFileSync('git', ['-C', fresh, 'ls-tree', '-r', '--name-only', 'main'], { encoding: 'utf8' });
    expect(paths).toContain(`/sessions/${successor}/`);
    expect(paths).not.toContain(`/sessions/${session}/`);
    expect(leaked(objects)).toEqual([]);
    // Nothing left to do the second time.
    expect(sp('sp-sync', ['redact', '--all'], home).stderr).toMatch(/no session is stored unredacted/);
  });
});
