// GitHub Copilot CLI 1.0's tools (formats/copilot.md, the corpus): view {path, view_range?: [first,
// last]}, create {path, file_text}, edit {path, old_str, new_str}, bash {command, description},
// grep {pattern, path?, glob?}, glob {pattern, path?}. Paths are absolute. There is no plan tool.
import { isObject, str } from '../../lib/core/json.js';
import { absolutePath, shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set(['view', 'create', 'edit', 'bash', 'grep', 'glob', 'rg', 'task', 'sql', 'str_replace_editor', 'apply_patch', 'read_bash', 'write_bash', 'stop_bash', 'web_fetch', 'report_intent']);

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.path);
  switch (name) {
    case 'view': {
      if (!path) return undefined;
      const range = Array.isArray(input.view_range) ? input.view_range : undefined;
      const first = typeof range?.[0] === 'number' ? range[0] : undefined;
      const last = typeof range?.[1] === 'number' && range[1] >= 0 ? range[1] : undefined;
      return { kind: 'read', path, offset: first, limit: first !== undefined && last !== undefined ? last - first + 1 : undefined };
    }
    case 'create':
      return path && typeof input.file_text === 'string' ? { kind: 'write', path, content: input.file_text } : undefined;
    case 'edit':
      return path && typeof input.old_str === 'string' ? { kind: 'edit', path, edits: [{ old: input.old_str, new: typeof input.new_str === 'string' ? input.new_str : '' }] } : undefined;
    case 'bash':
      return typeof input.command === 'string' && input.mode !== 'async' ? { kind: 'shell', command: input.command, description: str(input.description) } : undefined;
    case 'grep':
    case 'rg':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'content', pattern: input.pattern, path: path, glob: str(input.glob) } : undefined;
    case 'glob':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'files', pattern: input.pattern, path } : undefined;
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const abs = (path: string): string => absolutePath(path, context.cwd);
  const bash = (command: string, description: string): NativeCall => ({ name: 'bash', input: { command, description } });
  switch (intent.kind) {
    case 'read': {
      const input: Record<string, unknown> = { path: abs(intent.path) };
      if (intent.offset !== undefined || intent.limit !== undefined) {
        const first = intent.offset ?? 1;
        input.view_range = [first, intent.limit !== undefined ? first + intent.limit - 1 : -1];
      }
      return [{ name: 'view', input }];
    }
    case 'write':
      return [{ name: 'create', input: { path: abs(intent.path), file_text: intent.content } }];
    case 'edit':
      // Copilot's edit replaces one occurrence: a replace-all edit has no counterpart.
      if (intent.edits.some((e) => e.all)) return undefined;
      return intent.edits.map((e) => ({ name: 'edit', input: { path: abs(intent.path), old_str: e.old, new_str: e.new } }));
    case 'patch': {
      const calls: NativeCall[] = [];
      for (const file of intent.files) {
        if (file.op === 'add') calls.push({ name: 'create', input: { path: abs(file.path), file_text: file.content } });
        else if (file.op === 'delete') calls.push(bash(`rm ${shq(abs(file.path))}`, `Delete ${file.path}`));
        else {
          if (file.moveTo || file.hunks.some((h) => h.all)) return undefined;
          for (const h of file.hunks) calls.push({ name: 'edit', input: { path: abs(file.path), old_str: h.old, new_str: h.new } });
        }
      }
      return calls;
    }
    case 'shell': {
      const command = intent.cwd && context.cwd && intent.cwd !== context.cwd ? `cd ${shq(intent.cwd)} && ${intent.command}` : intent.command;
      return [bash(command, intent.description ?? intent.command.split('\n')[0].slice(0, 60))];
    }
    case 'search':
      if (intent.mode === 'files') return [{ name: 'glob', input: { pattern: intent.pattern, ...(intent.path ? { path: abs(intent.path) } : {}) } }];
      return [{ name: 'grep', input: { pattern: intent.pattern, ...(intent.path ? { path: abs(intent.path) } : {}), ...(intent.glob ? { glob: intent.glob } : {}) } }];
    case 'plan':
      return undefined;
  }
}

export const copilotVocabulary: Vocabulary = { agent: 'copilot', tools: TOOLS, parse, render };
