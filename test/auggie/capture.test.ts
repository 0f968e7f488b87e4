// Golden tests of the Auggie capture on the sessions the real client recorded: counts checked
// against the native file read independently here, the fields a resume needs, and hostile files.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auggie } from '../../adapters/auggie/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { captureAll } from '../contract/testAdapter.js';
import { CHAT, HOME, TOOLS, copySession, readDocument } from './support.js';

type Json = Record<string, any>;
const ofType = (events: SpEvent[], type: string) => events.filter((e) => e.type === type);
const p = (e: SpEvent): Json => e.payload as Json;

describe('auggie capture: recorded sessions', () => {
  it('the tool session: every exchange accounted for, calls and results paired, the error result kept', async () => {
    const native = readDocument(TOOLS).chatHistory as Json[];
    const { events, diagnostics } = await captureAll(auggie, TOOLS);
    expect(diagnostics).toEqual([]);
    expect(p(events[0])).toMatchObject({ native_id: '4eda74e3-f534-4811-900d-a54c4e206d92', cwd: '/home/user/proj', root_task_uuid: '86c7c91c-4764-4704-9cb0-52e3dd3a5b58' });
    expect(p(events[0]).root_task).toMatchObject({ uuid: '86c7c91c-4764-4704-9cb0-52e3dd3a5b58', name: 'Current Task List' });
    expect(p(events[0]).header.agentState).toMatchObject({ userEmail: 'user@example.com' });
    const seqs = new Set(events.map((e) => e.origin?.native_seq));
    for (let i = 1; i <= native.length; i += 1) expect(seqs.has(i), `exchange ${i}`).toBe(true);
    expect(ofType(events, 'message.user').map((e) => p(e).content[0].text)).toEqual(['Summarize notes.txt into summary.md', 'Is there a missing.txt?']);
    const uses = native.flatMap((e) => e.exchange.response_nodes.filter((n: Json) => n.type === 5).map((n: Json) => n.tool_use));
    expect(ofType(events, 'tool.call').map((e) => [p(e).call_id, p(e).name])).toEqual(uses.map((u: Json) => [u.tool_use_id, u.tool_name]));
    expect(ofType(events, 'tool.call').map((e) => p(e).name)).toEqual(['view', 'launch-process', 'save-file', 'str-replace-editor', 'view']);
    expect(p(ofType(events, 'tool.call')[0]).input).toEqual({ path: 'notes.txt', type: 'file' });
    const results = ofType(events, 'tool.result').map((e) => p(e));
    expect(results.map((r) => r.call_id)).toEqual(uses.map((u: Json) => u.tool_use_id));
    expect(results[0].content).toContain('hello from notes');
    expect(results.map((r) => r.is_error)).toEqual([false, false, false, false, true]);
    expect(results[4].content).toBe('File not found: missing.txt');
    // Each result comes after its call (the next exchange carries it).
    const at = (type: string, id: string) => events.findIndex((e) => e.type === type && p(e).call_id === id);
    for (const u of uses) expect(at('tool.result', u.tool_use_id)).toBeGreaterThan(at('tool.call', u.tool_use_id));
    expect(ofType(events, 'message.assistant').map((e) => p(e).content[0].text)).toEqual(['Let me read the notes first.', 'Writing the summary.', 'summary.md now summarizes notes.txt.', 'There is no missing.txt.']);
    // The entry fields and the IDE state ride on each exchange's first event; nothing is meta.
    const firsts = native.map((_, i) => events.find((e) => e.origin?.native_seq === i + 1)!);
    expect(firsts.map((e) => p(e).exchange_fields.sequenceId)).toEqual(native.map((e) => e.sequenceId));
    expect(firsts.map((e) => p(e).request_id)).toEqual(native.map((e) => e.exchange.request_id));
    expect(firsts.every((e) => p(e).ide_state.current_terminal.current_working_directory === '/home/user/proj')).toBe(true);
    expect(ofType(events, 'meta')).toEqual([]);
    // Times never go backwards.
    for (let i = 1; i < events.length; i += 1) expect(events[i].ts).toBeGreaterThanOrEqual(events[i - 1].ts);
  });

  it('the text session, and the home listing with details, open and find', async () => {
    const { events } = await captureAll(auggie, CHAT);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'message.user', 'message.assistant', 'message.user', 'message.assistant']);
    expect(p(events[4]).content[0].text).toBe("Each record carries its predecessor's hash.");
    const refs = [];
    for await (const ref of auggie.discover({ home: HOME, details: true })) refs.push(ref);
    expect(refs.map((r) => [r.native_id, r.messages, r.tool_calls, r.first_prompt, r.cwd])).toEqual(
      expect.arrayContaining([
        ['81688f41-374d-4f8d-81d7-af76c775919a', 4, 0, 'What is a hash chain? One sentence.', '/home/user/proj'],
        ['4eda74e3-f534-4811-900d-a54c4e206d92', 6, 5, 'Summarize notes.txt into summary.md', '/home/user/proj'],
      ]),
    );
    expect(refs).toHaveLength(2);
    expect((await auggie.open(CHAT)).native_id).toBe('81688f41-374d-4f8d-81d7-af76c775919a');
    expect((await auggie.find!('4eda', { home: HOME })).path).toBe(TOOLS);
  });
});

describe('auggie capture: hostile and broken input', () => {
  const scratch = () => mkdtempSync(join(tmpdir(), 'sp-auggie-capture-'));

  it('a file that is not JSON or whose history is not a list is refused; unknown nodes are meta with the node', async () => {
    const dir = scratch();
    try {
      const path = copySession(CHAT, dir);
      writeFileSync(path, '{"chatHistory": [');
      await expect(captureAll(auggie, path)).rejects.toBeInstanceOf(UserError);
      writeFileSync(path, JSON.stringify({ chatHistory: { exchange: {} } }));
      await expect(captureAll(auggie, path)).rejects.toThrow(/not a list/);
      const doc = readDocument(CHAT);
      doc.chatHistory[0].exchange.request_nodes.push({ id: 9, type: 2, image_node: { image_data: 'AAAA', format: 1 } });
      doc.chatHistory[0].exchange.response_nodes.push({ id: 9, type: 42, future: true });
      doc.chatHistory[1].exchange.response_nodes.push({ id: 9, type: 5, tool_use: { tool_name: 'view' } });
      doc.chatHistory.push({ exchange: { request_nodes: [], response_nodes: [] } });
      doc.chatHistory[0].exchange.response_nodes[0].future_field = 'kept';
      writeFileSync(path, JSON.stringify(doc));
      const { events, diagnostics } = await captureAll(auggie, path);
      expect(diagnostics).toEqual([]);
      const metas = ofType(events, 'meta').map((e) => p(e));
      expect(metas.map((m) => m.key)).toEqual(['auggie.request-node.2', 'auggie.response-node.42', 'auggie.response-node.5', 'auggie.empty-exchange']);
      expect(metas[1].raw).toEqual({ id: 9, type: 42, future: true });
      // A field a typed node does not map is kept with its event.
      expect(p(ofType(events, 'message.assistant')[0]).node_extra).toEqual([{ future_field: 'kept' }]);
      expect(ofType(events, 'message.user').every((e) => p(e).node_extra === undefined)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an input_json that is not JSON stays text; thinking nodes become thinking; bad UTF-8 is reported with file:line', async () => {
    const dir = scratch();
    try {
      const path = copySession(TOOLS, dir);
      const doc = readDocument(TOOLS);
      doc.chatHistory[0].exchange.response_nodes[1].tool_use.input_json = '{not json';
      doc.chatHistory[0].exchange.response_nodes.unshift({ id: 7, type: 8, thinking: { summary: 'Reading first.', encrypted_content: 'opaque-bytes' } });
      writeFileSync(path, JSON.stringify(doc, null, 2));
      const { events } = await captureAll(auggie, path);
      expect(p(ofType(events, 'tool.call')[0]).input).toBe('{not json');
      expect(p(ofType(events, 'message.thinking')[0])).toMatchObject({ text: 'Reading first.', visibility: 'summary', opaque: 'opaque-bytes' });
      const text = readFileSync(CHAT);
      const at = text.lastIndexOf('Shorter, please.');
      writeFileSync(path, Buffer.concat([text.subarray(0, at), Buffer.from([0xc3, 0x28]), text.subarray(at)]));
      const line = text.subarray(0, at).toString('utf8').split('\n').length;
      const damaged = await captureAll(auggie, path);
      expect(damaged.diagnostics).toEqual([{ where: `${path}:${line}`, what: expect.stringContaining('not valid UTF-8') }]);
      expect(JSON.stringify(damaged.events)).toContain('\ufffd(Shorter, please.');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a rootTaskUuid never chooses a path: a traversal is not followed, a symlinked task file is not read', async () => {
    const dir = scratch();
    try {
      writeFileSync(join(dir, 'secret'), JSON.stringify({ secret: 'SP-SECRET-OUTSIDE' }));
      const path = copySession(CHAT, dir);
      const doc = readDocument(CHAT);
      for (const evil of ['../../secret', '../secret', '/etc/passwd', `${dir}/secret`]) {
        writeFileSync(path, JSON.stringify({ ...doc, rootTaskUuid: evil }));
        const { events } = await captureAll(auggie, path);
        expect(p(events[0]).root_task_uuid).toBe(evil);
        expect(p(events[0]).root_task).toBeUndefined();
        expect(JSON.stringify(events)).not.toContain('SP-SECRET-OUTSIDE');
      }
      const id = '11111111-2222-4333-8444-555555555555';
      mkdirSync(join(dir, 'task-storage', 'tasks'), { recursive: true });
      symlinkSync(join(dir, 'secret'), join(dir, 'task-storage', 'tasks', id));
      writeFileSync(path, JSON.stringify({ ...doc, rootTaskUuid: id }));
      const { events } = await captureAll(auggie, path);
      expect(p(events[0]).root_task).toBeUndefined();
      expect(JSON.stringify(events)).not.toContain('SP-SECRET-OUTSIDE');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('discovery lists only files named by a session id', async () => {
    const dir = scratch();
    try {
      copySession(CHAT, dir);
      writeFileSync(join(dir, 'sessions', 'notes.json'), '{}');
      writeFileSync(join(dir, 'sessions', '.hidden.json'), '{}');
      mkdirSync(join(dir, 'sessions', '11111111-2222-4333-8444-555555555555.json'));
      const refs = [];
      for await (const ref of auggie.discover({ home: dir })) refs.push(ref.native_id);
      expect(refs).toEqual(['81688f41-374d-4f8d-81d7-af76c775919a']);
      await expect(async () => {
        for await (const _ of auggie.discover({ home: join(dir, 'missing') })) void _;
      }).rejects.toThrow(/cannot read the Auggie sessions folder/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
