// Token usage and cost from canonical events, for every agent whose records carry usage: the
// adapters keep each native record's usage object as it was (payload.usage: Claude, Pi, Gemini,
// Qwen, OpenCode …; Codex's running token_count in a meta event), and this module reads the
// vocabularies into one shape: input (not cached), output (reasoning included), cache reads and
// cache writes.
//
// Counting: one native record is counted once, however many events it became (a Claude API
// message split into blocks carries its usage on each). As ccusage does, a Claude message seen
// again with the same message id and request id (a resumed or forked transcript repeats its
// history) is counted once across all sessions. Codex: the growth of its running total.
import { readFileSync } from 'node:fs';
import { UserError } from '../cli/diagnostics.js';

export interface Tokens {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

export interface UsageRecord extends Tokens {
  ts: number;
  agent: string;
  session: string;
  project?: string;
  model?: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A token count: a finite number ≥ 0 (anything else in hostile input counts as 0). */
const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
const has = (u: Json, key: string) => typeof u[key] === 'number';

/** One usage object, in any of the vocabularies the agents write, as Tokens; undefined when it is none. */
export function normalizeUsage(u: unknown): Tokens | undefined {
  if (!isObject(u)) return undefined;
  if (has(u, 'input_tokens') || has(u, 'output_tokens')) {
    // Anthropic: input excludes cache reads and writes. OpenAI (cached_input_tokens): input includes them.
    const cached = n(u.cached_input_tokens);
    return {
      input: Math.max(0, n(u.input_tokens) - cached),
      output: n(u.output_tokens),
      cache_read: n(u.cache_read_input_tokens) + cached,
      cache_write: n(u.cache_creation_input_tokens) + n(u.cache_write_input_tokens),
    };
  }
  if (has(u, 'promptTokenCount') || has(u, 'candidatesTokenCount')) {
    // Gemini API (Qwen Code keeps it): the prompt count includes cached tokens; thoughts are billed as output.
    const cached = n(u.cachedContentTokenCount);
    return { input: Math.max(0, n(u.promptTokenCount) - cached), output: n(u.candidatesTokenCount) + n(u.thoughtsTokenCount), cache_read: cached, cache_write: 0 };
  }
  if (has(u, 'prompt_tokens') || has(u, 'completion_tokens')) {
    const cached = isObject(u.prompt_tokens_details) ? n(u.prompt_tokens_details.cached_tokens) : 0;
    return { input: Math.max(0, n(u.prompt_tokens) - cached), output: n(u.completion_tokens), cache_read: cached, cache_write: 0 };
  }
  if (has(u, 'input') || has(u, 'output')) {
    if (has(u, 'cacheRead') || has(u, 'cacheWrite')) {
      // Pi: input excludes the cache.
      return { input: n(u.input), output: n(u.output), cache_read: n(u.cacheRead), cache_write: n(u.cacheWrite) };
    }
    if (isObject(u.cache)) {
      // OpenCode: {input, output, reasoning, cache: {read, write}}.
      return { input: n(u.input), output: n(u.output) + n(u.reasoning), cache_read: n(u.cache.read), cache_write: n(u.cache.write) };
    }
    // Gemini CLI's tokens record: input includes the cached part; thoughts are output.
    const cached = n(u.cached);
    return { input: Math.max(0, n(u.input) - cached), output: n(u.output) + n(u.thoughts), cache_read: cached, cache_write: 0 };
  }
  return undefined;
}

const empty = (t: Tokens) => t.input === 0 && t.output === 0 && t.cache_read === 0 && t.cache_write === 0;

/** Reads usage records from canonical events (any number of sessions, any agents, in input order). */
export class UsageReader {
  readonly records: UsageRecord[] = [];
  private readonly seen = new Set<string>();
  private readonly sessions = new Map<string, { project?: string; model?: string; reportedTotal?: number }>();

  add(event: unknown): void {
    if (!isObject(event) || typeof event.session !== 'string' || typeof event.type !== 'string' || !isObject(event.payload)) return;
    const p = event.payload;
    const session = event.session;
    let state = this.sessions.get(session);
    if (!state) this.sessions.set(session, (state = {}));
    if (event.type === 'session.start') {
      if (typeof p.cwd === 'string') state.project = p.cwd;
      if (typeof p.model === 'string') state.model = p.model;
    }
    if (typeof p.model === 'string' && event.type !== 'meta') state.model = p.model;
    const ts = typeof event.ts === 'number' && Number.isFinite(event.ts) ? event.ts : undefined;
    if (ts === undefined) return;
    const agent = typeof event.agent === 'string' ? event.agent : '?';

    let tokens: Tokens | undefined;
    // A record is counted once: skipped when any of its keys was seen (a native line split into
    // several events carries the request id on only some of them).
    const keys: string[] = [];
    if (event.type === 'meta' && /token_count$/.test(String(p.key)) && isObject(p.value)) {
      // A client that reports a running total: count what it grew by (a repeated token_count adds nothing).
      const total = isObject(p.value.total) ? n(p.value.total.total_tokens) : undefined;
      if (total !== undefined && state.reportedTotal !== undefined && total <= state.reportedTotal) return;
      if (total !== undefined) state.reportedTotal = total;
      tokens = normalizeUsage(p.value.last);
    } else if (event.type !== 'meta' && isObject(p.usage)) {
      tokens = normalizeUsage(p.usage);
      const origin = isObject(event.origin) ? event.origin : undefined;
      const requestId = isObject(p.extra) && typeof p.extra.requestId === 'string' ? p.extra.requestId : undefined;
      const messageId = typeof p.message_id === 'string' ? p.message_id : undefined;
      if (messageId !== undefined && requestId !== undefined) keys.push(`req\0${messageId}\0${requestId}`);
      if (origin && typeof origin.native_seq === 'number') keys.push(`line\0${session}\0${String(origin.path ?? '')}\0${origin.native_seq}`);
      else if (messageId !== undefined) keys.push(`msg\0${session}\0${messageId}`);
    }
    if (!tokens || empty(tokens)) return;
    if (keys.some((k) => this.seen.has(k))) return;
    for (const k of keys) this.seen.add(k);
    const model = typeof p.model === 'string' ? p.model : state.model;
    this.records.push({ ts, agent, session, project: state.project, model, ...tokens });
  }
}

// ---- prices -------------------------------------------------------------------------------

export interface Price {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}
export interface PriceTable {
  date?: string;
  source?: string;
  models: Record<string, Price>;
}

export function loadPrices(path?: string): PriceTable {
  const url = path === undefined ? new URL('./prices.json', import.meta.url) : path;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(url, 'utf8'));
  } catch (err) {
    throw new UserError(`not a price table: ${(err as Error).message.split('\n')[0]}`, path ?? 'prices.json');
  }
  if (!isObject(parsed) || !isObject(parsed.models)) throw new UserError('not a price table: no "models" object', path);
  const models: Record<string, Price> = Object.create(null) as Record<string, Price>;
  for (const [name, price] of Object.entries(parsed.models)) {
    if (!isObject(price)) throw new UserError(`price of ${JSON.stringify(name)} is not an object`, path);
    const field = (k: string) => {
      const v = price[k];
      if (v === undefined) return 0;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new UserError(`price of ${JSON.stringify(name)}: ${k} is not a number ≥ 0`, path);
      return v;
    };
    models[name] = { input: field('input'), output: field('output'), cache_read: field('cache_read'), cache_write: field('cache_write') };
  }
  return { date: typeof parsed.date === 'string' ? parsed.date : undefined, source: typeof parsed.source === 'string' ? parsed.source : undefined, models };
}

/**
 * The price of a model: its exact name, else without a provider prefix ("anthropic/…") or a
 * release suffix (a date, "-latest", "-preview…"). Never a neighbour's price: claude-opus-4-8 is
 * not claude-opus-4, so a model the table lacks is unknown ("?"), not guessed.
 */
export function priceOf(table: PriceTable, model: string | undefined): Price | undefined {
  if (model === undefined) return undefined;
  const bare = model.replace(/^.*\//, '');
  for (const c of [model, bare, bare.replace(/@.*$/, '').replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest|preview[-\w]*)$/, '')]) {
    if (Object.hasOwn(table.models, c)) return table.models[c];
  }
  return undefined;
}

export function costOf(t: Tokens, price: Price): number {
  return (t.input * price.input + t.output * price.output + t.cache_read * price.cache_read + t.cache_write * price.cache_write) / 1e6;
}

// ---- rows ---------------------------------------------------------------------------------

export type GroupBy = 'day' | 'week' | 'agent' | 'project' | 'model' | 'session';
export const GROUPS: readonly GroupBy[] = ['day', 'week', 'agent', 'project', 'model', 'session'];

export interface UsageRow extends Tokens {
  key: string;
  total: number;
  /** US dollars; null when a model in the row has no price (its tokens are still counted). */
  cost: number | null;
  /** The part of the cost that is known, when cost is null. */
  known_cost: number;
  models: string[];
  sessions: number;
}

function pad(v: number): string {
  return String(v).padStart(2, '0');
}

/** The local calendar day (YYYY-MM-DD) of epoch seconds; TZ decides, as for ccusage. */
export function dayOf(ts: number): string {
  const d = new Date(ts * 1000);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** The Monday that starts the local week of epoch seconds. */
export function weekOf(ts: number): string {
  const d = new Date(ts * 1000);
  d.setHours(12, 0, 0, 0);
  d.setDate(d.getDate() - ((d.getDay() + 6) % 7));
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function keyOf(r: UsageRecord, by: GroupBy): string {
  switch (by) {
    case 'day':
      return dayOf(r.ts);
    case 'week':
      return weekOf(r.ts);
    case 'agent':
      return r.agent;
    case 'project':
      return r.project ?? '-';
    case 'model':
      return r.model ?? '-';
    case 'session':
      return r.session;
  }
}

/**
 * Records grouped into rows (for the terminal table, --json, and sp serve's chart page), sorted by
 * key (days and weeks in time order; agents, projects and models by cost, highest first).
 */
export function usageRows(records: UsageRecord[], options: { by: GroupBy; prices: PriceTable; since?: number; until?: number; agent?: string }): UsageRow[] {
  const rows = new Map<string, UsageRow & { sessionSet: Set<string>; modelSet: Set<string> }>();
  for (const r of records) {
    if (options.since !== undefined && r.ts < options.since) continue;
    if (options.until !== undefined && r.ts >= options.until) continue;
    if (options.agent !== undefined && r.agent !== options.agent) continue;
    const key = keyOf(r, options.by);
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { key, input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0, cost: 0, known_cost: 0, models: [], sessions: 0, sessionSet: new Set(), modelSet: new Set() }));
    row.input += r.input;
    row.output += r.output;
    row.cache_read += r.cache_read;
    row.cache_write += r.cache_write;
    row.total += r.input + r.output + r.cache_read + r.cache_write;
    row.sessionSet.add(r.session);
    row.modelSet.add(r.model ?? '-');
    const price = priceOf(options.prices, r.model);
    if (price) row.known_cost += costOf(r, price);
    else row.cost = null;
  }
  const out: UsageRow[] = [...rows.values()].map(({ sessionSet, modelSet, ...row }) => ({
    ...row,
    cost: row.cost === null ? null : row.known_cost,
    models: [...modelSet].sort(),
    sessions: sessionSet.size,
  }));
  if (options.by === 'day' || options.by === 'week') out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  else out.sort((a, b) => b.known_cost - a.known_cost || b.total - a.total || (a.key < b.key ? -1 : 1));
  return out;
}

/** The sum of rows (the table's last line). */
export function totalOf(rows: UsageRow[]): UsageRow {
  const t: UsageRow = { key: 'total', input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0, cost: 0, known_cost: 0, models: [], sessions: 0 };
  const models = new Set<string>();
  for (const r of rows) {
    t.input += r.input;
    t.output += r.output;
    t.cache_read += r.cache_read;
    t.cache_write += r.cache_write;
    t.total += r.total;
    t.known_cost += r.known_cost;
    if (r.cost === null) t.cost = null;
    for (const m of r.models) models.add(m);
  }
  if (t.cost !== null) t.cost = t.known_cost;
  t.models = [...models].sort();
  return t;
}

export interface UsageReport {
  by: GroupBy;
  rows: UsageRow[];
  total: UsageRow;
  prices: { date?: string; source?: string };
}

/**
 * The usage rows of any stream of canonical events: what sp usage prints and what a chart page
 * (sp serve) draws. `prices` defaults to the table shipped with the package.
 */
export async function usageReport(
  events: AsyncIterable<unknown> | Iterable<unknown>,
  options: { by: GroupBy; prices?: PriceTable; since?: number; until?: number; agent?: string },
): Promise<UsageReport> {
  const reader = new UsageReader();
  for await (const event of events) reader.add(event);
  return reportOf(reader, options);
}

/** The report of what a reader has taken in (for callers that feed it from several sources). */
export function reportOf(reader: UsageReader, options: { by: GroupBy; prices?: PriceTable; since?: number; until?: number; agent?: string }): UsageReport {
  const prices = options.prices ?? loadPrices();
  const rows = usageRows(reader.records, { ...options, prices });
  return { by: options.by, rows, total: totalOf(rows), prices: { date: prices.date, source: prices.source } };
}

/** Every event of every live session of a store (for usageReport over the store). */
export async function* storeEvents(store: { sessions(): Array<{ id: string }>; events(id: string): AsyncIterable<unknown> }): AsyncGenerator<unknown> {
  for (const s of store.sessions()) yield* store.events(s.id);
}
