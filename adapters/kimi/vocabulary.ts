// Kimi CLI's tools (the tool classes of the client's source, docs/formats/kimi.md §3): Shell
// {command, timeout?, run_in_background?, description?}, ReadFile {path, line_offset?, n_lines?},
// WriteFile {path, content, mode?: overwrite|append}, StrReplaceFile {path, edit: {old, new,
// replace_all?} or a list of them}, Glob {pattern, directory?, include_dirs?}, Grep {pattern, path?,
// glob?, …}, SearchWeb {query, limit?}, FetchURL {url}, SetTodoList {todos: [{title, status}]},
// Agent {description, prompt, subagent_type, …}, Think {thought}; and ReadMediaFile, AskUserQuestion,
// SendDMail, EnterPlanMode, ExitPlanMode, TaskList, TaskOutput, TaskStop (no counterpart elsewhere).
import { isObject, num, str } from '../../lib/core/json.js';
import type { Replacement } from '../../lib/relay/patch.js';
import type { Intent, NativeCall, PlanItem, Vocabulary, VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set([
  'Shell', 'ReadFile', 'ReadMediaFile', 'WriteFile', 'StrReplaceFile', 'Glob', 'Grep', 'SearchWeb', 'FetchURL',
  'SetTodoList', 'Agent', 'Think', 'AskUserQuestion', 'SendDMail', 'EnterPlanMode', 'ExitPlanMode',
  'TaskList', 'TaskOutput', 'TaskStop',
]);

function replacements(edit: unknown): Replacement[] | undefined {
  const list = Array.isArray(edit) ? edit : [edit];
  const out: Replacement[] = [];
  for (const e of list) {
    if (!isObject(e) || typeof e.old !== 'string' || typeof e.new !== 'string') return undefined;
    out.push({ old: e.old, new: e.new, all: e.replace_all === true || undefined });
  }
  return out.length > 0 ? out : undefined;
}

const STATUS: Record<string, PlanItem['status']> = { pending: 'pending', in_progress: 'in_progress', done: 'completed' };

function parse(name: string, input: unknown, _context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.path);
  switch (name) {
    case 'Shell':
      return typeof input.command === 'string' ? { kind: 'shell', command: input.command, description: str(input.description), timeoutMs: num(input.timeout) !== undefined ? num(input.timeout)! * 1000 : undefined } : undefined;
    case 'ReadFile':
      return path ? { kind: 'read', path, offset: num(input.line_offset), limit: num(input.n_lines) } : undefined;
    case 'WriteFile':
      // An append has no counterpart: it stays the native call.
      return path && typeof input.content === 'string' && input.mode !== 'append' ? { kind: 'write', path, content: input.content } : undefined;
    case 'StrReplaceFile': {
      const edits = path ? replacements(input.edit) : undefined;
      return path && edits ? { kind: 'edit', path, edits } : undefined;
    }
    case 'Glob':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'files', pattern: input.pattern, path: str(input.directory) } : undefined;
    case 'Grep':
      return typeof input.pattern === 'string' ? { kind: 'search', mode: 'content', pattern: input.pattern, path: str(input.path), glob: str(input.glob) } : undefined;
    case 'SearchWeb':
      return typeof input.query === 'string' ? { kind: 'web-search', query: input.query } : undefined;
    case 'FetchURL':
      return typeof input.url === 'string' ? { kind: 'web-fetch', urls: [input.url] } : undefined;
    case 'Agent':
      return typeof input.prompt === 'string' ? { kind: 'task', prompt: input.prompt, description: str(input.description) } : undefined;
    case 'SetTodoList': {
      if (!Array.isArray(input.todos)) return undefined;
      const items: PlanItem[] = [];
      for (const t of input.todos) {
        if (!isObject(t) || typeof t.title !== 'string' || !STATUS[String(t.status)]) return undefined;
        items.push({ text: t.title, status: STATUS[String(t.status)] });
      }
      return { kind: 'plan', items };
    }
    default:
      return undefined;
  }
}

// Kimi CLI is read only here: nothing is written for it, so no intent is rendered as its call.
function render(_intent: Intent, _context: VocabularyContext): NativeCall[] | undefined {
  return undefined;
}

export const kimiVocabulary: Vocabulary = { agent: 'kimi', tools: TOOLS, parse, render };
