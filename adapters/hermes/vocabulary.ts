// Hermes Agent's tools (formats/hermes.md, the corpus rows): read_file {path, offset?, limit?},
// write_file {path, content}, patch {mode: "replace", path, old_string, new_string, replace_all?}
// or {mode: "patch", patch: <apply_patch text>}, terminal {command, workdir?, timeout?},
// todo {todos: [{id, content, status}], merge?}, search_files {pattern, target, path?, file_glob?}.
// Hermes returns JSON text ({"content": "1|…"}, {"output": …, "exit_code": …}, {"success", "diff"}),
// read back to plain text for other agents.
import { isObject, num, str } from '../../lib/core/json.js';
import { buildPatch, parsePatch } from '../../lib/relay/patch.js';
import { planStatus, relativePath, type Intent, type NativeCall, type PlanItem, type Vocabulary, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';

const TOOLS = new Set([
  'read_file', 'write_file', 'patch', 'terminal', 'process', 'todo', 'search_files', 'delegate_task', 'web_search', 'web_extract',
  'execute_code', 'memory', 'session_search', 'vision_analyze', 'clarify', 'skills_list', 'skill_view', 'skill_manage',
]);

function parse(name: string, input: unknown, context: VocabularyContext): Intent | undefined {
  if (!isObject(input)) return undefined;
  const path = str(input.path);
  switch (name) {
    case 'read_file':
      return path ? { kind: 'read', path, offset: num(input.offset), limit: num(input.limit) } : undefined;
    case 'write_file':
      return path && typeof input.content === 'string' ? { kind: 'write', path, content: input.content } : undefined;
    case 'patch': {
      if (input.mode === 'patch' || (typeof input.patch === 'string' && input.old_string === undefined)) {
        const files = typeof input.patch === 'string' ? parsePatch(input.patch) : undefined;
        if (!files) return undefined;
        const only = files.length === 1 ? files[0] : undefined;
        if (only?.op === 'update' && !only.moveTo && only.hunks.length > 0) return { kind: 'edit', path: only.path, edits: only.hunks };
        if (only?.op === 'add') return { kind: 'write', path: only.path, content: only.content };
        return { kind: 'patch', files };
      }
      if (!path || typeof input.old_string !== 'string' || typeof input.new_string !== 'string') return undefined;
      return { kind: 'edit', path, edits: [{ old: input.old_string, new: input.new_string, all: input.replace_all === true || undefined }] };
    }
    case 'terminal': {
      if (typeof input.command !== 'string' || input.background === true) return undefined;
      const timeout = num(input.timeout);
      return { kind: 'shell', command: input.command, cwd: str(input.workdir), timeoutMs: timeout !== undefined ? timeout * 1000 : undefined };
    }
    case 'todo': {
      if (!Array.isArray(input.todos)) return undefined;
      const items: PlanItem[] = input.todos.filter(isObject).map((t) => ({ id: str(t.id) ?? (typeof t.id === 'number' ? String(t.id) : undefined), text: String(t.content ?? ''), status: planStatus(t.status) ?? 'pending' }));
      if (input.merge === true) {
        // merge: only the items named change; the rest of the plan stays as it was
        for (const item of items) {
          const known = item.id !== undefined && context.plan.items.some((p) => p.id === item.id);
          if (known) context.plan.update(item.id!, { status: item.status, text: item.text || undefined });
          else context.plan.items.push({ ...item });
        }
      } else context.plan.set(items);
      return { kind: 'plan', items: context.plan.snapshot() };
    }
    case 'search_files':
      if (typeof input.pattern !== 'string') return undefined;
      return { kind: 'search', mode: input.target === 'files' ? 'files' : 'content', pattern: input.pattern, path: str(input.path), glob: str(input.file_glob) };
    case 'delegate_task': {
      const goal = str(input.goal);
      if (!goal || Array.isArray(input.tasks)) return undefined; // a batch of tasks has no single counterpart
      return { kind: 'task', prompt: str(input.context) ? `${goal}\n\n${String(input.context)}` : goal, description: goal.split('\n')[0].slice(0, 60) };
    }
    case 'web_search':
      return typeof input.query === 'string' ? { kind: 'web-search', query: input.query } : undefined;
    case 'web_extract': {
      const urls = Array.isArray(input.urls) ? input.urls.filter((u): u is string => typeof u === 'string') : [];
      return urls.length > 0 ? { kind: 'web-fetch', urls } : undefined;
    }
    default:
      return undefined;
  }
}

function render(intent: Intent, context: VocabularyContext): NativeCall[] | undefined {
  const rel = (path: string): string => relativePath(path, context.cwd);
  switch (intent.kind) {
    case 'read': {
      const input: Record<string, unknown> = { path: rel(intent.path) };
      if (intent.offset !== undefined) input.offset = intent.offset;
      if (intent.limit !== undefined) input.limit = intent.limit;
      return [{ name: 'read_file', input }];
    }
    case 'write':
      return [{ name: 'write_file', input: { path: rel(intent.path), content: intent.content } }];
    case 'edit': {
      if (intent.edits.length === 1) {
        const [e] = intent.edits;
        const input: Record<string, unknown> = { mode: 'replace', path: rel(intent.path), old_string: e.old, new_string: e.new };
        if (e.all) input.replace_all = true;
        return [{ name: 'patch', input }];
      }
      return [{ name: 'patch', input: { mode: 'patch', patch: buildPatch([{ op: 'update', path: rel(intent.path), hunks: intent.edits }]) } }];
    }
    case 'patch':
      return [{ name: 'patch', input: { mode: 'patch', patch: buildPatch(intent.files) } }];
    case 'shell': {
      const input: Record<string, unknown> = { command: intent.command };
      if (intent.cwd && intent.cwd !== context.cwd) input.workdir = intent.cwd;
      if (intent.timeoutMs !== undefined) input.timeout = Math.ceil(intent.timeoutMs / 1000);
      return [{ name: 'terminal', input }];
    }
    case 'plan':
      return [{ name: 'todo', input: { todos: intent.items.map((item, i) => ({ id: item.id ?? String(i + 1), content: item.text, status: item.status })) } }];
    case 'search': {
      const input: Record<string, unknown> = { pattern: intent.pattern, target: intent.mode };
      if (intent.path) input.path = rel(intent.path);
      if (intent.glob) input.file_glob = intent.glob;
      return [{ name: 'search_files', input }];
    }
    case 'task':
      return [{ name: 'delegate_task', input: { goal: intent.prompt } }];
    case 'web-search':
      return [{ name: 'web_search', input: { query: intent.query } }];
    case 'web-fetch':
      // A question about the page has no place in web_extract: the page is fetched whole.
      return intent.prompt ? undefined : [{ name: 'web_extract', input: { urls: intent.urls } }];
  }
}

/** Hermes's JSON results as the text they carry (read_file's `N|` line numbers removed). */
function plainResult(name: string, text: string): { text: string; isError?: boolean } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { text };
  }
  if (!isObject(parsed)) return { text };
  const error = str(parsed.error);
  if (typeof parsed.content === 'string' && name === 'read_file') {
    const lines = parsed.content.split('\n');
    const numbered = lines.every((l) => l === '' || /^\s*\d+\|/.test(l));
    return { text: numbered ? lines.map((l) => l.replace(/^\s*\d+\|/, '')).join('\n') : parsed.content };
  }
  if (typeof parsed.output === 'string') {
    const code = typeof parsed.exit_code === 'number' ? parsed.exit_code : 0;
    const tail = [error, code !== 0 ? `(exit code ${code})` : undefined].filter(Boolean).join('\n');
    return { text: tail ? `${parsed.output}${parsed.output.endsWith('\n') || parsed.output === '' ? '' : '\n'}${tail}` : parsed.output, isError: code !== 0 || undefined };
  }
  if (typeof parsed.diff === 'string' && parsed.success !== false) return { text: parsed.diff };
  if (error) return { text: error, isError: true };
  return { text };
}

export const hermesVocabulary: Vocabulary = { agent: 'hermes', tools: TOOLS, parse, render, plainResult };
