// Decisions and memory the transcript marks as such (docs/design.md §2): an ExitPlanMode call the user
// approved becomes a `decision` (the plan as approved, which the user may have edited), and a
// Write/Edit of a CLAUDE.md memory file (or the auto-memory folder) becomes a `memory.write` next
// to its file.edit. A rejected plan is no decision: the result is an error and nothing follows.
import { basename } from 'node:path';
import { isObject } from '../../core/json.js';
import { contentText, type Derived, type FinishedCall } from './derive.js';

const APPROVED = /^User has approved your plan\b/;
const APPROVED_PLAN = /\n## Approved Plan[^\n]*:\n([\s\S]*)$/;
const TITLE_CHARS = 300;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The plan's first line without its heading marks: what was decided, in a line. */
function planTitle(plan: string): string {
  const line = plan.split('\n').map((l) => l.replace(/^#+\s*/, '').replace(/\*\*/g, '').trim()).find((l) => l !== '') ?? '';
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

/** ExitPlanMode approved by the user → decision (plan text from the result, else from the call). */
export function planDecision(call: FinishedCall): Derived | undefined {
  if (call.isError) return undefined;
  const text = contentText(call.content);
  const result = isObject(call.structured) ? call.structured : undefined;
  if (!APPROVED.test(text.trimStart())) return undefined;
  const input = isObject(call.input) ? call.input : {};
  const plan = str(result?.plan) ?? APPROVED_PLAN.exec(text)?.[1]?.trim() ?? str(input.plan);
  if (plan === undefined || plan.trim() === '') return undefined;
  const title = planTitle(plan);
  if (title === '') return undefined;
  const payload: Record<string, unknown> = { decision: `Approved plan: ${title}`, kind: 'plan', approved_by: 'user', plan, tool: call.name };
  if (/\n## Approved Plan \(edited by user\)/.test(text)) payload.edited_by_user = true;
  const file = str(result?.filePath);
  if (file !== undefined) payload.plan_file = file;
  return { type: 'decision', payload };
}

/** Which memory a path is, when it is one: CLAUDE.md files and the per-project auto-memory folder. */
export function memoryScope(path: string): string | undefined {
  const normal = path.split('\\').join('/');
  if (/\/\.claude\/projects\/[^/]+\/memory\//.test(normal)) return 'auto';
  const name = basename(normal);
  if (name === 'CLAUDE.local.md') return 'local';
  if (name !== 'CLAUDE.md') return undefined;
  return /\/\.claude\/CLAUDE\.md$/.test(normal) ? 'user' : 'project';
}

/** A successful Write/Edit/MultiEdit of a memory file → memory.write with the text written. */
export function memoryWrite(call: FinishedCall): Derived | undefined {
  if (call.isError) return undefined;
  const input = isObject(call.input) ? call.input : {};
  const result = isObject(call.structured) ? call.structured : undefined;
  const path = str(result?.filePath) ?? str(input.file_path);
  if (path === undefined) return undefined;
  const scope = memoryScope(path);
  if (scope === undefined) return undefined;
  let value: string | undefined;
  if (call.name === 'Write') value = str(input.content);
  else if (call.name === 'Edit') value = str(input.new_string);
  else if (call.name === 'MultiEdit' && Array.isArray(input.edits)) {
    const parts = input.edits.map((e) => (isObject(e) ? str(e.new_string) : undefined)).filter((s): s is string => s !== undefined);
    value = parts.length > 0 ? parts.join('\n') : undefined;
  }
  if (value === undefined) return undefined;
  return { type: 'memory.write', payload: { key: path, value, scope, tool: call.name } };
}
