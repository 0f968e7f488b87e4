// Semantic events derived from a finished Hermes tool call (docs/design.md §2): `command.run` from
// `terminal`, `file.read` from `read_file`, `file.edit` from `patch` and `write_file`, `todo.*`
// from `todo`, `memory.write` from `memory`. Pure functions of (call, result, state). Hermes tool results are JSON objects
// (`{"output", "exit_code", "error"}`, `{"success", "diff", "files_modified"}`, `{"todos"}` …);
// exit codes and diffs come from them and are never invented: a patch whose result has no diff
// keeps the replaced text as a hunk without line numbers.
import { isAbsolute, resolve } from 'node:path';
import { isObject, type Json } from '../../lib/core/json.js';

export interface Derived {
  type: string;
  payload: Json;
}

/** A call waiting for its result (plain JSON: it lives in cursors). */
export interface OpenCall {
  seq: number;
  name: string;
  input: unknown;
}

/** The todo list after the last `todo` call (plain JSON: it lives in cursors). */
export type TodoList = Array<{ id: string; content?: string; status?: string }>;

const HEAD_CHARS = 4096;
const TAIL_CHARS = 4096;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A tool result's content as a JSON object, when it is one. */
export function resultObject(content: string): Json | undefined {
  if (!content.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(content);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a result reports a failure: an `error`, `success: false`, or a non-zero `exit_code`. */
export function resultFailed(result: Json | undefined): boolean {
  if (!result) return false;
  if (result.error !== undefined && result.error !== null && result.error !== '' && result.error !== false) return true;
  if (result.success === false) return true;
  return typeof result.exit_code === 'number' && result.exit_code !== 0;
}

function headTail(text: string): Json {
  if (text.length <= HEAD_CHARS) return { stdout_head: text };
  return { stdout_head: text.slice(0, HEAD_CHARS), stdout_tail: text.slice(-TAIL_CHARS) };
}

function absolute(path: string, cwd: string | undefined): string {
  return cwd && !isAbsolute(path) ? resolve(cwd, path) : path;
}

function countLines(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added += 1;
    else if (line.startsWith('-') && !line.startsWith('---')) removed += 1;
  }
  return { added, removed };
}

function lines(text: string): string[] {
  const list = text.split('\n');
  if (list.length > 0 && list[list.length - 1] === '') list.pop();
  return list;
}

/** The per-file sections of a unified diff, by their `+++ b/<path>` headers (Hermes writes `a//abs/path`). */
export function splitDiff(diff: string): Array<{ path: string; diff: string }> {
  const out: Array<{ path: string; diff: string }> = [];
  const all = diff.split('\n');
  let start = -1;
  let path: string | undefined;
  const flush = (end: number) => {
    if (start >= 0 && path !== undefined) out.push({ path, diff: all.slice(start, end).join('\n').replace(/\n*$/, '\n') });
  };
  for (let i = 0; i < all.length; i += 1) {
    if (all[i].startsWith('--- ') && all[i + 1]?.startsWith('+++ ')) {
      flush(i);
      start = i;
      const target = all[i + 1].slice(4).replace(/\t.*$/, '');
      const source = all[i].slice(4).replace(/\t.*$/, '');
      const name = target === '/dev/null' ? source : target;
      path = name.replace(/^[ab]\//, '');
      i += 1;
    }
  }
  flush(all.length);
  return out;
}

function commandRun(input: Json, result: Json | undefined, content: string, cwd: string | undefined): Derived | undefined {
  const cmd = str(input.command);
  if (cmd === undefined) return undefined;
  const payload: Json = { cmd };
  const workdir = str(input.workdir) ?? str(input.cwd);
  if (workdir !== undefined || cwd !== undefined) payload.cwd = workdir ? absolute(workdir, cwd) : cwd;
  payload.exit_code = typeof result?.exit_code === 'number' ? result.exit_code : null;
  const output = result ? str(result.output) : content;
  if (output !== undefined && output !== '') Object.assign(payload, headTail(output), { output_combined: true });
  if (result && typeof result.error === 'string' && result.error !== '') payload.stderr_tail = result.error.slice(-TAIL_CHARS);
  if (input.background === true) payload.background = true;
  return { type: 'command.run', payload };
}

function fileRead(input: Json, result: Json | undefined, cwd: string | undefined): Derived | undefined {
  const path = str(input.path);
  if (path === undefined || resultFailed(result)) return undefined;
  const payload: Json = { path: absolute(path, cwd) };
  const range: Json = {};
  if (typeof input.offset === 'number') range.start = input.offset;
  if (typeof input.limit === 'number') range.lines = input.limit;
  if (Object.keys(range).length > 0) payload.range = range;
  if (typeof result?.truncated === 'boolean' && result.truncated) payload.truncated = true;
  return { type: 'file.read', payload };
}

function replaceHunk(oldText: string, newText: string): string {
  const removed = lines(oldText).map((l) => `-${l}`);
  const added = lines(newText).map((l) => `+${l}`);
  return `@@\n${[...removed, ...added].join('\n')}\n`;
}

function fileEdits(name: string, input: Json, result: Json | undefined, cwd: string | undefined): Derived[] {
  if (resultFailed(result)) return [];
  if (name === 'write_file') {
    const path = str(input.path);
    const content = str(input.content);
    if (path === undefined || content === undefined) return [];
    const body = lines(content);
    const diff = body.length > 0 ? `@@ -0,0 +1,${body.length} @@\n${body.map((l) => `+${l}`).join('\n')}\n` : '';
    const target = str(result?.resolved_path) ?? absolute(path, cwd);
    return [{ type: 'file.edit', payload: { path: target, diff, kind: 'create', added: body.length, removed: 0, whole_file: true } }];
  }
  // patch: the result's unified diff is the truth; without one, the replaced text as a hunk.
  const diff = str(result?.diff);
  if (diff !== undefined && diff !== '') {
    return splitDiff(diff).map((section) => ({ type: 'file.edit', payload: { path: section.path, diff: section.diff, kind: 'modify', ...countLines(section.diff) } }));
  }
  const path = str(input.path);
  const oldText = str(input.old_string);
  const newText = str(input.new_string);
  if (path === undefined || oldText === undefined || newText === undefined) return [];
  const hunk = replaceHunk(oldText, newText);
  return [{ type: 'file.edit', payload: { path: absolute(path, cwd), diff: hunk, kind: 'modify', line_numbers: false, ...countLines(hunk) } }];
}

function todoEvents(input: Json, result: Json | undefined, state: { todos: TodoList }): Derived[] {
  // The result holds the whole list after the call; the input only what changed when merging.
  const source = Array.isArray(result?.todos) ? result.todos : Array.isArray(input.todos) ? input.todos : undefined;
  if (!source) return [];
  const replace = Array.isArray(result?.todos) || input.merge !== true;
  const before = new Map(state.todos.map((t) => [t.id, t]));
  const next = new Map(replace ? [] : state.todos.map((t) => [t.id, { ...t }]));
  const out: Derived[] = [];
  for (const item of source) {
    if (!isObject(item) || (typeof item.id !== 'string' && typeof item.id !== 'number')) continue;
    const id = String(item.id);
    const merged = { ...(next.get(id) ?? before.get(id) ?? { id }), id };
    if (typeof item.content === 'string') merged.content = item.content;
    if (typeof item.status === 'string') merged.status = item.status;
    next.set(id, merged);
    const old = before.get(id);
    const payload: Json = { id };
    if (merged.content !== undefined) payload.content = merged.content;
    if (merged.status !== undefined) payload.status = merged.status;
    if (!old) out.push({ type: 'todo.add', payload });
    else if (old.status !== merged.status || old.content !== merged.content) out.push({ type: 'todo.update', payload });
  }
  if (replace) {
    for (const old of state.todos) if (!next.has(old.id)) out.push({ type: 'todo.remove', payload: { id: old.id, ...(old.content !== undefined ? { content: old.content } : {}) } });
  }
  state.todos = [...next.values()];
  return out;
}

const MEMORY_ACTIONS = new Set(['add', 'replace', 'remove']);

/**
 * Hermes's `memory` tool ({action: add|replace|remove, target: memory|user, content, old_text})
 * → memory.write, keyed by the store it wrote (`memory` is the agent's notes, `user` the profile).
 * A failed call wrote nothing; `remove` writes an empty value and names what it removed.
 */
function memoryWrite(input: Json, result: Json | undefined): Derived | undefined {
  if (resultFailed(result)) return undefined;
  const action = str(input.action);
  const target = str(input.target) ?? 'memory';
  if (action === undefined || !MEMORY_ACTIONS.has(action)) return undefined;
  const content = str(input.content);
  if (action !== 'remove' && (content === undefined || content === '')) return undefined;
  const payload: Json = { key: target, value: action === 'remove' ? '' : content!, scope: target === 'user' ? 'user' : 'agent', action, tool: 'memory' };
  const old = str(input.old_text);
  if (old !== undefined && action !== 'add') payload.old_text = old;
  return { type: 'memory.write', payload };
}

/** The derived events of a call once its result arrived (none for tools without a semantic event). */
export function deriveEvents(call: OpenCall, content: string, cwd: string | undefined, state: { todos: TodoList }): Derived[] {
  const input = isObject(call.input) ? call.input : {};
  const result = resultObject(content);
  switch (call.name) {
    case 'terminal': {
      const run = commandRun(input, result, content, cwd);
      return run ? [run] : [];
    }
    case 'read_file': {
      const read = fileRead(input, result, cwd);
      return read ? [read] : [];
    }
    case 'patch':
    case 'write_file':
      return fileEdits(call.name, input, result, cwd);
    case 'todo':
      return todoEvents(input, result, state);
    case 'memory': {
      const write = memoryWrite(input, result);
      return write ? [write] : [];
    }
    default:
      return [];
  }
}
