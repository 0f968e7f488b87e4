// The tools GitHub Copilot Chat gives the model in agent mode (docs/formats/vscode-copilot.md §6):
// read_file {filePath, startLine, endLine} (1-based, inclusive), create_file {filePath, content},
// replace_string_in_file {filePath, oldString, newString}, insert_edit_into_file {filePath, code,
// explanation}, run_in_terminal {command, explanation, isBackground}, file_search {query} (a glob),
// grep_search {query, isRegexp, includePattern}, semantic_search {query}, list_dir {path},
// get_errors {filePaths}, fetch_webpage {urls, query}. Paths are absolute.
import { isObject, str } from '../../lib/core/json.js';
import { absolutePath, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';
import { AGENT } from './paths.js';

const TOOLS = new Set([
  'read_file', 'create_file', 'replace_string_in_file', 'multi_replace_string_in_file', 'insert_edit_into_file', 'run_in_terminal',
  'get_terminal_output', 'file_search', 'grep_search', 'semantic_search', 'list_dir', 'get_errors', 'fetch_webpage',
  'list_code_usages', 'test_search', 'run_vscode_command', 'create_directory', 'manage_todo_list', 'runSubagent',
]);

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.filePath);
  switch (name) {
    case 'read_file': {
      if (!path) return undefined;
      const first = typeof input.startLine === 'number' ? input.startLine : undefined;
      const last = typeof input.endLine === 'number' ? input.endLine : undefined;
      return { kind: 'read', path, offset: first, limit: first !== undefined && last !== undefined ? last - first + 1 : undefined };
    }
    case 'create_file':
      return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
    case 'replace_string_in_file':
      return path && typeof input.oldString === 'string' && typeof input.newString === 'string' ? { kind: 'edit', path, edits: [{ old: input.oldString, new: input.newString }] } : undefined;
    case 'run_in_terminal':
      return typeof input.command === 'string' ? { kind: 'shell', command: input.command, description: str(input.explanation) } : undefined;
    case 'grep_search':
      return typeof input.query === 'string' ? { kind: 'search', mode: 'content', pattern: input.query, glob: str(input.includePattern) } : undefined;
    case 'file_search':
      return typeof input.query === 'string' ? { kind: 'search', mode: 'files', pattern: input.query } : undefined;
    case 'fetch_webpage': {
      const urls = Array.isArray(input.urls) ? input.urls.filter((u): u is string => typeof u === 'string') : [];
      return urls.length > 0 ? { kind: 'web-fetch', urls, prompt: str(input.query) } : undefined;
    }
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const abs = (path: string): string => absolutePath(path, context.cwd);
  switch (intent.kind) {
    case 'read': {
      const input: Record<string, unknown> = { filePath: abs(intent.path) };
      if (intent.offset !== undefined) input.startLine = intent.offset;
      if (intent.offset !== undefined && intent.limit !== undefined) input.endLine = intent.offset + intent.limit - 1;
      return [{ name: 'read_file', input }];
    }
    case 'write':
      return [{ name: 'create_file', input: { filePath: abs(intent.path), content: intent.content } }];
    case 'edit':
      return intent.edits.map((edit) => ({ name: 'replace_string_in_file', input: { filePath: abs(intent.path), oldString: edit.old, newString: edit.new } }));
    case 'shell':
      return [{ name: 'run_in_terminal', input: { command: intent.command, explanation: intent.description ?? '', isBackground: false } }];
    case 'search':
      if (intent.mode === 'files') return [{ name: 'file_search', input: { query: intent.pattern } }];
      return [{ name: 'grep_search', input: { query: intent.pattern, isRegexp: true, ...(intent.glob ? { includePattern: intent.glob } : {}) } }];
    case 'web-fetch':
      return [{ name: 'fetch_webpage', input: { urls: intent.urls, query: intent.prompt ?? '' } }];
    default:
      return undefined;
  }
}

export const vscodeCopilotVocabulary: Vocabulary = { agent: AGENT, tools: TOOLS, parse, render };
