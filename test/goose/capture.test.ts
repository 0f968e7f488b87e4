// What capture makes of Goose sessions (support.ts builds them from Goose's source): every block
// type mapped or kept, the compaction told apart, the legacy file read; and broken or hostile
// input: a corrupt database, a database of another program, ids that could be paths, symbolic
// links out of the home. Goose writes no file here, so there is nothing recorded to compare with.
import { describe, expect, it } from 'vitest';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_ROW_BYTES } from '../../adapters/goose/capture.js';
import { goose } from '../../adapters/goose/index.js';
import { formatLocator } from '../../adapters/goose/paths.js';
import type { SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { captureAll } from '../contract/testAdapter.js';
import { CWD_A, CWD_B, Database, LEGACY, S1, S2, buildHome, dbOf, tempDir, withDb } from './support.js';

const home = buildHome();
const db = dbOf(home);
const payload = (e: { payload: unknown }) => e.payload as Record<string, unknown>;

async function list(options: Parameters<typeof goose.discover>[0]): Promise<SessionRef[]> {
  const refs: SessionRef[] = [];
  for await (const ref of goose.discover(options)) refs.push(ref);
  return refs;
}

describe('goose capture', () => {
  it('maps a session with tool calls, results, an error, an unreadable call and thinking', async () => {
    const { events, diagnostics } = await captureAll(goose, formatLocator(db, S1));
    expect(diagnostics).toEqual([]);
    expect(events.map((e) => e.type)).toEqual([
      'session.start', 'message.user', 'message.assistant', 'tool.call', 'tool.result', 'message.thinking', 'message.assistant',
      'tool.call', 'tool.result', 'meta', 'tool.call', 'tool.result', 'message.assistant',
    ]);
    const start = payload(events[0]);
    expect(start).toMatchObject({ native_id: S1, cwd: CWD_A, title: 'Fix README typo', model: 'claude-sonnet-4-5', provider: 'anthropic', session_type: 'user', schema_version: 13 });
    expect(start.stats).toMatchObject({ total_tokens: 5200, accumulated_total_tokens: 9100 });
    expect(start.extension_data).toEqual({ 'todo.v0': { content: '- [x] fix typo' } });
    expect((start.extra as Record<string, unknown>).goose_mode).toBe('auto');
    expect(events[0].ts).toBe(Date.UTC(2026, 11, 1, 9) / 1000);

    const calls = events.filter((e) => e.type === 'tool.call').map(payload);
    expect(calls.map((c) => [c.call_id, c.name])).toEqual([['toolu_01', 'developer__shell'], ['toolu_02', 'developer__text_editor'], ['toolu_04', 'developer__shell']]);
    const results = events.filter((e) => e.type === 'tool.result').map(payload);
    // The current result shape ({content, isError}), the older bare list, and an error status.
    expect(results.map((r) => [r.call_id, r.is_error])).toEqual([['toolu_01', false], ['toolu_02', false], ['toolu_04', true]]);
    expect(results[1].content).toEqual([{ type: 'text', text: 'The file /work/project-a/README.md has been edited.' }]);
    expect(results[2].content).toBe('Execution failed: cat: missing.txt: No such file or directory');
    expect(payload(events[9])).toMatchObject({ key: 'goose.tool_request.invalid', raw: { id: 'toolu_03' } });
    expect(payload(events[5])).toMatchObject({ text: 'The typo is "teh".', signature: 'sig-abc', visibility: 'visible' });
    // The row id is the native seq of every event of the row; the thinking and text of row 4 share its message id.
    expect(events[5].origin?.native_seq).toBe(4);
    expect(payload(events[6]).message_id).toBe(payload(events[5]).message_id);
  });

  it('keeps the compaction: hidden history flagged, the marker as a boundary, the summary marked', async () => {
    const { events } = await captureAll(goose, formatLocator(db, S2));
    const user = events.filter((e) => e.type === 'message.user');
    expect(payload(user[0]).content).toEqual([{ type: 'text', text: 'What does this screenshot show?' }, { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' }]);
    expect(payload(user[0]).agent_visible).toBe(false);
    const summary = user.find((e) => payload(e).compact_summary === true)!;
    expect(payload(summary)).toMatchObject({ user_visible: false, content: [{ type: 'text', text: 'Summary: the user asked about a login form screenshot.' }] });
    expect(summary.actor).toBe('system');
    const metaKeys = events.filter((e) => e.type === 'meta').map((e) => payload(e).key);
    expect(metaKeys).toEqual(['goose.content.toolConfirmationRequest', 'goose.compact_boundary', 'goose.content.systemNotification']);
    expect(events.find((e) => e.type === 'message.thinking')!.payload).toMatchObject({ visibility: 'redacted', opaque: 'EuYBCkQYAiJA' });
  });

  it('reads a legacy .jsonl session: its metadata line and its messages', async () => {
    const { events, diagnostics } = await captureAll(goose, join(home, 'sessions', `${LEGACY}.jsonl`));
    expect(diagnostics).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'message.user', 'tool.call', 'tool.result']);
    expect(payload(events[0])).toMatchObject({ native_id: LEGACY, cwd: CWD_B, title: 'Old session', legacy: true });
    expect(events[1].ts).toBe(1736501400);
  });

  it('--raw carries each row as it is stored', async () => {
    const { events } = await captureAll(goose, formatLocator(db, S1), { raw: true });
    const row = JSON.parse(events[1].origin!.raw![0]) as Record<string, unknown>;
    expect(row).toMatchObject({ id: 1, session_id: S1, role: 'user' });
    expect(events[2].origin?.raw).toBeDefined();
    expect(events[3].origin?.raw).toBeUndefined(); // one row, one raw: on its first event
  });
});

describe('goose discovery', () => {
  it('lists the database sessions and the legacy file not yet imported, and filters by cwd', async () => {
    const all = await list({ home, details: true });
    expect(all.map((r) => r.native_id).sort()).toEqual([LEGACY, S1, S2].sort());
    const s1 = all.find((r) => r.native_id === S1)!;
    expect(s1).toMatchObject({ cwd: CWD_A, messages: 9, first_prompt: 'List the files and fix the typo in README.md', path: formatLocator(db, S1) });
    expect((await list({ home, cwd: CWD_B })).map((r) => r.native_id).sort()).toEqual([LEGACY, S2].sort());
    // A legacy file Goose already imported (same id in the database) is listed once, as the row.
    const dup = buildHome();
    writeFileSync(join(dup, 'sessions', `${S1}.jsonl`), '{"working_dir":"/elsewhere"}\n');
    expect((await list({ home: dup })).filter((r) => r.native_id === S1).map((r) => r.path)).toEqual([formatLocator(dbOf(dup), S1)]);
  });

  it('finds by id or prefix; refuses ids that could name a path', async () => {
    expect((await goose.find!(S2, { home })).path).toBe(formatLocator(db, S2));
    await expect(goose.find!('20261201', { home })).rejects.toThrow(/matches 2 sessions/);
    for (const bad of ['../../etc/passwd', '..', 'a/b', '']) await expect(goose.find!(bad, { home }), bad).rejects.toBeInstanceOf(UserError);
    await expect(goose.open(`${db}#../../../etc/passwd`)).rejects.toThrow(/not a Goose session id/);
    await expect(goose.open(`${db}#20991231_9`)).rejects.toThrow(/no session "20991231_9"/);
  });

  it('does not follow symbolic links out of the home', async () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.jsonl'), '{"working_dir":"/"}\n{"role":"user","created":1,"content":[{"type":"text","text":"outside"}]}\n');
    const linked = buildHome();
    symlinkSync(join(outside, 'secret.jsonl'), join(linked, 'sessions', '20250101_000000.jsonl'));
    const diagnostics: string[] = [];
    const refs = await list({ home: linked, onDiagnostic: (where, what) => diagnostics.push(`${where}: ${what}`) });
    expect(refs.map((r) => r.native_id)).not.toContain('20250101_000000');
    expect(diagnostics.join('\n')).toMatch(/20250101_000000\.jsonl: a symbolic link: not followed/);
    const dbLink = tempDir();
    mkdirSync(join(dbLink, 'sessions'));
    symlinkSync(db, join(dbLink, 'sessions', 'sessions.db'));
    await expect(list({ home: dbLink })).rejects.toThrow(/symbolic link/);
  });
});

describe('goose broken input', () => {
  it('a corrupt database is a user error naming the file, not a crash', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sessions'));
    writeFileSync(join(dir, 'sessions', 'sessions.db'), Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 0x5a)]));
    await expect(list({ home: dir })).rejects.toBeInstanceOf(UserError);
    await expect(goose.open(join(dir, 'sessions', 'sessions.db'))).rejects.toThrow(/cannot (open|read)/);
  });

  it('a database of another program is named as such', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sessions'));
    const other = new Database(join(dir, 'sessions', 'sessions.db'));
    other.exec('CREATE TABLE sessions (key TEXT); CREATE TABLE notes (body TEXT)');
    other.close();
    await expect(list({ home: dir })).rejects.toThrow(/not a Goose sessions database: table sessions lacks id, working_dir/);
  });

  it('a row whose content is not JSON is reported with its row and kept; the rest is captured', async () => {
    const copy = buildHome();
    const rowId = withDb(dbOf(copy), (h) => Number(h.prepare("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, 'user', '[{\"type\":\"text\",\"text\":\"trunc', 1764579700)").run(S1).lastInsertRowid));
    const { events, diagnostics } = await captureAll(goose, formatLocator(dbOf(copy), S1));
    expect(diagnostics).toEqual([{ where: `${formatLocator(dbOf(copy), S1)}:${rowId}`, what: expect.stringContaining('content_json is not JSON') }]);
    expect(events.at(-1)).toMatchObject({ type: 'meta', payload: { key: 'unparseable', text: '[{"type":"text","text":"trunc' } });
    expect(events.filter((e) => e.type === 'tool.call')).toHaveLength(3);
  });

  it('a row over the size bound is not read: a clear diagnostic and a meta with its size', async () => {
    const copy = buildHome();
    try {
      const bytes = MAX_ROW_BYTES + 1;
      // Built inside SQLite: the test spends no JS memory on it either.
      const rowId = withDb(dbOf(copy), (h) => Number(h.prepare("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, 'user', printf('%.*c', ?, 'x'), 1764579700)").run(S1, bytes).lastInsertRowid));
      const { events, diagnostics } = await captureAll(goose, formatLocator(dbOf(copy), S1));
      expect(diagnostics).toEqual([{ where: `${formatLocator(dbOf(copy), S1)}:${rowId}`, what: `content_json is ${bytes} bytes, over ${MAX_ROW_BYTES}: not read, kept as meta` }]);
      expect(events.at(-1)).toMatchObject({ type: 'meta', payload: { key: 'goose.message.too_large', bytes } });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('a legacy file with a cut-off line: file:line, the line kept, the rest read', async () => {
    const dir = tempDir();
    const path = join(dir, '20250102_000000.jsonl');
    writeFileSync(path, '{"working_dir":"/w"}\n{"role":"user","created":5,"content":[{"type":"text","text":"one"}]}\n{"role":"assis\n{"role":"assistant","created":6,"content":[{"type":"text","text":"two"}]}\n');
    const { events, diagnostics } = await captureAll(goose, path);
    expect(diagnostics.map((d) => d.where)).toEqual([`${path}:3`]);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'message.user', 'meta', 'message.assistant']);
  });

  it('refuses a cursor: sessions are read whole', async () => {
    const ref = await goose.open(formatLocator(db, S1));
    await expect(captureAll(goose, ref.path, { cursor: { version: 1, agent: 'goose', native_id: S1, sources: { x: { offset: 0, line: 0 } }, sessions: {} } })).rejects.toThrow();
  });
});
