// sp-capture hermes on the recorded corpus database: golden output for every session, then what
// each scenario must show (lineage, in-place compaction, reasoning blocks, tool errors), the
// -wal-only sessions, newer schemas, and the errors a user may meet.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { dirname, join, relative } from 'node:path';
import { hermes } from '../../adapters/hermes/index.js';
import { Chainer } from '../../lib/core/chain.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { canonicalSessionId, type SpEvent } from '../../lib/core/event.js';
import { canonicalize } from '../../lib/core/jcs.js';
import { createValidator } from '../../lib/core/schema.js';
import { bySession, captureAll, chainProblem } from '../contract/testAdapter.js';
import { CORPUS_DB, Database, HERMES, ROOT, openFixture, S1, S2, S3_CHILD, S3_IN_PLACE, S3_PARENT, SESSIONS, WAL_ONLY, copyDb, locator, makeWalTrio, tempDir } from './support.js';

const GOLDEN = `${HERMES}expected/`;

/** The chained NDJSON `sp-capture hermes --path <db>#<id>` prints, the source path relative to the repository. */
function goldenText(events: SpEvent[]): string {
  const chainer = new Chainer();
  return (
    events
      .map((e) => (e.type === 'session.start' ? { ...e, payload: { ...e.payload, source_path: relative(ROOT, String(e.payload.source_path)) } } : e))
      .map((e) => canonicalize(chainer.chain(e)))
      .join('\n') + '\n'
  );
}

const capture = async (db: string, id: string, raw = false) => (await captureAll(hermes, locator(db, id), { raw })).events;
const ofType = (events: SpEvent[], type: string) => events.filter((e) => e.type === type);
const payload = (e: SpEvent) => e.payload as Record<string, any>;

describe('golden: every corpus session', () => {
  for (const id of SESSIONS) {
    it(id, async () => {
      const { events, diagnostics } = await captureAll(hermes, locator(CORPUS_DB, id));
      expect(diagnostics).toEqual([]);
      const text = goldenText(events);
      const path = `${GOLDEN}${id}.ndjson`;
      if (process.env.SP_UPDATE_GOLDEN) {
        mkdirSync(GOLDEN, { recursive: true });
        writeFileSync(path, text);
      }
      expect(text).toBe(readFileSync(path, 'utf8'));
    });
  }

  it('the -wal-only sessions of the wal/ trio come out exactly as from the checkpointed database', async () => {
    const trio = makeWalTrio();
    for (const id of WAL_ONLY) {
      const fromWal = (await capture(trio, id)).map((e) => (e.type === 'session.start' ? { ...e, payload: { ...e.payload, source_path: CORPUS_DB } } : e));
      expect(goldenText(fromWal)).toBe(readFileSync(`${GOLDEN}${id}.ndjson`, 'utf8'));
    }
  });

  it('every event matches the schema and every chain verifies', async () => {
    const validator = await createValidator();
    for (const id of SESSIONS) {
      const chainer = new Chainer();
      const chained = (await capture(CORPUS_DB, id, true)).map((e) => chainer.chain(e));
      for (const e of chained) expect(validator.validate(e), `${id} seq ${e.seq}`).toEqual([]);
      expect(chainProblem(chained)).toBeUndefined();
    }
  });
});

describe('what the scenarios show', () => {
  const rowsOf = (id: string) => {
    const db = openFixture(CORPUS_DB);
    try {
      return db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY id').all(id) as Array<Record<string, any>>;
    } finally {
      db.close();
    }
  };

  it('S1: every row once, in id order; calls paired with results; derived events point at their call', async () => {
    const events = await capture(CORPUS_DB, S1);
    const rows = rowsOf(S1);
    const seen = [...new Set(events.filter((e) => e.derived_from === undefined && e.type !== 'session.start' && e.type !== 'session.end' && e.type !== 'meta').map((e) => e.origin!.native_seq))];
    expect(seen).toEqual(rows.map((r) => r.id));
    expect(ofType(events, 'message.user')).toHaveLength(2);
    expect(ofType(events, 'tool.call')).toHaveLength(12);
    expect(ofType(events, 'tool.result')).toHaveLength(12);
    const calls = new Map(ofType(events, 'tool.call').map((e) => [payload(e).call_id, e]));
    for (const result of ofType(events, 'tool.result')) expect(calls.has(payload(result).call_id)).toBe(true);
    // Derived: 2× npm test, 4 patches, 2 reads, the todo list (3 added, then updated).
    expect(ofType(events, 'command.run').map((e) => [payload(e).cmd, payload(e).exit_code])).toEqual([['npm test', 0], ['npm test', 0]]);
    expect(ofType(events, 'file.edit')).toHaveLength(4);
    expect(ofType(events, 'file.edit').every((e) => String(payload(e).diff).startsWith('--- a/'))).toBe(true);
    expect(ofType(events, 'file.read').map((e) => payload(e).path)).toEqual(['/home/dave/acme-api/src/routes/todos.js', '/home/dave/acme-api/test/todos.test.js']);
    expect(ofType(events, 'todo.add')).toHaveLength(3);
    expect(ofType(events, 'todo.update').map((e) => payload(e).status)).toEqual(['completed', 'in_progress', 'completed', 'in_progress', 'completed']);
    for (const d of events.filter((e) => e.derived_from !== undefined)) {
      expect(events.find((e) => e.seq === d.derived_from)?.type).toBe('tool.call');
      expect(d.actor).toBe('tool');
    }
    const end = ofType(events, 'session.end');
    expect(end).toHaveLength(1);
    expect(payload(end[0])).toMatchObject({ end_reason: 'cli_close', stats: { message_count: 25, tool_call_count: 12 } });
  });

  it('S1: signed reasoning_details blocks verbatim, reasoning as text, provider as recorded', async () => {
    const events = await capture(CORPUS_DB, S1);
    const rows = rowsOf(S1).filter((r) => r.reasoning_details);
    const thinking = ofType(events, 'message.thinking');
    expect(thinking).toHaveLength(rows.length);
    thinking.forEach((e, i) => {
      const details = JSON.parse(rows[i].reasoning_details);
      expect(payload(e).reasoning_details).toEqual(details);
      expect(payload(e)).toMatchObject({ text: rows[i].reasoning, visibility: 'visible', signature: details[0].signature, provider: 'openrouter', format: 'anthropic-claude-v1', reasoning_content_same: true });
      expect(payload(e).message_id).toBe(`hermes:${rows[i].id}`);
    });
  });

  it('S2: CJK title and prompt, the image as Hermes stored it, a failing test, a missing file, the decision', async () => {
    const events = await capture(CORPUS_DB, S2);
    expect(payload(events[0])).toMatchObject({ title: '排查 todos 测试失败', cwd: '/home/dave/acme-api', source: 'cli', model: 'anthropic/claude-sonnet-4.6' });
    const prompt = payload(ofType(events, 'message.user')[0]).content[0].text as string;
    expect(prompt).toMatch(/^测试失败了/);
    expect(prompt).toContain('[Image attached at: /home/dave/.hermes/images/');
    const runs = ofType(events, 'command.run');
    expect(runs[0].payload).toMatchObject({ cmd: 'npm test', exit_code: 1 });
    expect(runs[runs.length - 1].payload).toMatchObject({ exit_code: 0 });
    const errors = ofType(events, 'tool.result').filter((e) => payload(e).is_error);
    expect(errors.map((e) => payload(e).name)).toEqual(['terminal', 'read_file']);
    // The read of the missing file is no file.read; the two parallel reads are.
    expect(ofType(events, 'file.read')).toHaveLength(2);
    expect(ofType(events, 'message.assistant').some((e) => JSON.stringify(e.payload).includes('Decision: keep the in-memory store'))).toBe(true);
    expect(ofType(events, 'file.edit').map((e) => payload(e).kind)).toEqual(['create', 'modify']);
  });

  it('S3 in place: the 49 archived rows are meta no longer seen by the model; the 18 active rows are the conversation', async () => {
    const events = await capture(CORPUS_DB, S3_IN_PLACE);
    const archived = events.filter((e) => e.type === 'meta' && payload(e).key === 'hermes.message.compacted');
    expect(archived).toHaveLength(49);
    expect(archived.every((e) => payload(e).seen_by_model === false && payload(e).raw.active === 0)).toBe(true);
    const typedRows = new Set(events.filter((e) => e.type.startsWith('message.') || e.type.startsWith('tool.')).map((e) => e.origin!.native_seq!));
    expect(typedRows.size).toBe(18);
    expect(Math.min(...typedRows)).toBe(89);
    // No tool call id twice among the typed events, though the archived rows repeat them.
    const ids = ofType(events, 'tool.call').map((e) => payload(e).call_id);
    expect(new Set(ids).size).toBe(ids.length);
    // The compaction summary is one of the active rows, so the conversation still carries it.
    expect(ofType(events, 'message.assistant').some((e) => JSON.stringify(e.payload).includes('[CONTEXT COMPACTION'))).toBe(true);
  });

  it('S3 rotation: a fork in the parent, parent_session and lineage on the child; <id>+ captures the whole chain', async () => {
    const parent = await capture(CORPUS_DB, S3_PARENT);
    const fork = ofType(parent, 'session.fork');
    expect(fork).toHaveLength(1);
    expect(payload(fork[0])).toMatchObject({ to_session: canonicalSessionId('hermes', S3_CHILD), native_id: S3_CHILD, reason: 'compression' });
    expect(payload(ofType(parent, 'session.end')[0]).end_reason).toBe('compression');
    expect(payload(parent[0]).lineage).toMatchObject({ chain: [S3_PARENT], root: S3_PARENT, compression_tip: S3_CHILD, children: [{ id: S3_CHILD, kind: 'compression' }] });

    const child = await capture(CORPUS_DB, S3_CHILD);
    expect(payload(child[0])).toMatchObject({ parent_session: canonicalSessionId('hermes', S3_PARENT), title: 'Request logging and rate limiting #2' });
    expect(payload(child[0]).lineage).toMatchObject({ kind: 'compression', parent: S3_PARENT, chain: [S3_PARENT, S3_CHILD], root: S3_PARENT, compression_tip: S3_CHILD });

    for (const start of [S3_PARENT, S3_CHILD]) {
      const { events } = await captureAll(hermes, locator(CORPUS_DB, `${start}+`));
      const sessions = [...bySession(events).keys()];
      expect(sessions).toEqual([canonicalSessionId('hermes', S3_PARENT), canonicalSessionId('hermes', S3_CHILD)]);
      expect(events.length).toBe(parent.length + child.length);
    }
  });

  it('--list answers from SQL: counts, titles, first prompt, lineage', async () => {
    const refs = [];
    for await (const ref of hermes.discover({ home: dirname(CORPUS_DB), details: true })) refs.push(ref);
    expect(refs.map((r) => r.native_id)).toEqual([S3_CHILD, S3_PARENT, S3_IN_PLACE, S2, S1]);
    expect(refs[0]).toMatchObject({ parent_native_id: S3_PARENT, lineage_kind: 'compression', messages: 22, tool_calls: 7, end_reason: 'cli_close' });
    expect(refs[1]).toMatchObject({ children: 1, end_reason: 'compression', messages: 44 });
    expect(refs[2]).toMatchObject({ first_prompt: 'Add a PATCH /todos/:id endpoint that sets done (true/false).', messages: 18 });
    const mine = [];
    for await (const ref of hermes.discover({ home: dirname(CORPUS_DB), cwd: '/home/dave/acme-api' })) mine.push(ref);
    expect(mine).toHaveLength(5);
    const none = [];
    for await (const ref of hermes.discover({ home: dirname(CORPUS_DB), cwd: '/elsewhere' })) none.push(ref);
    expect(none).toHaveLength(0);
  });
});

describe('rows of other shapes and newer schemas', () => {
  /** A copy with a v30-like extra column and one session of unusual rows. */
  function unusual(): string {
    const db = copyDb();
    const h = new Database(db);
    h.exec('ALTER TABLE messages ADD COLUMN display_order INTEGER');
    h.exec('ALTER TABLE sessions ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0');
    h.prepare("INSERT INTO sessions (id, source, model, started_at, cwd, hidden) VALUES ('u1', 'telegram', 'openai/gpt-5', 10, '/w', 1)").run();
    const insert = h.prepare('INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, tool_name, timestamp, api_content, display_kind, display_metadata, platform_message_id, observed, display_order, reasoning_details, codex_reasoning_items) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)');
    const png = Buffer.from('png-bytes').toString('base64');
    insert.run('u1', 'session_meta', null, null, null, null, 11, null, null, null, null, 0, null, null, null);
    insert.run('u1', 'user', `\u0000json:${JSON.stringify([{ type: 'text', text: 'look at this' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }])}`, null, null, null, 12, '[Alice @ #dev] look at this', 'hidden', '{"a": 1}', 'tg-42', 1, 7, null, null);
    insert.run('u1', 'assistant', '', '[{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{\\"q\\":\\"x\\"}"}}, {"type": "function", "function": {"name": "", "arguments": "not json"}}]', null, null, 13, null, null, null, null, 0, null, 'not json', '[{"type": "reasoning", "encrypted_content": "gAAA"}]');
    insert.run('u1', 'tool', `\u0000json:${JSON.stringify({ hits: 0 })}`, null, 'c1', 'search', 14, null, null, null, null, 0, null, null, null);
    insert.run('u1', 'system', 'be brief', null, null, null, 15, null, null, null, null, 0, null, null, null);
    h.close();
    return db;
  }

  it('keeps what Hermes stored: decoded parts, api_content, display hints, unknown columns, odd calls', async () => {
    const db = unusual();
    const { events, diagnostics } = await captureAll(hermes, locator(db, 'u1'));
    expect(payload(events[0])).toMatchObject({ source: 'telegram', extra: { hidden: 1 } });
    expect(events.map((e) => e.type)).toEqual(['session.start', 'meta', 'message.user', 'message.thinking', 'tool.call', 'tool.call', 'tool.result', 'meta']);
    expect(payload(events[1]).key).toBe('hermes.message.session_meta');
    const user = payload(events[2]);
    expect(user.content).toEqual([{ type: 'text', text: 'look at this' }, { type: 'image', media_type: 'image/png', data: Buffer.from('png-bytes').toString('base64') }]);
    expect(user).toMatchObject({ api_content: '[Alice @ #dev] look at this', display_kind: 'hidden', display_metadata: { a: 1 }, platform_message_id: 'tg-42', observed: true, extra: { display_order: 7 } });
    expect(Array.isArray(user.content_json)).toBe(true);
    // Unreadable reasoning_details: kept as text and reported, with the database and row.
    expect(payload(events[3])).toMatchObject({ visibility: 'encrypted', opaque: 'gAAA', reasoning_details_raw: 'not json' });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].where).toMatch(new RegExp(`^${db.replace(/[.]/g, '\\.')}:\\d+$`));
    // Compact arguments are kept as written; a call without id or name gets a synthetic id and the name Hermes gives it.
    expect(payload(events[4])).toMatchObject({ call_id: 'c1', input: { q: 'x' }, arguments: '{"q":"x"}' });
    expect(payload(events[5])).toMatchObject({ call_id_synthetic: true, name: 'invalid_tool_call', name_missing: true, input: 'not json', arguments_invalid: true });
    expect(payload(events[6])).toMatchObject({ call_id: 'c1', content: '{"hits":0}', content_json: { hits: 0 }, is_error: false });
    expect(payload(events[7])).toMatchObject({ key: 'hermes.message.system', value: 'be brief' });
  });

  it('--artifacts: an image of a decoded content list is stored by its SHA-256 and referenced', async () => {
    const db = unusual();
    const dir = tempDir();
    const { events } = await captureAll(hermes, locator(db, 'u1'), { artifactsDir: dir });
    const image = payload(events.find((e) => e.type === 'message.user')!).content[1];
    expect(image).toMatchObject({ type: 'image', media_type: 'image/png' });
    expect(image.data).toBeUndefined();
    expect(readFileSync(join(dir, String(image.artifact).slice('sha256:'.length)), 'utf8')).toBe('png-bytes');
  });

  it('a database without the tables it needs: one line naming the schema version found', async () => {
    const dir = tempDir();
    const db = join(dir, 'state.db');
    const h = new Database(db);
    h.exec('CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (7); CREATE TABLE sessions (id TEXT PRIMARY KEY, started_at REAL);');
    h.close();
    await expect(hermes.open(db)).rejects.toThrow(/schema version 7; missing table messages/);
    writeFileSync(join(dir, 'other.db'), 'not a database at all, just some text that is long enough to fill a header of one hundred bytes ......');
    await expect(hermes.open(join(dir, 'other.db'))).rejects.toThrow(UserError);
    await expect(hermes.open(join(dir, 'missing.db'))).rejects.toThrow(/no such database/);
    await expect(hermes.open(locator(CORPUS_DB, 'nope'))).rejects.toThrow(/no session "nope"/);
  });

  it('a prefix of an id finds the session; an ambiguous one says so', async () => {
    expect((await hermes.find!('20261130_0516', { home: dirname(CORPUS_DB) }).catch((e) => e)).message).toMatch(/matches 4 sessions/);
    expect((await hermes.find!('20261130_051619', { home: dirname(CORPUS_DB) })).native_id).toBe(S1);
  });
});

describe('a locked database', () => {
  /** A process that holds an exclusive lock on a rollback-journal copy for `ms`. */
  function holdLock(db: string, ms: number): Promise<{ done: Promise<void> }> {
    const script = `const D = require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))}); const db = new D(${JSON.stringify(db)}); db.exec('BEGIN EXCLUSIVE'); db.prepare("UPDATE sessions SET title = title WHERE id = '${S1}'").run(); process.stdout.write('locked\\n'); setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${ms});`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const done = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    return new Promise((resolve) => child.stdout.once('data', () => resolve({ done })));
  }

  function rollbackCopy(): string {
    const db = copyDb();
    const h = new Database(db);
    h.pragma('journal_mode = DELETE');
    h.close();
    return db;
  }

  it('waits for the lock with backoff, then reads', async () => {
    const db = rollbackCopy();
    const { done } = await holdLock(db, 1200);
    const started = Date.now();
    const { events } = await captureAll(hermes, locator(db, S1));
    expect(Date.now() - started).toBeGreaterThan(800);
    expect(events.length).toBeGreaterThan(50);
    await done;
  });

  it('reports a lock that outlasts its patience in one line', async () => {
    const db = rollbackCopy();
    const { done } = await holdLock(db, 2500);
    process.env.SP_HERMES_BUSY_MS = '300';
    try {
      const err = await captureAll(hermes, locator(db, S1)).catch((e) => e);
      expect(err).toBeInstanceOf(UserError);
      expect(err.message).toMatch(/locked for \d\.\d s .*another process/);
      expect(err.where).toBe(db);
    } finally {
      delete process.env.SP_HERMES_BUSY_MS;
    }
    await done;
  });
});

// Keep the golden folder honest: every file there belongs to a session of the corpus.
it('golden files exist for exactly the corpus sessions', () => {
  for (const id of SESSIONS) expect(existsSync(`${GOLDEN}${id}.ndjson`)).toBe(true);
});
