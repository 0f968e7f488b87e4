// Golden capture of Cline VS Code task folders built from the format (test/cline-tasks/build.ts):
// what each native record becomes, in order, with UI messages placed by their history index.
import { describe, expect, it } from 'vitest';
import { clineVscode } from '../../adapters/cline-vscode/index.js';
import { clineNative, clineXml, uiOnly, writeClineHistory } from '../cline-tasks/build.js';
import { scratchStorage } from '../cline-tasks/support.js';
import { view } from '../cline-tasks/view.js';
import { captureAll } from '../contract/testAdapter.js';

const storage = scratchStorage('cline-vscode-golden', 'saoudrizwan.claude-dev');
const NATIVE = clineNative(storage);
const XML = clineXml(storage);
const UI_ONLY = uiOnly(storage);
writeClineHistory(storage, [{ id: '1764579600000', ts: 1764579605000, task: 'Fix the failing test in src/app.ts', cwdOnTaskInitialization: '/home/dev/project', totalCost: 0.004 }]);

describe('cline-vscode capture', () => {
  it('native tool calls: the API history is the conversation, UI messages are meta after the message they followed', async () => {
    const { events, diagnostics } = await captureAll(clineVscode, NATIVE);
    expect(diagnostics).toEqual([]);
    expect(events.map(view)).toEqual([
      'session.start',
      'meta@ui1 cline-vscode.ui.say.task',
      'meta@ui2 cline-vscode.ui.say.api_req_started',
      'message.user@api1 Fix the failing test in src/app.ts',
      'meta@api1 cline-vscode.environment_details',
      'meta@ui3 cline-vscode.ui.say.text',
      'meta@ui4 cline-vscode.ui.say.tool',
      'message.assistant@api2 Let me read the file first.',
      'tool.call@api2 toolu_01 read_file {"path":"src/app.ts"}',
      'tool.result@api3 toolu_01 export const add = (a, b) => a - b;',
      'meta@api3 cline-vscode.environment_details',
      'checkpoint@ui5 a1b2c3d4',
      'message.thinking@api4 visible The operator is wrong.',
      'tool.call@api4 toolu_02 replace_in_file {"path":"src/app.ts","diff":"------- SEARCH\\na - b\\n=======\\na + b\\n+++++++ REPLACE"}',
      'tool.result@api5 toolu_02 The content was successfully saved to src/app.ts.',
      'meta@ui6 cline-vscode.ui.ask.command',
      'tool.call@api6 toolu_03 execute_command {"command":"npm test","requires_approval":"false"}',
      'tool.result@api7 toolu_03 error Command failed with exit code 1',
      'meta@ui7 cline-vscode.ui.say.completion_result',
      'meta@ui8 cline-vscode.ui.ask.completion_result',
      'tool.call@api8 toolu_04 attempt_completion {"result":"Fixed the operator in add."}',
      'message.assistant@api8 Fixed the operator in add.',
    ]);
    const start = events[0].payload as Record<string, any>;
    expect(start).toMatchObject({ native_id: '1764579600000', cwd: '/home/dev/project', title: 'Fix the failing test in src/app.ts', model: 'claude-sonnet-4-5', extension: 'saoudrizwan.claude-dev', editor: 'Code' });
    expect(start.history_item.totalCost).toBe(0.004);
    expect(start.task_metadata.files_in_context[0].path).toBe('src/app.ts');
    // The wrapper is gone from the text but named; the thinking keeps its signature; UI times reach the events.
    expect(events[3].payload).toMatchObject({ wrappers: ['task'] });
    expect((events[12].payload as Record<string, unknown>).signature).toBe('sig-1');
    expect(events[1].ts).toBe(1764579600);
    expect(events.every((e) => e.agent === 'cline-vscode')).toBe(true);
  });

  it('older versions: XML-style tool text becomes calls and their results; an image; a resumed task', async () => {
    const { events, diagnostics } = await captureAll(clineVscode, XML);
    expect(diagnostics).toEqual([]);
    expect(events.map(view)).toEqual([
      'session.start',
      'message.user@api1 What does this screenshot show? | [image image/png]',
      'meta@api1 cline-vscode.environment_details',
      'message.thinking@api2 visible I should look at the code.',
      'tool.call@api2 1764493200000-2-text-1 read_file {"path":"src/app.ts"}',
      'tool.result@api3 1764493200000-2-text-1 export const add = (a, b) => a + b;',
      'meta@api3 cline-vscode.environment_details',
      'message.user@api4 [TASK RESUMPTION] This task was interrupted 2 hours ago. | please continue',
      'tool.call@api5 1764493200000-5-text-1 attempt_completion {"result":"It shows the add function."}',
      'message.assistant@api5 It shows the add function.',
      // No history index and no times in the API history: the UI messages follow the conversation.
      'meta@ui1 cline-vscode.ui.say.task',
      'meta@ui2 cline-vscode.ui.ask.resume_task',
      'meta@ui3 cline-vscode.ui.say.user_feedback',
    ]);
    expect((events[4].payload as Record<string, unknown>).extra).toEqual({ written_as: 'text' });
    // No task metadata: the model comes from the UI message that names one.
    expect((events[0].payload as Record<string, unknown>).model).toBe('claude-3-5-sonnet-20241022');
  });

  it('a task with only UI messages is read from them: task with image, text, question, feedback, reasoning, completion', async () => {
    const { events, diagnostics } = await captureAll(clineVscode, UI_ONLY);
    expect(diagnostics).toEqual([]);
    expect(events.map(view)).toEqual([
      'session.start',
      'message.user@ui1 Rename the helper | [image image/png]',
      'message.assistant@ui2 Which helper do you mean?',
      'message.assistant@ui3 The one in utils or in lib?',
      'message.user@ui4 utils',
      'meta@ui5 cline-vscode.ui.say.error',
      'message.thinking@ui6 visible Renaming in utils.',
      'message.assistant@ui7 Renamed.',
    ]);
  });

  it('keeps the raw record with --raw, on the first event of each record only', async () => {
    const { events } = await captureAll(clineVscode, NATIVE, { raw: true });
    const call = events.find((e) => e.type === 'tool.call' && (e.payload as Record<string, unknown>).call_id === 'toolu_01')!;
    const text = events.find((e) => e.type === 'message.assistant' && e.origin?.native_seq === 2)!;
    expect(JSON.parse(text.origin!.raw![0]).content[1].id).toBe('toolu_01');
    expect(call.origin?.raw).toBeUndefined();
  });

  it('lists tasks with the history entry: title, cwd, counts; --cwd keeps one workspace', async () => {
    const refs = [];
    for await (const ref of clineVscode.discover({ home: storage, details: true })) refs.push(ref);
    expect(refs.map((r) => r.native_id)).toEqual(['1764579600000', '1764576000000', '1764493200000']);
    expect(refs[0]).toMatchObject({ title: 'Fix the failing test in src/app.ts', cwd: '/home/dev/project', messages: 8, tool_calls: 4, editor: 'Code' });
    const inCwd = [];
    for await (const ref of clineVscode.discover({ home: storage, cwd: '/home/dev/project' })) inCwd.push(ref.native_id);
    expect(inCwd).toEqual(['1764579600000']);
    expect((await clineVscode.find!('17645796', { home: storage })).native_id).toBe('1764579600000');
  });
});
