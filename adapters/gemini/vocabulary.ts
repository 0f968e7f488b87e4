// Gemini CLI 0.61's tools (the bundle's declarations; formats/gemini-qwen.md, the corpus):
// read_file {file_path, start_line?, end_line?} (1-based, inclusive), write_file {file_path, content},
// replace {file_path, instruction, old_string, new_string, allow_multiple?}, run_shell_command
// {command, description?, dir_path?, is_background?}, glob {pattern, dir_path?}, grep_search
// {pattern, dir_path?, include_pattern?}, write_todos {todos: [{description, status}]},
// list_directory {dir_path}, google_web_search {query}. Paths are absolute. A shell result is wrapped in
// `<untrusted_context>Output: … Exit Code: N …</untrusted_context>` (and a failing command still
// has status "success"): read back to its output, an error when the exit code is not 0.
import { isObject, num, str } from '../../lib/core/json.js';
import { labelledShellOutput } from '../../lib/relay/shell-output.js';
import { absolutePath, planStatus, shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';
import { patchAsCalls } from '../../lib/relay/vocabulary/patch-calls.js';

const TOOLS = new Set([
  'read_file', 'read_many_files', 'write_file', 'replace', 'run_shell_command', 'glob', 'grep_search', 'list_directory',
  'write_todos', 'web_fetch', 'google_web_search', 'save_memory', 'activate_skill',
]);

function parse(name: string, input: unknown, context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.file_path);
  switch (name) {
    case 'read_file': {
      if (!path) return undefined;
      const start = num(input.start_line);
      const end = num(input.end_line);
      return { kind: 'read', path, offset: start, limit: end !== undefined ? end - (start ?? 1) + 1 : undefined };
    }
    case 'write_file':
      return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
    case 'replace':
      if (!path || typeof input.old_string !== 'string' || typeof input.new_string !== 'string') return undefined;
      return { kind: 'edit', path, edits: [{ old: input.old_string, new: input.new_string, all: input.allow_multiple === true || undefined }] };
    case 'run_shell_command':
      if (typeof input.command !== 'string' || input.is_background === true) return undefined;
      return { kind: 'shell', command: input.command, cwd: str(input.dir_path), description: str(input.description) };
    case 'glob':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'files', pattern: input.pattern, path: str(input.dir_path) } : undefined;
    case 'grep_search':
    case 'search_file_content':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'content', pattern: input.pattern, path: str(input.dir_path) ?? str(input.path), glob: str(input.include_pattern) ?? str(input.include) } : undefined;
    case 'write_todos': {
      if (!Array.isArray(input.todos)) return undefined;
      context.plan.set(input.todos.filter(isObject).map((t) => ({ text: String(t.description ?? ''), status: planStatus(t.status) ?? 'pending' })));
      return { kind: 'plan', items: context.plan.snapshot() };
    }
    case 'google_web_search':
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
      if (intent.offset !== undefined) input.start_line = intent.offset;
      if (intent.limit !== undefined) input.end_line = (intent.offset ?? 1) + intent.limit - 1;
      return [{ name: 'read_file', input }];
    }
    case 'write':
      return [{ name: 'write_file', input: { file_path: abs(intent.path), content: intent.content } }];
    case 'edit':
      return intent.edits.map((e) => ({
        name: 'replace',
        input: { file_path: abs(intent.path), instruction: `Replace text in ${intent.path}`, old_string: e.old, new_string: e.new, ...(e.all ? { allow_multiple: true } : {}) },
      }));
    case 'patch': {
      return patchAsCalls(intent.files, {
        path: abs,
        write: (path, content) => ({ name: 'write_file', input: { file_path: abs(path), content } }),
        shell: (command, description) => ({ name: 'run_shell_command', input: { command, description } }),
        edit: (path, hunks) => hunks.map((h) => ({ name: 'replace', input: { file_path: abs(path), instruction: `Replace text in ${path}`, old_string: h.old, new_string: h.new } })),
      });
    }
    case 'shell': {
      const input: Record<string, unknown> = { command: intent.command };
      if (intent.description) input.description = intent.description;
      if (intent.cwd && intent.cwd !== context.cwd) input.dir_path = intent.cwd;
      return [{ name: 'run_shell_command', input }];
    }
    case 'search':
      if (intent.mode === 'files') return [{ name: 'glob', input: { pattern: intent.pattern, ...(intent.path ? { dir_path: abs(intent.path) } : {}) } }];
      return [{ name: 'grep_search', input: { pattern: intent.pattern, ...(intent.path ? { dir_path: abs(intent.path) } : {}), ...(intent.glob ? { include_pattern: intent.glob } : {}) } }];
    case 'plan':
      return [{ name: 'write_todos', input: { todos: intent.items.map((item) => ({ description: item.text, status: item.status })) } }];
    case 'web-search':
      return [{ name: 'google_web_search', input: { query: intent.query } }];
  }
}

function plainResult(name: string, text: string): { text: string; isError?: boolean } {
  if (name !== 'run_shell_command') return { text };
  return labelledShellOutput(text) ?? { text };
}

export const geminiVocabulary: Vocabulary = { agent: 'gemini', tools: TOOLS, parse, render, plainResult };
