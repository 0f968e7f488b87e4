// Golden capture of the one public OpenHands recording: a conversation folder the SDK persisted
// itself (its v1.49.1 compatibility fixture, fixtures/openhands/README.md), not one we wrote.
// Every event file must come out as canonical events, none dropped, none left unknown.
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openhands } from '../../adapters/openhands/index.js';
import { captureAll } from '../contract/testAdapter.js';
import { PUBLIC_CONV } from './support.js';

const payload = (e: { payload: unknown }) => e.payload as Record<string, unknown>;
const NATIVE_ID = '5db134a6233f4ff9b88fc4f3e1e07c66';

describe('openhands public recording (SDK v1.49.1 fixture)', () => {
  it('captures every event file: 12 files, no diagnostics, nothing unknown', async () => {
    const { events, diagnostics } = await captureAll(openhands, PUBLIC_CONV);
    expect(diagnostics).toEqual([]);
    expect(events.map((e) => (e.type === 'meta' ? `meta:${String(payload(e).key)}` : e.type))).toEqual([
      'session.start', 'meta:openhands.SystemPromptEvent', 'message.user',
      'tool.call', 'tool.result', // terminal
      'tool.call', 'tool.result', // file_editor view
      'tool.call', 'tool.result', // MCP read_file
      'tool.call', 'tool.result', // a tool that does not exist: AgentErrorEvent
      'tool.call', 'tool.result', // finish
    ]);
    // Each of the 12 files is read (native_seq 0..11), in order.
    const files = readdirSync(join(PUBLIC_CONV, 'events')).filter((n) => n.startsWith('event-'));
    expect(files).toHaveLength(12);
    const seqs = [...new Set(events.slice(1).map((e) => e.origin?.native_seq))];
    expect(seqs).toEqual(files.map((_, i) => i));
    expect(events.filter((e) => e.type === 'meta' && /unknown|malformed|unparseable/.test(String(payload(e).key)))).toEqual([]);
  });

  it('maps the recorded fields: state, calls and their results, the invalid call', async () => {
    const { events } = await captureAll(openhands, PUBLIC_CONV);
    // The folder is named after the SDK's test case; the id comes from base_state.json.
    expect(events[0].origin?.native_id).toBe(NATIVE_ID);
    expect(payload(events[0])).toMatchObject({ native_id: NATIVE_ID, cwd: '/fixture/workspace', model: 'test-model', state: { tools: ['terminal', 'file_editor'], execution_status: 'finished' } });
    // Naive timestamps with microseconds, read as UTC to the millisecond.
    expect(events[2].ts).toBe(Date.UTC(2026, 8, 23, 9, 42, 1, 578) / 1000);
    const calls = events.filter((e) => e.type === 'tool.call').map(payload);
    expect(calls.map((c) => [c.call_id, c.name, c.message_id])).toEqual([
      ['call_terminal', 'terminal', 'test-response-1'], ['call_file_editor', 'file_editor', 'test-response-2'],
      ['call_read_file', 'read_file', 'test-response-3'], ['call_no_such_tool', 'no_such_tool', 'test-response-4'],
      ['call_finish', 'finish', 'test-response-5'],
    ]);
    expect(calls[0]).toMatchObject({ input: { command: 'echo hello > notes.txt' }, action: { kind: 'TerminalAction' }, security_risk: 'UNKNOWN' });
    expect(calls[2]).toMatchObject({ input: { path: 'notes.txt' }, action: { kind: 'MCPToolAction', data: { path: 'notes.txt' } } });
    // The SDK leaves `action` out (exclude_none) when the call names no tool it has: marked invalid.
    expect(calls[3]).toMatchObject({ input: {}, invalid: true });
    const results = events.filter((e) => e.type === 'tool.result').map(payload);
    expect(results.map((r) => [r.call_id, r.is_error])).toEqual([['call_terminal', false], ['call_file_editor', false], ['call_read_file', false], ['call_no_such_tool', true], ['call_finish', false]]);
    expect(results[0]).toMatchObject({ observation: { exit_code: 0, kind: 'TerminalObservation', metadata: { working_dir: '/fixture/workspace' } } });
    expect(results[2].content).toEqual([{ type: 'text', text: "[Tool 'read_file' executed.]" }, { type: 'text', text: '' }]);
    expect(results[3]).toMatchObject({ content: expect.stringContaining("Tool 'no_such_tool' not found"), classification: { kind: 'agent_action', retryable: true } });
    // Empty thoughts (the scripted model said nothing besides its calls) make no assistant message.
    expect(events.some((e) => e.type === 'message.assistant')).toBe(false);
    // The conversation tree: every event names its parent, the file before it.
    for (let i = 3; i < events.length; i++) expect(payload(events[i]).parent_event_id, String(i)).toBe(payload(events[i - 1]).event_id);
  });
});
