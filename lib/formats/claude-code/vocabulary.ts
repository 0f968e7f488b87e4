// Claude Code 2.1.197's tools (sdk-tools.d.ts of the client): Read/Write/Edit/MultiEdit/Bash,
// Glob/Grep, the plan tools TodoWrite (CLAUDE_CODE_ENABLE_TASKS=0) and TaskCreate/TaskUpdate (the
// default). The client has no MultiEdit any more and its task tools hold ids in the client's own
// task store, so a relay writes one Edit per replacement and a plan as text (never a call the
// resumed client could not have made).
import { isObject, num, str } from '../../core/json.js';
import { absolutePath, planStatus, shq, type Intent, type NativeCall, type PlanItem, type Vocabulary, type VocabularyContext } from '../../relay/vocabulary/types.js';
import { patchAsCalls } from '../../relay/vocabulary/patch-calls.js';
import { todoItems, updatedTaskId } from './derive.js';

const TOOLS = new Set([
  'Read', 'Write', 'Edit', 'MultiEdit', 'Bash', 'Glob', 'Grep', 'TodoWrite', 'TaskCreate', 'TaskUpdate', 'TaskGet', 'TaskList',
  'TaskOutput', 'TaskStop', 'Agent', 'Task', 'WebFetch', 'WebSearch', 'NotebookEdit', 'ExitPlanMode', 'AskUserQuestion',
]);

function parse(name: string, input: unknown, context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.file_path);
  switch (name) {
    case 'Read':
      return path ? { kind: 'read', path, offset: num(input.offset), limit: num(input.limit) } : undefined;
    case 'Write':
      return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
    case 'Edit':
      if (!path || typeof input.old_string !== 'string' || typeof input.new_string !== 'string') return undefined;
      return { kind: 'edit', path, edits: [{ old: input.old_string, new: input.new_string, all: input.replace_all === true || undefined }] };
    case 'MultiEdit': {
      if (!path || !Array.isArray(input.edits)) return undefined;
      const edits = input.edits.filter(isObject).filter((e) => typeof e.old_string === 'string' && typeof e.new_string === 'string');
      if (edits.length === 0 || edits.length !== input.edits.length) return undefined;
      return { kind: 'edit', path, edits: edits.map((e) => ({ old: String(e.old_string), new: String(e.new_string), all: e.replace_all === true || undefined })) };
    }
    case 'Bash':
      return typeof input.command === 'string' ? { kind: 'shell', command: input.command, timeoutMs: num(input.timeout), description: str(input.description) } : undefined;
    case 'Glob':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'files', pattern: input.pattern, path: str(input.path) } : undefined;
    case 'Grep':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'content', pattern: input.pattern, path: str(input.path), glob: str(input.glob) } : undefined;
    case 'TodoWrite': {
      // The list read as capture reads it (derive.ts): items without a text are no items.
      const todos = todoItems(input.todos);
      if (!todos) return undefined;
      const items: PlanItem[] = todos.map((t) => ({ text: t.content, status: planStatus(t.status) ?? 'pending' }));
      context.plan.set(items);
      return { kind: 'plan', items: context.plan.snapshot() };
    }
    case 'TaskCreate': {
      const subject = str(input.subject);
      if (!subject) return undefined;
      context.plan.add(subject);
      return { kind: 'plan', items: context.plan.snapshot() };
    }
    case 'TaskUpdate': {
      const id = updatedTaskId(input);
      const status = input.status === 'deleted' ? 'deleted' : planStatus(input.status);
      if (!id || !context.plan.update(id, { status, text: str(input.subject) })) return undefined;
      return { kind: 'plan', items: context.plan.snapshot() };
    }
    case 'Agent':
    case 'Task':
      return typeof input.prompt === 'string' ? { kind: 'task', prompt: input.prompt, description: str(input.description) } : undefined;
    case 'WebSearch':
      return typeof input.query === 'string' ? { kind: 'web-search', query: input.query } : undefined;
    case 'WebFetch':
      return typeof input.url === 'string' ? { kind: 'web-fetch', urls: [input.url], prompt: str(input.prompt) } : undefined;
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const abs = (path: string): string => absolutePath(path, context.cwd);
  switch (intent.kind) {
    case 'read': {
      const input: Record<string, unknown> = { file_path: abs(intent.path) };
      if (intent.offset !== undefined) input.offset = intent.offset;
      if (intent.limit !== undefined) input.limit = intent.limit;
      return [{ name: 'Read', input }];
    }
    case 'write':
      return [{ name: 'Write', input: { file_path: abs(intent.path), content: intent.content } }];
    case 'edit':
      return intent.edits.map((e) => ({ name: 'Edit', input: { file_path: abs(intent.path), old_string: e.old, new_string: e.new, replace_all: e.all === true } }));
    case 'patch': {
      // A move has no Edit form: patchAsCalls refuses it.
      const calls = patchAsCalls(intent.files, {
        path: abs,
        write: (path, content) => ({ name: 'Write', input: { file_path: abs(path), content } }),
        shell: (command, description) => ({ name: 'Bash', input: { command, description } }),
        edit: (path, hunks) => hunks.map((hunk) => ({ name: 'Edit', input: { file_path: abs(path), old_string: hunk.old, new_string: hunk.new, replace_all: false } })),
      });
      return calls && calls.length > 0 ? calls : undefined;
    }
    case 'shell': {
      const command = intent.cwd && context.cwd && intent.cwd !== context.cwd ? `cd ${shq(intent.cwd)} && ${intent.command}` : intent.command;
      const input: Record<string, unknown> = { command };
      if (intent.timeoutMs !== undefined) input.timeout = Math.min(600000, intent.timeoutMs);
      if (intent.description) input.description = intent.description;
      return [{ name: 'Bash', input }];
    }
    case 'search': {
      if (intent.mode === 'files') return [{ name: 'Glob', input: intent.path ? { pattern: intent.pattern, path: abs(intent.path) } : { pattern: intent.pattern } }];
      const input: Record<string, unknown> = { pattern: intent.pattern, output_mode: 'content' };
      if (intent.path) input.path = abs(intent.path);
      if (intent.glob) input.glob = intent.glob;
      return [{ name: 'Grep', input }];
    }
    case 'task':
      return [{ name: 'Agent', input: { description: intent.description ?? intent.prompt.split('\n')[0].slice(0, 60), prompt: intent.prompt } }];
    case 'web-search':
      return [{ name: 'WebSearch', input: { query: intent.query } }];
    case 'web-fetch':
      return intent.urls.map((url) => ({ name: 'WebFetch', input: { url, prompt: intent.prompt ?? 'Return the content of the page.' } }));
    case 'plan':
      return undefined;
  }
}

/** Read's numbered lines (`1\t…`, `     1\t…` or `1→…`) as the file's plain text, without a reminder the client appended. */
function plainResult(name: string, text: string): { text: string } {
  if (name !== 'Read') return { text };
  const lines = text.split('\n');
  const reminder = lines.findIndex((l) => l.startsWith('<system-reminder>'));
  const body = reminder >= 0 ? lines.slice(0, reminder) : lines;
  const numbered = /^\s*\d+(?:\t|→)/;
  if (!body.some((l) => numbered.test(l)) || !body.every((l) => numbered.test(l) || l.trim() === '')) return { text };
  return { text: body.map((l) => l.replace(numbered, '')).join('\n').replace(/\n+$/, '\n') };
}

export const claudeVocabulary: Vocabulary = { agent: 'claude', tools: TOOLS, parse, render, plainResult };
