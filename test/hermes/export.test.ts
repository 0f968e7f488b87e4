// Hermes sessions outside a database: the per-session JSON logs of older Hermes versions (public
// fixtures) and `hermes sessions export` JSONL (built here from the corpus database in the shape
// docs/formats/hermes.md §9 describes). A session reads the same from an export as from the database.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hermes } from '../../adapters/hermes/index.js';
import { checkValidity } from '../../adapters/hermes/validity.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll, conversationView } from '../contract/testAdapter.js';
import { from } from '../support/canonical.js';
import { CORPUS_DB, HERMES, S1, S3_CHILD, S3_IN_PLACE, SESSIONS, locator, openFixture, readSession, tempDir } from './support.js';

const STAGE0 = `${HERMES}public/agent-sessions/Resources/Fixtures/stage0/agents/hermes/`;
const payload = (e: SpEvent) => e.payload as Record<string, any>;

/** The JSONL `hermes sessions export` writes: every sessions column, the prompt resolved, active messages decoded. */
function exportCorpus(): string {
  const db = openFixture(CORPUS_DB);
  const lines: string[] = [];
  for (const id of SESSIONS) {
    const session = db.prepare('SELECT s.*, COALESCE(p.prompt, s.system_prompt) AS system_prompt FROM sessions s LEFT JOIN system_prompts p ON p.hash = s.system_prompt_hash WHERE s.id = ?').get(id) as Record<string, unknown>;
    const messages = (db.prepare('SELECT * FROM messages WHERE session_id = ? AND active = 1 ORDER BY id').all(id) as Array<Record<string, any>>).map((m) => ({
      ...m,
      tool_calls: m.tool_calls ? JSON.parse(m.tool_calls) : null,
      reasoning_details: m.reasoning_details ? JSON.parse(m.reasoning_details) : null,
      display_metadata: m.display_metadata ? JSON.parse(m.display_metadata) : null,
    }));
    lines.push(JSON.stringify({ ...session, messages }));
  }
  db.close();
  const path = join(tempDir(), 'export.jsonl');
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/** The typed events of a capture, without the envelope parts that name where they were read. */
const typed = (events: SpEvent[]) =>
  // Lineage (session.fork) is not in an export line; every typed message and tool event is.
  events.filter((e) => !['session.start', 'session.end', 'session.fork', 'meta'].includes(e.type)).map((e) => ({ type: e.type, seq: e.seq, payload: e.payload, native_seq: e.origin?.native_seq }));

describe('hermes sessions export (JSONL)', () => {
  it('every corpus session reads the same from the export as from the database', async () => {
    const file = exportCorpus();
    for (const id of SESSIONS) {
      const fromDb = (await captureAll(hermes, locator(CORPUS_DB, id))).events;
      const fromExport = await captureAll(hermes, `${file}#${id}`);
      expect(fromExport.diagnostics).toEqual([]);
      const archived = fromDb.filter((e) => e.type === 'meta' && String(payload(e).key).startsWith('hermes.message.')).length;
      // The export holds active rows only: the database capture's archived metas shift its seqs.
      const shift = (list: ReturnType<typeof typed>) => list.map(({ seq: _seq, ...rest }) => rest);
      expect(shift(typed(fromExport.events)), id).toEqual(shift(typed(fromDb)));
      expect(conversationView(fromExport.events)).toEqual(conversationView(fromDb));
      const start = payload(fromExport.events[0]);
      expect(start).toMatchObject({ native_id: id, export_format: 'export', cwd: '/home/dave/acme-api', source: 'cli' });
      expect(start.system_prompt).toBe(payload(fromDb[0]).system_prompt);
      if (id === S3_IN_PLACE) expect(archived).toBe(49);
    }
    // A bare export path opens its first session; an unknown id says which it has.
    expect((await hermes.open(file)).native_id).toBe(SESSIONS[0]);
    await expect(hermes.open(`${file}#nope`)).rejects.toThrow(/no session "nope" in this export/);
  });

  it('a session from an export is written back as a valid Hermes session', async () => {
    const file = exportCorpus();
    const { events } = await captureAll(hermes, `${file}#${S3_CHILD}`);
    const result = await hermes.materialize!(from(events), { home: tempDir() });
    const { session, rows } = readSession(result.path, result.session_id);
    expect(checkValidity(rows as never, session).filter((r) => !r.ok)).toEqual([]);
    expect(rows).toHaveLength(22);
  });
});

describe('per-session JSON logs of older Hermes versions (public fixtures)', () => {
  it('small: a prompt and an answer; platform as the source, ISO times', async () => {
    const { events, diagnostics } = await captureAll(hermes, `${STAGE0}small.json`);
    expect(diagnostics).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'message.user', 'message.assistant']);
    expect(payload(events[0])).toMatchObject({ native_id: '20260429_hermes_small', source: 'cli', model: 'claude-sonnet-4-6', cwd: '/tmp/hermes-small', started: Date.parse('2026-04-29T20:00:00Z') / 1000, export_format: 'legacy-json' });
    expect(payload(events[2])).toMatchObject({ content: [{ type: 'text', text: 'This directory contains a small Hermes fixture.' }], stop_reason: 'stop' });
  });

  it('large: reasoning with Codex items, a shell call and its result, the session_meta marker', async () => {
    const { events } = await captureAll(hermes, `${STAGE0}large.json`);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'message.user', 'message.thinking', 'message.assistant', 'tool.call', 'tool.result', 'message.assistant', 'meta']);
    expect(payload(events[0])).toMatchObject({ source: 'telegram', cwd: '~/Repository/Codex-History', system_prompt: 'You are Hermes.' });
    expect(payload(events[2])).toMatchObject({ text: 'Need a shell lookup.', reasoning_content_same: true, codex_reasoning_items: [{ type: 'summary', text: 'Directory inspection' }] });
    expect(payload(events[4])).toMatchObject({ call_id: 'call_001', name: 'shell', input: { command: 'pwd' }, call_extra: { call_id: 'call_001', response_item_id: 'rs_001', type: 'function' } });
    expect(payload(events[5])).toMatchObject({ call_id: 'call_001', name: 'shell', content: '/Users/alexm/Repository/Codex-History', finish_reason: 'stop' });
    expect(payload(events[7]).key).toBe('hermes.message.session_meta');
  });

  it('schema_drift: fields of later versions kept, not dropped', async () => {
    const { events } = await captureAll(hermes, `${STAGE0}schema_drift.json`);
    expect(payload(events[0]).extra).toMatchObject({ conversation_tags: '["format-check"]' });
    expect(payload(events[1])).toMatchObject({ extra: { client_metadata: { surface: 'cli' } } });
    expect(payload(events.find((e) => e.type === 'tool.call')!)).toMatchObject({ call_id: 'call_drift', name: 'memory', call_extra: { extra: { latency_ms: 12 } } });
  });

  it('a JSON file that is not a session export is one line naming the file', async () => {
    const path = join(tempDir(), 'other.json');
    writeFileSync(path, '{"hello": "world"}');
    const err = await hermes.open(path).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(/not a Hermes session export/);
    expect(err.where).toBe(`${path}:1`);
  });
});

it('S1 through an export keeps its signed reasoning blocks verbatim', async () => {
  const { events } = await captureAll(hermes, `${exportCorpus()}#${S1}`);
  expect(events.filter((e) => e.type === 'message.thinking').every((e) => Array.isArray(payload(e).reasoning_details) && payload(e).signature)).toBe(true);
});
