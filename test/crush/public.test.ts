// Golden capture of a public Crush recording: the `.crush/crush.db` a developer of
// dbos-inc/dbos-transact-golang (MIT) committed with the project (fixtures/crush/README.md). An
// older schema than the one the tests build (no todos, is_summary_message or read_files), two real
// sessions with gpt-5. Every part of every row must come out, none dropped, none unknown.
import { describe, expect, it } from 'vitest';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { crush } from '../../adapters/crush/index.js';
import type { SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureRef } from '../contract/testAdapter.js';

const DATA_DIR = new URL('../../fixtures/crush/public/dbos-transact-golang/.crush', import.meta.url).pathname;
const MAIN = 'a20c5ed5-41d4-45f7-88eb-7ba0645f1341';
const SHORT = 'f306c145-4c83-492c-b575-739c30bbced4';
const p = (e: SpEvent) => e.payload as Record<string, any>;
const kind = (e: SpEvent) => (e.type === 'meta' ? `meta:${String(p(e).key)}` : e.type);

async function list(): Promise<SessionRef[]> {
  const refs: SessionRef[] = [];
  for await (const ref of crush.discover({ home: DATA_DIR, details: true })) refs.push(ref);
  return refs;
}

function tally(events: SpEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) out[kind(e)] = (out[kind(e)] ?? 0) + 1;
  return out;
}

/** Part types per session, straight from the database: what capture must account for. */
function partsInDb(session: string): Record<string, number> {
  const db = new Database(`file:${DATA_DIR}/crush.db?immutable=1`, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT m.role AS role, json_extract(j.value, '$.type') AS type, count(*) AS n FROM messages m, json_each(m.parts) j WHERE m.session_id = ? GROUP BY 1, 2").all(session) as Array<{ role: string; type: string; n: number }>;
    return Object.fromEntries(rows.map((r) => [`${r.role}.${r.type}`, r.n]));
  } finally {
    db.close();
  }
}

describe('crush public recording (dbos-transact-golang .crush/crush.db)', () => {
  it('lists both sessions, newest first, with the project as cwd', async () => {
    const refs = await list();
    expect(refs.map((r) => [r.native_id, r.title, r.messages, r.tool_calls, r.model])).toEqual([
      [SHORT, 'Instructions in CLI.md', 3, 1, 'gpt-5'],
      [MAIN, 'Create and Enhance CRUSH.md with Codebase Guidelines', 49, 40, 'gpt-5'],
    ]);
    expect(refs[0].cwd).toBe(dirname(DATA_DIR));
    // The client wrote seconds (strftime('%s')), not the milliseconds its schema comments claim.
    expect(refs[1].first_ts).toBe(1754709060);
  });

  it('captures every part of the long session: no diagnostic, counts equal to the rows', async () => {
    const ref = (await list()).find((r) => r.native_id === MAIN)!;
    const { events, diagnostics } = await captureRef(crush, ref);
    expect(diagnostics).toEqual([]);
    expect(partsInDb(MAIN)).toEqual({ 'user.text': 12, 'user.finish': 12, 'assistant.text': 30, 'assistant.tool_call': 40, 'assistant.finish': 37, 'tool.tool_result': 40, 'tool.finish': 29 });
    expect(tally(events)).toEqual({ 'session.start': 1, 'message.user': 12, 'message.assistant': 30, 'tool.call': 40, 'tool.result': 40, 'meta:crush.part.finish': 78, 'meta:crush.files': 1 });
    expect(p(events[0])).toMatchObject({ native_id: MAIN, model: 'gpt-5', provider: 'openai', extra: { message_count: 78, prompt_tokens: 127170, cost: expect.closeTo(3.2015, 4) } });
    const calls = events.filter((e) => e.type === 'tool.call').map(p);
    const results = events.filter((e) => e.type === 'tool.result').map(p);
    expect(new Set(results.map((r) => r.call_id))).toEqual(new Set(calls.map((c) => c.call_id)));
    expect(calls.every((c) => typeof c.input === 'object' && c.input !== null)).toBe(true);
    // The organisation-verification errors the model API gave are kept on their finish parts.
    const errors = events.filter((e) => kind(e) === 'meta:crush.part.finish' && p(e).raw.reason === 'error');
    expect(errors.length).toBeGreaterThan(0);
    expect(p(errors[0]).raw.details).toContain('Your organization must be verified to stream this model');
    expect(p(events.find((e) => kind(e) === 'meta:crush.files')!).value).toHaveLength(15);
  });

  it('captures the short session whole', async () => {
    const ref = (await list()).find((r) => r.native_id === SHORT)!;
    const { events, diagnostics } = await captureRef(crush, ref);
    expect(diagnostics).toEqual([]);
    expect(partsInDb(SHORT)).toEqual({ 'user.text': 1, 'user.finish': 1, 'assistant.text': 2, 'assistant.tool_call': 1, 'assistant.finish': 1, 'tool.tool_result': 1, 'tool.finish': 1 });
    expect(tally(events)).toEqual({ 'session.start': 1, 'message.user': 1, 'message.assistant': 2, 'tool.call': 1, 'tool.result': 1, 'meta:crush.part.finish': 3 });
    expect(p(events[1]).content[0].text).toContain('I have instructions for you in @CLI.md');
  });
});
