// The Auggie writer: what it writes (the client's own exchange shapes), never overwriting, and ids
// and paths from events treated as hostile data.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auggie } from '../../adapters/auggie/index.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { captureAll } from '../contract/testAdapter.js';
import { SessionBuilder, from } from '../support/canonical.js';
import { historyViolations } from '../support/mockAugment.js';
import { TOOLS, readDocument } from './support.js';

const root = mkdtempSync(join(tmpdir(), 'sp-auggie-write-'));
let n = 0;
const scratch = (): string => mkdtempSync(join(root, `${n++}-`));
afterAll(() => rmSync(root, { recursive: true, force: true }));
type Json = Record<string, any>;

/** An exchange as its node kinds and ids: what the client sends as history. */
const shape = (entry: Json): string[] => [
  ...entry.exchange.request_nodes.flatMap((n: Json) => (n.type === 0 ? [`text:${n.text_node.content}`] : n.type === 1 ? [`result:${n.tool_result_node.tool_use_id}:${n.tool_result_node.is_error}`] : [])),
  ...entry.exchange.response_nodes.map((n: Json) => (n.type === 0 ? `answer:${n.content}` : `use:${n.tool_use.tool_use_id}:${n.tool_use.tool_name}`)),
];

describe('auggie materialize', () => {
  it('rewrites a recorded session exchange for exchange, in a new private file, with the resume command', async () => {
    const home = scratch();
    const { events } = await captureAll(auggie, TOOLS);
    const losses: LossEntry[] = [];
    const result = await auggie.materialize!(from(events), { home, cwd: '/home/user/proj', onLoss: (l) => losses.push(l) });
    expect(result.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.session_id).not.toBe('4eda74e3-f534-4811-900d-a54c4e206d92');
    expect(result.path).toBe(join(home, 'sessions', `${result.session_id}.json`));
    expect(result.resume).toContain(`auggie --augment-cache-dir ${home} -r ${result.session_id}`);
    const doc = readDocument(result.path);
    const source = readDocument(TOOLS);
    expect(doc.chatHistory.map(shape)).toEqual(source.chatHistory.map(shape));
    expect(doc).toMatchObject({ sessionId: result.session_id, agentState: { modelId: '' } });
    expect(doc.rootTaskUuid).toBeUndefined();
    expect(doc.chatHistory.map((e: Json) => e.sequenceId)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(doc.chatHistory[0].exchange.request_message).toBe('Summarize notes.txt into summary.md');
    expect(doc.chatHistory[0].exchange.request_nodes.at(-1).ide_state_node.current_terminal.current_working_directory).toBe('/home/user/proj');
    expect(JSON.parse(doc.chatHistory[0].exchange.response_nodes[1].tool_use.input_json)).toEqual({ path: 'notes.txt', type: 'file' });
    expect(statSync(result.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'sessions')).mode & 0o777).toBe(0o700);
    expect(losses.filter((l) => l.action !== 'carried')).toEqual([]);
    // --same-id keeps the id; a second write of it is refused and changes nothing.
    const same = await auggie.materialize!(from(events), { home, cwd: home, sameId: true });
    expect(same.session_id).toBe('4eda74e3-f534-4811-900d-a54c4e206d92');
    const before = statSync(same.path).mtimeMs;
    await expect(auggie.materialize!(from(events), { home, cwd: home, sameId: true })).rejects.toBeInstanceOf(UserError);
    expect(statSync(same.path).mtimeMs).toBe(before);
  });

  it('a dry run writes nothing and shows the document', async () => {
    const home = scratch();
    const { events } = await captureAll(auggie, TOOLS);
    const lines: string[] = [];
    const result = await auggie.materialize!(from(events), { home, cwd: home, dryRun: true, onLine: (l) => lines.push(l) });
    expect(result.dry_run).toBe(true);
    expect(existsSync(join(home, 'sessions'))).toBe(false);
    expect(JSON.parse(lines.join('\n')).sessionId).toBe(result.session_id);
  });

  it('a native id that is not a UUID is refused with --same-id, and nothing is written', async () => {
    const home = scratch();
    for (const evil of ['../../escape', '4eda74e3-f534-4811-900d-a54c4e206d92/../../x', '/tmp/abs', '4eda74e3']) {
      const b = new SessionBuilder('auggie', 'sess_evil', { cwd: home, native_id: evil });
      b.user('hello');
      b.assistant('hi', 'msg_1');
      await expect(auggie.materialize!(from(b.events), { home, cwd: home, sameId: true })).rejects.toBeInstanceOf(UserError);
    }
    expect(existsSync(join(home, 'sessions'))).toBe(false);
    expect(readdirSync(root).some((name) => name.startsWith('escape'))).toBe(false);
  });

  it('a sessions folder that is a symlink out of the home is refused', async () => {
    const home = scratch();
    const elsewhere = scratch();
    mkdirSync(home, { recursive: true });
    symlinkSync(elsewhere, join(home, 'sessions'));
    const b = new SessionBuilder('claude', 'c1', { cwd: home });
    b.user('hello');
    await expect(auggie.materialize!(from(b.events), { home, cwd: home })).rejects.toThrow(/outside the home/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('from another agent: reasoning dropped, tool ids made valid, results open the next exchange, a stub for a call without one', async () => {
    const home = scratch();
    const b = new SessionBuilder('claude', 'sess_other', { cwd: home });
    b.user('Fix it.');
    b.thinking('Look first.');
    b.call('bad id!', 'Bash', { command: 'ls' }, 'msg_1');
    b.result('bad id!', 'a.txt');
    b.assistant('Found a.txt.', 'msg_2');
    b.call('toolu_2', 'Read', { file_path: 'a.txt' }, 'msg_3');
    b.user('Stop there.');
    b.assistant('Stopped.', 'msg_4');
    const losses: LossEntry[] = [];
    const result = await auggie.materialize!(from(b.events as SpEvent[]), { home, cwd: home, onLoss: (l) => losses.push(l) });
    const doc = readDocument(result.path);
    const use = doc.chatHistory[0].exchange.response_nodes.find((n: Json) => n.type === 5).tool_use;
    expect(use.tool_use_id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(doc.chatHistory.map(shape)).toEqual([
      ['text:Fix it.', `use:${use.tool_use_id}:Bash`],
      [`result:${use.tool_use_id}:false`, 'answer:Found a.txt.', 'use:toolu_2:Read'],
      // The unanswered call gets a stub result, in the same request as the next user text.
      ['result:toolu_2:true', 'text:Stop there.', 'answer:Stopped.'],
    ]);
    expect(losses.map((l) => l.code)).toEqual(expect.arrayContaining(['reasoning', 'tool-id', 'stub-result']));
    // Read back, the stub result comes before the user's next words, as in the request.
    const { events } = await captureAll(auggie, result.path);
    expect(events.filter((e) => e.origin?.native_seq === 3).map((e) => e.type)).toEqual(['tool.result', 'message.user', 'message.assistant']);
  });

  it('results still waiting at the end get one more exchange; an assistant first gets a stub request, reported', async () => {
    const home = scratch();
    const b = new SessionBuilder('codex', 'sess_tail', { cwd: home });
    b.assistant('Hello, I am ready.', 'msg_0');
    b.user('List files.');
    b.call('call_1', 'shell', { command: ['ls'] }, 'msg_1');
    b.result('call_1', 'a.txt');
    const losses: LossEntry[] = [];
    const result = await auggie.materialize!(from(b.events as SpEvent[]), { home, cwd: home, onLoss: (l) => losses.push(l) });
    const doc = readDocument(result.path);
    expect(doc.chatHistory.map(shape)).toEqual([['text:(The session continues from here.)', 'answer:Hello, I am ready.'], ['text:List files.', 'use:call_1:shell'], ['result:call_1:false']]);
    expect(historyViolations({ chat_history: doc.chatHistory.map((e: Json) => e.exchange), nodes: [{ id: 1, type: 0, text_node: { content: 'next' } }] })).toEqual([]);
    expect(losses.map((l) => l.code)).toContain('leading-assistant');
  });
});
