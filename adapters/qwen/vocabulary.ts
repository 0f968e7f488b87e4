// Qwen Code 0.24's tools (ToolNames in the bundle; the corpus): read_file {file_path, offset?, limit?}
// (offset 0-based), write_file {file_path, content}, edit {file_path, old_string, new_string,
// replace_all?}, run_shell_command {command, description?, directory?, is_background?}, glob
// {pattern, path?}, grep_search {pattern, path?, glob?}, todo_write {todos: [{id, content, status}]},
// list_directory {path}, web_search {query}. Paths are absolute. A shell result reads `Command: … Directory: … Output: …
// Exit Code: N …`: read back to its output.
import { isObject, num, str } from '../../lib/core/json.js';
import { labelledShellOutput } from '../../lib/relay/shell-output.js';
import { absolutePath, planStatus, shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';
import { patchAsCalls } from '../../lib/relay/vocabulary/patch-calls.js';

const TOOLS = new Set([
  'read_file', 'write_file', 'edit', 'run_shell_command', 'glob', 'grep_search', 'list_directory', 'todo_write', 'save_memory',
  'agent', 'skill', 'web_fetch', 'web_search', 'exit_plan_mode', 'ask_user_question',
]);

function parse(name: string, input: unknown, context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.file_path) ?? str(input.absolute_path);
  switch (name) {
    case 'read_file': {
      if (!path) return undefined;
      const offset = num(input.offset);
      return { kind: 'read', path, offset: offset !== undefined ? offset + 1 : undefined, limit: num(input.limit) };
    }
    case 'write_file':
      return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
    case 'edit':
      if (!path || typeof input.old_string !== 'string' || typeof input.new_string !== 'string') return undefined;
      return { kind: 'edit', path, edits: [{ old: input.old_string, new: input.new_string, all: input.replace_all === true || undefined }] };
    case 'run_shell_command':
      if (typeof input.command !== 'string' || input.is_background === true) return undefined;
      return { kind: 'shell', command: input.command, cwd: str(input.directory), description: str(input.description) };
    case 'glob':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'files', pattern: input.pattern, path: str(input.path) } : undefined;
    case 'grep_search':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'content', pattern: input.pattern, path: str(input.path), glob: str(input.glob) } : undefined;
    case 'todo_write': {
      if (!Array.isArray(input.todos)) return undefined;
      context.plan.set(input.todos.filter(isObject).map((t) => ({ text: String(t.content ?? ''), status: planStatus(t.status) ?? 'pending', ...(str(t.id) ? { id: str(t.id) } : {}) })));
      return { kind: 'plan', items: context.plan.snapshot() };
    }
    case 'web_search':
      return typeof input.query === 'string' ? { kind: 'web-search', query: input.query } : undefined;
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const abs = (path: string): string => absolutePath(path, context.cwd);
  switch (intent.kind) {
    case 'read': {
      const input: Record<string, unknown> = { file_path: abs(intent.path) };
      if (intent.offset !== undefined) input.offset = Math.max(0, intent.offset - 1);
      if (intent.limit !== undefined) input.limit = intent.limit;
      return [{ name: 'read_file', input }];
    }
    case 'write':
      return [{ name: 'write_file', input: { file_path: abs(intent.path), content: intent.content } }];
    case 'edit':
      return intent.edits.map((e) => ({ name: 'edit', input: { file_path: abs(intent.path), old_string: e.old, new_string: e.new, ...(e.all ? { replace_all: true } : {}) } }));
    case 'patch': {
      return patchAsCalls(intent.files, {
        path: abs,
        write: (path, content) => ({ name: 'write_file', input: { file_path: abs(path), content } }),
        shell: (command, description) => ({ name: 'run_shell_command', input: { command, description } }),
        edit: (path, hunks) => hunks.map((h) => ({ name: 'edit', input: { file_path: abs(path), old_string: h.old, new_string: h.new } })),
      });
    }
    case 'shell': {
      const input: Record<string, unknown> = { command: intent.command };
      if (intent.description) input.description = intent.description;
      if (intent.cwd && intent.cwd !== context.cwd) input.directory = intent.cwd;
      return [{ name: 'run_shell_command', input }];
    }
    case 'search':
      if (intent.mode === 'files') return [{ name: 'glob', input: { pattern: intent.pattern, ...(intent.path ? { path: abs(intent.path) } : {}) } }];
      return [{ name: 'grep_search', input: { pattern: intent.pattern, ...(intent.path ? { path: abs(intent.path) } : {}), ...(intent.glob ? { glob: intent.glob } : {}) } }];
    case 'plan':
      return [{ name: 'todo_write', input: { todos: intent.items.map((item, i) => ({ id: item.id ?? String(i + 1), content: item.text, status: item.status })) } }];
    case 'web-search':
      return [{ name: 'web_search', input: { query: intent.query } }];
  }
}

function plainResult(name: string, text: string): { text: string; isError?: boolean } {
  if (name !== 'run_shell_command') return { text };
  return labelledShellOutput(text) ?? { text };
}

export const qwenVocabulary: Vocabulary = { agent: 'qwen', tools: TOOLS, parse, render, plainResult };
