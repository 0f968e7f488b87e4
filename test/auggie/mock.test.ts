// The mock tenant's own checks (test/support/mockAugment.ts): the history rules it applies to what
// the real client sends would catch a broken history, and its scripted answers stream as the client
// reads them (text and tool-use nodes, the stop reason saying whether tool results are awaited).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunksOf, historyViolations, startMockAugment, type MockAugment } from '../support/mockAugment.js';
import { TOOLS, readDocument } from './support.js';

type Json = Record<string, any>;

let mock: MockAugment;
beforeAll(async () => {
  mock = await startMockAugment([[{ text: 'Looking.' }, { tool: { id: 't1', name: 'view', input: { path: 'a' } } }]]);
});
afterAll(async () => mock?.close());

const text = (content: string) => ({ id: 1, type: 0, text_node: { content } });
const result = (id: string) => ({ id: 1, type: 1, tool_result_node: { tool_use_id: id, content: 'ok', is_error: false } });
const use = (id: string) => ({ id: 0, type: 5, content: '', tool_use: { tool_use_id: id, tool_name: 'view', input_json: '{}' } });

describe('mock tenant', () => {
  it('the recorded history breaks no rule; an unanswered use, a stray result and an empty request do', () => {
    const history = (readDocument(TOOLS).chatHistory as Json[]).map((e) => e.exchange);
    expect(historyViolations({ chat_history: history, nodes: [text('next')] })).toEqual([]);
    expect(historyViolations({ chat_history: [{ request_nodes: [text('a')], response_nodes: [use('u1')] }], nodes: [text('next')] })).toEqual(['request 1: tool use u1 is not answered']);
    expect(historyViolations({ chat_history: [{ request_nodes: [text('a')], response_nodes: [] }], nodes: [result('zz')] })).toEqual(['request 1: tool result zz answers no tool use of the exchange before']);
    expect(historyViolations({ chat_history: [{ request_nodes: [{ id: 1, type: 4, ide_state_node: {} }], response_nodes: [] }], nodes: [text('b')] })).toEqual(['request 0: neither text nor tool results']);
  });

  it('answers the scripted turn, then the fallback, and records the bodies', async () => {
    const post = async (path: string, body: Json) => (await fetch(new URL(path, mock.url), { method: 'POST', body: JSON.stringify(body) })).text();
    const models = JSON.parse(await post('get-models', {}));
    expect(models.default_model).toBe(models.models[0].name);
    expect(JSON.parse(await post('agents/list-remote-tools', {}))).toEqual({ tools: [] });
    const first = (await post('chat-stream', { nodes: [text('hi')] })).trim().split('\n').map((l) => JSON.parse(l));
    expect(first).toEqual(chunksOf([{ text: 'Looking.' }, { tool: { id: 't1', name: 'view', input: { path: 'a' } } }]));
    expect(first.at(-1)).toMatchObject({ stop_reason: 3, nodes: [{ type: 5, tool_use: { tool_use_id: 't1', input_json: '{"path":"a"}' } }] });
    const second = (await post('chat-stream', { nodes: [result('t1')] })).trim().split('\n').map((l) => JSON.parse(l));
    expect(second).toEqual([{ text: 'OK', nodes: [{ id: 0, type: 0, content: 'OK' }], stop_reason: 1 }]);
    expect(mock.chats().map((c) => c.nodes[0].type)).toEqual([0, 1]);
  });
});
