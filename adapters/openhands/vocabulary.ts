// OpenHands' tools (docs/formats/openhands.md §4). The SDK's default agent: `terminal` {command,
// is_input?, timeout?, reset?}, `file_editor` {command: view | create | str_replace | insert |
// undo_edit, path, file_text?, old_str?, new_str?, insert_line?, view_range?}, `task_tracker`
// {command: view | plan, task_list: [{title, notes, status: todo | in_progress | done}]}, and the
// built-ins `finish` {message} and `think` {thought}. The classic (V0) agent's `execute_bash` and
// `str_replace_editor` have the same arguments and are read too; calls are written with the SDK names.
import { isObject, str } from '../../lib/core/json.js';
import { parseEditorCommand, renderEditorCommand } from '../../lib/relay/vocabulary/editor-command.js';
import { absolutePath, type Intent, type NativeCall, type PlanItem, type PlanStatus, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set(['terminal', 'file_editor', 'task_tracker', 'finish', 'think', 'browser_tool_set', 'task_tool_set', 'execute_bash', 'str_replace_editor', 'execute_ipython_cell', 'browser']);

const STATUS_IN: Record<string, PlanStatus> = { todo: 'pending', in_progress: 'in_progress', done: 'completed' };
const STATUS_OUT: Record<PlanStatus, string> = { pending: 'todo', in_progress: 'in_progress', completed: 'done' };

function parse(name: string, input: unknown, context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  switch (name) {
    case 'terminal':
    case 'execute_bash': {
      // Input to a running process (is_input) and a reset are not commands of their own.
      if (typeof input.command !== 'string' || input.is_input === true || input.reset === true) return undefined;
      const timeout = typeof input.timeout === 'number' ? input.timeout * 1000 : undefined;
      return { kind: 'shell', command: input.command, timeoutMs: timeout };
    }
    case 'file_editor':
    case 'str_replace_editor':
      return parseEditorCommand(input);
    case 'task_tracker': {
      if (input.command !== 'plan' || !Array.isArray(input.task_list)) return undefined;
      const items: PlanItem[] = input.task_list.filter(isObject).map((t) => ({ text: [str(t.title), str(t.notes)].filter(Boolean).join(' — '), status: STATUS_IN[String(t.status)] ?? 'pending' }));
      context.plan.set(items);
      return { kind: 'plan', items: context.plan.snapshot() };
    }
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  switch (intent.kind) {
    case 'shell': {
      const command = intent.cwd && intent.cwd !== context.cwd ? `cd ${JSON.stringify(intent.cwd)} && ${intent.command}` : intent.command;
      const input: Record<string, unknown> = { command };
      if (intent.timeoutMs !== undefined) input.timeout = Math.ceil(intent.timeoutMs / 1000);
      return [{ name: 'terminal', input }];
    }
    case 'plan':
      return [{ name: 'task_tracker', input: { command: 'plan', task_list: intent.items.map((item) => ({ title: item.text, notes: '', status: STATUS_OUT[item.status] })) } }];
    default:
      // file_editor takes absolute paths only.
      return renderEditorCommand('file_editor', intent, (path) => absolutePath(path, context.cwd), 'create');
  }
}

export const openhandsVocabulary: Vocabulary = { agent: 'openhands', tools: TOOLS, parse, render };
