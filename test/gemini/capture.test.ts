// Golden tests of the Gemini CLI capture on every fixture (fixtures/gemini/README.md): event counts
// per type, each tool result once although the client stores it twice, ids as the model saw them,
// errors, thoughts, titles, notices; the legacy single-object `.json` file gives the same
// conversation as the JSONL file it was folded from (and a cursor sees only what changed); a
// `$rewindTo` makes a branch.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gemini } from '../../adapters/gemini/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll, captureRef, conversationView } from '../contract/testAdapter.js';
import { ALL, FAILING, FEATURE, INTERACTIVE, PUBLIC_V040 } from './support.js';

type Json = Record<string, any>;

function counts(events: SpEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) out[e.type] = (out[e.type] ?? 0) + 1;
  return out;
}
const of = (events: SpEvent[], type: string): Json[] => events.filter((e) => e.type === type).map((e) => e.payload as Json);

/** The client's own folding of a JSONL session (§2.3): last record per id wins, $set.messages replaces, $rewindTo cuts. */
function fold(path: string): { metadata: Json; messages: Json[] } {
  let metadata: Json = {};
  let messages: Json[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as Json;
    if (typeof r.sessionId === 'string' && typeof r.projectHash === 'string') metadata = { ...metadata, ...r };
    else if (typeof r.id === 'string') {
      const at = messages.findIndex((m) => m.id === r.id);
      if (at >= 0) messages[at] = r;
      else messages.push(r);
    } else if (r.$set) {
      const { messages: list, ...rest } = r.$set;
      metadata = { ...metadata, ...rest };
      if (Array.isArray(list)) messages = [...list];
    } else if (typeof r.$rewindTo === 'string') {
      const at = messages.findIndex((m) => m.id === r.$rewindTo);
      messages = at >= 0 ? messages.slice(0, at) : [];
    }
  }
  return { metadata, messages };
}

describe('gemini capture: golden counts per fixture', () => {
  const golden: Array<[string, Record<string, number>]> = [
    [FEATURE, { 'session.start': 1, meta: 25, 'message.user': 2, 'message.thinking': 2, 'message.assistant': 6, 'tool.call': 6, 'tool.result': 6 }],
    [FAILING, { 'session.start': 1, meta: 20, 'message.user': 2, 'message.thinking': 1, 'message.assistant': 4, 'tool.call': 3, 'tool.result': 3 }],
    [INTERACTIVE, { 'session.start': 1, meta: 9, 'message.user': 1, 'message.thinking': 1, 'message.assistant': 1, 'tool.call': 1, 'tool.result': 1 }],
    [PUBLIC_V040, { 'session.start': 1, meta: 1, 'message.user': 1, 'message.assistant': 1, 'tool.call': 1, 'tool.result': 1 }],
  ];
  for (const [file, expected] of golden) {
    it(file.split('/').pop()!, async () => {
      const { events, diagnostics } = await captureAll(gemini, file);
      expect(diagnostics).toEqual([]);
      expect(counts(events)).toEqual(expected);
    });
  }
  it('covers every fixture', () => expect(golden.map(([f]) => f).sort()).toEqual([...ALL].sort()));
});

describe('gemini capture: what the records carry', () => {
  it('feature: each call and result once, with the id the model saw; thoughts with subjects; the resume patch kept as meta', async () => {
    const { events } = await captureAll(gemini, FEATURE);
    const start = events[0].payload as Json;
    expect(start).toMatchObject({ native_id: '3222ee9e-f707-44c3-89b6-795ee9bd04fd', cwd: '/home/erin/acme-api', model: 'gemini-2.5-pro', kind: 'main', format: 'jsonl' });
    const calls = of(events, 'tool.call');
    expect(calls.map((c) => c.name)).toEqual(['write_todos', 'read_file', 'replace', 'write_file', 'run_shell_command', 'write_todos']);
    expect(calls[1]).toMatchObject({ call_id: 'read_file_1796017564480_0', native_call_id: 'read_file__read_file_1796017564480_0' });
    const results = of(events, 'tool.result');
    expect(results.map((r) => r.call_id)).toEqual(calls.map((c) => c.call_id));
    expect(results[4].content).toContain('# Subtest: remove');
    // The client's second copy of every result is noted, not emitted again.
    const dupes = events.filter((e) => e.type === 'meta' && (e.payload as Json).key === 'gemini.duplicate-results');
    expect(dupes.flatMap((e) => (e.payload as Json).value.call_ids)).toHaveLength(6);
    expect(of(events, 'message.thinking').map((t) => t.subject)).toEqual(['Planning the change', 'Editing']);
    expect(of(events, 'message.user').map((u) => u.content[0].text)).toEqual([
      'Add a remove(id) function to the todo routes with a test, then run the tests.',
      'Thanks. Summarise what you changed in one sentence.',
    ]);
    const sets = events.filter((e) => e.type === 'meta' && (e.payload as Json).key === 'gemini.set' && (e.payload as Json).value.messages);
    expect(sets.at(-1)!.payload).toMatchObject({ value: { messages: { replaced_with: expect.arrayContaining(['f81504c0-054f-4ff5-a990-94f1218874de']) } } });
    expect(events.some((e) => e.type === 'meta' && (e.payload as Json).key === 'gemini.session_context')).toBe(true);
    expect(events.filter((e) => e.parent_seq !== undefined)).toEqual([]);
  });

  it('failing: CJK text, a failing command (the client says success), a missing file (error), the summary as title', async () => {
    const { events } = await captureAll(gemini, FAILING);
    expect((events[0].payload as Json).title).toBe('Find out why npm run lint fails');
    expect(of(events, 'message.user')[0].content[0].text).toBe('请运行 lint 检查；如果失败，告诉我原因。');
    const [lint, missing] = of(events, 'tool.result');
    expect(lint.is_error).toBeUndefined();
    expect(lint.content).toContain('Exit Code: 1');
    expect(missing).toMatchObject({ is_error: true, content: 'File not found: /home/erin/acme-api/.eslintrc.json', structured: { status: 'error' } });
    expect(of(events, 'message.assistant').at(-1)!.content[0].text).toBe('好的，不做修改。');
  });

  it('interactive: the /chat save notice is meta with its text', async () => {
    const { events } = await captureAll(gemini, INTERACTIVE);
    const info = events.find((e) => e.type === 'meta' && (e.payload as Json).key === 'gemini.info')!;
    expect((info.payload as Json).value).toBe('Conversation checkpoint saved with tag: api-docs.');
  });

  it('legacy .json (one object): the same conversation as the JSONL it was folded from; a cursor sees only what changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-gemini-legacy-'));
    const { metadata, messages } = fold(FEATURE);
    const path = join(dir, 'session-2026-11-30T05-46-3222ee9e.json');
    const doc = { sessionId: metadata.sessionId, projectHash: metadata.projectHash, startTime: metadata.startTime, lastUpdated: metadata.lastUpdated, messages };
    writeFileSync(path, JSON.stringify(doc, null, 2));
    const jsonl = await captureAll(gemini, FEATURE);
    const legacy = await captureAll(gemini, path);
    expect(legacy.diagnostics).toEqual([]);
    expect((legacy.events[0].payload as Json)).toMatchObject({ native_id: metadata.sessionId, format: 'json', model: 'gemini-2.5-pro' });
    expect(conversationView(legacy.events)).toEqual(conversationView(jsonl.events));
    expect(of(legacy.events, 'tool.result')).toHaveLength(6);

    // The client rewrites the whole file: unchanged → nothing new; one more message → only its events.
    const ref = await gemini.open(path);
    const again = await captureRef(gemini, ref, { cursor: legacy.cursor });
    expect(again.events).toEqual([]);
    doc.messages.push({ id: 'extra-1', timestamp: '2026-11-30T06:00:00.000Z', type: 'user', content: [{ text: 'One more thing.' }] });
    writeFileSync(path, JSON.stringify(doc, null, 2));
    const grown = await captureRef(gemini, ref, { cursor: legacy.cursor });
    expect(grown.events.map((e) => e.type)).toEqual(['message.user']);
    expect(grown.events[0].seq).toBe(legacy.events.length);
  });

  it('$rewindTo: the next message continues from before the rewound one (a branch)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-gemini-rewind-'));
    const path = join(dir, 'session-2026-11-30T06-00-aaaaaaaa.jsonl');
    const lines = [
      { sessionId: 'aaaaaaaa-0000-4000-8000-000000000001', projectHash: 'x', startTime: '2026-11-30T06:00:00.000Z', kind: 'main' },
      { id: 'u1', type: 'user', content: [{ text: 'first' }] },
      { id: 'g1', type: 'gemini', content: 'one' },
      { id: 'u2', type: 'user', content: [{ text: 'abandoned' }] },
      { id: 'g2', type: 'gemini', content: 'two' },
      { $rewindTo: 'u2' },
      { id: 'u3', type: 'user', content: [{ text: 'instead' }] },
      { id: 'g3', type: 'gemini', content: 'three' },
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const { events } = await captureAll(gemini, path);
    const g1 = events.find((e) => e.type === 'message.assistant' && (e.payload as Json).message_id === 'g1')!;
    const u3 = events.find((e) => e.type === 'message.user' && (e.payload as Json).message_id === 'u3')!;
    expect(u3.parent_seq).toBe(g1.seq);
    const rewind = events.find((e) => e.type === 'meta' && (e.payload as Json).key === 'gemini.rewind')!;
    expect((rewind.payload as Json).value).toEqual({ target: 'u2', known: true });
  });

  it('compression ($set.messages with a new summary turn): the summary comes out as events and starts a new root', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-gemini-compress-'));
    const path = join(dir, 'session-2026-11-30T06-00-bbbbbbbb.jsonl');
    const lines = [
      { sessionId: 'bbbbbbbb-0000-4000-8000-000000000001', projectHash: 'x', startTime: '2026-11-30T06:00:00.000Z', kind: 'main' },
      { id: 'u1', type: 'user', content: [{ text: 'first' }] },
      { id: 'g1', type: 'gemini', content: 'one' },
      { $set: { messages: [{ id: 's1', type: 'user', content: [{ text: '<state_snapshot>the user asked for one thing</state_snapshot>' }] }, { id: 's2', type: 'gemini', content: 'Got it.' }] } },
      { id: 'u2', type: 'user', content: [{ text: 'next' }] },
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const { events } = await captureAll(gemini, path);
    const users = events.filter((e) => e.type === 'message.user');
    expect(users.map((e) => (e.payload as Json).content[0].text)).toEqual(['first', '<state_snapshot>the user asked for one thing</state_snapshot>', 'next']);
    expect(users[1].parent_seq).toBeNull();
    expect(users[2].parent_seq).toBeUndefined();
    const set = events.find((e) => e.type === 'meta' && (e.payload as Json).key === 'gemini.set')!;
    expect((set.payload as Json).value.messages.replaced_with).toEqual(['s1', 's2']);
  });
});
