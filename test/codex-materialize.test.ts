// The Codex writer without the client: the file the client needs (name, session_meta, envelopes,
// string arguments, outputs after calls), --same-id (byte-identical from --raw), --dry-run, the
// resume-safety pass and its loss ledger, and registration in a state_N.sqlite (fail closed).
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { codex } from '../adapters/codex/index.js';
import { STUB_OUTPUT, type CodexLossEntry, type CodexMaterializeOptions, type CodexMaterializeResult } from '../adapters/codex/materialize.js';
import { UserError } from '../lib/cli/diagnostics.js';
import type { SpEvent } from '../lib/core/event.js';
import { captureAll } from './contract/testAdapter.js';
import { SessionBuilder, from } from './support/canonical.js';
import { CORPUS, LARGE, S1, S2, S3, SMALL } from './support/codexFixtures.js';

type Json = Record<string, any>;

function home(): string {
  return mkdtempSync(join(tmpdir(), 'sp-codex-write-'));
}

function lines(path: string): Json[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);
}

async function write(events: SpEvent[], options: CodexMaterializeOptions): Promise<{ result: CodexMaterializeResult; losses: CodexLossEntry[] }> {
  const losses: CodexLossEntry[] = [];
  const result = (await codex.materialize!(from(events), { ...options, onLoss: (l) => losses.push(l as CodexLossEntry) })) as CodexMaterializeResult;
  return { result, losses };
}

const captured = new Map<string, SpEvent[]>();
async function events(path: string, raw = false): Promise<SpEvent[]> {
  const key = `${path}#${raw}`;
  if (!captured.has(key)) captured.set(key, (await captureAll(codex, path, { raw })).events);
  return captured.get(key)!;
}

describe('codex writer: what the client needs', () => {
  for (const fixture of CORPUS) {
    it(`${fixture.split('/corpus/')[1].split('/')[0]}: a new legacy rollout with a UUIDv7 id the client can find`, async () => {
      const h = home();
      const { result } = await write(await events(fixture), { home: h });
      expect(result.path).toBe(join(h, 'sessions', result.path.split('/sessions/')[1]));
      const name = result.path.split('/').pop()!;
      const m = /^rollout-(\d{4})-(\d\d)-(\d\d)T(\d\d)-(\d\d)-(\d\d)-(.+)\.jsonl$/.exec(name)!;
      expect(m[7]).toBe(result.session_id);
      expect(result.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // The name's time is the session's start in UTC and matches the folder and session_meta.
      const out = lines(result.path);
      const meta = out[0];
      expect(meta.type).toBe('session_meta');
      expect(meta.payload).toMatchObject({ id: result.session_id, cwd: '/home/bob/acme-api', source: 'cli', cli_version: '0.171.0' });
      for (const key of ['timestamp', 'originator']) expect(typeof meta.payload[key]).toBe('string');
      expect(meta.payload.timestamp.slice(0, 19).replace(/:/g, '-')).toBe(`${m[1]}-${m[2]}-${m[3]}T${m[4]}-${m[5]}-${m[6]}`);
      expect(result.path).toContain(`/sessions/${m[1]}/${m[2]}/${m[3]}/`);
      expect(meta.payload.session_id).toBeUndefined(); // the old thread's id is not carried over
      // Legacy envelopes: string timestamps, no ordinal, no paginated metadata, only known line types.
      for (const line of out) {
        expect(typeof line.timestamp).toBe('string');
        expect(line.ordinal).toBeUndefined();
        expect(line.metadata).toBeUndefined();
        expect(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted', 'world_state', 'token_usage_record']).toContain(line.type);
      }
      // The model-visible items: content arrays, string arguments, every output after its call.
      const calls = new Set<string>();
      for (const { type, payload } of out) {
        if (type !== 'response_item') continue;
        if (payload.type === 'message') expect(Array.isArray(payload.content)).toBe(true);
        if (payload.type === 'function_call') expect(typeof payload.arguments).toBe('string');
        if (payload.type === 'function_call' || payload.type === 'custom_tool_call') calls.add(payload.call_id);
        if (payload.type === 'function_call_output' || payload.type === 'custom_tool_call_output') expect(calls.has(payload.call_id)).toBe(true);
      }
      // The TUI and --last need the user events; every prompt and answer has its echo.
      const prompts = out.filter((l) => l.type === 'response_item' && l.payload.type === 'message' && l.payload.role === 'user' && !/^<environment_context>/.test(l.payload.content[0]?.text ?? ''));
      const echoes = out.filter((l) => l.type === 'event_msg' && l.payload.type === 'user_message');
      expect(echoes.length).toBeGreaterThanOrEqual(1);
      expect(echoes.length).toBe(prompts.length);
      expect(out.filter((l) => l.type === 'event_msg' && l.payload.type === 'agent_message').length).toBe(
        out.filter((l) => l.type === 'response_item' && l.payload.type === 'message' && l.payload.role === 'assistant').length,
      );
      // The file captures back to the same conversation.
      const again = (await captureAll(codex, result.path)).events;
      const texts = (list: SpEvent[]) => list.filter((e) => e.type === 'message.user' || e.type === 'message.assistant').map((e) => JSON.stringify((e.payload as Json).content));
      expect(texts(again)).toEqual(texts(await events(fixture)));
    });
  }

  it('S3: the compacted line is written with its replacement history, after the full earlier history', async () => {
    const { result } = await write(await events(S3), { home: home() });
    const out = lines(result.path);
    const at = out.findIndex((l) => l.type === 'compacted');
    expect(out[at].payload.replacement_history).toHaveLength(10);
    expect(out.slice(0, at).filter((l) => l.type === 'response_item' && l.payload.role === 'user').length).toBeGreaterThan(7);
  });

  it('--cwd moves the session: session_meta and every turn_context name the new folder (resume --last filters on it)', async () => {
    const { result, losses } = await write(await events(S1), { home: home(), cwd: '/srv/checkout' });
    const out = lines(result.path);
    expect(out[0].payload.cwd).toBe('/srv/checkout');
    const contexts = out.filter((l) => l.type === 'turn_context');
    expect(contexts.length).toBe(2);
    for (const c of contexts) expect(c.payload.cwd).toBe('/srv/checkout');
    expect(losses.filter((l) => l.code === 'cwd')).toHaveLength(2);
    expect(result.resume).toBe(`cd /srv/checkout && CODEX_HOME=${result.resume_exec!.env.CODEX_HOME} codex resume ${result.session_id}`);
    expect(result.path.startsWith(`${result.resume_exec!.env.CODEX_HOME}/sessions/`)).toBe(true);
  });

  it('the target home\'s provider replaces the source\'s (the client refuses to switch on resume), and says so', async () => {
    const h = home();
    writeFileSync(join(h, 'config.toml'), 'model = "gpt-5.5"\nmodel_provider = "openai"\n\n[model_providers.mock]\nname = "x"\n');
    const { result, losses } = await write(await events(S1), { home: h });
    expect(lines(result.path)[0].payload.model_provider).toBe('openai');
    expect(losses.some((l) => l.code === 'model-provider' && /"mock" written as "openai"/.test(l.reason))).toBe(true);
  });
});

describe('codex writer: --same-id, --dry-run', () => {
  for (const fixture of [...CORPUS, SMALL, LARGE]) {
    it(`--same-id from a --raw capture is byte-identical: ${fixture.split('/').pop()}`, async () => {
      const h = home();
      const { result } = await write(await events(fixture, true), { home: h, sameId: true });
      expect(result.written_as).toBe('raw');
      expect(readFileSync(result.path).equals(readFileSync(fixture))).toBe(true);
      expect(result.changes).toEqual({ dropped: 0, stubbed: 0, transformed: 0 });
      // Never twice: the same id is refused while a rollout with it exists.
      await expect(write(await events(fixture, true), { home: h, sameId: true })).rejects.toThrow(/exists already/);
    });
  }

  it('--same-id without --raw rebuilds a legacy file under the same id and start time', async () => {
    const { result } = await write(await events(S2), { home: home(), sameId: true });
    expect(result.written_as).toBe('rebuilt');
    expect(result.path.endsWith('sessions/2026/11/30/rollout-2026-11-30T05-07-06-01a22ad9-7cda-7dc3-af4a-0f4bdf56c072.jsonl')).toBe(true);
    const meta = lines(result.path)[0].payload;
    expect(meta).toEqual(lines(S2)[0].payload);
  });

  it('--same-id from a --raw capture that lost a line rebuilds (the raw lines would not be the whole file)', async () => {
    const all = await events(S2, true);
    // A filter that dropped the events of one line in the middle: every other line is still there.
    const gone = all.find((e) => e.type === 'message.assistant')!.origin!.native_seq!;
    const { result } = await write(all.filter((e) => e.origin?.native_seq !== gone), { home: home(), sameId: true });
    expect(result.written_as).toBe('rebuilt');
  });

  it('--same-id --cwd elsewhere rebuilds (a moved session cannot be byte-identical)', async () => {
    const { result } = await write(await events(S2, true), { home: home(), sameId: true, cwd: '/srv/elsewhere' });
    expect(result.written_as).toBe('rebuilt');
    expect(lines(result.path)[0].payload).toMatchObject({ id: '01a22ad9-7cda-7dc3-af4a-0f4bdf56c072', cwd: '/srv/elsewhere' });
  });

  it('writes the session of the first session.start, or the one --session names, and reports the others', async () => {
    const a = new SessionBuilder('codex', 'sess_a', { native_id: 'aaaaaaaa-0000-7000-8000-000000000001' });
    a.user('from a');
    const b = new SessionBuilder('codex', 'sess_b', { native_id: 'bbbbbbbb-0000-7000-8000-000000000002' });
    b.user('from b');
    // An event of a comes first, but b's session.start comes before a's.
    const stream = [a.events[1], b.events[0], a.events[0], b.events[1]];
    const first = await write(stream, { home: home(), dryRun: true });
    expect(first.result.source_session).toBe('sess_b');
    expect(first.losses.filter((l) => l.code === 'other-session').map((l) => l.reason)).toEqual([
      'session sess_a (native aaaaaaaa-0000-7000-8000-000000000001), 2 event(s), is a separate session: not written',
    ]);
    const named = await write(stream, { home: home(), dryRun: true, session: 'aaaaaaaa-0000-7000-8000-000000000001' });
    expect(named.result.source_session).toBe('sess_a');
    await expect(write(stream, { home: home(), dryRun: true, session: 'sess_c' })).rejects.toThrow(/no session sess_c in the input/);
  });

  it('--same-id refuses another agent\'s session', async () => {
    const b = new SessionBuilder('claude');
    b.user('hi');
    await expect(write(b.events, { home: home(), sameId: true })).rejects.toBeInstanceOf(UserError);
  });

  it('--dry-run writes nothing and hands every line to onLine', async () => {
    const h = home();
    const seen: string[] = [];
    const { result } = await write(await events(S1), { home: h, dryRun: true, onLine: (l) => seen.push(l) });
    expect(result.dry_run).toBe(true);
    expect(existsSync(result.path)).toBe(false);
    expect(existsSync(join(h, 'sessions'))).toBe(false);
    expect(seen).toHaveLength(result.records);
    expect(JSON.parse(seen[0]).type).toBe('session_meta');
  });
});

describe('codex writer: the resume-safety pass', () => {
  function foreign(): SessionBuilder {
    const b = new SessionBuilder('claude');
    b.user('fix the test');
    b.thinking('Let me look at the test first.', { provider: 'anthropic', signature: 'c2ln' });
    b.call('toolu_1', 'Bash', { command: 'npm test' }, 'msg_1');
    b.call('toolu_2', 'Read', { file_path: '/tmp/a.js' }, 'msg_1');
    b.result('toolu_1', 'FAIL test/a.test.js', { is_error: true });
    // toolu_2 never gets a result; a result answers nothing; an id is reused.
    b.result('toolu_ghost', 'orphan');
    b.call('toolu_1', 'Bash', { command: 'npm test -- --watch' }, 'msg_2');
    b.result('toolu_1', 'ok');
    b.assistant('Fixed.', 'msg_3');
    b.add('decision', { decision: 'keep the in-memory store' });
    return b;
  }

  it('stubs an unanswered call right after it, drops an orphan output, renames a reused id, writes foreign thinking as text', async () => {
    const { result, losses } = await write(foreign().events, { home: home() });
    const items = lines(result.path).filter((l) => l.type === 'response_item').map((l) => l.payload);
    expect(items.map((i) => `${i.type}${i.call_id ? ` ${i.call_id}` : ''}`)).toEqual([
      'message',
      'message',
      'function_call toolu_1',
      'function_call toolu_2',
      'function_call_output toolu_2',
      'function_call_output toolu_1',
      'function_call toolu_1_2',
      'function_call_output toolu_1_2',
      'message',
    ]);
    expect(items[4].output).toBe(STUB_OUTPUT);
    expect(items[1]).toEqual({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '[reasoning]\nLet me look at the test first.', annotations: [] }] });
    expect(items.some((i) => i.type === 'reasoning')).toBe(false);
    expect(JSON.parse(items[2].arguments)).toEqual({ command: 'npm test' });
    const codes = losses.map((l) => `${l.action} ${l.code}`).sort();
    expect(codes).toEqual(['dropped no-codex-record', 'dropped orphan-result', 'stubbed stub-result', 'transformed foreign-thinking', 'transformed tool-id']);
    expect(result.changes).toEqual({ dropped: 2, stubbed: 1, transformed: 2 });
    expect(losses.find((l) => l.code === 'stub-result')!.seq).toBe(4);
  });

  it('--no-safety writes ids, reasoning and unpaired tools as they are', async () => {
    const { result, losses } = await write(foreign().events, { home: home(), safety: false });
    const items = lines(result.path).filter((l) => l.type === 'response_item').map((l) => l.payload);
    expect(items.filter((i) => i.output === STUB_OUTPUT)).toEqual([]);
    expect(items.some((i) => i.type === 'function_call_output' && i.call_id === 'toolu_ghost')).toBe(true);
    expect(items.some((i) => i.type === 'reasoning')).toBe(true);
    expect(losses.map((l) => l.code)).toEqual(['no-codex-record']);
  });

  it('Codex\'s own reasoning goes back as a reasoning item with its encrypted_content', async () => {
    const { result } = await write(await events(S1), { home: home() });
    const reasoning = lines(result.path).filter((l) => l.type === 'response_item' && l.payload.type === 'reasoning');
    expect(reasoning).toHaveLength(5);
    expect(reasoning[0].payload).toMatchObject({ id: 'rs_b9a5f6ecc63be5a8cb42d251', content: null });
    expect(Buffer.from(reasoning[0].payload.encrypted_content, 'base64').toString()).toMatch(/^mock-encrypted:/);
  });

  it('an empty input and a session without messages are user errors', async () => {
    await expect(write([], { home: home() })).rejects.toThrow(/no events/);
    const b = new SessionBuilder('claude');
    await expect(write(b.events, { home: home() })).rejects.toThrow(/nothing to write/);
    const c = new SessionBuilder('claude', 'sess_x', { cwd: undefined });
    c.user('hi');
    await expect(write(c.events, { home: home() })).rejects.toThrow(/--cwd/);
  });
});

describe('codex writer: state_N.sqlite registration', () => {
  const THREADS = `CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    source TEXT NOT NULL, model_provider TEXT NOT NULL, cwd TEXT NOT NULL, title TEXT NOT NULL, sandbox_policy TEXT NOT NULL,
    approval_mode TEXT NOT NULL, has_user_event INTEGER NOT NULL DEFAULT 0, first_user_message TEXT NOT NULL DEFAULT '',
    preview TEXT NOT NULL DEFAULT '', history_mode TEXT NOT NULL DEFAULT 'legacy', cli_version TEXT NOT NULL DEFAULT '')`;

  function db(h: string, sql: string[]): string {
    const path = join(h, 'state_5.sqlite');
    const d = new Database(path);
    for (const s of sql) d.exec(s);
    d.close();
    return path;
  }

  it('adds the thread (columns it does not know copied from the newest row), after a backup, in one transaction', async () => {
    const h = home();
    const path = db(h, [THREADS, `INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd, title, sandbox_policy, approval_mode) VALUES ('old', '/x', 1, 1, 'cli', 'openai', '/w', 't', '{"type":"read-only"}', 'on-request')`]);
    const { result } = await write(await events(S2), { home: h });
    expect(result.registered).toMatchObject({ db: path, copied_columns: ['sandbox_policy', 'approval_mode'] });
    expect(existsSync(result.registered!.backup!)).toBe(true);
    const d = new Database(path, { readonly: true });
    const row = d.prepare('SELECT * FROM threads WHERE id = ?').get(result.session_id) as Json;
    d.close();
    expect(row).toMatchObject({
      rollout_path: result.path,
      source: 'cli',
      cwd: '/home/bob/acme-api',
      has_user_event: 1,
      first_user_message: '测试失败了，帮我看看 test/todos.test.js 为什么报错',
      title: '测试失败了，帮我看看 test/todos.test.js 为什么报错',
      preview: '测试失败了，帮我看看 test/todos.test.js 为什么报错',
      sandbox_policy: '{"type":"read-only"}',
      approval_mode: 'on-request',
      history_mode: 'legacy',
      model_provider: 'mock',
    });
    const backup = new Database(result.registered!.backup!, { readonly: true });
    expect((backup.prepare('SELECT count(*) AS n FROM threads').get() as Json).n).toBe(1);
    backup.close();
  });

  it('a session\'s own title names the thread', async () => {
    const h = home();
    const path = db(h, [THREADS, `INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd, title, sandbox_policy, approval_mode) VALUES ('old', '/x', 1, 1, 'cli', 'openai', '/w', 't', 'p', 'a')`]);
    const b = new SessionBuilder('claude', 'sess_t', { title: 'Fix the flaky test' });
    b.user('the test fails, why?');
    b.assistant('Looking.');
    const { result } = await write(b.events, { home: h });
    const d = new Database(path, { readonly: true });
    expect(d.prepare('SELECT title, first_user_message, model_provider FROM threads WHERE id = ?').get(result.session_id)).toEqual({
      title: 'Fix the flaky test',
      first_user_message: 'the test fails, why?',
      model_provider: 'openai',
    });
    d.close();
  });

  it('fails closed on an unknown schema: nothing written, db untouched', async () => {
    for (const sql of [
      ['CREATE TABLE other (x)'],
      ['CREATE TABLE threads (id TEXT PRIMARY KEY, path TEXT)'],
      [THREADS], // NOT NULL columns without default and no row to copy them from
    ]) {
      const h = home();
      db(h, sql);
      const before = readFileSync(join(h, 'state_5.sqlite'));
      await expect(write(await events(S1), { home: h })).rejects.toThrow(/unknown schema/);
      expect(existsSync(join(h, 'sessions'))).toBe(false);
      expect(readFileSync(join(h, 'state_5.sqlite')).equals(before)).toBe(true);
      expect(readdirSync(h).filter((n) => n.includes('sp-backup'))).toEqual([]);
    }
  });

  it('a dry run plans the row (read-only) and changes nothing; the newest state_N is the one used', async () => {
    const h = home();
    db(h, ['CREATE TABLE other (x)']);
    await expect(write(await events(S1), { home: h, dryRun: true })).rejects.toThrow(/unknown schema/);
    const newer = new Database(join(h, 'state_12.sqlite'));
    newer.exec(THREADS);
    newer.exec(`INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider, cwd, title, sandbox_policy, approval_mode) VALUES ('old', '/x', 1, 1, 'cli', 'openai', '/w', 't', 'p', 'a')`);
    newer.close();
    const before = readFileSync(join(h, 'state_12.sqlite'));
    const { result } = await write(await events(S1), { home: h, dryRun: true });
    expect(result.registered).toEqual({ db: join(h, 'state_12.sqlite'), copied_columns: ['sandbox_policy', 'approval_mode'] });
    expect(readFileSync(join(h, 'state_12.sqlite')).equals(before)).toBe(true);
    expect(readdirSync(h).sort()).toEqual(['state_12.sqlite', 'state_5.sqlite']);
  });
});
