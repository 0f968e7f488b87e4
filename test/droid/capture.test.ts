// Golden tests of the Droid capture on the corpus session (recorded by droid 0.225 against the mock
// model): counts checked against the native file read independently here, the fields a resume needs,
// and hostile input (a bad line, a file without session_start) survived with file:line diagnostics.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { droid } from '../../adapters/droid/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { HOME, SESSION, SESSION_ID, THINKING, THINKING_ID } from './support.js';

type Json = Record<string, any>;
const records = (path: string): Json[] => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Json);
const ofType = (events: SpEvent[], type: string) => events.filter((e) => e.type === type);
const p = (e: SpEvent): Json => e.payload as Json;

describe('droid capture: corpus session', () => {
  it('every line gives events; calls, results and prompts as in the file', async () => {
    const native = records(SESSION);
    const { events, diagnostics } = await captureAll(droid, SESSION);
    expect(diagnostics).toEqual([]);
    expect(events[0].type).toBe('session.start');
    expect(p(events[0])).toMatchObject({ native_id: SESSION_ID, cwd: '/home/judy/acme-api', title: 'Check the greeting in src/hello.js and write down what is wrong', format_version: 2 });
    const lines = new Set(events.map((e) => e.origin?.native_seq));
    for (let i = 1; i <= native.length; i += 1) expect(lines.has(i), `line ${i}`).toBe(true);
    const blocks = (role: string, type: string) => native.filter((r) => r.type === 'message' && r.message.role === role).flatMap((r) => r.message.content.filter((b: Json) => b.type === type));
    expect(ofType(events, 'tool.call').map((e) => [p(e).call_id, p(e).name])).toEqual(blocks('assistant', 'tool_use').map((b) => [b.id, b.name]));
    expect(ofType(events, 'tool.call').map((e) => p(e).name)).toEqual(['Read', 'Read', 'LS', 'Create', 'Execute', 'Grep']);
    expect(ofType(events, 'tool.result').map((e) => p(e).call_id)).toEqual(blocks('user', 'tool_result').map((b) => b.tool_use_id));
    // The README that does not exist: the one failing result, its error text kept.
    const failed = ofType(events, 'tool.result').filter((e) => p(e).is_error);
    expect(failed.map((e) => p(e).name)).toEqual(['Read']);
    expect(p(failed[0]).content).toMatch(/ENOENT/);
    // Two prompts (the second from `droid exec -s`); the client's llm_only context is meta, not a prompt.
    expect(ofType(events, 'message.user').map((e) => p(e).content[0].text)).toEqual(['Check the greeting in src/hello.js and write down what is wrong', 'Where else does it appear?']);
    const metas = ofType(events, 'meta').map((e) => p(e).key);
    expect(metas.filter((k) => k === 'droid.context')).toHaveLength(1);
    expect(metas.filter((k) => k === 'droid.agent_turn_outcome')).toHaveLength(2);
    expect(ofType(events, 'message.assistant').map((e) => p(e).model)).toEqual(Array(5).fill('custom:Mock-0'));
    expect(ofType(events, 'message.assistant').at(-1)!.payload).toMatchObject({ content: [{ type: 'text', text: 'It appears once, in src/hello.js.' }] });
  });

  it('the signed thinking block: text, signature and the client\'s own fields kept; the Edit with its diff result', async () => {
    const { events, diagnostics } = await captureAll(droid, THINKING);
    expect(diagnostics).toEqual([]);
    const thinking = ofType(events, 'message.thinking');
    expect(thinking).toHaveLength(1);
    expect(p(thinking[0])).toEqual({ text: 'The typo is in the string literal; one edit fixes it.', visibility: 'visible', provider: 'anthropic', signature: 'mock-signature-0', extra: { signatureProvider: 'anthropic', durationMs: 0 }, message_extra: { reasoningEffort: 'none' }, model: 'custom:Mock-0' });
    // Thinking comes first, then the text, then the call, as in the record.
    const line = thinking[0].origin?.native_seq;
    expect(events.filter((e) => e.origin?.native_seq === line).map((e) => e.type)).toEqual(['message.thinking', 'message.assistant', 'tool.call']);
    const edit = ofType(events, 'tool.call').find((e) => p(e).name === 'Edit')!;
    expect(p(edit).input).toEqual({ file_path: '/home/judy/acme-api/src/hello.js', old_str: 'helo', new_str: 'hello' });
    const result = ofType(events, 'tool.result').find((e) => p(e).call_id === p(edit).call_id)!;
    expect(JSON.parse(p(result).content as string)).toMatchObject({ success: true, file_path: '/home/judy/acme-api/src/hello.js' });
  });

  it('discover lists the session with cwd, title and counts', async () => {
    const refs = [];
    for await (const ref of droid.discover({ home: HOME, details: true })) refs.push(ref);
    expect(refs.map((r) => r.native_id).sort()).toEqual([THINKING_ID, SESSION_ID]);
    expect(refs.find((r) => r.native_id === SESSION_ID)).toMatchObject({ native_id: SESSION_ID, cwd: '/home/judy/acme-api', messages: 9, tool_calls: 6, model: 'custom:Mock-0' });
    expect((await droid.find!('f9c0', { home: HOME })).path).toMatch(new RegExp(`${SESSION_ID}\\.jsonl$`));
  });

  it('a bad line, an unknown record and a block type it does not know: file:line, kept as meta, the rest read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-droid-capture-'));
    try {
      const lines = readFileSync(SESSION, 'utf8').split('\n').filter((l) => l !== '');
      const extra = [
        '{"type":"message","id":"x1","timestamp":"2026-12-02T05:33:00.000Z","message":{"role":"assistant","content":[{"type":"server_tool_use","id":"s1"},{"type":"text","text":"after"}]}}',
        '{not json',
        '{"type":"todo_state","todos":[]}',
        '{"type":"message","id":"x2","message":{"role":"user","content":[{"type":"tool_result","content":"no id"}]}}',
      ];
      const path = join(dir, `${SESSION_ID}.jsonl`);
      writeFileSync(path, [...lines, ...extra].join('\n') + '\n');
      const { events, diagnostics } = await captureAll(droid, path);
      expect(diagnostics.map((d) => d.where)).toEqual([`${path}:${lines.length + 2}`]);
      const metas = ofType(events, 'meta').map((e) => p(e).key);
      expect(metas).toEqual(expect.arrayContaining(['droid.unknown-blocks', 'unparseable', 'droid.todo_state', 'droid.tool-result-without-call']));
      expect(p(ofType(events, 'message.assistant').at(-1)!).content).toEqual([{ type: 'text', text: 'after' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a file whose line 1 is not session_start: one diagnostic, a made-up start, the messages read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-droid-capture-'));
    try {
      const lines = readFileSync(SESSION, 'utf8').split('\n').filter((l) => l !== '');
      const path = join(dir, `${SESSION_ID}.jsonl`);
      writeFileSync(path, lines.slice(1).join('\n') + '\n');
      const { events, diagnostics } = await captureAll(droid, path);
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0].where).toBe(`${path}:1`);
      expect(p(events[0])).toMatchObject({ native_id: SESSION_ID, header: false });
      expect(ofType(events, 'tool.call')).toHaveLength(6);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
