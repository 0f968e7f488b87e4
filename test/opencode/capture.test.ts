// Golden tests of the OpenCode capture on every corpus and public store: the database (also with
// rows only in its -wal, read without changing a byte), exports, the 1.1.58 JSON store and the
// public storage_v2 fixtures. Counts are checked against the rows read independently here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { opencode } from '../../adapters/opencode/index.js';
import { closeReadConnections } from '../../lib/capture/sqlite.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll, conversationView } from '../contract/testAdapter.js';
import { ATTACHMENT, DATA, DB, FAILING, FEATURE, LEGACY, LEGACY_EXPORT, LEGACY_SESSION, PUBLIC_STORAGE, SESSIONS, copyDb, exportOf, locator } from './support.js';

type Json = Record<string, any>;
const ofType = (events: SpEvent[], type: string) => events.filter((e) => e.type === type);
const p = (e: SpEvent): Json => e.payload as Json;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-opencode-capture-'));
});
afterAll(() => {
  closeReadConnections();
  if (work) rmSync(work, { recursive: true, force: true });
});

function rows(id: string): { parts: Json[]; messages: Json[]; todos: Json[] } {
  // A private copy: even a read-only open would leave -wal/-shm files next to the fixture.
  const db = new Database(copyDb(join(work, `rows-${id}`)), { readonly: true, fileMustExist: true });
  try {
    const messages = db.prepare('SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id').all(id) as Json[];
    const parts = (db.prepare('SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id').all(id) as Json[]).map((r) => ({ ...r, data: JSON.parse(r.data) }));
    const todos = db.prepare('SELECT * FROM todo WHERE session_id = ?').all(id) as Json[];
    return { messages, parts, todos };
  } finally {
    db.close();
  }
}

describe('opencode capture: the corpus database', () => {
  for (const id of SESSIONS) {
    it(`${id}: every message and part accounted for, tools with their results, same as its export`, async () => {
      const native = rows(id);
      const { events, diagnostics } = await captureAll(opencode, locator(DB, id));
      expect(diagnostics).toEqual([]);
      expect(p(events[0])).toMatchObject({ native_id: id, cwd: '/home/grace/acme-api', version: '1.18.33', project_id: 'af572d65bb3975334664749acc48e50ddaa22c7b' });
      // Part ids: the event's own (assistant parts), or listed in the user message that gathers its parts.
      const uuids = new Set(events.flatMap((e) => [e.origin?.native_uuid, ...((p(e).parts as Json[] | undefined) ?? []).map((x) => x.id)]));
      for (const part of native.parts) expect(uuids.has(part.id), `part ${part.id} (${part.data.type})`).toBe(true);
      const tools = native.parts.filter((r) => r.data.type === 'tool');
      expect(ofType(events, 'tool.call').map((e) => p(e).call_id).sort()).toEqual(tools.map((r) => r.data.callID).sort());
      expect(ofType(events, 'tool.result').length).toBe(tools.length);
      expect(ofType(events, 'message.thinking').length).toBe(native.parts.filter((r) => r.data.type === 'reasoning').length);
      for (const type of ['step-start', 'step-finish', 'patch']) expect(ofType(events, 'meta').filter((e) => p(e).key === `opencode.part.${type}`).length, type).toBe(native.parts.filter((r) => r.data.type === type).length);
      // The export of the same session gives the same conversation.
      const exported = await captureAll(opencode, exportOf(id));
      expect(conversationView(exported.events)).toEqual(conversationView(events));
      // A tool result follows every call of its message (parallel calls first, then results).
      for (const result of ofType(events, 'tool.result')) expect(events.findIndex((e) => e.type === 'tool.call' && p(e).call_id === p(result).call_id)).toBeLessThan(events.indexOf(result));
    });
  }

  it('feature: todo rows, derived reads, edits with their diffs, the npm test run', async () => {
    const { events } = await captureAll(opencode, locator(DB, FEATURE));
    expect(p(ofType(events, 'meta').find((e) => p(e).key === 'opencode.todos')!).value).toHaveLength(rows(FEATURE).todos.length);
    expect(ofType(events, 'file.edit').every((e) => p(e).diff.includes('+++ '))).toBe(true);
    expect(ofType(events, 'file.read').map((e) => p(e).path)).toContain('/home/grace/acme-api/src/routes/todos.js');
    expect(p(ofType(events, 'command.run')[0])).toMatchObject({ cmd: 'npm test', exit_code: 0 });
    expect(p(events[0]).model).toBe('mock-model');
  });

  it('failing: Anthropic signatures, a command that exits 1 is not an error, a missing file is', async () => {
    const { events } = await captureAll(opencode, locator(DB, FAILING));
    expect(ofType(events, 'message.thinking').map((e) => [p(e).signature, p(e).provider, p(e).provider_id])).toEqual([['sig-zh-1', 'anthropic', 'mock-anthropic'], ['sig-zh-2', 'anthropic', 'mock-anthropic']]);
    const [lint, read] = ofType(events, 'tool.result');
    expect(p(lint)).toMatchObject({ name: 'bash', is_error: false, status: 'completed' });
    expect(p(ofType(events, 'command.run')[0])).toMatchObject({ cmd: 'npm run lint', exit_code: 1 });
    expect(p(read)).toMatchObject({ name: 'read', is_error: true, content: 'File not found: /home/grace/acme-api/.eslintrc.json' });
    expect(ofType(events, 'message.user').map((e) => p(e).content[0].text)).toEqual(['请运行 lint 检查，并告诉我结果。', '好的，暂时不用 lint，谢谢。']);
  });

  it('attachment: the synthetic Read parts and the file part in the user message, in order', async () => {
    const { events } = await captureAll(opencode, locator(DB, ATTACHMENT));
    const first = p(ofType(events, 'message.user')[0]).content as Json[];
    expect(first.map((b) => [b.type, b.synthetic === true])).toEqual([['text', true], ['text', true], ['file', false], ['text', false]]);
    expect(first[2]).toMatchObject({ filename: 'package.json', mime: 'text/plain', url: 'file:///home/grace/acme-api/package.json' });
  });

  it('discover: the three sessions of the data dir, newest first, with details', async () => {
    const refs = [];
    for await (const ref of opencode.discover({ home: DATA, details: true })) refs.push(ref);
    expect(refs.map((r) => r.native_id)).toEqual([ATTACHMENT, FAILING, FEATURE]);
    expect(refs.find((r) => r.native_id === FEATURE)).toMatchObject({ messages: 12, tool_calls: 9, cwd: '/home/grace/acme-api' });
  });
});

describe('opencode capture: a live database whose new rows are only in its -wal', () => {
  it('sees the -wal rows and changes no byte of the database, -wal or -shm', async () => {
    const db = copyDb(join(work, 'live'));
    const writer = new Database(db);
    try {
      writer.pragma('journal_mode = WAL');
      writer.pragma('wal_autocheckpoint = 0');
      const last = writer.prepare('SELECT id, time_created FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT 1').get(FAILING) as Json;
      const t = last.time_created + 1000;
      writer.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)').run('msg_ffffffffff01walonlymessage', FAILING, t, t, JSON.stringify({ role: 'user', time: { created: t } }));
      writer.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run('prt_ffffffffff01walonlypart00', 'msg_ffffffffff01walonlymessage', FAILING, t, t, JSON.stringify({ type: 'text', text: 'only in the wal' }));
      expect(existsSync(`${db}-wal`)).toBe(true);
      const hash = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
      const before = [db, `${db}-wal`, `${db}-shm`].map(hash);
      const { events } = await captureAll(opencode, locator(db, FAILING));
      closeReadConnections();
      expect(ofType(events, 'message.user').map((e) => p(e).content[0].text)).toContain('only in the wal');
      expect([db, `${db}-wal`, `${db}-shm`].map(hash)).toEqual(before);
    } finally {
      writer.close();
    }
  });
});

describe('opencode capture: JSON stores', () => {
  it('1.1.58 storage/: the same conversation as its export', async () => {
    const stored = await captureAll(opencode, locator(`${LEGACY}/storage`, LEGACY_SESSION));
    const exported = await captureAll(opencode, LEGACY_EXPORT);
    expect(stored.diagnostics).toEqual([]);
    expect(p(stored.events[0])).toMatchObject({ native_id: LEGACY_SESSION, version: '1.1.58', cwd: '/home/grace/acme-api' });
    expect(conversationView(stored.events)).toEqual(conversationView(exported.events));
    expect(ofType(stored.events, 'tool.call').length).toBeGreaterThan(0);
    // The data dir itself opens too (its storage/ folder, newest session).
    expect((await opencode.open(LEGACY)).native_id).toBe(LEGACY_SESSION);
  });

  it('public storage_v2: an aborted message, object-valued snapshot/cost, compaction and patch parts kept', async () => {
    const { events, diagnostics } = await captureAll(opencode, locator(PUBLIC_STORAGE, 's_stage0_large'));
    expect(diagnostics).toEqual([]);
    const keys = ofType(events, 'meta').map((e) => p(e).key);
    for (const key of ['opencode.part.compaction', 'opencode.part.patch', 'opencode.part.step-start', 'opencode.part.step-finish', 'opencode.part.file']) expect(keys, key).toContain(key);
    expect(JSON.stringify(ofType(events, 'meta').find((e) => p(e).key === 'opencode.part.step-start')!.payload)).toContain('Run command');
    const aborted = events.find((e) => p(e).message_extra?.error !== undefined);
    expect(p(aborted!).message_extra.error.name).toBe('MessageAbortedError');
    expect(p(ofType(events, 'tool.result')[0])).toMatchObject({ call_id: 'call_large_1', is_error: false });
    const small = await captureAll(opencode, locator(PUBLIC_STORAGE, 's_stage0_small'));
    // Parts in id order, as the client reads them (p_text_1 sorts before p_tool_1).
    expect(conversationView(small.events)).toEqual(['user: Hello', 'assistant: Found 2 files.', 'call: call_1']);
  });
});
