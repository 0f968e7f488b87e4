// Golden capture of a public Cline task: the history a Cline CLI task (task folders in the format the
// VS Code extension writes, docs/formats/cline-tasks.md) wrote while building agentlogs' Cline
// support, committed there as a fixture (tomjnsn/agentlogs, MIT; fixtures/cline-vscode/README.md).
// Its tool calls are native `tool_use` blocks answered in text (`[read_file for '…'] Result:`), some
// headers holding `]` inside the command: every answered call must get its result.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { clineVscode } from '../../adapters/cline-vscode/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';

const TASK = new URL('../../fixtures/cline-vscode/public/agentlogs/saoudrizwan.claude-dev/tasks/1770913324799', import.meta.url).pathname;
const p = (e: SpEvent) => e.payload as Record<string, any>;
const kind = (e: SpEvent) => (e.type === 'meta' ? `meta:${String(p(e).key)}` : e.type);

describe('cline-vscode public recording (agentlogs Cline task)', () => {
  it('maps all 42 history messages: 38 native calls, 37 text-answered results, no diagnostic', async () => {
    const { events, diagnostics } = await captureAll(clineVscode, TASK);
    expect(diagnostics).toEqual([]);
    const history = JSON.parse(readFileSync(`${TASK}/api_conversation_history.json`, 'utf8')) as unknown[];
    expect(history).toHaveLength(42);
    const counts: Record<string, number> = {};
    for (const e of events) counts[kind(e)] = (counts[kind(e)] ?? 0) + 1;
    expect(counts).toEqual({ 'session.start': 1, 'message.user': 1, 'meta:cline-vscode.environment_details': 21, 'tool.call': 38, 'tool.result': 37, 'message.assistant': 1 });
    expect(p(events[0])).toMatchObject({ native_id: '1770913324799', model: 'claude-opus-4-6', task_metadata: { files_in_context: expect.any(Array) } });
    expect(p(events[1]).content[0].text).toContain('tell me abouth this repo');
  });

  it('pairs each text answer with its native call, by order and tool name, even with `]` in the command', async () => {
    const { events } = await captureAll(clineVscode, TASK);
    const calls = events.filter((e) => e.type === 'tool.call').map(p);
    const results = events.filter((e) => e.type === 'tool.result').map(p);
    // Every call but the last (the task ends waiting on it) is answered, in the order made.
    expect(results.map((r) => r.call_id)).toEqual(calls.slice(0, -1).map((c) => c.call_id));
    expect(results.map((r) => r.name)).toEqual(calls.slice(0, -1).map((c) => c.name));
    const jq = results.find((r) => calls.find((c) => c.call_id === r.call_id)?.input.command?.includes("jq '.[1].content[0]'"))!;
    expect(jq.content).toMatch(/^Command executed successfully \(exit code 0\)/);
    const failed = results.find((r) => String(r.content).startsWith('Command failed with exit code 1'))!;
    expect(failed.content).toContain('No such file or directory');
    // The completion's answer is told as the agent's message.
    expect(events.find((e) => e.type === 'message.assistant' && p(e).completion_of)).toBeDefined();
  });
});
