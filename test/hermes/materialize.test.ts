// sp-materialize hermes: into a copy of the corpus database and into a new home, read back and
// checked against every validity rule of docs/formats/hermes.md §8.5; the fresh schema against the
// recorded one; the safety pass on hand-built streams; a writer holding the lock; relays from the
// Claude, Codex and Pi corpora.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hermes } from '../../adapters/hermes/index.js';
import { claude } from '../../adapters/claude/index.js';
import { codex } from '../../adapters/codex/index.js';
import { pi } from '../../adapters/pi/index.js';
import { FRESH_SCHEMA, SCHEMA_VERSION } from '../../adapters/hermes/schema.js';
import { checkValidity, RULES } from '../../adapters/hermes/validity.js';
import type { HermesMaterializeResult } from '../../adapters/hermes/materialize.js';
import type { Adapter, LossEntry, MaterializeOptions } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll, conversationView } from '../contract/testAdapter.js';
import { SessionBuilder, from } from '../support/canonical.js';
import * as CODEX from '../support/codexFixtures.js';
import { ALL as PI_ALL } from '../pi/support.js';
import { CORPUS_DB, Database, ROOT, SESSIONS, openFixture, S1, S2, S3_CHILD, copyDb, folderState, locator, readSession, tempDir } from './support.js';

async function write(events: SpEvent[], options: MaterializeOptions = {}): Promise<{ result: HermesMaterializeResult; losses: LossEntry[] }> {
  const losses: LossEntry[] = [];
  const result = (await hermes.materialize!(from(events), { ...options, onLoss: (l) => losses.push(l) })) as HermesMaterializeResult;
  return { result, losses };
}

/** Reads a written session back and checks every rule; returns the rows. */
function readBack(result: HermesMaterializeResult) {
  const { session, rows } = readSession(result.path, result.session_id);
  expect(session, result.session_id).toBeDefined();
  const validity = checkValidity(rows as never, session);
  expect(validity.filter((r) => !r.ok), `${result.session_id}`).toEqual([]);
  expect(validity).toHaveLength(RULES.length);
  return { session, rows };
}

const corpus = async (id: string, raw = false) => (await captureAll(hermes, locator(CORPUS_DB, id), { raw })).events;

describe('a fresh state.db', () => {
  it('has the recorded v25 layout: every table column by column, indexes, triggers, views, schema_version 25', () => {
    const fresh = new Database(':memory:');
    fresh.exec(FRESH_SCHEMA);
    const recorded = openFixture(CORPUS_DB);
    const layout = (db: InstanceType<typeof Database>) => {
      const objects = db.prepare("SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as Array<{ type: string; name: string; tbl_name: string }>;
      return objects.map((o) => ({
        ...o,
        columns: o.type === 'table' || o.type === 'view' ? db.prepare('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)').all(o.name) : undefined,
        index: o.type === 'index' ? db.prepare('SELECT name FROM pragma_index_info(?)').all(o.name) : undefined,
      }));
    };
    try {
      expect(layout(fresh)).toEqual(layout(recorded));
      expect(fresh.prepare('SELECT version FROM schema_version').get()).toEqual({ version: SCHEMA_VERSION });
      // The FTS triggers index what is inserted, as in Hermes's own database.
      fresh.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1)").run();
      fresh.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'user', 'findable needle', 1)").run();
      expect(fresh.prepare("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'needle'").all()).toEqual([{ rowid: 1 }]);
      expect(fresh.prepare("SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH 'eedl'").all()).toEqual([{ rowid: 1 }]);
    } finally {
      fresh.close();
      recorded.close();
    }
  });
});

describe('corpus sessions written back', () => {
  for (const id of SESSIONS) {
    it(`${id}: into a copy of the corpus database (backed up first) and into a new home`, async () => {
      const events = await corpus(id);
      // Into the corpus copy: a new id, a unique title, a backup of the database as it was.
      const db = copyDb();
      const before = folderState(dirname(db));
      const into = await write(events, { home: dirname(db) });
      expect(into.result.session_id).toMatch(/^\d{8}_\d{6}_[0-9a-f]{6}$/);
      expect(into.result.resume).toBe(`HERMES_HOME=${dirname(db)} hermes --resume ${into.result.session_id}`);
      expect(into.result.created_db).toBe(false);
      expect(into.result.backup).toBeDefined();
      // The backup is the database as it was: the same sessions and rows, not the new one.
      const backup = openFixture(into.result.backup!);
      expect(backup.prepare('SELECT count(*) AS s, (SELECT count(*) FROM messages) AS m FROM sessions').get()).toEqual({ s: 5, m: 172 });
      backup.close();
      expect(Object.keys(folderState(dirname(db)))).toEqual([...Object.keys(before), into.result.backup!.split('/').pop()!].sort());
      const { session, rows } = readBack(into.result);
      expect(session).toMatchObject({ source: 'cli', cwd: '/home/dave/acme-api', model: 'anthropic/claude-sonnet-4.6', end_reason: 'cli_close', parent_session_id: null });
      expect(String(session.title)).toMatch(/ \(2\)$/);
      // The conversation is the one the model saw: the same texts and tool ids, archived rows left out.
      const again = await captureAll(hermes, locator(db, into.result.session_id));
      expect(conversationView(again.events)).toEqual(conversationView(events));
      const source = readSession(CORPUS_DB, id).rows.filter((r) => r.active === 1);
      expect(rows.map((r) => [r.role, r.tool_call_id])).toEqual(source.map((r) => [r.role, r.tool_call_id]));

      // Into a new home: a fresh database with Hermes's schema.
      const home = join(tempDir(), 'hermes-home');
      const fresh = await write(events, { home });
      expect(fresh.result.created_db).toBe(true);
      expect(fresh.result.backup).toBeUndefined();
      expect(fresh.result.title).toBe(session.title === undefined ? undefined : String(readSession(CORPUS_DB, id).session.title));
      readBack(fresh.result);
      expect(readdirSync(home)).toEqual(['state.db']);
    });
  }

  it('a --raw capture comes back byte for byte: every column Hermes replays', async () => {
    for (const id of SESSIONS) {
      const home = tempDir();
      const { result } = await write(await corpus(id, true), { home });
      const written = readSession(result.path, result.session_id).rows;
      const source = readSession(CORPUS_DB, id).rows.filter((r) => r.active === 1);
      const columns = ['role', 'content', 'tool_calls', 'tool_call_id', 'tool_name', 'finish_reason', 'reasoning', 'reasoning_content', 'reasoning_details', 'codex_reasoning_items', 'timestamp'];
      const view = (rows: Array<Record<string, unknown>>) => rows.map((r) => columns.map((c) => r[c]));
      expect(view(written), id).toEqual(view(source));
    }
  });

  it('--no-backup, --dry-run (nothing written), --same-id (refused where the id exists)', async () => {
    const events = await corpus(S2);
    const db = copyDb();
    const noBackup = await write(events, { home: dirname(db), backup: false });
    expect(noBackup.result.backup).toBeUndefined();
    expect(readdirSync(dirname(db)).filter((n) => n.includes('sp-backup'))).toEqual([]);

    const before = folderState(dirname(db));
    const lines: string[] = [];
    const dry = await write(events, { home: dirname(db), dryRun: true, onLine: (l) => lines.push(l) });
    expect(dry.result.dry_run).toBe(true);
    expect(folderState(dirname(db))).toEqual(before);
    expect(lines).toHaveLength(1 + 14);
    expect(JSON.parse(lines[0]).table).toBe('sessions');
    const emptyHome = join(tempDir(), 'none');
    await write(events, { home: emptyHome, dryRun: true });
    expect(existsSync(emptyHome)).toBe(false);

    await expect(write(events, { home: dirname(db), sameId: true })).rejects.toThrow(/exists already/);
    const same = await write(events, { home: tempDir(), sameId: true });
    expect(same.result.session_id).toBe(S2);
    readBack(same.result);
  });

  it('a writer holding the lock for 2 s does not make it fail; a lock past the patience fails cleanly, writing nothing', async () => {
    const events = await corpus(S1);
    const db = copyDb();
    const hold = (ms: number) => {
      const script = `const D = require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))}); const db = new D(${JSON.stringify(db)}); db.exec('BEGIN IMMEDIATE'); db.prepare("UPDATE sessions SET title = title WHERE id = '${S1}'").run(); process.stdout.write('locked\\n'); setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const done = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      // Wrapped: resolving with the exit promise itself would wait for the exit.
      return new Promise<{ done: Promise<void> }>((resolve) => child.stdout.once('data', () => resolve({ done })));
    };
    let { done } = await hold(2000);
    const started = Date.now();
    const { result } = await write(events, { home: dirname(db), backup: false });
    expect(Date.now() - started).toBeGreaterThan(1500);
    readBack(result);
    await done;

    const count = () => readSession(db, S1).rows.length + (new Database(db, { readonly: true }).prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
    const sessionsBefore = count();
    ({ done } = await hold(2500));
    process.env.SP_HERMES_BUSY_MS = '400';
    try {
      const err = await write(events, { home: dirname(db), backup: false }).catch((e) => e);
      expect(err).toBeInstanceOf(UserError);
      expect(err.message).toMatch(/nothing was written: the database stayed locked/);
    } finally {
      delete process.env.SP_HERMES_BUSY_MS;
    }
    await done;
    expect(count()).toBe(sessionsBefore);
  }, 30_000);

  it('refuses a database it cannot write into, naming its schema version', async () => {
    const home = tempDir();
    const h = new Database(join(home, 'state.db'));
    h.exec('CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (3); CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL); CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT);');
    h.close();
    await expect(write(await corpus(S1), { home })).rejects.toThrow(/schema version 3; missing sessions\.model/);
  });
});

describe('the resume-safety pass', () => {
  it('merges, stubs, drops and renames what Hermes would repair, and says so', async () => {
    const b = new SessionBuilder('claude', 'sess_x', { title: 'safety', cwd: '/tmp/sp-proj' });
    b.assistant('hello first', 'm0');
    b.user('one');
    b.user('two');
    b.user('');
    b.thinking('only thinking', { message_id: 'm1', signature: 'sig', provider: 'anthropic' });
    b.user('three');
    b.assistant('calling', 'm2');
    b.call('toolu bad id!', 'Bash', { command: 'ls' }, 'm2');
    b.call('dup', 'Read', 'not an object', 'm2');
    b.result('toolu bad id!', 'listing');
    b.result('orphan', 'nobody asked');
    b.assistant('again', 'm3');
    b.call('dup', 'Read', { file_path: 'a' }, 'm3');
    b.result('dup', 'first dup result');
    b.add('message.user', { content: [{ type: 'text', text: 'see' }, { type: 'image', media_type: 'image/png', data: 'AAAA' }] });
    b.assistant('last', 'm4');
    b.call('never', 'Bash', { command: 'sleep' }, 'm4');
    const { result, losses } = await write(b.events, { home: tempDir() });
    const { rows } = readBack(result);
    const codes = losses.map((l) => `${l.action} ${l.code}`);
    for (const code of ['stubbed first-user', 'transformed merged-user', 'dropped empty-message', 'transformed tool-id', 'transformed tool-input', 'dropped orphan-result', 'stubbed stub-result', 'transformed image', 'transformed signature']) {
      expect(codes, code).toContain(code);
    }
    expect(rows[0]).toMatchObject({ role: 'user' });
    expect(rows.find((r) => r.content === 'one\n\ntwo\n\nthree')).toBeDefined();
    const calls = rows.filter((r) => r.tool_calls).flatMap((r) => JSON.parse(String(r.tool_calls)));
    expect(calls.map((c: any) => c.id)).toEqual(['toolu_bad_id_', 'dup', 'dup_sp2', 'never']);
    expect(JSON.parse(calls[1].function.arguments)).toEqual({ input: 'not an object' });
    expect(rows.filter((r) => r.role === 'tool').map((r) => r.tool_call_id)).toEqual(['toolu_bad_id_', 'dup', 'dup_sp2', 'never']);
    // dup's first result answers the first dup call; the second dup call gets none: a stub.
    expect(rows.find((r) => r.tool_call_id === 'dup')!.content).toBe('first dup result');
    expect(String(rows.find((r) => r.tool_call_id === 'dup_sp2')!.content)).toMatch(/No result was recorded/);
    expect(rows.some((r) => String(r.content).includes('[Image attached: image/png'))).toBe(true);
    expect(result.changes.stubbed).toBeGreaterThanOrEqual(3);
  });

  it('--branch active writes the path to the last message', async () => {
    const b = new SessionBuilder('pi', 'sess_b', { cwd: '/tmp/p', model: 'claude-sonnet-4-5' });
    const root = b.user('root');
    b.assistant('abandoned answer', 'a1');
    b.add('message.user', { content: [{ type: 'text', text: 'retry' }] }, { parent_seq: root.seq });
    b.assistant('kept answer', 'a2');
    const { result, losses } = await write(b.events, { home: tempDir(), branch: 'active' });
    const { rows, session } = readBack(result);
    // The retry follows the root on the active path (two prompts in a row: merged); the abandoned answer is gone.
    expect(rows.map((r) => r.content)).toEqual(['root\n\nretry', 'kept answer']);
    expect(losses.some((l) => l.code === 'other-branch')).toBe(true);
    expect(session.model).toBe('anthropic/claude-sonnet-4.5');
  });
});

describe('relays: other agents\' corpus sessions written as Hermes sessions', () => {
  const CLAUDE = `${ROOT}fixtures/claude/`;
  const sources: Array<[Adapter, string]> = [
    ...['S1-feature/.claude/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl', 'S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl', 'S3-long/.claude/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71.jsonl'].map((p) => [claude, `${CLAUDE}corpus/${p}`] as [Adapter, string]),
    [claude, `${CLAUDE}public/claude-code-log/test/test_data/dag_compact_after_rewind.jsonl`],
    [claude, `${CLAUDE}public/agent-sessions/Resources/Fixtures/stage0/agents/claude/small.jsonl`],
    ...[...CODEX.CORPUS, ...CODEX.PUBLIC].map((p) => [codex, p] as [Adapter, string]),
    ...PI_ALL.map((p) => [pi, p] as [Adapter, string]),
  ];
  for (const [adapter, path] of sources) {
    it(`${adapter.id}: ${path.split('/').slice(-1)[0]}`, async () => {
      const { events } = await captureAll(adapter, path);
      const main = events.filter((e) => e.session === events[0].session);
      // Every prompt reaches a user row; every call is written (some under a new id).
      const prompts = main.filter((e) => e.type === 'message.user').flatMap((e) => ((e.payload as any).content ?? []).filter((b: any) => b?.type === 'text').map((b: any) => String(b.text))).filter((t: string) => t.trim() !== '');
      if (prompts.length === 0) {
        await expect(write(events, { home: tempDir() })).rejects.toThrow(/nothing to write/);
        return;
      }
      const { result } = await write(events, { home: tempDir() });
      const { rows } = readBack(result);
      const users = rows.filter((r) => r.role === 'user').map((r) => String(r.content)).join('\n');
      for (const prompt of prompts) expect(users.includes(prompt), prompt.slice(0, 80)).toBe(true);
      const calls = main.filter((e) => e.type === 'tool.call' && e.derived_from === undefined).length;
      expect(rows.reduce((n, r) => n + (r.tool_calls ? JSON.parse(String(r.tool_calls)).length : 0), 0)).toBe(calls);
      expect(String(result.model)).toContain('/');
    });
  }
});

it('S3 child written alone keeps the compaction summary it carries', async () => {
  const { result } = await write(await corpus(S3_CHILD), { home: tempDir() });
  const { rows } = readBack(result);
  expect(rows.some((r) => String(r.content).includes('[CONTEXT COMPACTION'))).toBe(true);
});

it('refuses a state.db that is a symlink out of the home (nothing written there, a dry run neither); a linked home, or a link inside it, is written', async () => {
  const b = new SessionBuilder('claude');
  b.user('hello');
  b.assistant('hi', 'm1');
  // The attack: the home's state.db (a home from an archive, a shared folder) links to a database elsewhere.
  const outside = copyDb();
  const before = folderState(dirname(outside));
  const home = tempDir();
  symlinkSync(outside, join(home, 'state.db'));
  for (const dryRun of [false, true]) {
    await expect(write(b.events, { home, cwd: home, dryRun })).rejects.toThrow(/refusing to write outside the home .*a symlink on the way leads elsewhere/);
  }
  expect(folderState(dirname(outside))).toEqual(before); // the same bytes, no backup or journal beside it
  expect(readdirSync(home)).toEqual(['state.db']);
  // The user's own links: the home moved and linked back, and state.db naming a file of the home.
  const real = dirname(copyDb());
  const linked = join(tempDir(), 'hermes');
  symlinkSync(real, linked);
  readBack((await write(b.events, { home: linked, cwd: real })).result);
  const inside = dirname(copyDb());
  renameSync(join(inside, 'state.db'), join(inside, 'stable.db'));
  symlinkSync('stable.db', join(inside, 'state.db'));
  const { result } = await write(b.events, { home: inside, cwd: inside });
  expect(readSession(join(inside, 'stable.db'), result.session_id).session).toBeDefined();
});
