// Golden tests of the Continue CLI capture on the recorded sessions: counts checked against the native
// file read independently here, the index entry, and hostile input (broken files, ids and links that
// would lead out of the home).
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { continueCli } from '../../adapters/continue/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { captureAll } from '../contract/testAdapter.js';
import { HOME, READ, SUMMARY, copySession, readDocument } from './support.js';

type Json = Record<string, any>;
const ofType = (events: SpEvent[], type: string) => events.filter((e) => e.type === type);
const p = (e: SpEvent): Json => e.payload as Json;

describe('continue capture: recorded sessions', () => {
  it('the resumed two-prompt session: every item accounted for, calls and results paired, failures marked', async () => {
    const native = readDocument(SUMMARY).history as Json[];
    const { events, diagnostics } = await captureAll(continueCli, SUMMARY);
    expect(diagnostics).toEqual([]);
    expect(p(events[0])).toMatchObject({ native_id: '8423ddad-9e4b-4db6-b258-7339d2cd6a68', cwd: '/home/user/proj', model: 'gpt-4o-mini', title: 'Untitled Session' });
    expect(p(events[0]).index_entry).toMatchObject({ dateCreated: '1796202907976', messageCount: 8 });
    expect(events[0].ts).toBe(1796202907.976);
    const seqs = new Set(events.map((e) => e.origin?.native_seq));
    for (let i = 1; i <= native.length; i += 1) expect(seqs.has(i), `item ${i}`).toBe(true);
    expect(ofType(events, 'message.user').map((e) => p(e).content[0].text)).toEqual(['Summarize notes.txt into summary.md', 'Now fix the summary']);
    const calls = native.flatMap((h) => h.message.toolCalls ?? []);
    expect(ofType(events, 'tool.call').map((e) => [p(e).call_id, p(e).name])).toEqual(calls.map((c: Json) => [c.id, c.function.name]));
    expect(ofType(events, 'tool.call').map((e) => p(e).name)).toEqual(['Write', 'Edit', 'Read', 'Search', 'Read', 'MultiEdit', 'List']);
    expect(p(ofType(events, 'tool.call')[5]).input).toEqual({ file_path: 'summary.md', edits: [{ old_string: 'hello', new_string: 'hello from notes' }] });
    const results = ofType(events, 'tool.result').map((e) => p(e));
    expect(results.map((r) => r.call_id)).toEqual(calls.map((c: Json) => c.id));
    expect(results.map((r) => r.is_error)).toEqual([false, true, true, true, false, false, false]);
    expect(results[1]).toMatchObject({ content: 'Tool Edit not found', status: 'errored' });
    expect(results[2].content).toBe('Error executing tool Read: File does not exist: missing.txt');
    expect(results[0].content).toBe('Successfully created file: summary.md');
    // Text and a call in one item: one message id, the text first.
    const first = events.filter((e) => e.origin?.native_seq === 2).map((e) => [e.type, p(e).message_id]);
    expect(first).toEqual([['message.assistant', 'item-2'], ['tool.call', 'item-2'], ['tool.result', undefined]]);
    expect(p(ofType(events, 'message.assistant')[0])).toMatchObject({ content: [{ type: 'text', text: 'I will write the summary.' }], model: 'gpt-4o-mini' });
    expect(ofType(events, 'meta')).toEqual([]);
  });

  it('the other session and the home listing with details; open and find', async () => {
    const { events } = await captureAll(continueCli, READ);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'message.user', 'tool.call', 'tool.result', 'tool.call', 'tool.result', 'message.assistant', 'message.user', 'message.assistant']);
    // An answer that is only a call: its model and usage ride on the call.
    expect(p(ofType(events, 'tool.call')[0])).toMatchObject({ name: 'Read', input: { filepath: 'notes.txt' }, model: 'gpt-4o-mini' });
    expect(p(ofType(events, 'tool.result')[0]).content).toBe('Content of notes.txt:\nhello from notes\n');
    const refs = [];
    for await (const ref of continueCli.discover({ home: HOME, details: true })) refs.push(ref);
    expect(refs.map((r) => [r.native_id, r.messages, r.tool_calls, r.first_prompt, r.cwd]).sort()).toEqual([
      ['8423ddad-9e4b-4db6-b258-7339d2cd6a68', 10, 7, 'Summarize notes.txt into summary.md', '/home/user/proj'],
      ['f4014728-8397-421d-a703-82dd1dbc16ec', 6, 2, 'Read notes.txt and list the folder', '/home/user/proj'],
    ]);
    expect((await continueCli.open(READ)).native_id).toBe('f4014728-8397-421d-a703-82dd1dbc16ec');
    expect((await continueCli.find!('8423', { home: HOME })).path).toBe(SUMMARY);
  });

  it('hostile input: a truncated file, a history that is not a list, items and parts of unknown kinds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-continue-capture-'));
    try {
      const path = copySession(READ, dir);
      const text = readFileSync(READ, 'utf8');
      writeFileSync(path, text.slice(0, Math.floor(text.length / 2)));
      await expect(captureAll(continueCli, path)).rejects.toBeInstanceOf(UserError);
      await expect(captureAll(continueCli, path)).rejects.toThrow(/not a Continue session file/);
      writeFileSync(path, JSON.stringify({ sessionId: 'x', history: { message: {} } }));
      await expect(captureAll(continueCli, path)).rejects.toThrow(/not a list/);
      const doc = readDocument(READ);
      doc.history[0].message.content = [{ type: 'text', text: 'look' }, { type: 'future_part', value: 42 }];
      doc.history.push({ message: { role: 'system', content: 'sys' } });
      doc.history.push({ message: { role: 'assistant', content: '', toolCalls: [{ type: 'function', function: { name: 'Bash', arguments: '{' } }] } });
      doc.history.push(42);
      writeFileSync(path, JSON.stringify(doc));
      const { events, diagnostics } = await captureAll(continueCli, path);
      expect(diagnostics).toEqual([{ where: `${path}:${doc.history.length}`, what: expect.stringContaining('no message object') }]);
      const metas = ofType(events, 'meta').map((e) => p(e));
      expect(metas.map((m) => m.key)).toEqual(['continue.part.future_part', 'continue.system', 'continue.tool-call-without-id', 'continue.unparseable']);
      expect(metas[0].raw).toEqual({ type: 'future_part', value: 42 });
      expect(p(ofType(events, 'message.user')[0]).content).toEqual([{ type: 'text', text: 'look' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('discover lists no file through a symlink, and find takes no id that climbs out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-continue-discover-'));
    try {
      const home = join(dir, 'home');
      const outside = join(dir, 'outside');
      mkdirSync(outside, { recursive: true });
      copySession(READ, home);
      writeFileSync(join(outside, 'secret.json'), JSON.stringify({ sessionId: 'secret', history: [{ message: { role: 'user', content: 'secret' } }] }));
      symlinkSync(join(outside, 'secret.json'), join(home, 'sessions', 'aaaaaaaa-0000-4000-8000-000000000000.json'));
      // A session file the index does not name is listed too (`cn --resume` and `--fork` load it), its cwd from the file.
      const unindexed = { ...readDocument(SUMMARY), sessionId: 'bbbbbbbb-0000-4000-8000-000000000000', workspaceDirectory: '/home/user/other' };
      writeFileSync(join(home, 'sessions', 'bbbbbbbb-0000-4000-8000-000000000000.json'), JSON.stringify(unindexed));
      const refs = [];
      for await (const ref of continueCli.discover({ home })) refs.push([ref.native_id, ref.cwd]);
      expect(refs.sort()).toEqual([['bbbbbbbb-0000-4000-8000-000000000000', '/home/user/other'], ['f4014728-8397-421d-a703-82dd1dbc16ec', '/home/user/proj']]);
      for (const evil of ['../outside/secret', 'aaaaaaaa-0000-4000-8000-000000000000', '../../etc/passwd']) {
        await expect(continueCli.find!(evil, { home })).rejects.toThrow(/no Continue session/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
