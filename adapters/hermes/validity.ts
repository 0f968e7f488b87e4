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

type Rule = (typeof RULES)[number];
const SESSION_RULES: readonly string[] = ['session row: source cli, cwd, model, started_at', 'system prompt left NULL', 'counters match'];

/**
 * The rules checked row by row (in id order), holding a few counters and the call ids the last
 * assistant row still waits for, never the rows: a writer checks what it spooled. `done` gives
 * every rule's result.
 */
export class ValidityCheck {
  private readonly problems = new Map<string, string>();
  private index = 0;
  private lastId = -Infinity;
  private toolCalls = 0;
  private expecting: Set<string> | undefined;
  private previous: string | undefined;
  /** An assistant row with nothing in it: a failure unless it is the last row (known when the next comes). */
  private emptyAssistant: string | undefined;

  private fail(rule: Rule, detail: string): void {
    if (!this.problems.has(rule)) this.problems.set(rule, detail);
  }

  add(row: MessageRowLike): void {
    const i = this.index++;
    const at = `row ${row.id ?? i + 1}`;
    if (this.emptyAssistant !== undefined) this.fail('non-final assistant not empty', `${this.emptyAssistant}: no text, tool calls or reasoning`);
    this.emptyAssistant = undefined;
    if (row.active !== undefined && row.active !== 1) this.fail('rows active, in id order', `${at}: active=${String(row.active)}`);
    if (typeof row.id === 'number') {
      if (row.id <= this.lastId) this.fail('rows active, in id order', `${at}: id not ascending`);
      this.lastId = row.id;
    }
    if (row.api_content !== undefined && row.api_content !== null) this.fail('api_content left NULL', `${at}: api_content set`);
    const role = row.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'tool') {
      this.fail('roles user/assistant/tool only', `${at}: role ${String(role)}`);
      return;
    }
    if (i === 0 && role !== 'user') this.fail('first message is user', `${at}: ${role}`);
    if (role === 'tool') {
      const id = typeof row.tool_call_id === 'string' ? row.tool_call_id : '';
      if (!this.expecting || !this.expecting.has(id)) this.fail('no orphan tool results', `${at}: tool_call_id ${JSON.stringify(id)} answers no call of the assistant row before it (or answers it twice)`);
      else this.expecting.delete(id);
      if (!nonEmpty(row.tool_name)) this.fail('tool rows name their tool', `${at}: no tool_name`);
      this.previous = 'tool';
      return;
    }
    if (this.expecting && this.expecting.size > 0) this.fail('every call answered right after it, once', `${at}: ${role} row before the result of ${[...this.expecting][0]}`);
    this.expecting = undefined;
    if (role === this.previous) this.fail('roles alternate', `${at}: ${role} after ${role}`);
    if (role === 'user') {
      if (!nonEmpty(row.content)) this.fail('user content non-empty', `${at}: empty user content`);
    } else {
      const parsed = parseCalls(row.tool_calls);
      if (parsed.problem) this.fail('tool_calls well-formed', `${at}: tool_calls ${parsed.problem}`);
      this.toolCalls += parsed.calls.length;
      if (parsed.calls.length > 0) this.expecting = new Set(parsed.calls.map((c) => String(c.id)));
      if (parsed.calls.length === 0 && !nonEmpty(row.content) && !nonEmpty(row.reasoning)) this.emptyAssistant = at;
    }
    this.previous = role;
  }

  /** Every rule's result (the session row's rules only when it is given). */
  done(session?: SessionRowLike): RuleResult[] {
    const rows = this.index;
    if (this.expecting && this.expecting.size > 0) this.fail('every call answered right after it, once', `the last assistant row's call ${[...this.expecting][0]} has no result`);
    if (rows === 0) this.fail('first message is user', 'no rows');
    if (session) {
      if (session.source !== 'cli' || !nonEmpty(session.cwd) || !nonEmpty(session.model) || typeof session.started_at !== 'number') {
        this.fail('session row: source cli, cwd, model, started_at', `source=${String(session.source)} cwd=${String(session.cwd)} model=${String(session.model)} started_at=${String(session.started_at)}`);
      }
      if (session.system_prompt != null || session.system_prompt_hash != null) this.fail('system prompt left NULL', 'system_prompt or its hash is set');
      if (Number(session.message_count) !== rows || Number(session.tool_call_count) !== this.toolCalls) {
        this.fail('counters match', `message_count ${String(session.message_count)} (rows ${rows}), tool_call_count ${String(session.tool_call_count)} (calls ${this.toolCalls})`);
      }
    }
    return RULES.filter((rule) => session !== undefined || !SESSION_RULES.includes(rule)).map((rule) => (this.problems.has(rule) ? { rule, ok: false, detail: this.problems.get(rule) } : { rule, ok: true }));
  }
}

/** Every rule, in order, for one session's rows (in id order) and its session row. */
export function checkValidity(rows: Iterable<MessageRowLike>, session?: SessionRowLike): RuleResult[] {
  const check = new ValidityCheck();
  for (const row of rows) check.add(row);
  return check.done(session);
}
