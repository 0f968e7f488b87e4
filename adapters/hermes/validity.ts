// The rules a written Hermes session must keep (docs/formats/hermes.md §8.5, "What a writer must do"),
// checked on rows: the writer runs them on what it is about to insert (and refuses to write a
// session that breaks one), and the tests run them on what they read back from the database.
import { isObject, type Json } from '../../lib/core/json.js';

export interface MessageRowLike {
  id?: number;
  role: unknown;
  content: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
  tool_name?: unknown;
  reasoning?: unknown;
  active?: unknown;
  api_content?: unknown;
}

export interface SessionRowLike {
  id?: unknown;
  source?: unknown;
  cwd?: unknown;
  model?: unknown;
  started_at?: unknown;
  title?: unknown;
  message_count?: unknown;
  tool_call_count?: unknown;
  system_prompt?: unknown;
  system_prompt_hash?: unknown;
}

export interface RuleResult {
  rule: string;
  ok: boolean;
  /** The first problem, naming the row. */
  detail?: string;
}

export const RULES = [
  'rows active, in id order',
  'roles user/assistant/tool only',
  'first message is user',
  'roles alternate',
  'tool_calls well-formed',
  'every call answered right after it, once',
  'no orphan tool results',
  'tool rows name their tool',
  'user content non-empty',
  'non-final assistant not empty',
  'api_content left NULL',
  'session row: source cli, cwd, model, started_at',
  'system prompt left NULL',
  'counters match',
] as const;

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

/** The calls of a tool_calls column, or why it is not a valid list. */
export function parseCalls(value: unknown): { calls: Json[]; problem?: string } {
  if (value === null || value === undefined || value === '') return { calls: [] };
  if (typeof value !== 'string') return { calls: [], problem: 'not text' };
  let list: unknown;
  try {
    list = JSON.parse(value);
  } catch {
    return { calls: [], problem: 'not JSON' };
  }
  if (!Array.isArray(list)) return { calls: [], problem: 'not a list' };
  const ids = new Set<string>();
  for (const call of list) {
    if (!isObject(call)) return { calls: [], problem: 'an entry is not an object' };
    if (typeof call.id !== 'string' || call.id === '') return { calls: [], problem: 'an entry has no id' };
    if (ids.has(call.id)) return { calls: [], problem: `id ${call.id} twice` };
    ids.add(call.id);
    if (call.type !== 'function') return { calls: [], problem: `${call.id}: type is not "function"` };
    const fn = isObject(call.function) ? call.function : undefined;
    if (!fn || !nonEmpty(fn.name)) return { calls: [], problem: `${call.id}: no function name` };
    if (typeof fn.arguments !== 'string') return { calls: [], problem: `${call.id}: arguments is not a string` };
    let args: unknown;
    try {
      args = JSON.parse(fn.arguments);
    } catch {
      return { calls: [], problem: `${call.id}: arguments is not JSON` };
    }
    if (!isObject(args)) return { calls: [], problem: `${call.id}: arguments is not a JSON object` };
  }
  return { calls: list as Json[] };
}

/** Every rule, in order, for one session's rows (in id order) and its session row. */
export function checkValidity(rows: MessageRowLike[], session?: SessionRowLike): RuleResult[] {
  const problems = new Map<string, string>();
  const fail = (rule: (typeof RULES)[number], detail: string) => {
    if (!problems.has(rule)) problems.set(rule, detail);
  };
  const at = (i: number) => `row ${rows[i].id ?? i + 1}`;
  let lastId = -Infinity;
  let toolCalls = 0;
  let expecting: Set<string> | undefined;
  let previous: string | undefined;
  rows.forEach((row, i) => {
    if (row.active !== undefined && row.active !== 1) fail('rows active, in id order', `${at(i)}: active=${String(row.active)}`);
    if (typeof row.id === 'number') {
      if (row.id <= lastId) fail('rows active, in id order', `${at(i)}: id not ascending`);
      lastId = row.id;
    }
    if (row.api_content !== undefined && row.api_content !== null) fail('api_content left NULL', `${at(i)}: api_content set`);
    const role = row.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'tool') {
      fail('roles user/assistant/tool only', `${at(i)}: role ${String(role)}`);
      return;
    }
    if (i === 0 && role !== 'user') fail('first message is user', `${at(i)}: ${role}`);
    if (role === 'tool') {
      const id = typeof row.tool_call_id === 'string' ? row.tool_call_id : '';
      if (!expecting || !expecting.has(id)) fail('no orphan tool results', `${at(i)}: tool_call_id ${JSON.stringify(id)} answers no call of the assistant row before it (or answers it twice)`);
      else expecting.delete(id);
      if (!nonEmpty(row.tool_name)) fail('tool rows name their tool', `${at(i)}: no tool_name`);
      previous = 'tool';
      return;
    }
    if (expecting && expecting.size > 0) fail('every call answered right after it, once', `${at(i)}: ${role} row before the result of ${[...expecting][0]}`);
    expecting = undefined;
    if (role === previous) fail('roles alternate', `${at(i)}: ${role} after ${role}`);
    if (role === 'user') {
      if (!nonEmpty(row.content)) fail('user content non-empty', `${at(i)}: empty user content`);
    } else {
      const parsed = parseCalls(row.tool_calls);
      if (parsed.problem) fail('tool_calls well-formed', `${at(i)}: tool_calls ${parsed.problem}`);
      toolCalls += parsed.calls.length;
      if (parsed.calls.length > 0) expecting = new Set(parsed.calls.map((c) => String(c.id)));
      const last = i === rows.length - 1;
      if (!last && parsed.calls.length === 0 && !nonEmpty(row.content) && !nonEmpty(row.reasoning)) fail('non-final assistant not empty', `${at(i)}: no text, tool calls or reasoning`);
    }
    previous = role;
  });
  if (expecting && expecting.size > 0) fail('every call answered right after it, once', `the last assistant row's call ${[...expecting][0]} has no result`);
  if (rows.length === 0) fail('first message is user', 'no rows');
  if (session) {
    if (session.source !== 'cli' || !nonEmpty(session.cwd) || !nonEmpty(session.model) || typeof session.started_at !== 'number') {
      fail('session row: source cli, cwd, model, started_at', `source=${String(session.source)} cwd=${String(session.cwd)} model=${String(session.model)} started_at=${String(session.started_at)}`);
    }
    if (session.system_prompt != null || session.system_prompt_hash != null) fail('system prompt left NULL', 'system_prompt or its hash is set');
    if (Number(session.message_count) !== rows.length || Number(session.tool_call_count) !== toolCalls) {
      fail('counters match', `message_count ${String(session.message_count)} (rows ${rows.length}), tool_call_count ${String(session.tool_call_count)} (calls ${toolCalls})`);
    }
  }
  return RULES.filter((rule) => session !== undefined || !['session row: source cli, cwd, model, started_at', 'system prompt left NULL', 'counters match'].includes(rule)).map((rule) =>
    problems.has(rule) ? { rule, ok: false, detail: problems.get(rule) } : { rule, ok: true },
  );
}
