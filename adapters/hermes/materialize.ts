// `sp-materialize hermes`: canonical events → a NEW Hermes session in `$HERMES_HOME/state.db`
// (docs/formats/hermes.md §8.5, §10 "write SQL directly"). What Hermes needs, and what this writer does:
//   * one `sessions` row: a fresh id in Hermes's style (YYYYMMDD_HHMMSS_<6 hex>), source `cli` and
//     the cwd (so `hermes -c` finds it), a model Hermes routes, `started_at` now, a unique title,
//     message/tool-call counters for listings, system prompt NULL (Hermes builds its own), ended
//     as `cli_close` as the CLI leaves a session (resume clears it);
//   * `messages` rows in conversation order, `active=1`, roles user/assistant/tool only, first row
//     user, strict alternation, every assistant tool call followed immediately by exactly one tool
//     row per call id, arguments JSON-object strings, no empty message before the last;
//   * everything in ONE `BEGIN IMMEDIATE` transaction, retried with jitter while a running Hermes
//     holds the lock; the database backed up first (`--no-backup` skips it). Where no state.db
//     exists, a fresh one with Hermes's v25 schema is built in a temp file and linked into place,
//     in rollback-journal mode: Hermes switches it to WAL on its first open where its SQLite allows
//     (docs/formats/hermes.md §1); a database made WAL here would stay WAL even on hosts where Hermes
//     refuses WAL because of the SQLite WAL-reset bug.
// The resume-safety pass (merges, stubs, drops) reports every change through `onLoss`, and the
// planned rows are checked against the validity rules before anything is written.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, linkSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LossEntry, MaterializeOptions } from '../../lib/adapter/interface.js';
import { createCopyWithModeOf, newTempPath } from '../../lib/fs/atomic.js';
import { removeOnInterrupt } from '../../lib/fs/private.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, setMember, str, type Json } from '../../lib/core/json.js';
import { activeBranchView } from '../../lib/write/branches.js';
import { CallPairing, ToolIds, reportOrphan, reportStub, type Pairing, type ToolIdSpelling } from '../../lib/write/plan.js';
import { SpooledLines, SpooledSession } from '../../lib/write/spool.js';
import { LossLedger, ensureUnder, isDerived, payloadOf, resumeFields, sameNativeId, type WriterResult } from '../../lib/write/writer.js';
import { builtInHome, busySetting, dbOfHome, DEFAULT_MODEL, defaultHome, HOME_ENV, expandTilde, NATIVE_ID } from './paths.js';
import { pyJson } from './pyjson.js';
import { JSON_PREFIX, AGENT } from './rows.js';
import { FRESH_SCHEMA, checkWritable, introspect, type Schema } from './schema.js';
import { errorText, openForRead, openForWrite, patience, retryBusy, type Db } from '../../lib/capture/sqlite.js';
import type { Statement } from 'better-sqlite3';
import { ValidityCheck, type RuleResult } from './validity.js';
import { backupName } from '../../lib/fs/backup.js';

export const STUB_RESULT = 'No result was recorded for this tool call (the session ended or moved on before it finished).';
/** Tool ids every provider Hermes routes to accepts (Anthropic is the strictest). */
/** Tool call ids as the provider APIs take them: [A-Za-z0-9_-]{1,64}; `_sp<n>` makes a taken one unique. */
const TOOL_ID_SPELLING: ToolIdSpelling = {
  valid: /^[A-Za-z0-9_-]{1,64}$/,
  repair: (id) => id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64),
  mint: () => 'call_sp',
  numbered: (id, n) => `${id.slice(0, 58)}_sp${n}`,
  accepts: 'only [A-Za-z0-9_-]{1,64}',
};
/** Providers that need reasoning echoed back in `reasoning_content` (docs/formats/hermes.md §8.4). */
const ECHO_MODELS = /deepseek|kimi|moonshot|mimo/i;
const TITLE_MAX = 100;

/** `written_as` is always `rebuilt`: rows are built from the events (a `--raw` capture's columns are reused row by row). */
export interface HermesMaterializeResult extends WriterResult {
  title?: string;
  /** The backup taken before writing (absent with --no-backup, for a new database, and in dry runs). */
  backup?: string;
  /** A new state.db was created (the home had none). */
  created_db: boolean;
  /** The validity rules checked on the rows before writing; `failed` lists any that did not hold (only with --no-safety). */
  validity: { checked: number; failed: RuleResult[] };
}

type Report = (action: LossEntry['action'], code: string, reason: string, event?: SpEvent) => void;

export interface PlannedRow {
  role: 'user' | 'assistant' | 'tool';
  content: string | null;
  timestamp: number;
  tool_calls?: string | null;
  tool_call_id?: string | null;
  tool_name?: string | null;
  finish_reason?: string | null;
  reasoning?: string | null;
  reasoning_content?: string | null;
  reasoning_details?: string | null;
  codex_reasoning_items?: string | null;
  codex_message_items?: string | null;
  effect_disposition?: string | null;
  display_kind?: string | null;
  display_metadata?: string | null;
}

const fromHermes = (event: SpEvent | undefined): boolean => event?.agent === AGENT;

// ---- the session in the stream ------------------------------------------------------------------

// `--branch active`: lib/write/branches.ts activeBranch (one implementation for every writer).

// ---- models -------------------------------------------------------------------------------------

/** A model name as Hermes routes it (`vendor/model`, OpenRouter style), from another agent's name. */
export function hermesModel(model: string | undefined): string | undefined {
  if (!model || model === '<synthetic>') return undefined;
  if (model.includes('/')) return model;
  const claude = /^claude-(?:(opus|sonnet|haiku)-(\d+)(?:-(\d))?|(\d+)(?:-(\d))?-(opus|sonnet|haiku))(?:-\d{8})?$/.exec(model);
  if (claude) {
    const family = claude[1] ?? claude[6];
    const major = claude[2] ?? claude[4];
    const minor = claude[3] ?? claude[5];
    return `anthropic/claude-${family}-${major}${minor ? `.${minor}` : ''}`;
  }
  if (/^claude-/.test(model)) return `anthropic/${model}`;
  if (/^(gpt-|o\d|codex-|chatgpt-)/.test(model)) return `openai/${model}`;
  if (/^gemini-/.test(model)) return `google/${model}`;
  if (/^deepseek-/.test(model)) return `deepseek/${model}`;
  if (/^(qwen|qwq)/i.test(model)) return `qwen/${model}`;
  if (/^(kimi|moonshot)/i.test(model)) return `moonshotai/${model}`;
  if (/^grok-/.test(model)) return `x-ai/${model}`;
  return undefined;
}

// ---- events → rows ------------------------------------------------------------------------------

interface Call {
  id: string;
  name: string;
  arguments: string;
  entry: Json;
  event: SpEvent;
  /** The call's position in the session's events (its result is found by it). */
  position: number;
}

interface Item {
  role: 'user' | 'assistant';
  events: SpEvent[];
  texts: string[];
  /** Hermes `\x00json:` content to write back as it was. */
  json?: unknown;
  calls: Call[];
  /** The source call id of each call (results are found by it). */
  sourceIds: string[];
  reasoning: string[];
  reasoningContent?: string;
  details: unknown[];
  codexItems?: unknown;
  codexMessageItems?: unknown;
  finish?: string;
  ts: number;
  /** The item has seen a tool result: the next assistant event starts a new row. */
  closed: boolean;
  display?: { kind?: string; metadata?: unknown };
  /** A `--raw` capture's row (Hermes sources): its columns are written back byte for byte. */
  raw?: Json;
  /** Set when the item is not exactly one source row any more (merged, ids changed). */
  rawUnusable?: boolean;
}

interface PlanOptions {
  safety: boolean;
  model: string;
  sourceModel?: string;
  report: Report;
}

function blocksText(content: unknown, event: SpEvent, report: Report, where: string): string {
  if (typeof content === 'string') return content;
  const out: string[] = [];
  for (const block of Array.isArray(content) ? content : []) {
    if (!isObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') out.push(block.text);
    else if (block.type === 'image') {
      // Hermes stores no image bytes either: a marker in the text is what its own transcripts hold.
      const kind = str(block.media_type) ?? 'image';
      out.push(`[Image attached: ${kind} (not carried over)]`);
      report('transformed', 'image', `${kind} image in a ${where} written as a text marker (Hermes keeps no image bytes in its database)`, event);
    } else if (block.type === 'tool_use' || block.type === 'tool_result') {
      // pointers to tool events
    } else if (block.type === 'thinking') {
      // thinking inside a message's content: handled as reasoning by the caller
    } else {
      out.push(JSON.stringify(block));
      report('transformed', 'unsupported-block', `${String(block.type)} block in a ${where} written as JSON text`, event);
    }
  }
  return out.join('\n');
}

/**
 * Events → items (one per row to be), one at a time: an item is handed to `done` when the next one
 * starts (nothing changes an item but the last), and the last at `finish`.
 */
class Planner {
  private current: Item | undefined;
  private position = 0;
  private readonly toolIds: ToolIds;

  constructor(
    private readonly options: PlanOptions,
    private readonly done: (item: Item) => void,
  ) {
    this.toolIds = new ToolIds(TOOL_ID_SPELLING, options.report, options.safety);
  }

  private newItem(role: Item['role'], event: SpEvent): Item {
    if (this.current) this.done(this.current);
    this.current = { role, events: [event], texts: [], calls: [], sourceIds: [], reasoning: [], details: [], ts: typeof event.ts === 'number' ? event.ts : Date.now() / 1000, closed: false };
    return this.current;
  }

  private assistantItem(event: SpEvent): Item {
    if (!this.current || this.current.role !== 'assistant' || this.current.closed) return this.newItem('assistant', event);
    this.current.events.push(event);
    return this.current;
  }

  /** The last item. */
  finish(): void {
    if (this.current) this.done(this.current);
    this.current = undefined;
  }

  /** The next event of the session (positions are counted as CallPairing counts them). */
  add(event: SpEvent): void {
    const at = this.position++;
    const p = payloadOf(event);
    const report = this.options.report;
    if (isDerived(event)) return; // derived: its tool call is written
    switch (event.type) {
      case 'message.user': {
        if (fromHermes(event) && p.native_role === 'system') {
          report('dropped', 'system-row', 'system message row: not written (Hermes builds its own system prompt)', event);
          return;
        }
        const item = this.newItem('user', event);
        this.noteRaw(item, event);
        if (fromHermes(event) && p.content_json !== undefined) item.json = p.content_json;
        const text = blocksText(p.content, event, report, 'user message');
        if (text !== '') item.texts.push(text);
        if (fromHermes(event) && p.api_content !== undefined) report('transformed', 'api-content', 'the recorded wire text (api_content) is not written: the model sees the content (formats/hermes.md: leave api_content NULL)', event);
        this.display(item, event);
        return;
      }
      case 'message.assistant': {
        const item = this.assistantItem(event);
        this.noteRaw(item, event);
        if (fromHermes(event) && p.content_json !== undefined && item.json === undefined && item.texts.length === 0) item.json = p.content_json;
        const text = blocksText(p.content, event, report, 'assistant message');
        if (text !== '') item.texts.push(text);
        for (const block of Array.isArray(p.content) ? p.content : []) if (isObject(block) && block.type === 'thinking') this.thinking(item, event, block);
        if (fromHermes(event)) {
          if (typeof p.stop_reason === 'string') item.finish = p.stop_reason;
          if (p.codex_message_items !== undefined) item.codexMessageItems = p.codex_message_items;
          if (p.api_content !== undefined) report('transformed', 'api-content', 'the recorded wire text (api_content) is not written: the model sees the content', event);
          this.display(item, event);
        }
        return;
      }
      case 'message.thinking': {
        const item = this.assistantItem(event);
        this.noteRaw(item, event);
        this.thinking(item, event, p);
        return;
      }
      case 'tool.call': {
        const item = this.assistantItem(event);
        this.noteRaw(item, event);
        this.call(item, event, p, at);
        return;
      }
      case 'tool.result': {
        if (this.current?.role === 'assistant') this.current.closed = true;
        return;
      }
      case 'session.start':
        return; // the new sessions row says it
      case 'session.fork':
        return; // the other session it names is reported as a whole
      case 'session.end':
        report('dropped', 'session-end', 'session.end of the source: not written (the new session is ended as cli_close, which resume clears)', event);
        return;
      case 'meta': {
        const key = String(p.key ?? '');
        if (key === 'hermes.message.compacted' || key === 'hermes.message.inactive') report('dropped', 'archived-row', `${key.slice(15)} row (no longer seen by the model): not written`, event);
        else report('dropped', 'meta', `meta ${key || '(no key)'} from ${event.agent}: no Hermes row`, event);
        return;
      }
      default:
        report('dropped', event.type, `${event.type} from ${event.agent}: no Hermes row (the messages around it are written)`, event);
    }
  }

  /** Remembers the source row of a `--raw` Hermes capture; events of two rows in one item rule it out. */
  private noteRaw(item: Item, event: SpEvent): void {
    if (!fromHermes(event)) {
      item.rawUnusable = true;
      return;
    }
    const row = rawRow(event);
    if (!row) return;
    if (item.raw && item.raw.id !== row.id) item.rawUnusable = true;
    else item.raw = row;
  }

  private display(item: Item, event: SpEvent): void {
    const p = payloadOf(event);
    if (typeof p.display_kind === 'string' || p.display_metadata !== undefined) item.display = { kind: str(p.display_kind), metadata: p.display_metadata };
  }

  private thinking(item: Item, event: SpEvent, p: Json): void {
    const report = this.options.report;
    const text = typeof p.text === 'string' ? p.text : typeof p.thinking === 'string' ? p.thinking : '';
    if (p.visibility === 'redacted' || (text.trim() === '' && (str(p.opaque) || str(p.signature)))) {
      if (!(fromHermes(event) && this.sameProvider() && (p.reasoning_details !== undefined || p.codex_reasoning_items !== undefined))) {
        report('dropped', 'opaque-reasoning', `reasoning from ${str(p.provider) ?? event.agent} with no readable text: not written (only its provider can read it)`, event);
        return;
      }
    }
    if (fromHermes(event)) {
      const reasoning = typeof p.reasoning === 'string' ? p.reasoning : text;
      if (reasoning !== '') item.reasoning.push(reasoning);
      const echo = p.reasoning_content_same === true ? reasoning : str(p.reasoning_content) ?? (typeof p.reasoning_content === 'string' ? p.reasoning_content : undefined);
      if (echo !== undefined) item.reasoningContent = (item.reasoningContent ? `${item.reasoningContent}\n\n` : '') + echo;
      if (this.sameProvider()) {
        if (Array.isArray(p.reasoning_details)) item.details.push(...p.reasoning_details);
        if (p.codex_reasoning_items !== undefined) item.codexItems = p.codex_reasoning_items;
      } else if (p.reasoning_details !== undefined || p.codex_reasoning_items !== undefined) {
        report('transformed', 'signature', `signed reasoning blocks (reasoning_details) dropped: the session continues with ${this.options.model}, not ${this.options.sourceModel ?? 'the model that made them'}; the text is kept`, event);
      }
      return;
    }
    if (text.trim() !== '') item.reasoning.push(text);
    if (str(p.signature) || str(p.opaque)) report('transformed', 'signature', `reasoning signature from ${str(p.provider) ?? event.agent} dropped (only that provider verifies it); the text is kept as reasoning`, event);
  }

  private sameProvider(): boolean {
    return this.options.sourceModel !== undefined && this.options.sourceModel === this.options.model;
  }

  private call(item: Item, event: SpEvent, p: Json, position: number): void {
    const report = this.options.report;
    const callId = String(p.call_id ?? `call_${event.seq}`);
    const id = this.toolIds.id(callId, event);
    let name = str(p.name) ?? '';
    if (name === '' || (fromHermes(event) && p.name_missing === true)) {
      name = 'invalid_tool_call';
      report('transformed', 'tool-name', `tool call ${callId} has no name: written as invalid_tool_call (as Hermes renames it)`, event);
    }
    let args: string;
    if (fromHermes(event) && typeof p.arguments === 'string' && !p.arguments_invalid && isObject(safeParse(p.arguments))) args = p.arguments;
    else if (isObject(p.input)) args = pyJson(p.input);
    else {
      const parsed = typeof p.input === 'string' ? safeParse(p.input) : undefined;
      if (isObject(parsed)) args = pyJson(parsed);
      else {
        args = pyJson({ input: p.input ?? null });
        report('transformed', 'tool-input', `tool call ${callId} input is not a JSON object: written as {"input": …}`, event);
      }
    }
    const entry: Json = { id };
    const extra = fromHermes(event) && isObject(p.call_extra) ? { ...p.call_extra } : {};
    if (typeof extra.call_id === 'string') extra.call_id = id;
    if (typeof extra.response_item_id === 'string' && id !== callId) extra.response_item_id = `fc_${id}`;
    const { type: _type, ...rest } = extra;
    Object.assign(entry, rest);
    entry.type = 'function';
    entry.function = { name, arguments: args, ...(fromHermes(event) && isObject(p.function_extra) ? p.function_extra : {}) };
    // Key order as the live agent writes it: id, call_id, response_item_id, type, function, then the rest.
    const ordered: Json = {};
    for (const key of ['id', 'call_id', 'response_item_id', 'type', 'function']) if (key in entry) ordered[key] = entry[key];
    for (const [key, value] of Object.entries(entry)) if (!(key in ordered)) ordered[key] = value;
    if (id !== callId) item.rawUnusable = true;
    item.calls.push({ id, name, arguments: args, entry: ordered, event, position });
    item.sourceIds.push(callId);
  }

}

/** What the rows are made with: the session's events (read by position), and which result answers which call. */
interface RowOptions extends PlanOptions {
  events: readonly SpEvent[];
  pairing: Pairing;
  /** Positions of the session's tool results, ascending. */
  results: readonly number[];
}

/**
 * Items → rows, normalized to Hermes's rules (with safety: consecutive assistant items merged,
 * empty ones dropped, consecutive prompts merged, a user row first), each call's result right after
 * its row. Each stage holds the one item the next may still merge into; a row goes to `out` as soon
 * as it is made.
 */
class RowMaker {
  /** The last item planned (an assistant item without calls takes the next assistant item in). */
  private merging: Item | undefined;
  /** The last item kept (a prompt takes the next prompt in). */
  private kept: Item | undefined;
  private first = true;
  private readonly consumed = new Set<number>();

  constructor(
    private readonly options: RowOptions,
    private readonly out: (row: PlannedRow) => void,
  ) {}

  add(item: Item): void {
    if (!this.options.safety) return this.write(item);
    const last = this.merging;
    if (item.role === 'assistant' && last?.role === 'assistant' && last.calls.length === 0) {
      if (last.texts.length > 0 && (item.texts.length > 0 || item.calls.length > 0)) this.options.report('transformed', 'merged-assistant', 'consecutive assistant messages written as one row (Hermes needs user/assistant to alternate)', item.events[0]);
      last.rawUnusable = true;
      last.texts.push(...item.texts);
      last.reasoning.push(...item.reasoning);
      last.details.push(...item.details);
      last.calls.push(...item.calls);
      last.sourceIds.push(...item.sourceIds);
      last.finish = item.finish ?? last.finish;
      last.events.push(...item.events);
      if (item.reasoningContent) last.reasoningContent = last.reasoningContent ? `${last.reasoningContent}\n\n${item.reasoningContent}` : item.reasoningContent;
      return;
    }
    if (last) this.keep(last);
    this.merging = item;
  }

  /** Drops what Hermes would drop or reject (empty prompts, assistant rows with nothing to send); merges prompts as Hermes does on load. */
  private keep(item: Item): void {
    const report = this.options.report;
    if (item.role === 'user' && item.texts.join('').trim() === '' && item.json === undefined) {
      report('dropped', 'empty-message', 'user message with no text: not written (Hermes needs non-empty user content)', item.events[0]);
      return;
    }
    if (item.role === 'assistant' && item.calls.length === 0 && item.texts.join('').trim() === '') {
      const why = item.reasoning.length > 0 ? 'an assistant turn with only reasoning (Hermes drops such turns before sending)' : 'an empty assistant message';
      report('dropped', 'empty-message', `${why}: not written`, item.events[0]);
      return;
    }
    const last = this.kept;
    if (item.role === 'user' && last?.role === 'user') {
      report('transformed', 'merged-user', 'consecutive user messages written as one row, joined by a blank line (as Hermes merges them)', item.events[0]);
      last.rawUnusable = true;
      last.texts = [[...last.texts, ...item.texts].join('\n\n')];
      last.json = undefined;
      last.events.push(...item.events);
      return;
    }
    if (last) this.write(last);
    this.kept = item;
  }

  /** The items still held, then the results no call took (reported). */
  finish(): void {
    if (this.merging) this.keep(this.merging);
    if (this.kept) this.write(this.kept);
    this.merging = this.kept = undefined;
    const { events, pairing, results, report } = this.options;
    for (const at of results) {
      if (!this.consumed.has(at)) reportOrphan(report, events[at], pairing.skipped.get(at) ?? 'unknown', 'Hermes drops it');
    }
  }

  private write(item: Item): void {
    const { safety, report, events, pairing, model } = this.options;
    if (this.first && safety && item.role === 'assistant') {
      this.out({ role: 'user', content: '(The conversation so far, carried over from another session.)', timestamp: item.ts });
      report('stubbed', 'first-user', 'the session starts with an assistant message: a user message is put first (Hermes replays from a user message)', item.events[0]);
    }
    this.first = false;
    if (item.role === 'user') {
      const content = item.json !== undefined ? JSON_PREFIX + pyJson(item.json) : item.texts.join('\n');
      this.out(withRaw(item, { role: 'user', content, timestamp: item.ts, ...displayColumns(item) }));
      return;
    }
    const row: PlannedRow = { role: 'assistant', content: item.json !== undefined ? JSON_PREFIX + pyJson(item.json) : item.texts.join('\n\n'), timestamp: item.ts };
    row.tool_calls = item.calls.length > 0 ? pyJson(item.calls.map((c) => c.entry)) : null;
    row.finish_reason = item.finish ?? (item.calls.length > 0 ? 'tool_calls' : 'stop');
    const reasoning = item.reasoning.join('\n\n');
    row.reasoning = reasoning !== '' ? reasoning : null;
    row.reasoning_content = item.reasoningContent ?? (reasoning !== '' && ECHO_MODELS.test(model) ? reasoning : null);
    row.reasoning_details = item.details.length > 0 ? pyJson(item.details) : null;
    row.codex_reasoning_items = item.codexItems !== undefined ? pyJson(item.codexItems) : null;
    row.codex_message_items = item.codexMessageItems !== undefined ? pyJson(item.codexMessageItems) : null;
    Object.assign(row, displayColumns(item));
    this.out(withRaw(item, row));
    for (const call of item.calls) {
      const at = pairing.resultOf.get(call.position);
      if (at !== undefined) {
        this.consumed.add(at);
        this.out(toolRow(call, events[at], report));
      } else if (safety) {
        reportStub(report, call.event, 'a stub result is written (Hermes would inject one)', { id: call.id });
        this.out({ role: 'tool', content: STUB_RESULT, tool_call_id: call.id, tool_name: call.name, timestamp: typeof call.event.ts === 'number' ? call.event.ts : item.ts });
      }
    }
  }
}

/** The row's columns as the source stored them, when a `--raw` capture carries exactly this row. */
function withRaw(item: Item, row: PlannedRow): PlannedRow {
  const raw = item.raw;
  if (!raw || item.rawUnusable) return row;
  const out: PlannedRow = { ...row };
  const columns = ['content', 'tool_calls', 'finish_reason', 'reasoning', 'reasoning_content', 'codex_message_items', 'display_kind', 'display_metadata'];
  // Provider-bound reasoning goes back only to the provider that made it (decided when planning).
  if (row.reasoning_details !== null && row.reasoning_details !== undefined) columns.push('reasoning_details');
  if (row.codex_reasoning_items !== null && row.codex_reasoning_items !== undefined) columns.push('codex_reasoning_items');
  for (const column of columns) {
    if (!(column in raw)) continue;
    const value = raw[column];
    if (value === null || typeof value === 'string') (out as unknown as Json)[column] = value;
  }
  if (row.role === 'user' && (typeof out.content !== 'string' || out.content.trim() === '')) out.content = row.content;
  return out;
}

function displayColumns(item: Item): Partial<PlannedRow> {
  if (!item.display) return {};
  const out: Partial<PlannedRow> = {};
  if (item.display.kind) out.display_kind = item.display.kind;
  if (item.display.metadata !== undefined) out.display_metadata = typeof item.display.metadata === 'string' ? item.display.metadata : pyJson(item.display.metadata);
  return out;
}

function toolRow(call: Call, result: SpEvent, report: Report): PlannedRow {
  const p = payloadOf(result);
  let content: string;
  if (fromHermes(result) && p.content_json !== undefined) content = JSON_PREFIX + pyJson(p.content_json);
  else content = blocksText(p.content, result, report, 'tool result');
  const row: PlannedRow = { role: 'tool', content, tool_call_id: call.id, tool_name: str(p.name) ?? call.name, timestamp: typeof result.ts === 'number' ? result.ts : Date.now() / 1000 };
  if (fromHermes(result) && typeof p.effect_disposition === 'string') row.effect_disposition = p.effect_disposition;
  const raw = fromHermes(result) ? rawRow(result) : undefined;
  if (raw && (typeof raw.content === 'string' || raw.content === null)) row.content = raw.content as string | null;
  return row;
}

/** The source row a `--raw` Hermes capture put in `origin.raw` (the row's first event). */
function rawRow(event: SpEvent): Json | undefined {
  const raw = event.origin?.raw;
  if (!Array.isArray(raw) || typeof raw[0] !== 'string') return undefined;
  const row = safeParse(raw[0]);
  return isObject(row) && row.id !== undefined ? row : undefined;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// ---- the session row ----------------------------------------------------------------------------

/** `YYYYMMDD_HHMMSS_<6 hex>` in local time, as the Hermes CLI names sessions. */
export function newSessionId(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}_${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}_${randomBytes(3).toString('hex')}`;
}

/** Hermes's title sanitizing: no control characters, whitespace collapsed, at most 100 characters. */
export function cleanTitle(title: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = title.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > TITLE_MAX ? flat.slice(0, TITLE_MAX).trimEnd() : flat;
}

function uniqueTitle(db: Db | undefined, schema: Schema | undefined, title: string | undefined): string | undefined {
  if (!title) return undefined;
  const base = cleanTitle(title);
  if (base === '') return undefined;
  if (!db || !schema?.sessions.includes('title')) return base;
  const taken = db.prepare('SELECT 1 FROM sessions WHERE title = ?');
  if (!taken.get(base)) return base;
  for (let n = 2; ; n += 1) {
    const suffix = ` (${n})`;
    const candidate = base.slice(0, TITLE_MAX - suffix.length).trimEnd() + suffix;
    if (!taken.get(candidate)) return candidate;
  }
}

/** Hermes-source model_config without lineage markers and runtime state (the new session is nobody's child). */
function cleanModelConfig(value: unknown): string | null {
  if (!isObject(value)) return null;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) if (!key.startsWith('_')) setMember(out, key, v);
  return pyJson(out);
}

// ---- writing --------------------------------------------------------------------------------------

/** Inserts a row's known columns; the statement of each column set is prepared once (`prepared`). */
function insertRow(db: Db, table: string, columns: string[], row: Json, prepared = new Map<string, Statement>()): number {
  const names = Object.keys(row).filter((k) => columns.includes(k) && row[k] !== undefined);
  const sql = `INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`;
  let statement = prepared.get(sql);
  if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
  return Number(statement.run(...names.map((n) => row[n] as string | number | null)).lastInsertRowid);
}

function writeSession(db: Db, schema: Schema, session: Json, rows: Iterable<PlannedRow>): void {
  if (db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(session.id)) throw new UserError(`session ${String(session.id)} exists already; nothing was written`);
  insertRow(db, 'sessions', schema.sessions, session);
  const prepared = new Map<string, Statement>();
  for (const row of rows) insertRow(db, 'messages', schema.messages, { session_id: session.id, active: 1, compacted: 0, observed: 0, ...row }, prepared);
}

/** Pass 1 over the session: which result answers which call (by position), where the results are, and the last model an assistant message names. */
function survey(events: readonly SpEvent[]): { pairing: Pairing; results: number[]; lastModel?: string } {
  const pairing = new CallPairing('anywhere');
  const results: number[] = [];
  let lastModel: string | undefined;
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i];
    const at = pairing.add(event);
    if (event.type === 'tool.result') results.push(at);
    else if (event.type === 'message.assistant') lastModel = lastModelOf(event) ?? lastModel;
  }
  return { pairing: pairing.done(), results, lastModel };
}

function lastModelOf(event: SpEvent): string | undefined {
  const model = event.type === 'message.assistant' ? str(payloadOf(event).model) : undefined;
  return model !== undefined && model !== '<synthetic>' ? model : undefined;
}

/** The planned rows, spooled as they are made (a large session's rows are never held), with what the session row counts. */
class RowSpool {
  readonly lines = new SpooledLines();
  readonly validity = new ValidityCheck();
  count = 0;
  toolCalls = 0;
  hasUser = false;

  push(row: PlannedRow): void {
    this.count += 1;
    if (row.role === 'user') this.hasUser = true;
    if (row.tool_calls) this.toolCalls += (JSON.parse(row.tool_calls) as unknown[]).length;
    this.validity.add(row);
    this.lines.push(JSON.stringify(row));
  }

  /** The rows again, as often as a write needs them (a retried transaction reads them anew). */
  get rows(): Iterable<PlannedRow> {
    const lines = this.lines;
    return {
      *[Symbol.iterator]() {
        for (const line of lines.lines()) yield JSON.parse(line) as PlannedRow;
      },
    };
  }
}

/** Writes the (first, or `session`-selected) session of `events` as a new Hermes session. */
export async function materializeHermes(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<HermesMaterializeResult> {
  const selected = await SpooledSession.create(events, options.session);
  const planned = new RowSpool();
  try {
    return await writeHermes(selected, planned, options);
  } finally {
    planned.lines.remove();
    selected.remove();
  }
}

async function writeHermes(selected: SpooledSession, planned: RowSpool, options: MaterializeOptions): Promise<HermesMaterializeResult> {
  const start = selected.start;
  const sp = start ? payloadOf(start) : {};
  const safety = options.safety !== false;
  const ledger = new LossLedger(options.onLoss);
  const report: Report = (action, code, reason, event) => ledger.report(action, code, reason, event);
  for (const [id, other] of selected.others) {
    report('dropped', 'child-session', `session ${id}${other.nativeId ? ` (native ${other.nativeId})` : ''}, ${other.count} event(s), is a separate session: not written (capture it on its own to write it)`);
  }

  const home = resolve(expandTilde(options.home ?? defaultHome()));
  // A state.db that is a symlink out of the home (a home unpacked from an archive, a shared folder)
  // must not make sp write a database elsewhere; the home itself may be a link.
  const dbPath = ensureUnder(home, dbOfHome(home), 'the home');
  const sourceHermes = fromHermes(start);
  // The session is read by position: a pass for the pairing (and the last model), a pass to plan the rows.
  const active = options.branch === 'active';
  let surveyed = active ? undefined : survey(selected.events);
  let lastModel = surveyed?.lastModel;
  if (active) for (let i = 0; i < selected.events.length; i += 1) lastModel = lastModelOf(selected.events[i]) ?? lastModel;
  const sourceModel = sourceHermes ? str(sp.model) : undefined;
  let model = options.model ?? sourceModel ?? hermesModel(lastModel) ?? hermesModel(str(sp.model));
  if (!model) {
    model = DEFAULT_MODEL;
    report('transformed', 'model', `the source model ${JSON.stringify(lastModel ?? sp.model ?? null)} has no Hermes route this writer knows: the session continues with ${DEFAULT_MODEL} (pass --model)`);
  }
  let cwd = str(options.cwd) ?? str(sp.cwd);
  if (!cwd) {
    cwd = process.cwd();
    report('transformed', 'cwd', `the session names no cwd: ${cwd} is recorded (pass --cwd)`);
  }
  cwd = resolve(expandTilde(cwd));

  const chosen = active ? activeBranchView(selected.events, report) : selected.events;
  surveyed ??= survey(chosen);
  const rowMaker = new RowMaker({ safety, model, sourceModel, report, events: chosen, pairing: surveyed.pairing, results: surveyed.results }, (row) => planned.push(row));
  const planner = new Planner({ safety, model, sourceModel, report }, (item) => rowMaker.add(item));
  for (let i = 0; i < chosen.length; i += 1) planner.add(chosen[i]);
  planner.finish();
  rowMaker.finish();
  if (planned.count === 0) throw new UserError('nothing to write: the session has no messages');
  if (!planned.hasUser) throw new UserError('nothing to write: the session has no user message');

  if (options.sameId && !sourceHermes) throw new UserError(`--same-id keeps a Hermes session's own id; this session comes from ${start?.agent ?? 'an unknown agent'} (drop --same-id)`);
  // A kept id goes into the resume command: it must have Hermes's own shape.
  const sessionId = options.sameId ? sameNativeId(NATIVE_ID, sp.native_id) : newSessionId();

  const now = Date.now() / 1000;
  const session: Json = {
    id: sessionId,
    source: 'cli',
    model,
    model_config: sourceHermes ? cleanModelConfig(sp.model_config) : null,
    system_prompt: null,
    system_prompt_hash: null,
    parent_session_id: null,
    started_at: now,
    ended_at: now,
    end_reason: 'cli_close',
    message_count: planned.count,
    tool_call_count: planned.toolCalls,
    cwd,
  };

  const validity = planned.validity.done({ ...session, title: undefined });
  const broken = validity.filter((r) => !r.ok);
  if (safety && broken.length > 0) {
    throw new UserError(`refusing to write a session Hermes would have to repair: ${broken.map((r) => `${r.rule} (${r.detail})`).join('; ')}`);
  }

  const exists = existsSync(dbPath);
  const stored = await storeSession(dbPath, exists, session, planned.rows, { ...options, sourceTitle: str(sp.title) });

  const result: HermesMaterializeResult = {
    agent: AGENT,
    session_id: String(session.id),
    path: dbPath,
    cwd,
    ...resumeFields(undefined, ['hermes', '--resume', String(session.id)], { variable: HOME_ENV, value: home, builtIn: builtInHome() }),
    records: planned.count + 1,
    model,
    source_session: selected.session,
    created_db: !exists && !options.dryRun,
    validity: { checked: validity.length, failed: broken },
    changes: ledger.counts,
    written_as: 'rebuilt',
  };
  if (stored.title !== undefined) result.title = stored.title;
  if (stored.backup !== undefined) result.backup = stored.backup;
  if (options.dryRun) result.dry_run = true;
  return result;
}

/**
 * The session row and its rows into the database (a dry run: only shown): a new state.db when the
 * home has none, else one `BEGIN IMMEDIATE` transaction after a backup. `session.id` changes when
 * another session took it meanwhile. Returns the title given and the backup's path.
 */
async function storeSession(dbPath: string, exists: boolean, session: Json, rows: Iterable<PlannedRow>, options: MaterializeOptions & { sourceTitle?: string }): Promise<{ title?: string; backup?: string }> {
  const sourceTitle = options.sourceTitle;
  const sessionId = String(session.id);
  let title: string | undefined;
  if (options.dryRun) {
    if (exists) {
      const handle = await openForRead(dbPath);
      try {
        const schema = introspect(handle.db);
        checkWritable(schema, dbPath);
        title = uniqueTitle(handle.db, schema, sourceTitle);
        if (options.sameId && handle.db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(sessionId)) throw new UserError(`session ${sessionId} exists already: --same-id never overwrites a session`, dbPath);
      } finally {
        handle.close();
      }
    } else title = uniqueTitle(undefined, undefined, sourceTitle);
    if (options.onLine) {
      options.onLine(JSON.stringify({ table: 'sessions', row: { ...session, title: title ?? null } }));
      for (const row of rows) options.onLine(JSON.stringify({ table: 'messages', row: { session_id: sessionId, active: 1, ...row } }));
    }
    return { title };
  }
  if (!exists) {
    title = uniqueTitle(undefined, undefined, sourceTitle);
    await createDatabase(dbPath, { ...session, title: title ?? null }, rows);
    return { title };
  }
  const db = await openForWrite(dbPath, false);
  let backup: string | undefined;
  try {
    const schema = introspect(db);
    checkWritable(schema, dbPath);
    if (options.backup !== false) {
      backup = backupName(dbPath);
      try {
        // Built in a temp file with the database's own mode (0600 stays 0600), then linked into place.
        await createCopyWithModeOf(dbPath, backup, async (temp) => {
          await db.backup(temp);
        });
      } catch (err) {
        throw new UserError(`cannot back the database up before writing (nothing was written; --no-backup skips the backup): ${errorText(err)}`, dbPath);
      }
    }
    const write = () => {
      db.exec('BEGIN IMMEDIATE');
      try {
        if (options.sameId && db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(sessionId)) throw new UserError(`session ${sessionId} exists already: --same-id never overwrites a session`, dbPath);
        while (!options.sameId && db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(session.id)) session.id = newSessionId();
        title = uniqueTitle(db, schema, sourceTitle);
        writeSession(db, schema, { ...session, title: title ?? null }, rows);
        db.exec('COMMIT');
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    };
    try {
      await retryBusy(write, dbPath, 'nothing was written', patience(60_000, busySetting()));
    } catch (err) {
      if (err instanceof UserError) throw err;
      throw new UserError(`cannot write the session (nothing was written): ${errorText(err)}`, dbPath);
    }
  } finally {
    db.close();
  }
  return { title, backup };
}

/** A new state.db: built complete in a temp file next to it, then linked into place (never over one). */
async function createDatabase(dbPath: string, session: Json, rows: Iterable<PlannedRow>): Promise<void> {
  const dir = resolve(dbPath, '..');
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new UserError(`cannot create the Hermes home: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, dir);
  }
  const temp = newTempPath(dir, 'state.db');
  const release = removeOnInterrupt(temp);
  try {
    await buildDatabase(temp, dbPath, session, rows);
  } finally {
    release();
  }
}

async function buildDatabase(temp: string, dbPath: string, session: Json, rows: Iterable<PlannedRow>): Promise<void> {
  // Private from the start: the session's messages are in it.
  closeSync(openSync(temp, 'wx', 0o600));
  const db = await openForWrite(temp, true);
  try {
    db.exec(FRESH_SCHEMA);
    const schema = introspect(db);
    db.transaction(() => writeSession(db, schema, session, rows))();
  } catch (err) {
    db.close();
    rmSync(temp, { force: true });
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot create the database: ${errorText(err)}`, dbPath);
  }
  db.close();
  try {
    linkSync(temp, dbPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(code === 'EEXIST' ? 'a state.db appeared while this one was built; nothing was written (run again to add the session to it)' : `cannot create: ${code ?? (err as Error).message}`, dbPath);
  } finally {
    rmSync(temp, { force: true });
  }
  try {
    statSync(dbPath);
  } catch {
    throw new UserError('the new database is not there after writing it', dbPath);
  }
}
