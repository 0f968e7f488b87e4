// What capture makes of sessions built from the format (./build.ts): the agent-mode log replayed
// into the model's rounds, the flat ask-mode file's panel parts, the oldest string shape, and
// discovery across workspaces and the empty-window folder.
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vscodeCopilot } from '../../adapters/vscode-copilot/index.js';
import type { SessionRef } from '../../lib/adapter/interface.js';
import { captureAll } from '../contract/testAdapter.js';
import { AGENT_ID, ASK_ID, EMPTY_ID, PROJECT, agentLog, askFlat, emptyWindow, scratchHome } from './build.js';

const home = scratchHome();
const agent = agentLog(home);
const ask = askFlat(home);
const empty = emptyWindow(home);

type P = Record<string, unknown>;
const brief = (e: { type: string; payload: unknown }): string => {
  const p = e.payload as P;
  if (e.type === 'meta') return `meta ${String(p.key)}`;
  if (e.type === 'tool.call' || e.type === 'tool.result') return `${e.type} ${String(p.call_id)}`;
  return e.type;
};

describe('vscode-copilot capture', () => {
  it('replays the agent-mode log and tells the answer from the model\'s rounds', async () => {
    const { events, diagnostics } = await captureAll(vscodeCopilot, agent);
    expect(diagnostics).toEqual([]);
    expect(events.map(brief)).toEqual([
      'session.start',
      'message.user',
      'message.thinking',
      'message.assistant',
      'tool.call toolu_01',
      'tool.result toolu_01',
      'tool.call toolu_02',
      'tool.result toolu_02',
      'message.assistant',
      'meta vscode-copilot.response',
      'meta vscode-copilot.result',
    ]);
    const start = events[0].payload as P;
    expect(start).toMatchObject({ native_id: AGENT_ID, cwd: PROJECT, title: 'Fix failing test', model: 'copilot/claude-sonnet-4', format_version: 3, format: 'jsonl', storage: 'workspace' });
    expect((events[1].payload as P).content).toEqual([{ type: 'text', text: 'Fix the failing test in src/app.ts' }]);
    expect(((events[1].payload as P).extra as P).variableData).toBeDefined();
    expect((events[2].payload as P).text).toBe('The test imports add().');
    expect((events[2].payload as P).round_extra).toEqual({ toolInputRetry: 0 });
    expect(events[4].payload).toMatchObject({ name: 'read_file', input: { filePath: '/home/dev/project/src/app.ts', startLine: 1, endLine: 40 } });
    expect(events[5].payload).toMatchObject({ content: 'export function add(a, b) { return a - b; }' });
    expect(events[6].payload).toMatchObject({ name: 'run_in_terminal', input: { command: 'npm test' } });
    expect((events[8].payload as P).content).toEqual([{ type: 'text', text: 'The test passes now.' }]);
    const result = events[10].payload as P;
    expect((result.raw as P).timings).toEqual({ firstProgress: 900, totalElapsed: 5200 });
    expect(JSON.stringify(result.raw)).not.toContain('toolCallRounds');
    expect(events[1].ts).toBe(1764579601);
  });

  it('reads the flat ask-mode file\'s panel parts in order, unknown kinds as meta', async () => {
    const { events, diagnostics } = await captureAll(vscodeCopilot, ask);
    expect(diagnostics).toEqual([]);
    expect(events.map(brief)).toEqual([
      'session.start',
      'message.user',
      'message.thinking',
      'message.assistant',
      'meta vscode-copilot.codeblockUri',
      'tool.call inv-9',
      'tool.result inv-9',
      'meta vscode-copilot.textEditGroup',
      'meta vscode-copilot.sp-future-part',
      'message.assistant',
      'meta vscode-copilot.result',
    ]);
    expect((events[0].payload as P).cwd).toBe('/home/dev/other');
    expect((events[3].payload as P).content).toEqual([{ type: 'text', text: 'It returns a ast.ts node.\n\n```ts\nparse("x")\n```' }]);
    expect(events[3].payload).toMatchObject({ model: 'copilot/gpt-4.1', message_id: 'response_a' });
    expect(events[5].payload).toMatchObject({ name: 'copilot_searchCodebase' });
    expect(String((events[6].payload as P).content)).toContain('Searched for parse');
    expect((events[8].payload as P).raw).toEqual({ kind: 'sp-future-part', data: 42 });
    expect(events[10].payload).toMatchObject({ error: 'Rate limited' });
  });

  it('reads the oldest shape: a string message and a string response, no workspace', async () => {
    const { events } = await captureAll(vscodeCopilot, empty);
    expect(events.map(brief)).toEqual(['session.start', 'message.user', 'message.assistant']);
    expect(events[0].payload).toMatchObject({ native_id: EMPTY_ID, storage: 'empty-window', format_version: 1 });
    expect((events[0].payload as P).cwd).toBeUndefined();
    expect((events[2].payload as P).content).toEqual([{ type: 'text', text: 'Hi! How can I help?' }]);
  });

  it('discovers every session newest first, with cwd from workspace.json and --list details', async () => {
    const refs: SessionRef[] = [];
    for await (const ref of vscodeCopilot.discover({ home, details: true })) refs.push(ref);
    expect(refs.map((r) => r.native_id)).toEqual([ASK_ID, AGENT_ID, EMPTY_ID]);
    expect(refs[1]).toMatchObject({ cwd: PROJECT, title: 'Fix failing test', first_prompt: 'Fix the failing test in src/app.ts', tool_calls: 2, editor: 'Code' });
    const inProject: string[] = [];
    for await (const ref of vscodeCopilot.discover({ home, cwd: PROJECT })) inProject.push(ref.native_id);
    expect(inProject).toEqual([AGENT_ID]);
    expect((await vscodeCopilot.find!('0a1b2c', { home })).native_id).toBe(ASK_ID);
  });

  it('reads the log when a session has both a .jsonl and a .json file', async () => {
    const other = scratchHome();
    const log = agentLog(other);
    writeFileSync(log.replace(/\.jsonl$/, '.json'), JSON.stringify({ version: 3, sessionId: AGENT_ID, requests: [] }));
    const refs: SessionRef[] = [];
    for await (const ref of vscodeCopilot.discover({ home: other })) refs.push(ref);
    expect(refs.map((r) => r.path)).toEqual([join(log)]);
  });
});

describe('vscode-copilot capture of unfinished and empty sessions', () => {
  it('gives a tool invocation still running a call without a result, and an empty log only its start', async () => {
    const home = scratchHome();
    const chats = join(home, 'globalStorage', 'emptyWindowChatSessions');
    mkdirSync(chats, { recursive: true });
    const running = join(chats, 'running-1.json');
    writeFileSync(running, JSON.stringify({ version: 3, sessionId: 'running-1', requests: [{ requestId: 'r', message: { text: 'go' }, response: [{ kind: 'toolInvocationSerialized', toolCallId: 'inv-1', toolId: 'copilot_runInTerminal', toolSpecificData: { kind: 'terminal', commandLine: { original: 'make' } }, isComplete: false }] }] }));
    const { events } = await captureAll(vscodeCopilot, running);
    expect(events.map(brief)).toEqual(['session.start', 'message.user', 'tool.call inv-1']);
    expect((events[2].payload as P).input).toEqual({ kind: 'terminal', commandLine: { original: 'make' } });
    const empty = join(chats, 'empty-1.jsonl');
    writeFileSync(empty, '');
    const captured = await captureAll(vscodeCopilot, empty);
    expect(captured.events.map((e) => e.type)).toEqual(['session.start']);
    expect(captured.diagnostics.map((d) => d.where)).toEqual([`${empty}:1`]);
  });
});
