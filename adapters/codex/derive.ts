// Semantic events derived from a finished Codex tool call (docs/design.md §2): `command.run` from
// exec_command / shell / local_shell_call, one `file.edit` per file from apply_patch, `todo.*`
// from update_plan. Pure functions of (call, output, state): exit codes and diffs come from what
// the rollout says (the output header, the client's own patch_apply_end / FileChange record) and
// are never invented; a patch without the client's record keeps its hunks without line numbers.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { isObject, type Json } from '../../lib/core/json.js';
import { parsePatchSections } from '../../lib/relay/patch.js';

export interface Derived {
  type: string;
  payload: Json;
}

/** A tool call waiting for its output, as the mapper remembers it (plain JSON: it lives in cursors). */
export interface OpenCall {
  seq: number;
  name: string;
  /** function_call | custom_tool_call | local_shell_call */
  kind: string;
  input: unknown;
  cwd?: string;
  /** Per-file changes the client recorded (patch_apply_end / item_completed FileChange). */
  changes?: Json;
  patch_success?: boolean;
  /** From item_completed CommandExecution (paginated files). */
  exit_code?: number | null;
  aggregated_output?: string;
}

/** update_plan state carried between calls (and across incremental captures). */
export interface PlanState {
  /** step text → the todo id this capture gave it. */
  ids: Record<string, string>;
  next: number;
  list: Array<{ id: string; step: string; status?: string }>;
}

export function newPlanState(): PlanState {
  return { ids: {}, next: 1, list: [] };
}

const HEAD_CHARS = 4096;
const TAIL_CHARS = 4096;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The text of a function_call_output: a string, or the text parts of a content-item array. */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  const parts = Array.isArray(output) ? output : isObject(output) ? [output] : [];
  return parts
    .filter((p) => isObject(p) && typeof p.text === 'string')
    .map((p) => (p as { text: string }).text)
    .join('\n');
}

function headTail(text: string): { stdout_head: string; stdout_tail?: string } {
  if (text.length <= HEAD_CHARS) return { stdout_head: text };
  return { stdout_head: text.slice(0, HEAD_CHARS), stdout_tail: text.slice(-TAIL_CHARS) };
}

/** A shell word list as one command line; `bash -lc "<script>"` is the script itself. */
function commandLine(argv: unknown[]): string {
  const words = argv.map((w) => String(w));
  if (words.length === 3 && /(^|\/)(ba|z)?sh$/.test(words[0]) && /^-l?c$/.test(words[1])) return words[2];
  return words.map((w) => (/^[A-Za-z0-9_\/.,:@%+=-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

interface ParsedOutput {
  exit_code?: number | null;
  body: string;
  running?: number;
  wall_time?: number;
}

/**
 * The parts of a shell tool's output: 0.171 exec_command ("Chunk ID … Process exited with code N
 * … Output:\n…"), the older shell text ("Exit code: N\nWall time: …\nOutput:\n…"), and the oldest
 * JSON form ({"output": …, "metadata": {"exit_code": N}}).
 */
export function parseShellOutput(text: string): ParsedOutput {
  if (text.startsWith('{')) {
    try {
      const value: unknown = JSON.parse(text);
      if (isObject(value) && typeof value.output === 'string') {
        const meta = isObject(value.metadata) ? value.metadata : {};
        const out: ParsedOutput = { body: value.output };
        if (typeof meta.exit_code === 'number') out.exit_code = meta.exit_code;
        if (typeof meta.duration_seconds === 'number') out.wall_time = meta.duration_seconds;
        return out;
      }
    } catch {
      // not the JSON form
    }
  }
  const marker = text.indexOf('Output:\n');
  const header = marker >= 0 ? text.slice(0, marker) : text;
  const out: ParsedOutput = { body: marker >= 0 ? text.slice(marker + 'Output:\n'.length) : text };
  const exited = /(?:Process exited with code|Exit code:) (-?\d+)/.exec(header);
  if (exited) out.exit_code = Number(exited[1]);
  const running = /Process running with session ID (\d+)/.exec(header);
  if (running) out.running = Number(running[1]);
  const wall = /Wall time: ([\d.]+) seconds/.exec(header);
  if (wall) out.wall_time = Number(wall[1]);
  return out;
}

function commandRun(call: OpenCall, output: string): Derived | undefined {
  const input = isObject(call.input) ? call.input : {};
  let cmd: string | undefined;
  let cwd: string | undefined = call.cwd;
  if (call.kind === 'local_shell_call') {
    if (Array.isArray(input.command)) cmd = commandLine(input.command);
    cwd = str(input.working_directory) ?? cwd;
  } else if (call.name === 'exec_command') {
    cmd = str(input.cmd);
    cwd = str(input.workdir) ?? cwd;
  } else if (call.name === 'shell' || call.name === 'container.exec' || call.name === 'local_shell') {
    if (Array.isArray(input.command)) cmd = commandLine(input.command);
    else cmd = str(input.command);
    cwd = str(input.workdir) ?? cwd;
  }
  if (cmd === undefined) return undefined;
  const parsed = parseShellOutput(output);
  const payload: Json = { cmd };
  if (cwd !== undefined) payload.cwd = cwd;
  // The client's own record (paginated files) beats parsing the text.
  const exit = call.exit_code !== undefined ? call.exit_code : parsed.exit_code;
  payload.exit_code = exit ?? null;
  if (parsed.running !== undefined && exit === undefined) payload.running_session = parsed.running;
  if (parsed.wall_time !== undefined) payload.wall_time = parsed.wall_time;
  Object.assign(payload, headTail(call.aggregated_output ?? parsed.body));
  return { type: 'command.run', payload };
}

// ---- apply_patch ----------------------------------------------------------------------------

function diffName(path: string, cwd: string | undefined, side: 'a' | 'b'): string {
  if (cwd && isAbsolute(path)) {
    const rel = relative(cwd, path);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return `${side}/${rel.split(sep).join('/')}`;
  }
  return isAbsolute(path) ? path : `${side}/${path}`;
}

function count(body: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of body.split('\n')) {
    if (line.startsWith('+')) added += 1;
    else if (line.startsWith('-')) removed += 1;
  }
  return { added, removed };
}

function contentLines(content: string): string[] {
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function edit(path: string, kind: 'create' | 'modify' | 'delete', body: string, cwd: string | undefined, extra: Json = {}): Derived {
  const from = kind === 'create' ? '/dev/null' : diffName(path, cwd, 'a');
  const to = kind === 'delete' ? '/dev/null' : diffName(String(extra.moved_to ?? path), cwd, 'b');
  const diff = `--- ${from}\n+++ ${to}\n${body}${body === '' || body.endsWith('\n') ? '' : '\n'}`;
  return { type: 'file.edit', payload: { path, kind, diff, ...count(body), ...extra } };
}

/** file.edit events from the client's recorded changes ({path: {type, unified_diff | content, move_path}}; older files nest by type). */
function editsFromChanges(changes: Json, cwd: string | undefined): Derived[] {
  const out: Derived[] = [];
  for (const [path, raw] of Object.entries(changes)) {
    if (!isObject(raw)) continue;
    // 0.171: {type:"update", unified_diff}; older: {update: {unified_diff}} / {add: {content}} / {delete: {}}.
    let type = str(raw.type);
    let change: Json = raw;
    if (type === undefined) {
      const key = ['add', 'update', 'delete'].find((k) => k in raw);
      if (key === undefined) continue;
      type = key;
      change = isObject(raw[key]) ? (raw[key] as Json) : {};
    }
    const moved = str(change.move_path);
    if (type === 'add') {
      const lines = contentLines(str(change.content) ?? '');
      const body = lines.length > 0 ? `@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n` : '';
      out.push(edit(path, 'create', body, cwd));
    } else if (type === 'delete') {
      const content = str(change.content);
      const lines = content !== undefined ? contentLines(content) : [];
      const body = lines.length > 0 ? `@@ -1,${lines.length} +0,0 @@\n${lines.map((l) => `-${l}`).join('\n')}\n` : '';
      out.push(edit(path, 'delete', body, cwd));
    } else {
      out.push(edit(path, 'modify', str(change.unified_diff) ?? '', cwd, moved ? { moved_to: moved } : {}));
    }
  }
  return out;
}

/**
 * file.edit events from the patch text alone: hunks keep the patch's `@@` lines (no line numbers
 * are known). The patch is read by the one parser of the format (lib/relay/patch.ts, which the
 * relay uses too): a text it does not take as a patch gives no edits.
 */
function editsFromPatch(patch: string, cwd: string | undefined): Derived[] {
  return (parsePatchSections(patch) ?? []).map(({ file: f, lines: hunkLines }) => {
    const path = cwd && !isAbsolute(f.path) ? resolve(cwd, f.path) : f.path;
    if (f.op === 'add') {
      const lines = contentLines(f.content);
      const body = lines.length > 0 ? `@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n` : '';
      return edit(path, 'create', body, cwd);
    }
    if (f.op === 'delete') return edit(path, 'delete', '', cwd);
    const extra: Json = { line_numbers: false };
    if (f.moveTo) extra.moved_to = cwd && !isAbsolute(f.moveTo) ? resolve(cwd, f.moveTo) : f.moveTo;
    const body = hunkLines.length > 0 ? `${hunkLines.join('\n')}\n` : '';
    return edit(path, 'modify', hunkLines[0]?.startsWith('@@') || body === '' ? body : `@@\n${body}`, cwd, extra);
  });
}

function patchSucceeded(call: OpenCall, output: string): boolean {
  if (call.patch_success !== undefined) return call.patch_success;
  const parsed = parseShellOutput(output);
  if (parsed.exit_code !== undefined) return parsed.exit_code === 0;
  return /Success\. Updated the following files/.test(output);
}

/** The patch text of an apply_patch call: freeform input, `{input}` JSON, or the old `shell ["apply_patch", patch]`. */
export function patchText(call: { name: string; input: unknown }): string | undefined {
  if (call.name === 'apply_patch') {
    if (typeof call.input === 'string') return call.input;
    if (isObject(call.input)) return str(call.input.input) ?? str(call.input.patch);
  }
  if (call.name === 'shell' && isObject(call.input) && Array.isArray(call.input.command)) {
    const argv = call.input.command;
    if (argv.length === 2 && (argv[0] === 'apply_patch' || argv[0] === 'applypatch') && typeof argv[1] === 'string') return argv[1];
  }
  return undefined;
}

function fileEdits(call: OpenCall, output: string): Derived[] {
  const patch = patchText(call);
  if (patch === undefined || !patchSucceeded(call, output)) return [];
  const cwd = call.cwd;
  if (call.changes && Object.keys(call.changes).length > 0) return editsFromChanges(call.changes, cwd);
  return editsFromPatch(patch, cwd);
}

// ---- update_plan ----------------------------------------------------------------------------

/**
 * The plan an update_plan call sets: its steps (those with a step text) and their statuses as
 * written; undefined when the input holds no plan. The one reader of the tool's input: capture
 * derives todo.* events from it, the relay vocabulary a plan intent.
 */
export function readUpdatePlan(input: unknown): { steps: Array<{ step: string; status?: string }>; explanation?: string } | undefined {
  if (!isObject(input) || !Array.isArray(input.plan)) return undefined;
  const steps = input.plan.filter((raw): raw is Json => isObject(raw) && typeof raw.step === 'string').map((raw) => ({ step: raw.step as string, status: str(raw.status) }));
  return { steps, explanation: str(input.explanation) };
}

function planEvents(call: OpenCall, state: PlanState): Derived[] {
  const plan = readUpdatePlan(call.input);
  if (!plan) return [];
  const input = { explanation: plan.explanation };
  const out: Derived[] = [];
  const next: PlanState['list'] = [];
  const before = new Map(state.list.map((item) => [item.id, item]));
  for (const { step, status } of plan.steps) {
    let id = state.ids[step];
    const known = id !== undefined && before.has(id);
    if (id === undefined) {
      id = `plan-${state.next}`;
      state.next += 1;
      state.ids[step] = id;
    }
    next.push({ id, step, status });
    const payload: Json = { id, content: step };
    if (status !== undefined) payload.status = status;
    if (!known) out.push({ type: 'todo.add', payload });
    else if (before.get(id)!.status !== status) out.push({ type: 'todo.update', payload });
    before.delete(id);
  }
  for (const gone of before.values()) out.push({ type: 'todo.remove', payload: { id: gone.id, content: gone.step } });
  state.list = next;
  if (out.length > 0 && typeof input.explanation === 'string') out[0].payload.explanation = input.explanation;
  return out;
}

/** The derived events of a call once its output arrived (none for tools without a semantic event). */
export function deriveEvents(call: OpenCall, output: unknown, plans: PlanState): Derived[] {
  const text = outputText(output);
  if (call.name === 'update_plan') return planEvents(call, plans);
  if (patchText(call) !== undefined) return fileEdits(call, text);
  const run = commandRun(call, text);
  return run ? [run] : [];
}
