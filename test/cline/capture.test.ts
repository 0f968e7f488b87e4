// Golden tests of the Cline CLI capture on the recorded sessions: counts checked against the native
// file read independently here, and the fields a resume needs.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cline } from '../../adapters/cline/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { captureAll } from '../contract/testAdapter.js';
import { HOME, READ, SUMMARY, copySession, readDocument } from './support.js';

type Json = Record<string, any>;
const ofType = (events: SpEvent[], type: string) => events.filter((e) => e.type === type);
const p = (e: SpEvent): Json => e.payload as Json;

describe('cline capture: recorded sessions', () => {
  it('the two-prompt session: every message accounted for, calls and results paired, the wrapper taken off', async () => {
    const native = readDocument(SUMMARY).messages as Json[];
    const { events, diagnostics } = await captureAll(cline, SUMMARY);
    expect(diagnostics).toEqual([]);
    expect(p(events[0])).toMatchObject({ native_id: '1796190077287_76d81', cwd: '/home/user/proj', model: 'claude-sonnet-4-5', provider: 'anthropic', version: '3.0.65', title: 'Summarize notes.txt into summary.md' });
    expect(typeof p(events[0]).system_prompt).toBe('string');
    const seqs = new Set(events.map((e) => e.origin?.native_seq));
    for (let i = 1; i <= native.length; i += 1) expect(seqs.has(i), `message ${i}`).toBe(true);
    expect(ofType(events, 'message.user').map((e) => p(e).content[0].text)).toEqual(['Summarize notes.txt into summary.md', 'Thanks, that is all']);
    expect(ofType(events, 'message.user').map((e) => p(e).user_input_mode)).toEqual(['act', 'act']);
    const uses = native.filter((m) => m.role === 'assistant').flatMap((m) => m.content.filter((b: Json) => b.type === 'tool_use'));
    expect(ofType(events, 'tool.call').map((e) => [p(e).call_id, p(e).name])).toEqual(uses.map((b: Json) => [b.id, b.name]));
    expect(ofType(events, 'tool.call').map((e) => p(e).name)).toEqual(['read_files', 'run_commands', 'editor']);
    expect(ofType(events, 'tool.result').map((e) => p(e).call_id)).toEqual(uses.map((b: Json) => b.id));
    // List contents are joined to their result text; the editor's JSON string stays as it is.
    const results = ofType(events, 'tool.result').map((e) => p(e));
    expect(results[0].content).toBe('1 | hello from notes');
    expect(results[1].content).toBe('notes.txt\n');
    expect(results[2].content).toContain('File created successfully');
    expect(results.every((r) => r.is_error === false)).toBe(true);
    expect(ofType(events, 'message.assistant').map((e) => p(e).model)).toEqual(Array(4).fill('claude-sonnet-4-5'));
    expect(ofType(events, 'meta')).toEqual([]);
  });

  it('the one-prompt session and the home listing with details', async () => {
    const { events } = await captureAll(cline, READ);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'message.user', 'message.assistant', 'tool.call', 'tool.result', 'message.assistant']);
    const refs = [];
    for await (const ref of cline.discover({ home: HOME, details: true })) refs.push(ref);
    expect(refs.map((r) => [r.native_id, r.messages, r.tool_calls, r.first_prompt])).toEqual(
      expect.arrayContaining([
        ['1796189508652_gbs95', 3, 1, 'Read notes.txt and tell me what it says'],
        ['1796190077287_76d81', 6, 3, 'Summarize notes.txt into summary.md'],
      ]),
    );
    // open() takes the folder, the messages file or the manifest.
    const folder = join(HOME, 'data/sessions/1796189508652_gbs95');
    for (const path of [folder, READ, join(folder, '1796189508652_gbs95.json')]) expect((await cline.open(path)).path).toBe(READ);
    expect((await cline.find!('17961900', { home: HOME })).native_id).toBe('1796190077287_76d81');
  });

  it('hostile input: a file that is not JSON, messages that are not a list, blocks of unknown types', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-cline-capture-'));
    try {
      const path = copySession(READ, dir);
      writeFileSync(path, '{"messages": [');
      await expect(captureAll(cline, path)).rejects.toBeInstanceOf(UserError);
      writeFileSync(path, JSON.stringify({ messages: { role: 'user' } }));
      await expect(captureAll(cline, path)).rejects.toThrow(/not a list/);
      const doc = readDocument(READ);
      doc.messages[1].content.push({ type: 'future_block', value: 42 });
      doc.messages.push({ role: 'assistant', content: [{ type: 'tool_use', name: 'editor' }] });
      writeFileSync(path, JSON.stringify(doc));
      const { events, diagnostics } = await captureAll(cline, path);
      expect(diagnostics).toEqual([]);
      const metas = ofType(events, 'meta').map((e) => p(e));
      expect(metas.map((m) => m.key)).toEqual(['cline.block.future_block', 'cline.block.tool_use']);
      expect(metas[0].raw).toEqual({ type: 'future_block', value: 42 });
      // Bytes that are not UTF-8 inside a text: read as U+FFFD, reported with file:line.
      const text = readFileSync(READ);
      const at = text.indexOf('hello from notes');
      writeFileSync(path, Buffer.concat([text.subarray(0, at), Buffer.from([0xc3, 0x28]), text.subarray(at)]));
      const line = text.subarray(0, at).toString('utf8').split('\n').length;
      const damaged = await captureAll(cline, path);
      expect(damaged.diagnostics).toEqual([{ where: `${path}:${line}`, what: expect.stringContaining('not valid UTF-8') }]);
      expect(JSON.stringify(damaged.events)).toContain('\ufffd(hello from notes');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
