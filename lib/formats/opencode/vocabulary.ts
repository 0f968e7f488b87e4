// The tools of OpenCode's family (OpenCode 1.18, docs/formats/opencode.md §2; Kilo Code CLI 7.7, which
// adds its own, docs/formats/kilo.md §3): read {filePath, offset?, limit?}, write {filePath,
// content}, edit {filePath, oldString, newString, replaceAll?}, bash {command, timeout? in ms, workdir?,
// description} (1.1 required the description), glob {pattern, path?}, grep {pattern, path?, include?},
// todowrite {todos: [{content, status, priority}]}. File paths are absolute.
import { isObject, num, str } from '../../core/json.js';
import { absolutePath, planStatus, shq, type Intent, type NativeCall, type Vocabulary, type VocabularyContext } from '../../relay/vocabulary/types.js';
import { patchAsCalls } from '../../relay/vocabulary/patch-calls.js';

/** The tools both clients have. */
export const SHARED_TOOLS: readonly string[] = ['read', 'write', 'edit', 'bash', 'glob', 'grep', 'list', 'todowrite', 'todoread', 'webfetch', 'task', 'skill', 'patch', 'multiedit'];

function parse(name: string, input: unknown, context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.filePath);
  switch (name) {
    case 'read':
      return path ? { kind: 'read', path, offset: num(input.offset), limit: num(input.limit) } : undefined;
    case 'write':
      return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
    case 'edit':
      if (!path || typeof input.oldString !== 'string' || typeof input.newString !== 'string') return undefined;
      return { kind: 'edit', path, edits: [{ old: input.oldString, new: input.newString, all: input.replaceAll === true || undefined }] };
    case 'bash': {
      if (typeof input.command !== 'string') return undefined;
      return { kind: 'shell', command: input.command, cwd: str(input.workdir), timeoutMs: num(input.timeout), description: str(input.description) };
    }
    case 'glob':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'files', pattern: input.pattern, path: str(input.path) } : undefined;
    case 'grep':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'content', pattern: input.pattern, path: str(input.path), glob: str(input.include) } : undefined;
    case 'todowrite': {
      if (!Array.isArray(input.todos)) return undefined;
      context.plan.set(input.todos.filter(isObject).map((t) => ({ text: String(t.content ?? ''), status: planStatus(t.status) ?? 'pending', ...(str(t.id) ? { id: str(t.id) } : {}) })));
      return { kind: 'plan', items: context.plan.snapshot() };
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
      if (intent.offset !== undefined) input.offset = intent.offset;
      if (intent.limit !== undefined) input.limit = intent.limit;
      return [{ name: 'read', input }];
    }
    case 'write':
      return [{ name: 'write', input: { filePath: abs(intent.path), content: intent.content } }];
    case 'edit':
      return intent.edits.map((e) => ({ name: 'edit', input: { filePath: abs(intent.path), oldString: e.old, newString: e.new, ...(e.all ? { replaceAll: true } : {}) } }));
    case 'patch': {
      return patchAsCalls(intent.files, {
        path: abs,
        write: (path, content) => ({ name: 'write', input: { filePath: abs(path), content } }),
        shell: (command, description) => ({ name: 'bash', input: { command, description } }),
        edit: (path, hunks) => hunks.map((h) => ({ name: 'edit', input: { filePath: abs(path), oldString: h.old, newString: h.new } })),
      });
    }
    case 'shell': {
      const input: Record<string, unknown> = { command: intent.command, description: intent.description ?? intent.command.split('\n')[0].slice(0, 60) };
      if (intent.cwd && intent.cwd !== context.cwd) input.workdir = intent.cwd;
      if (intent.timeoutMs !== undefined) input.timeout = intent.timeoutMs;
      return [{ name: 'bash', input }];
    }
    case 'search': {
      if (intent.mode === 'files') return [{ name: 'glob', input: { pattern: intent.pattern, ...(intent.path ? { path: abs(intent.path) } : {}) } }];
      return [{ name: 'grep', input: { pattern: intent.pattern, ...(intent.path ? { path: abs(intent.path) } : {}), ...(intent.glob ? { include: intent.glob } : {}) } }];
    }
    case 'plan':
      return [{ name: 'todowrite', input: { todos: intent.items.map((item) => ({ content: item.text, status: item.status, priority: 'medium' })) } }];
  }
}

/** read's result wraps the file in <path>/<type>/<content> with `N: ` line numbers: the text itself for other agents. */
function plainResult(name: string, text: string): { text: string; isError?: boolean } {
  if (name !== 'read') return { text };
  const m = /<content>\n([\s\S]*?)\n?<\/content>/.exec(text);
  if (!m) return { text };
  const lines = m[1].split('\n');
  if (!lines.every((l) => l === '' || /^\d+: /.test(l) || /^\(/.test(l))) return { text };
  return { text: lines.filter((l) => !/^\(/.test(l)).map((l) => l.replace(/^\d+: /, '')).join('\n') };
}

/** The vocabulary of one client of the family: its agent id and tool names (the shared ones plus its own). */
export function storeVocabulary(agent: string, tools: readonly string[]): Vocabulary {
  return { agent, tools: new Set(tools), parse, render, plainResult };
}
