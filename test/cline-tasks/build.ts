// Task folders of the Cline-family VS Code extensions, built from the format as the extensions'
// public source shows it (docs/formats/cline-tasks.md): the extensions cannot run here and their
// repositories hold no task folders to take, so these shapes are written by hand (fixtures/
// cline-vscode/README.md). Each builder writes one task folder under `<storage>/tasks/<id>/`.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = Record<string, unknown>;

export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const ENV = '<environment_details>\n# VSCode Visible Files\nsrc/app.ts\n\n# Current Time\n12/1/2026, 9:00:00 AM\n</environment_details>';

export interface TaskFiles {
  api?: unknown;
  ui?: unknown;
  metadata?: Json;
  historyItem?: Json;
  /** Seconds since the epoch for the files' mtime (orders discovery). */
  mtime?: number;
}

export function writeTask(storage: string, id: string, files: TaskFiles): string {
  const folder = join(storage, 'tasks', id);
  mkdirSync(folder, { recursive: true });
  const write = (name: string, value: unknown): void => {
    if (value === undefined) return;
    const path = join(folder, name);
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
    if (files.mtime !== undefined) utimesSync(path, files.mtime, files.mtime);
  };
  write('api_conversation_history.json', files.api);
  write('ui_messages.json', files.ui);
  write('task_metadata.json', files.metadata);
  write('history_item.json', files.historyItem);
  return join(folder, files.api !== undefined ? 'api_conversation_history.json' : 'ui_messages.json');
}

/** Cline's own index of tasks, `state/taskHistory.json` in the extension's storage. */
export function writeClineHistory(storage: string, items: Json[]): void {
  mkdirSync(join(storage, 'state'), { recursive: true });
  writeFileSync(join(storage, 'state', 'taskHistory.json'), JSON.stringify(items));
}

const T0 = 1764579600000; // 2025-12-01T09:00:00Z

/** Cline with native tool calls: read_file, a failing execute_command, thinking, attempt_completion; UI messages with costs and a checkpoint. */
export function clineNative(storage: string, id = String(T0)): string {
  const api = [
    { role: 'user', content: [{ type: 'text', text: '<task>\nFix the failing test in src/app.ts\n</task>' }, { type: 'text', text: ENV }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Let me read the file first.' }, { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'src/app.ts' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'export const add = (a, b) => a - b;' }, { type: 'text', text: ENV }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The operator is wrong.', signature: 'sig-1' },
        { type: 'tool_use', id: 'toolu_02', name: 'replace_in_file', input: { path: 'src/app.ts', diff: '------- SEARCH\na - b\n=======\na + b\n+++++++ REPLACE' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_02', content: [{ type: 'text', text: 'The content was successfully saved to src/app.ts.' }] }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_03', name: 'execute_command', input: { command: 'npm test', requires_approval: 'false' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_03', content: 'Command failed with exit code 1', is_error: true }] },
    // The completion's result is answered only when the user replies: a finished task ends on the call.
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_04', name: 'attempt_completion', input: { result: 'Fixed the operator in add.' } }] },
  ];
  const ui = [
    { ts: T0, type: 'say', say: 'task', text: 'Fix the failing test in src/app.ts', conversationHistoryIndex: -1 },
    { ts: T0 + 1000, type: 'say', say: 'api_req_started', text: JSON.stringify({ request: '…', tokensIn: 1200, tokensOut: 40, cost: 0.004 }), conversationHistoryIndex: -1 },
    { ts: T0 + 2000, type: 'say', say: 'text', text: 'Let me read the file first.', conversationHistoryIndex: 0 },
    { ts: T0 + 2500, type: 'say', say: 'tool', text: JSON.stringify({ tool: 'readFile', path: 'src/app.ts' }), conversationHistoryIndex: 0 },
    { ts: T0 + 3000, type: 'say', say: 'checkpoint_created', lastCheckpointHash: 'a1b2c3d4', conversationHistoryIndex: 2 },
    { ts: T0 + 4000, type: 'ask', ask: 'command', text: 'npm test', conversationHistoryIndex: 4 },
    { ts: T0 + 5000, type: 'say', say: 'completion_result', text: 'Fixed the operator in add.', conversationHistoryIndex: 6 },
    { ts: T0 + 5001, type: 'ask', ask: 'completion_result', text: '', conversationHistoryIndex: 6 },
  ];
  const metadata = { files_in_context: [{ path: 'src/app.ts', record_state: 'active', record_source: 'read_tool' }], model_usage: [{ ts: T0 + 1000, model_id: 'claude-sonnet-4-5', model_provider_id: 'anthropic', mode: 'act' }] };
  return writeTask(storage, id, { api, ui, metadata, mtime: T0 / 1000 + 10 });
}

/** Older Cline: tools as XML-style text and "[tool for …] Result:" answers, an image, and a resumed task. */
export function clineXml(storage: string, id = String(T0 - 86_400_000)): string {
  const api = [
    { role: 'user', content: [{ type: 'text', text: '<task>\nWhat does this screenshot show?\n</task>' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }, { type: 'text', text: ENV }] },
    { role: 'assistant', content: [{ type: 'text', text: '<thinking>I should look at the code.</thinking>\n\n<read_file>\n<path>src/app.ts</path>\n</read_file>' }] },
    { role: 'user', content: [{ type: 'text', text: "[read_file for 'src/app.ts'] Result:" }, { type: 'text', text: 'export const add = (a, b) => a + b;' }, { type: 'text', text: ENV }] },
    { role: 'user', content: [{ type: 'text', text: '[TASK RESUMPTION] This task was interrupted 2 hours ago.' }, { type: 'text', text: '<feedback>\nplease continue\n</feedback>' }] },
    { role: 'assistant', content: [{ type: 'text', text: '<attempt_completion>\n<result>\nIt shows the add function.\n</result>\n</attempt_completion>' }] },
  ];
  const ui = [
    { ts: T0 - 86_400_000, type: 'say', say: 'task', text: 'What does this screenshot show?', images: [`data:image/png;base64,${PNG}`], modelInfo: { providerId: 'anthropic', modelId: 'claude-3-5-sonnet-20241022', mode: 'act' } },
    { ts: T0 - 86_399_000, type: 'ask', ask: 'resume_task' },
    { ts: T0 - 86_398_000, type: 'say', say: 'user_feedback', text: 'please continue' },
  ];
  return writeTask(storage, id, { api, ui, mtime: T0 / 1000 - 86_400 });
}

/** A task whose API history is missing: only the UI messages (task with image, text, a question, feedback, an error, completion). */
export function uiOnly(storage: string, id = String(T0 - 3_600_000)): string {
  const ts = T0 - 3_600_000;
  const ui = [
    { ts, type: 'say', say: 'task', text: 'Rename the helper', images: [`data:image/png;base64,${PNG}`] },
    { ts: ts + 1000, type: 'say', say: 'text', text: 'Which helper do you mean?' },
    { ts: ts + 2000, type: 'ask', ask: 'followup', text: JSON.stringify({ question: 'The one in utils or in lib?', options: ['utils', 'lib'] }) },
    { ts: ts + 3000, type: 'say', say: 'user_feedback', text: 'utils' },
    { ts: ts + 4000, type: 'say', say: 'error', text: 'API request failed: 529 overloaded' },
    { ts: ts + 5000, type: 'say', say: 'reasoning', text: 'Renaming in utils.' },
    { ts: ts + 6000, type: 'say', say: 'completion_result', text: 'Renamed.' },
  ];
  return writeTask(storage, id, { ui, mtime: T0 / 1000 - 3_600 });
}

export const ROO_ID = '0193a5b2-7c1d-7e2f-8a3b-4c5d6e7f8a9b';
export const ROO_LEGACY_ID = '5f0e3c1a-2b4d-4e6f-8a9b-0c1d2e3f4a5b';

/** Roo's versioned file: AI SDK parts, a tool role, reasoning, a stand-alone encrypted reasoning item; history_item.json beside it. */
export function rooV2(storage: string, id = ROO_ID): string {
  const api = {
    version: 2,
    messages: [
      { role: 'user', content: [{ type: 'text', text: '<user_message>\nList the TODOs\n</user_message>' }, { type: 'text', text: ENV }], ts: T0 },
      { type: 'reasoning', encrypted_content: 'gAAAA-opaque', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Search for TODO.' }], ts: T0 + 500 },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'grep is enough' }, { type: 'tool-call', toolCallId: 'call_1', toolName: 'search_files', input: { path: '.', regex: 'TODO' } }], ts: T0 + 1000 },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'search_files', output: { type: 'text', value: 'src/a.ts:3: // TODO tidy' } }], ts: T0 + 2000 },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_2', toolName: 'execute_command', input: { command: 'false' } }], ts: T0 + 3000 },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_2', toolName: 'execute_command', output: { type: 'error-text', value: 'exit code 1' } }], ts: T0 + 4000 },
      { role: 'assistant', content: 'One TODO, in src/a.ts.', ts: T0 + 5000, isSummary: false },
    ],
  };
  const ui = [
    { ts: T0, type: 'say', say: 'text', text: 'List the TODOs' },
    { ts: T0 + 900, type: 'say', say: 'api_req_started', text: JSON.stringify({ tokensIn: 900, tokensOut: 30, cost: 0.002 }) },
    { ts: T0 + 5000, type: 'say', say: 'completion_result', text: 'One TODO, in src/a.ts.' },
  ];
  const historyItem = { id, number: 3, ts: T0 + 5000, task: 'List the TODOs', tokensIn: 900, tokensOut: 30, totalCost: 0.002, workspace: '/home/dev/project', mode: 'code', parentTaskId: ROO_LEGACY_ID };
  return writeTask(storage, id, { api, ui, historyItem, mtime: T0 / 1000 + 20 });
}

/** Roo (and Kilo) before the versioned file: an Anthropic array with `ts` on each message, apply_diff, new_task. */
export function rooLegacy(storage: string, id = ROO_LEGACY_ID): string {
  const api = [
    { role: 'user', content: [{ type: 'text', text: '<task>\nTidy src/a.ts\n</task>' }], ts: T0 - 10_000 },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_r1', name: 'apply_diff', input: { path: 'src/a.ts', diff: '<<<<<<< SEARCH\n:start_line:3\n-------\n// TODO tidy\n=======\n// tidy\n>>>>>>> REPLACE' } }],
      ts: T0 - 9_000,
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_r1', content: [{ type: 'text', text: 'Changes applied' }] }], ts: T0 - 8_000 },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_r2', name: 'new_task', input: { mode: 'code', message: 'List the TODOs' } }], ts: T0 - 7_000 },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_r2', content: 'Subtask finished' }], ts: T0 - 1_000 },
  ];
  const ui = [{ ts: T0 - 10_000, type: 'say', say: 'text', text: 'Tidy src/a.ts' }];
  const historyItem = { id, number: 2, ts: T0 - 1_000, task: 'Tidy src/a.ts', workspace: '/home/dev/project', mode: 'architect' };
  return writeTask(storage, id, { api, ui, historyItem, mtime: T0 / 1000 - 10 });
}
