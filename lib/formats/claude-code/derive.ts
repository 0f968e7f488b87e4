// Semantic events derived from a finished tool call (docs/design.md §2): file.edit, file.read,
// command.run, todo.*, decision (an approved plan) and memory.write (decisions.ts). Pure functions
// of (call, result, state): they only read what the native records say and never invent line
// numbers or exit codes that are not there.
import { relative, isAbsolute, sep } from 'node:path';
import type { CommandRunPayload, FileEditPayload, FileReadPayload, TodoPayload } from '../../core/event.js';
import { isObject } from '../../core/json.js';
import { memoryWrite, planDecision } from './decisions.js';

export interface FinishedCall {
  name: string;
  input: unknown;
  /** tool_result content: a string or blocks. */
  content: unknown;
  isError: boolean;
  /** The line's `toolUseResult`, verbatim (absent in subagent files and old formats). */
  structured: unknown;
  /** The cwd the call ran in. */
  cwd?: string;
}

export interface Derived {
  type: string;
  payload: Record<string, unknown>;
}

/** TodoWrite state carried between calls (and across incremental captures). */
export interface TodoState {
  /** todo content → the id this capture gave it (TodoWrite items have no ids). */
  ids: Record<string, string>;
  next: number;
  /** The list after the last TodoWrite, for calls whose result lacks oldTodos. */
  list: Array<{ content: string; status?: string; activeForm?: string; id?: string }>;
}

export function newTodoState(): TodoState {
  return { ids: {}, next: 1, list: [] };
}

const HEAD_CHARS = 4096;
const TAIL_CHARS = 4096;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The text of a tool_result's content (string, or the text of its text blocks). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string')
      .map((b) => (b as { text: string }).text)
      .join('\n');
  }
  return '';
}

/** `a/<path relative to cwd>` for paths inside the cwd (git style), the absolute path otherwise. */
function diffName(path: string, cwd: string | undefined, side: 'a' | 'b'): string {
  if (cwd && isAbsolute(path)) {
    const rel = relative(cwd, path);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return `${side}/${rel.split(sep).join('/')}`;
  }
  return path;
}

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

function isHunk(value: unknown): value is Hunk {
  return (
    isObject(value) &&
    typeof value.oldStart === 'number' &&
    typeof value.oldLines === 'number' &&
    typeof value.newStart === 'number' &&
    typeof value.newLines === 'number' &&
    Array.isArray(value.lines) &&
    value.lines.every((l) => typeof l === 'string')
  );
}

/** A unified diff from Claude's `structuredPatch` hunks (their lines already carry ' ', '-', '+'). */
export function diffFromHunks(path: string, hunks: Hunk[], cwd?: string): { diff: string; added: number; removed: number } {
  let added = 0;
  let removed = 0;
  const out = [`--- ${diffName(path, cwd, 'a')}`, `+++ ${diffName(path, cwd, 'b')}`];
  for (const hunk of hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added += 1;
      else if (line.startsWith('-')) removed += 1;
      out.push(line);
    }
  }
  return { diff: out.join('\n') + '\n', added, removed };
}

/** A unified diff that creates `path` with `content`. */
export function diffForCreate(path: string, content: string, cwd?: string): { diff: string; added: number; removed: number } {
  const out = ['--- /dev/null', `+++ ${diffName(path, cwd, 'b')}`];
  if (content === '') return { diff: out.join('\n') + '\n', added: 0, removed: 0 };
  const endsWithNewline = content.endsWith('\n');
  const lines = (endsWithNewline ? content.slice(0, -1) : content).split('\n');
  out.push(`@@ -0,0 +1,${lines.length} @@`);
  for (const line of lines) out.push(`+${line}`);
  if (!endsWithNewline) out.push('\\ No newline at end of file');
  return { diff: out.join('\n') + '\n', added: lines.length, removed: 0 };
}

function fileEdit(call: FinishedCall): Derived | undefined {
  if (call.isError) return undefined;
  const input = isObject(call.input) ? call.input : {};
  const result = isObject(call.structured) ? call.structured : undefined;
  const path = str(result?.filePath) ?? str(input.file_path) ?? str(input.notebook_path);
  if (path === undefined) return undefined;
  const hunks = Array.isArray(result?.structuredPatch) ? result!.structuredPatch.filter(isHunk) : undefined;
  let kind: FileEditPayload['kind'];
  let made: { diff: string; added: number; removed: number };
  if (call.name === 'Write' && (result?.type === 'create' || (result === undefined && typeof input.content === 'string'))) {
    // Without toolUseResult a Write may have overwritten a file; only the result says it created one.
    const content = str(result?.content) ?? str(input.content) ?? '';
    made = diffForCreate(path, content, call.cwd);
    kind = result?.type === 'create' ? 'create' : undefined;
  } else if (hunks !== undefined) {
    made = diffFromHunks(path, hunks, call.cwd);
    kind = 'modify';
  } else {
    return undefined; // no patch recorded: a diff without real line numbers would mislead
  }
  const payload: FileEditPayload = { path, diff: made.diff, added: made.added, removed: made.removed, tool: call.name };
  if (kind) payload.kind = kind;
  if (call.name === 'Edit' && typeof input.replace_all === 'boolean') payload.replace_all = input.replace_all;
  if (result && typeof result.userModified === 'boolean') payload.user_modified = result.userModified;
  return { type: 'file.edit', payload };
}

function fileRead(call: FinishedCall): Derived | undefined {
  if (call.isError) return undefined;
  const input = isObject(call.input) ? call.input : {};
  const result = isObject(call.structured) ? call.structured : undefined;
  const file = isObject(result?.file) ? result!.file : undefined;
  const path = str(file?.filePath) ?? str(input.file_path);
  if (path === undefined) return undefined;
  const payload: FileReadPayload = { path };
  if (file && typeof file.startLine === 'number' && typeof file.numLines === 'number') {
    payload.range = { start: file.startLine, lines: file.numLines };
    if (typeof file.totalLines === 'number') payload.total_lines = file.totalLines;
  } else if (typeof input.offset === 'number' || typeof input.limit === 'number') {
    const range: { start?: number; lines?: number } = {};
    if (typeof input.offset === 'number') range.start = input.offset;
    if (typeof input.limit === 'number') range.lines = input.limit;
    payload.range = range;
  }
  if (typeof result?.type === 'string' && result.type !== 'text') payload.kind = result.type;
  return { type: 'file.read', payload };
}

const EXIT_CODE = /^(?:Error: )?Exit code (-?\d+)\s*(?:\n|$)/;

function headTail(text: string): { head: string; tail?: string; truncated?: boolean } {
  if (text.length <= HEAD_CHARS) return { head: text };
  return { head: text.slice(0, HEAD_CHARS), tail: text.slice(-TAIL_CHARS), truncated: true };
}

function commandRun(call: FinishedCall): Derived | undefined {
  const input = isObject(call.input) ? call.input : {};
  const cmd = str(input.command);
  if (cmd === undefined) return undefined;
  const result = call.structured;
  const text = contentText(call.content);
  let exitCode: number | null;
  let stdout: string | undefined;
  let stderr: string | undefined;
  let combined = false;
  if (!call.isError) {
    exitCode = 0;
    if (isObject(result)) {
      stdout = str(result.stdout);
      stderr = str(result.stderr);
    } else {
      stdout = text;
      combined = true;
    }
  } else {
    // A failing command's result is "Exit code N\n<output>" (stdout and stderr together).
    const match = EXIT_CODE.exec(text) ?? (typeof result === 'string' ? EXIT_CODE.exec(result) : null);
    const ran = match !== null || (isObject(result) && typeof result.stdout === 'string' && (result.stdout !== '' || result.interrupted === true));
    if (!ran) return undefined; // denied, or failed before running: no command ran
    exitCode = match ? Number(match[1]) : null;
    if (isObject(result) && typeof result.stdout === 'string') {
      stdout = result.stdout;
      stderr = str(result.stderr);
    } else {
      stdout = match ? text.slice(match[0].length) : text;
      combined = true;
    }
  }
  const payload: CommandRunPayload = { cmd, exit_code: exitCode };
  if (call.cwd) payload.cwd = call.cwd;
  if (stdout !== undefined && stdout !== '') {
    const cut = headTail(stdout);
    payload.stdout_head = cut.head;
    if (cut.tail !== undefined) payload.stdout_tail = cut.tail;
    if (cut.truncated) payload.stdout_chars = stdout.length;
  }
  if (stderr !== undefined && stderr !== '') payload.stderr_tail = stderr.length > TAIL_CHARS ? stderr.slice(-TAIL_CHARS) : stderr;
  if (combined) payload.output_combined = true;
  if (isObject(result) && typeof result.interrupted === 'boolean') payload.interrupted = result.interrupted;
  if (typeof input.description === 'string') payload.description = input.description;
  if (input.run_in_background === true) payload.background = true;
  return { type: 'command.run', payload };
}

export type TodoItem = { content: string; status?: string; activeForm?: string; id?: string };

/**
 * The items of a TodoWrite list (its input's `todos`, or the result's old/new lists): those with a
 * text, statuses as written. The one reader of the tool's list: capture derives todo.* events from
 * it and the relay vocabulary (vocabulary.ts) a plan.
 */
export function todoItems(value: unknown): TodoItem[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((t) => isObject(t) && typeof t.content === 'string').map((t) => {
    const o = t as Record<string, unknown>;
    const item: TodoItem = { content: o.content as string };
    if (typeof o.status === 'string') item.status = o.status;
    if (typeof o.activeForm === 'string') item.activeForm = o.activeForm;
    if (typeof o.id === 'string' || typeof o.id === 'number') item.id = String(o.id);
    return item;
  });
}

function todoPayload(id: string, item: TodoItem): TodoPayload {
  const payload: TodoPayload = { id, content: item.content };
  if (item.status !== undefined) payload.status = item.status;
  if (item.activeForm !== undefined) payload.active_form = item.activeForm;
  return payload;
}

/** TodoWrite replaces the whole list: compare the old and new lists item by item. */
function todoWrite(call: FinishedCall, state: TodoState): Derived[] {
  if (call.isError) return [];
  const input = isObject(call.input) ? call.input : {};
  const result = isObject(call.structured) ? call.structured : undefined;
  const next = todoItems(result?.newTodos) ?? todoItems(input.todos);
  if (next === undefined) return [];
  const previous = todoItems(result?.oldTodos) ?? state.list;
  const idOf = (item: TodoItem): string => {
    if (item.id !== undefined) return item.id;
    let id = state.ids[item.content];
    if (id === undefined) {
      id = `todo-${state.next++}`;
      state.ids[item.content] = id;
    }
    return id;
  };
  const before = new Map(previous.map((item) => [idOf(item), item]));
  const out: Derived[] = [];
  const kept = new Set<string>();
  for (const item of next) {
    const id = idOf(item);
    kept.add(id);
    const old = before.get(id);
    if (!old) out.push({ type: 'todo.add', payload: { ...todoPayload(id, item), tool: 'TodoWrite' } });
    else if (old.status !== item.status || old.activeForm !== item.activeForm) {
      const payload: TodoPayload = { ...todoPayload(id, item), tool: 'TodoWrite' };
      if (old.status !== undefined) payload.previous_status = old.status;
      out.push({ type: 'todo.update', payload });
    }
  }
  for (const [id, old] of before) {
    if (!kept.has(id)) out.push({ type: 'todo.remove', payload: { ...todoPayload(id, old), tool: 'TodoWrite' } });
  }
  state.list = next;
  return out;
}

function taskCreate(call: FinishedCall): Derived[] {
  if (call.isError) return [];
  const input = isObject(call.input) ? call.input : {};
  const result = isObject(call.structured) ? call.structured : undefined;
  const task = isObject(result?.task) ? result!.task : undefined;
  let id = task?.id !== undefined ? String(task.id) : undefined;
  // Without toolUseResult the id is only in the text: "Task #3 created successfully: …".
  if (id === undefined) id = /Task #(\w+) created/.exec(contentText(call.content))?.[1];
  if (id === undefined) return [];
  const payload: TodoPayload = { id, status: 'pending', tool: 'TaskCreate' };
  const subject = str(input.subject) ?? str(task?.subject);
  if (subject !== undefined) payload.content = subject;
  if (typeof input.description === 'string') payload.description = input.description;
  if (typeof input.activeForm === 'string') payload.active_form = input.activeForm;
  return [{ type: 'todo.add', payload }];
}

/** The task a TaskUpdate names (a number or a string id), read the same way by capture and the relay. */
export function updatedTaskId(input: unknown): string | undefined {
  if (!isObject(input)) return undefined;
  const id = input.taskId;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

function taskUpdate(call: FinishedCall): Derived[] {
  if (call.isError) return [];
  const input = isObject(call.input) ? call.input : {};
  const result = isObject(call.structured) ? call.structured : undefined;
  if (result?.success === false) return [];
  const id = updatedTaskId(input) ?? updatedTaskId({ taskId: result?.taskId });
  if (id === undefined) return [];
  const change = isObject(result?.statusChange) ? result!.statusChange : undefined;
  const status = str(input.status) ?? str(change?.to);
  const payload: TodoPayload = { id, tool: 'TaskUpdate' };
  if (status !== undefined) payload.status = status;
  if (typeof change?.from === 'string') payload.previous_status = change.from;
  if (typeof input.subject === 'string') payload.content = input.subject;
  if (typeof input.activeForm === 'string') payload.active_form = input.activeForm;
  if (typeof input.description === 'string') payload.description = input.description;
  if (Array.isArray(result?.updatedFields)) payload.updated_fields = result!.updatedFields;
  return [{ type: status === 'deleted' ? 'todo.remove' : 'todo.update', payload }];
}

/** The derived events of one finished call (none for tools that carry no file, command or plan). */
export function deriveEvents(call: FinishedCall, todos: TodoState): Derived[] {
  switch (call.name) {
    case 'Edit':
    case 'MultiEdit':
    case 'Write': {
      const edit = fileEdit(call);
      const memory = edit ? memoryWrite(call) : undefined;
      return [edit, memory].filter((d): d is Derived => d !== undefined);
    }
    case 'Read': {
      const read = fileRead(call);
      return read ? [read] : [];
    }
    case 'Bash':
    case 'bash': {
      const run = commandRun(call);
      return run ? [run] : [];
    }
    case 'TodoWrite':
      return todoWrite(call, todos);
    case 'TaskCreate':
      return taskCreate(call);
    case 'TaskUpdate':
      return taskUpdate(call);
    case 'ExitPlanMode': {
      const decision = planDecision(call);
      return decision ? [decision] : [];
    }
    default:
      return [];
  }
}

/** The todo id a Task* call touched, so later task-file events can point at the call. */
export function taskIdOf(derived: Derived[]): string[] {
  return derived.filter((d) => d.type.startsWith('todo.')).map((d) => String(d.payload.id));
}
