// Factory Droid 0.225's tools (the tool schemas the client sends the model, docs/formats/droid.md
// §4): Read {file_path, offset?, limit?}, Create {file_path, content}, Edit {file_path, old_str,
// new_str, change_all?}, Execute {command, summary, riskLevel, riskLevelReason, timeout?}, Grep
// {pattern, path?, glob_pattern?}, Glob {patterns, folder?}, LS {directory_path}, TodoWrite.
import { isObject, num, str } from '../../lib/core/json.js';
import { absolutePath, shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set(['Read', 'Create', 'Edit', 'Execute', 'Grep', 'Glob', 'LS', 'TodoWrite', 'WebSearch', 'FetchUrl', 'Task', 'Skill', 'ToolSearch']);

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.file_path);
  switch (name) {
    case 'Read':
      return path ? { kind: 'read', path, offset: num(input.offset), limit: num(input.limit) } : undefined;
    case 'Create':
      return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
    case 'Edit':
      if (!path || typeof input.old_str !== 'string' || typeof input.new_str !== 'string') return undefined;
      return { kind: 'edit', path, edits: [{ old: input.old_str, new: input.new_str, all: input.change_all === true || undefined }] };
    case 'Execute':
      return typeof input.command === 'string' ? { kind: 'shell', command: input.command, description: str(input.summary) } : undefined;
    case 'Grep':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'content', pattern: input.pattern, path: str(input.path), glob: str(input.glob_pattern) } : undefined;
    case 'Glob': {
      const pattern = typeof input.patterns === 'string' ? input.patterns : Array.isArray(input.patterns) && input.patterns.length === 1 && typeof input.patterns[0] === 'string' ? input.patterns[0] : undefined;
      return pattern ? { kind: 'search', mode: 'files', pattern, path: str(input.folder) } : undefined;
    }
    case 'WebSearch':
      return typeof input.query === 'string' ? { kind: 'web-search', query: input.query } : undefined;
    case 'FetchUrl':
      return typeof input.url === 'string' ? { kind: 'web-fetch', urls: [input.url] } : undefined;
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const abs = (path: string): string => absolutePath(path, context.cwd);
  const execute = (command: string, summary: string): NativeCall => ({ name: 'Execute', input: { command, summary, riskLevel: 'low', riskLevelReason: 'replayed from another agent session' } });
  switch (intent.kind) {
    case 'read': {
      const input: Record<string, unknown> = { file_path: abs(intent.path) };
      if (intent.offset !== undefined) input.offset = intent.offset;
      if (intent.limit !== undefined) input.limit = intent.limit;
      return [{ name: 'Read', input }];
    }
    case 'write':
      return [{ name: 'Create', input: { file_path: abs(intent.path), content: intent.content } }];
    case 'edit':
      return intent.edits.map((e) => ({ name: 'Edit', input: { file_path: abs(intent.path), old_str: e.old, new_str: e.new, ...(e.all ? { change_all: true } : {}) } }));
    case 'patch': {
      const calls: NativeCall[] = [];
      for (const file of intent.files) {
        if (file.op === 'add') calls.push({ name: 'Create', input: { file_path: abs(file.path), content: file.content } });
        else if (file.op === 'delete') calls.push(execute(`rm ${shq(abs(file.path))}`, `Delete ${file.path}`));
        else {
          if (file.moveTo) return undefined;
          for (const h of file.hunks) calls.push({ name: 'Edit', input: { file_path: abs(file.path), old_str: h.old, new_str: h.new, ...(h.all ? { change_all: true } : {}) } });
        }
      }
      return calls;
    }
    case 'shell': {
      const command = intent.cwd && context.cwd && intent.cwd !== context.cwd ? `cd ${shq(intent.cwd)} && ${intent.command}` : intent.command;
      return [execute(command, intent.description ?? intent.command.split('\n')[0].slice(0, 60))];
    }
    case 'search':
      if (intent.mode === 'files') return [{ name: 'Glob', input: { patterns: [intent.pattern], ...(intent.path ? { folder: abs(intent.path) } : {}) } }];
      return [{ name: 'Grep', input: { pattern: intent.pattern, ...(intent.path ? { path: abs(intent.path) } : {}), ...(intent.glob ? { glob_pattern: intent.glob } : {}) } }];
    default:
      return undefined;
  }
}

export const droidVocabulary: Vocabulary = { agent: 'droid', tools: TOOLS, parse, render };
