// VS Code chat sessions built from the format as the editor's source writes it
// (docs/formats/vscode-copilot.md; two real sessions are read in public.test.ts), as the editor cannot
// run here. Three shapes: an agent-mode session as a 1.109+ mutation log, an ask-mode session as a
// pre-1.109 flat file, and an empty-window session in the oldest shape (string message and response).
import { afterAll } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
afterAll(() => {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A fresh editor User folder, `<temp>/Code/User`, removed after the test file. */
export function scratchHome(): string {
  const root = mkdtempSync(join(tmpdir(), 'sp-vscode-copilot-'));
  made.push(root);
  const home = join(root, 'Code', 'User');
  mkdirSync(home, { recursive: true });
  return home;
}

export const PROJECT = '/home/dev/project';
export const AGENT_ID = '6f1c2a4e-9b3d-4e8f-a1c2-0d9e8f7a6b5c';
export const ASK_ID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
export const EMPTY_ID = 'c0ffee00-1111-4222-8333-444455556666';
const T0 = 1764579600000;

/** A workspace folder with its workspace.json naming `folderUri`. */
export function workspace(home: string, hash: string, folderUri: string): string {
  const dir = join(home, 'workspaceStorage', hash);
  mkdirSync(join(dir, 'chatSessions'), { recursive: true });
  writeFileSync(join(dir, 'workspace.json'), JSON.stringify({ folder: folderUri }));
  return join(dir, 'chatSessions');
}

function write(path: string, text: string, mtimeMs: number): string {
  writeFileSync(path, text);
  utimesSync(path, mtimeMs / 1000, mtimeMs / 1000);
  return path;
}

export function logLines(entries: unknown[]): string {
  return entries.map((e) => JSON.stringify(e)).join('\n') + '\n';
}

/** The agent-mode request: two tool-calling rounds (read_file, then run_in_terminal) and a final answer. */
export function agentRequest(): Record<string, unknown> {
  return {
    requestId: 'request_1',
    timestamp: T0 + 1000,
    message: { text: 'Fix the failing test in src/app.ts', parts: [{ kind: 'text', text: 'Fix the failing test in src/app.ts', range: { start: 0, endExclusive: 34 } }] },
    variableData: { variables: [{ id: 'file:///home/dev/project/src/app.ts', name: 'app.ts', kind: 'file' }] },
    agent: { id: 'github.copilot.editsAgent', extensionId: { value: 'GitHub.copilot-chat' } },
    modelId: 'copilot/claude-sonnet-4',
    response: [],
  };
}

export function agentResult(): Record<string, unknown> {
  return {
    timings: { firstProgress: 900, totalElapsed: 5200 },
    metadata: {
      toolCallRounds: [
        { id: 'round_1', response: 'Let me read the file.', toolInputRetry: 0, toolCalls: [{ id: 'toolu_01', name: 'read_file', arguments: '{"filePath":"/home/dev/project/src/app.ts","startLine":1,"endLine":40}' }], thinking: { id: 'th_1', text: 'The test imports add().' } },
        { id: 'round_2', response: '', toolInputRetry: 0, toolCalls: [{ id: 'toolu_02', name: 'run_in_terminal', arguments: '{"command":"npm test","explanation":"Run the tests","isBackground":false}' }] },
        { id: 'round_3', response: 'The test passes now.', toolInputRetry: 0, toolCalls: [] },
      ],
      toolCallResults: {
        toolu_01: { $mid: 20, content: [{ $mid: 21, value: 'export function add(a, b) { return a - b; }' }] },
        toolu_02: { $mid: 20, content: [{ $mid: 21, value: '1 passed' }] },
      },
      modelMessageId: 'msg_9',
      agentId: 'github.copilot.editsAgent',
    },
  };
}

/** An agent-mode session as the 1.109+ log: initial object, request pushed, then patched as it ran. */
export function agentLog(home: string): string {
  const dir = workspace(home, '3f9a0c1b2d4e5f60718293a4b5c6d7e8', 'file:///home/dev/project');
  const initial = { version: 3, sessionId: AGENT_ID, creationDate: T0, initialLocation: 'panel', responderUsername: 'GitHub Copilot', requests: [], inputState: { inputText: '', mode: { id: 'agent', kind: 'agent' } } };
  return write(
    join(dir, `${AGENT_ID}.jsonl`),
    logLines([
      { kind: 0, v: initial },
      { kind: 2, k: ['requests'], v: [agentRequest()] },
      { kind: 1, k: ['requests', 0, 'response'], v: [{ value: 'Let me read the file.' }, { kind: 'toolInvocationSerialized', toolCallId: 'inv-1', toolId: 'copilot_readFile', invocationMessage: { value: 'Reading app.ts' }, isConfirmed: true, isComplete: true }, { value: 'The test passes now.' }] },
      { kind: 1, k: ['requests', 0, 'result'], v: agentResult() },
      { kind: 1, k: ['requests', 0, 'modelState'], v: { value: 1, completedAt: T0 + 6200 } },
      { kind: 1, k: ['customTitle'], v: 'Fix failing test' },
    ]),
    T0 + 7000,
  );
}

/** An ask-mode session as a flat pre-1.109 file: every kind of response part the panel shows. */
export function askFlat(home: string): string {
  const dir = workspace(home, '11aa22bb33cc44dd55ee66ff77889900', 'file:///home/dev/other');
  const session = {
    version: 3,
    sessionId: ASK_ID,
    creationDate: T0 + 60000,
    lastMessageDate: T0 + 65000,
    requesterUsername: 'dev',
    responderUsername: 'GitHub Copilot',
    initialLocation: 'panel',
    requests: [
      {
        requestId: 'request_a',
        timestamp: T0 + 61000,
        message: { text: 'What does parse() return?', parts: [] },
        variableData: { variables: [] },
        responseId: 'response_a',
        modelId: 'copilot/gpt-4.1',
        response: [
          { kind: 'thinking', value: 'Look at parse.' },
          { value: 'It returns a ', supportThemeIcons: false },
          { kind: 'inlineReference', inlineReference: { scheme: 'file', path: '/home/dev/other/src/ast.ts' } },
          { value: ' node.\n\n```ts\nparse("x")\n```' },
          { kind: 'codeblockUri', uri: { scheme: 'file', path: '/home/dev/other/src/ast.ts' }, isEdit: false },
          { kind: 'toolInvocationSerialized', toolCallId: 'inv-9', toolId: 'copilot_searchCodebase', invocationMessage: { value: 'Searching' }, pastTenseMessage: { value: 'Searched for parse' }, isConfirmed: true, isComplete: true, resultDetails: [{ scheme: 'file', path: '/home/dev/other/src/ast.ts' }] },
          { kind: 'textEditGroup', uri: { scheme: 'file', path: '/home/dev/other/src/ast.ts' }, edits: [[{ text: 'x', range: { startLineNumber: 1, startColumn: 1, endLineNumber: 1, endColumn: 1 } }]], done: true },
          { kind: 'sp-future-part', data: 42 },
          { value: 'Done.' },
        ],
        result: { timings: { firstProgress: 300, totalElapsed: 900 }, errorDetails: { message: 'Rate limited' } },
        followups: [],
        isCanceled: false,
        vote: 1,
      },
    ],
  };
  return write(join(dir, `${ASK_ID}.json`), JSON.stringify(session, null, 2), T0 + 66000);
}

/** A window without a folder, in the oldest shape: the message and the response are plain strings. */
export function emptyWindow(home: string): string {
  const dir = join(home, 'globalStorage', 'emptyWindowChatSessions');
  mkdirSync(dir, { recursive: true });
  const session = { version: 1, sessionId: EMPTY_ID, creationDate: T0 - 60000, requesterUsername: 'dev', responderUsername: 'GitHub Copilot', requests: [{ message: 'hello', response: 'Hi! How can I help?' }] };
  return write(join(dir, `${EMPTY_ID}.json`), JSON.stringify(session), T0 - 50000);
}
