// Crush's tools for the relay (docs/formats/crush.md §3): view {file_path, offset?, limit?}, write
// {file_path, content}, edit {file_path, old_string, new_string, replace_all?}, bash {command,
// description?}, glob {pattern, path?}, grep {pattern, path?, include?}; the rest pass by name.
import { isObject, num, str } from '../../lib/core/json.js';
import { absolutePath, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set(['bash', 'view', 'write', 'edit', 'multiedit', 'glob', 'grep', 'ls', 'fetch', 'web_fetch', 'web_search', 'download', 'todos', 'sourcegraph', 'agentic_fetch', 'job_output', 'job_kill', 'question']);

function parse(name: string, input: unknown): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.file_path);
  switch (name) {
    case 'view':
      return path ? { kind: 'read', path, offset: num(input.offset), limit: num(input.limit) } : undefined;
    case 'write':
      return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
    case 'edit':
      if (!path || typeof input.old_string !== 'string' || typeof input.new_string !== 'string') return undefined;
      return { kind: 'edit', path, edits: [{ old: input.old_string, new: input.new_string, all: input.replace_all === true || undefined }] };
    case 'bash':
      return typeof input.command === 'string' ? { kind: 'shell', command: input.command, description: str(input.description) } : undefined;
    case 'glob':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'files', pattern: input.pattern, path: str(input.path) } : undefined;
    case 'grep':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'content', pattern: input.pattern, path: str(input.path), glob: str(input.include) } : undefined;
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const abs = (path: string): string => absolutePath(path, context.cwd);
  switch (intent.kind) {
    case 'read':
      return [{ name: 'view', input: { file_path: abs(intent.path), ...(intent.offset !== undefined ? { offset: intent.offset } : {}), ...(intent.limit !== undefined ? { limit: intent.limit } : {}) } }];
    case 'write':
      return [{ name: 'write', input: { file_path: abs(intent.path), content: intent.content } }];
    case 'edit':
      return intent.edits.map((e) => ({ name: 'edit', input: { file_path: abs(intent.path), old_string: e.old, new_string: e.new, ...(e.all ? { replace_all: true } : {}) } }));
    case 'shell':
      return [{ name: 'bash', input: { command: intent.command, ...(intent.description ? { description: intent.description } : {}) } }];
    case 'search':
      if (intent.mode === 'files') return [{ name: 'glob', input: { pattern: intent.pattern, ...(intent.path ? { path: abs(intent.path) } : {}) } }];
      return [{ name: 'grep', input: { pattern: intent.pattern, ...(intent.path ? { path: abs(intent.path) } : {}), ...(intent.glob ? { include: intent.glob } : {}) } }];
    default:
      return undefined;
  }
}

export const crushVocabulary: Vocabulary = { agent: 'crush', tools: TOOLS, parse, render };
