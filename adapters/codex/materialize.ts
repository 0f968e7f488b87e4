// `sp-materialize codex`: canonical events → a NEW legacy-style Codex rollout that the real client
// resumes (docs/formats/codex.md §5–§6). What the client needs, and what this writer guarantees:
//   * <home>/sessions/YYYY/MM/DD/rollout-<UTC start>-<UUIDv7>.jsonl, created atomically, never
//     overwritten; session_meta first with id, timestamp, cwd, originator, cli_version, source "cli";
//   * every line {timestamp: RFC 3339 string, type, payload}; messages with content arrays,
//     function_call with JSON-string arguments, then its output with the same call_id;
//   * event_msg user_message / agent_message lines, so `--last`, the picker and the TUI see the turns;
//   * a resume-safety pass: an unanswered call gets a stub output right after it, an output without
//     a call before it is dropped, call ids are unique, and reasoning whose encrypted_content was not
//     made by OpenAI for Codex is carried as text, never as an encrypted item;
//   * registration in <home>/state_<N>.sqlite when the home has one (state-db.ts).
// The input is spooled once (lib/write/spool.ts; memory stays flat): pass 1 picks the session and
// pairs calls with outputs (lib/write/plan.ts), pass 2 writes. Every change is reported through `onLoss` (docs/design.md §3).
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { LossEntry, MaterializeOptions } from '../../lib/adapter/interface.js';
import { createFileAtomic } from '../../lib/fs/atomic.js';
import { artifactNote, readArtifactForWriter } from '../../lib/core/artifacts.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { isObject, setMember, str, type Json } from '../../lib/core/json.js';
import { CallPairing, ToolIds, reportOrphan, reportStub, type Pairing, type PlanReport, type ToolIdSpelling } from '../../lib/write/plan.js';
import { SessionSpool } from '../../lib/write/spool.js';
import { activeBranchOf } from '../../lib/write/branches.js';
import { boundHeapGrowth } from '../../lib/write/heap-growth.js';
import { LossLedger, RawLineCheck, ensureUnder, isDerived, nativeIdOf, payloadOf, resumeFields, sameNativeId, uuidv7, type WriterResult } from '../../lib/write/writer.js';
import { AGENT, HOME_ENV, NATIVE_ID, builtInHome, defaultHome, parseRolloutName, rolloutRelPath, sessionsDir } from './paths.js';
import { isImageWrapper } from './rollout.js';
import { relayedFor } from '../../lib/relay/mark.js';
import { commitRegistration, planRegistration, type Registration } from './state-db.js';

/** The client version this writer was verified against (written as cli_version for foreign sessions). */
export const CLIENT_VERSION = '0.171.0';
/** The output written for a call that never got one (the client itself would send "aborted"). */
export const STUB_OUTPUT = 'aborted: no output was recorded for this call';
const DEFAULT_ORIGINATOR = 'codex_cli_rs';

/** Line types the 0.171 client parses; any other line is skipped by it, so it is not written. */
const LINE_TYPES = new Set([
  'response_item', 'event_msg', 'turn_context', 'compacted', 'world_state', 'token_usage_record', 'dynamic_tools_updated',
  'inter_agent_communication', 'inter_agent_communication_metadata', 'security_risk_score', 'realtime_item', 'id_allocation',
]);
/** response_item variants the 0.171 client replays (docs/formats/codex.md §3.2); it drops any other silently. */
const ITEM_TYPES = new Set([
  'message', 'agent_message', 'reasoning', 'local_shell_call', 'function_call', 'function_call_output', 'custom_tool_call',
  'custom_tool_call_output', 'tool_search_call', 'tool_search_output', 'web_search_call', 'image_generation_call', 'compaction',
  'context_compaction', 'additional_tools', 'ghost_snapshot',
]);
/** UI echoes of the conversation that this writer makes anew from the messages. */
const ECHOES = new Set(['user_message', 'agent_message', 'agent_reasoning', 'agent_reasoning_raw_content']);

/** The generic options (lib/adapter/interface.ts); `artifactsDir` also holds base instructions a capture stored. */
export type CodexMaterializeOptions = MaterializeOptions;

export type CodexLossEntry = LossEntry;

export interface CodexMaterializeResult extends WriterResult {
  /** The state db the thread was added to, and the backup made first. */
  registered?: { db: string; backup?: string; copied_columns: string[] };
}

function fromCodex(event: SpEvent): boolean {
  return (event.origin?.agent ?? event.agent) === AGENT;
}

/**
 * `type` first in every object, as the client writes Responses items. Events reach the writer
 * through canonical JSON (RFC 8785 sorts keys), so nested items would otherwise come out sorted.
 */
function typeFirst(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(typeFirst);
  if (!isObject(value)) return value;
  const out: Json = {};
  if ('type' in value) out.type = value.type;
  for (const [k, v] of Object.entries(value)) if (k !== 'type') setMember(out, k, typeFirst(v));
  return out;
}

// ---- pass 1: spool and index --------------------------------------------------------------------

interface SessionIndex {
  count: number;
  /** Which output answers which call (the resume-safety pass, lib/write/plan.ts), by position. */
  pairing: CallPairing;
  firstPrompt?: string;
  lastModel?: string;
  /** Whether the --raw lines are the whole rollout, in file order. */
  raw: RawLineCheck;
  /** False once an event that is not a line of the rollout would be lost by writing the raw lines. */
  onlyLines: boolean;
  /** Whether an event names its parent (the session may have branches). */
  tree: boolean;
}

function newIndex(): SessionIndex {
  return { count: 0, pairing: new CallPairing(), raw: new RawLineCheck(), onlyLines: true, tree: false };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string' && !isImageWrapper(b.text))
    .map((b) => (b as { text: string }).text)
    .join('\n');
}

function indexEvent(index: SessionIndex, event: SpEvent): void {
  index.count += 1;
  index.pairing.add(event);
  if (typeof event.parent_seq === 'number') index.tree = true;
  const p = payloadOf(event);
  index.raw.add(event);
  // Derived events are made again from their call; session.start is the session_meta line, or made
  // up for a rollout without one. Any other event must be a line of the rollout itself.
  const line = typeof event.origin?.native_seq === 'number' && fromCodex(event);
  if (!line && !isDerived(event) && event.type !== 'session.start') index.onlyLines = false;
  if (isDerived(event)) return;
  if (event.type === 'message.user' && index.firstPrompt === undefined && p.is_meta !== true && !p.role && !(isObject(p.relay) && p.relay.header === true)) {
    // (A relay header is not the prompt the picker should list the thread by.)
    const text = textOf(p.content).trim();
    if (text !== '') index.firstPrompt = text;
  } else if (event.type === 'context.compiled' && index.firstPrompt === undefined) {
    const text = String(p.text ?? '').trim();
    if (text !== '') index.firstPrompt = text;
  } else if (event.type === 'message.assistant' && str(p.model)) {
    index.lastModel = String(p.model);
  }
}

/** The stream spooled once (lib/write/spool.ts) and each session's index from the way in. */
interface Spool {
  events: SessionSpool;
  sessions: Map<string, SessionIndex>;
}

async function spoolEvents(events: AsyncIterable<SpEvent>): Promise<Spool> {
  const sessions = new Map<string, SessionIndex>();
  const spooled = await SessionSpool.create(events, {
    prefix: 'sp-codex',
    onEvent: (event) => {
      const session = String(event.session ?? '');
      let index = sessions.get(session);
      if (!index) sessions.set(session, (index = newIndex()));
      indexEvent(index, event);
    },
  });
  return { events: spooled, sessions };
}

/** Call ids as the client takes them: any non-empty id; a new `call_sp…` one for a call without. */
const CALL_ID_SPELLING: ToolIdSpelling = {
  valid: /^[\s\S]+$/,
  mint: () => `call_sp${randomBytes(12).toString('hex')}`,
  accepts: 'any id but an empty one',
};

// ---- the writer ---------------------------------------------------------------------------------

interface WrittenCall {
  id: string;
  output: 'function_call_output' | 'custom_tool_call_output';
}

interface WriterOptions {
  /** The session's own cwd, and the one it is written for (--cwd). */
  cwdFrom?: string;
  cwdTo: string;
  safety: boolean;
  sameId: boolean;
  artifactsDir?: string;
  ledger: LossLedger;
  write: (line: string) => void;
}

class RolloutWriter {
  records = 0;
  userEvents = 0;
  /** Calls written whose output is still to come, by the position of that output. */
  private readonly pending = new Map<number, WrittenCall>();
  private readonly callIds: ToolIds;
  /** The position of the event being written (as pass 1 counted it). */
  private position = -1;
  private lastTs = 0;

  constructor(
    private readonly pairing: Pairing,
    private readonly options: WriterOptions,
  ) {
    this.callIds = new ToolIds(CALL_ID_SPELLING, (action, code, reason, event) => this.loss(action, code, reason, event), options.safety);
  }

  private loss(action: LossEntry['action'], code: string, reason: string, event?: SpEvent): void {
    this.options.ledger.report(action, code, reason, event);
  }

  private readonly report: PlanReport = (action, code, reason, event) => this.loss(action, code, reason, event);

  /** An RFC 3339 time for a line: the event's own, or (when it has none) the previous line's. */
  private time(event: SpEvent | undefined): string {
    const extra = event ? payloadOf(event).envelope_extra : undefined;
    // A Codex line whose timestamp string was not ISO (the client accepts any string) keeps it.
    if (event && fromCodex(event) && isObject(extra) && typeof extra.timestamp === 'string') return extra.timestamp;
    const ts = event && typeof event.ts === 'number' && Number.isFinite(event.ts) ? event.ts : this.lastTs || Date.now() / 1000;
    this.lastTs = ts;
    return toIso(ts);
  }

  /** response_item lines written: a file without any gives the model nothing to continue from. */
  items = 0;

  line(type: string, payload: Json, event?: SpEvent, timestamp?: string): void {
    if (type === 'response_item') this.items += 1;
    const body = type === 'response_item' || type === 'compacted' ? typeFirst(payload) : payload;
    this.options.write(JSON.stringify({ timestamp: timestamp ?? this.time(event), type, payload: body }));
    this.records += 1;
  }

  write(event: SpEvent): void {
    this.position += 1;
    if (isDerived(event)) return; // re-derivable from the call it points at
    const p = payloadOf(event);
    switch (event.type) {
      case 'session.start':
        return; // the new session_meta says it
      case 'session.fork':
        return; // the other session it names is reported as a whole
      case 'session.end':
        this.loss('dropped', 'session-end', 'session.end has no rollout line (a thread ends when the client stops): not written', event);
        return;
      case 'message.user':
        return this.user(event, p.content);
      case 'context.compiled':
        // A compiled handoff context (sp-compile) becomes the opening user message.
        return this.user(event, [{ type: 'text', text: String(p.text ?? '') }]);
      case 'message.assistant':
        return this.assistant(event);
      case 'message.thinking':
        return this.thinking(event);
      case 'tool.call':
        return this.call(event);
      case 'tool.result':
        return this.result(event);
      case 'checkpoint':
        return this.checkpoint(event);
      case 'meta':
        return this.meta(event);
      default:
        this.loss('dropped', 'no-codex-record', `${event.type} has no Codex rollout record; not written`, event);
    }
  }

  // ---- messages ---------------------------------------------------------------------------------

  private image(block: Json, event: SpEvent): Json | undefined {
    const mediaType = str(block.media_type) ?? 'image/png';
    const keep: Json = {};
    if (block.detail !== undefined) keep.detail = block.detail;
    if (str(block.data)) return { type: 'input_image', image_url: `data:${mediaType};base64,${block.data}`, ...keep };
    const artifact = str(block.artifact);
    const read = artifact && this.options.artifactsDir ? readArtifactForWriter(this.options.artifactsDir, artifact) : undefined;
    if (read?.ok) return { type: 'input_image', image_url: `data:${mediaType};base64,${read.bytes.toString('base64')}`, ...keep };
    if (str(block.url)) return { type: 'input_image', image_url: block.url, ...keep };
    if (fromCodex(event) && block.url === null) return { type: 'input_image', image_url: null, ...keep };
    const why = artifact ? `artifact ${artifactNote(artifact)}: ${read ? read.reason : 'pass --artifacts DIR'}` : 'no image data';
    this.loss('transformed', 'image', `image (${mediaType}) written as a text placeholder: ${why}`, event);
    return undefined;
  }

  /** Canonical content blocks → Responses content parts of `textType`; pointers skipped. */
  private parts(event: SpEvent, content: unknown, textType: 'input_text' | 'output_text'): Json[] {
    const list = Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content }] : [];
    const codex = fromCodex(event);
    const out: Json[] = [];
    for (const block of list) {
      if (!isObject(block)) continue;
      if (block.type === 'text') {
        const text = typeof block.text === 'string' ? block.text : '';
        if (this.options.safety && text.trim() === '' && !codex) {
          this.loss('dropped', 'empty-text', 'empty text block dropped', event);
          continue;
        }
        const { type: _t, text: _x, native_type, annotations, ...other } = block;
        const type = codex && typeof native_type === 'string' ? native_type : textType;
        const part: Json = { type, text };
        if (type === 'output_text') part.annotations = Array.isArray(annotations) ? annotations : [];
        if (codex) Object.assign(part, other);
        out.push(part);
      } else if (block.type === 'image') {
        const image = this.image(block, event);
        out.push(image ?? { type: textType, text: `[image ${String(block.media_type ?? '')} not available]` });
      } else if (block.type === 'tool_use' || block.type === 'tool_result') {
        // Pointers to the tool.call / tool.result events, which carry the calls themselves.
      } else if (codex) {
        out.push(block); // a Codex part this writer does not know: as captured
      } else if (block.type === 'thinking' && typeof block.text === 'string') {
        this.loss('transformed', 'foreign-thinking', 'thinking block inside a message written as "[reasoning]" text', event);
        out.push({ type: textType, text: `[reasoning]\n${block.text}`, ...(textType === 'output_text' ? { annotations: [] } : {}) });
      } else {
        this.loss('transformed', 'unsupported-block', `${String(block.type)} block written as JSON text`, event);
        out.push({ type: textType, text: JSON.stringify(block), ...(textType === 'output_text' ? { annotations: [] } : {}) });
      }
    }
    return out;
  }

  private user(event: SpEvent, content: unknown): void {
    const p = payloadOf(event);
    const role = str(p.role) ?? 'user';
    const parts = this.parts(event, content, 'input_text');
    if (parts.length === 0 && !(fromCodex(event) && Array.isArray(p.content))) {
      const onlyPointers = Array.isArray(content) && content.length > 0 && content.every((b) => isObject(b) && (b.type === 'tool_result' || b.type === 'tool_use'));
      if (!onlyPointers) this.loss('dropped', 'empty-message', 'user message with no content: not written', event);
      return;
    }
    const item: Json = { type: 'message' };
    if (fromCodex(event) && str(p.message_id)) item.id = p.message_id;
    item.role = role;
    item.content = fromCodex(event) && p.native_content !== undefined ? p.native_content : parts;
    if (fromCodex(event)) {
      if (p.phase !== undefined) item.phase = p.phase;
      if (isObject(p.extra)) Object.assign(item, p.extra);
    }
    this.line('response_item', item, event);
    const text = parts.filter((x) => x.type === 'input_text' && !isImageWrapper(String(x.text))).map((x) => String(x.text)).join('\n');
    if (role === 'user' && p.is_meta !== true && p.compact_summary !== true && text.trim() !== '') {
      this.line('event_msg', { type: 'user_message', message: text, images: [], local_images: [], text_elements: [] }, event);
      this.userEvents += 1;
    }
  }

  private assistant(event: SpEvent): void {
    const p = payloadOf(event);
    const parts = this.parts(event, p.content, 'output_text');
    if (parts.length === 0 && !fromCodex(event)) {
      const onlyPointers = Array.isArray(p.content) && p.content.every((b) => isObject(b) && (b.type === 'tool_use' || b.type === 'tool_result'));
      if (!onlyPointers) this.loss('dropped', 'empty-message', 'assistant message with no content: not written', event);
      return;
    }
    this.agentMessage(event, parts, p.phase);
    const item: Json = { type: 'message' };
    if (fromCodex(event) && str(p.message_id)) item.id = p.message_id;
    item.role = 'assistant';
    item.content = fromCodex(event) && p.native_content !== undefined ? p.native_content : parts;
    if (fromCodex(event)) {
      if (p.phase !== undefined) item.phase = p.phase;
      if (isObject(p.extra)) Object.assign(item, p.extra);
    }
    this.line('response_item', item, event);
  }

  private agentMessage(event: SpEvent, parts: Json[], phase: unknown): void {
    const text = parts.filter((x) => typeof x.text === 'string').map((x) => String(x.text)).join('\n');
    if (text.trim() === '') return;
    const msg: Json = { type: 'agent_message', message: text };
    if (phase !== undefined) msg.phase = phase;
    this.line('event_msg', msg, event);
  }

  private thinking(event: SpEvent): void {
    const p = payloadOf(event);
    const text = typeof p.text === 'string' ? p.text : '';
    const openai = fromCodex(event) && (p.provider === undefined || p.provider === 'openai');
    if (openai || !this.options.safety) {
      const summary = Array.isArray(p.summary) ? p.summary : text && p.visibility !== 'visible' ? [{ type: 'summary_text', text }] : [];
      const item: Json = { type: 'reasoning' };
      if (str(p.message_id) && openai) item.id = p.message_id;
      item.summary = summary;
      if (p.native_content !== undefined) item.content = p.native_content;
      else if (p.visibility === 'visible' && text) item.content = [{ type: 'reasoning_text', text }];
      if (str(p.opaque)) item.encrypted_content = p.opaque;
      else if (p.opaque_native !== undefined) item.encrypted_content = p.opaque_native;
      if (openai && isObject(p.extra)) Object.assign(item, p.extra);
      for (const s of summary) {
        if (isObject(s) && typeof s.text === 'string' && s.text !== '') this.line('event_msg', { type: 'agent_reasoning', text: s.text }, event);
      }
      this.line('response_item', item, event);
      return;
    }
    const whose = `reasoning from ${str(p.provider) ?? event.agent ?? 'another provider'}`;
    if (text.trim() === '') {
      this.loss('dropped', 'foreign-thinking', `${whose} has no readable text (${String(p.visibility ?? 'encrypted')}): dropped`, event);
      return;
    }
    // Another provider's reasoning (and its signature) cannot be replayed as an OpenAI reasoning item.
    this.loss('transformed', 'foreign-thinking', `${whose} written as "[reasoning]" text in an assistant message (an encrypted reasoning item must come from OpenAI)`, event);
    this.line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `[reasoning]\n${text}`, annotations: [] }] }, event);
  }

  // ---- tools ------------------------------------------------------------------------------------

  private call(event: SpEvent): void {
    const p = payloadOf(event);
    const original = String(p.call_id ?? '');
    const id = this.callIds.id(original, event);
    const codex = fromCodex(event);
    // A relay that translated the call for Codex says how the client records it (apply_patch: a custom tool call).
    const kind = codex || relayedFor(event, AGENT) ? str(p.tool_kind) ?? 'function_call' : 'function_call';
    const name = str(p.name) ?? 'unknown';
    const item: Json = { type: kind };
    if (codex && str(p.item_id)) item.id = p.item_id;
    let output: WrittenCall['output'] = 'function_call_output';
    if (kind === 'custom_tool_call') {
      Object.assign(item, { call_id: id, name, input: typeof p.input === 'string' ? p.input : JSON.stringify(p.input ?? '') });
      output = 'custom_tool_call_output';
    } else if (kind === 'local_shell_call') {
      Object.assign(item, { call_id: id, action: p.input ?? null });
    } else {
      let args: unknown;
      if (codex && 'arguments' in p) args = p.arguments;
      else args = typeof p.input === 'string' ? p.input : JSON.stringify(p.input ?? {});
      if (typeof args !== 'string' && this.options.safety) {
        args = JSON.stringify(args ?? {});
        this.loss('transformed', 'arguments', 'function_call arguments written as a JSON string (the client needs a string)', event);
      }
      Object.assign(item, { name, arguments: args, call_id: id });
    }
    if (codex && isObject(p.extra)) Object.assign(item, p.extra);
    this.line('response_item', item, event);
    const answer = this.pairing.resultOf.get(this.position);
    if (answer !== undefined) {
      this.pending.set(answer, { id, output });
      return;
    }
    if (!this.options.safety) return;
    reportStub(this.report, event, `wrote "${STUB_OUTPUT}"`, { noun: 'call', id });
    this.line('response_item', { type: output, call_id: id, output: STUB_OUTPUT }, event);
  }

  private result(event: SpEvent): void {
    const p = payloadOf(event);
    const original = String(p.call_id ?? '');
    const call = this.pending.get(this.position);
    this.pending.delete(this.position);
    if (!call && this.options.safety) {
      reportOrphan(this.report, event, this.pairing.skipped.get(this.position) ?? 'orphan', 'the client would drop it', 'output');
      return;
    }
    const codex = fromCodex(event);
    const kind = call?.output ?? (codex && p.tool_kind === 'custom_tool_call_output' ? 'custom_tool_call_output' : 'function_call_output');
    const item: Json = { type: kind };
    if (codex && str(p.item_id)) item.id = p.item_id;
    item.call_id = call?.id ?? original;
    item.output = this.outputValue(event, p);
    if (codex && isObject(p.extra)) Object.assign(item, p.extra);
    this.line('response_item', item, event);
  }

  private outputValue(event: SpEvent, p: Json): unknown {
    if (fromCodex(event) && p.native_output !== undefined) return p.native_output;
    const content = p.content;
    if (typeof content === 'string') return content;
    if (!Array.isArray(content)) return '';
    if (fromCodex(event)) return this.parts(event, content, 'input_text');
    // Another agent's result blocks: the text the model saw; images cannot ride in a string output.
    const texts: string[] = [];
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      else {
        this.loss('transformed', 'result-block', `${String(block.type)} block in a tool result written as a text placeholder`, event);
        texts.push(`[${String(block.type)}${block.type === 'image' ? ` ${String(block.media_type ?? '')}` : ''} not carried]`);
      }
    }
    return texts.join('\n');
  }

  // ---- compaction and native records --------------------------------------------------------------

  private checkpoint(event: SpEvent): void {
    const p = payloadOf(event);
    if (fromCodex(event) && p.kind === 'compaction') {
      const payload: Json = {};
      if (p.summary !== undefined) payload.message = p.summary;
      if (Array.isArray(p.context)) payload.replacement_history = p.context;
      if (isObject(p.extra)) Object.assign(payload, p.extra);
      this.line('compacted', payload, event);
      return;
    }
    this.loss('dropped', 'checkpoint', `checkpoint from ${event.agent} has no Codex record (the full history before it is written)`, event);
  }

  private meta(event: SpEvent): void {
    const p = payloadOf(event);
    const key = String(p.key ?? '');
    const raw = isObject(p.raw) ? p.raw : undefined;
    if (!fromCodex(event) || !raw) {
      this.loss('dropped', fromCodex(event) ? 'meta' : 'foreign-meta', `meta ${key || '(no key)'} from ${event.agent} has no Codex record: not written`, event);
      return;
    }
    const type = typeof raw.type === 'string' ? raw.type : '';
    const inner = isObject(raw.payload) ? raw.payload : undefined;
    const innerType = typeof inner?.type === 'string' ? inner.type : '';
    if (type === 'event_msg' && ECHOES.has(innerType)) {
      this.loss('transformed', 'ui-echo', `event_msg ${innerType} written anew from the message it echoes`, event);
      return;
    }
    if (type === 'event_msg' && innerType === 'item_completed') {
      this.loss('dropped', 'paginated-only', 'event_msg item_completed (paginated-style UI record) not written into a legacy rollout; the messages are', event);
      return;
    }
    if (type === 'event_msg' && innerType === 'thread_settings_applied' && !this.options.sameId) {
      this.loss('dropped', 'thread-settings', 'thread_settings_applied of the old thread (its id, cwd) not written; the client applies its own settings on resume', event);
      return;
    }
    if (type === 'session_meta') {
      this.loss('dropped', 'session-meta', 'a second session_meta (a copied or forked thread\'s) not written: the new file has its own', event);
      return;
    }
    if (!LINE_TYPES.has(type) || !inner) {
      this.loss('dropped', 'unknown-line', `${key || 'line'} is not a rollout line the client reads: not written`, event);
      return;
    }
    if (type === 'response_item' && !ITEM_TYPES.has(innerType) && this.options.safety) {
      this.loss('dropped', 'unknown-item', `response_item ${innerType || '(untyped)'} is no item type the client knows (it would drop it silently): not written`, event);
      return;
    }
    // Legacy style: no ordinal, no paginated item metadata (bookkeeping, never sent to the model).
    const timestamp = typeof raw.timestamp === 'string' ? raw.timestamp : undefined;
    let body = inner;
    if (type === 'turn_context' && this.options.cwdFrom !== undefined && inner.cwd === this.options.cwdFrom && this.options.cwdTo !== this.options.cwdFrom) {
      // The client takes a thread's current cwd from its last turn_context (`resume --last` filters
      // on it), so a session written for another folder says that folder here too.
      body = { ...inner, cwd: this.options.cwdTo };
      this.loss('transformed', 'cwd', `turn_context cwd ${this.options.cwdFrom} written as ${this.options.cwdTo}`, event);
    }
    this.line(type, body, event, timestamp);
  }
}

// ---- entry point --------------------------------------------------------------------------------

function configProvider(home: string): string | undefined {
  try {
    const text = readFileSync(join(home, 'config.toml'), 'utf8');
    // Only the top-level key (before the first [table]) names the provider in use.
    const top = text.split(/^\s*\[/m)[0];
    return /^\s*model_provider\s*=\s*"([^"]+)"/m.exec(top)?.[1];
  } catch {
    return undefined;
  }
}

function existingRollout(home: string, id: string): string | undefined {
  const want = `-${id.toLowerCase()}.jsonl`;
  const walk = (dir: string, depth: number): string | undefined => {
    let names;
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    for (const e of names) {
      const path = join(dir, e.name);
      if (e.isDirectory() && depth < 3) {
        const hit = walk(path, depth + 1);
        if (hit) return hit;
      } else if (e.isFile() && e.name.toLowerCase().endsWith(want)) {
        return path;
      }
    }
    return undefined;
  };
  return walk(sessionsDir(home), 0);
}

/** The lines of a file, read in chunks (sync: createFileAtomic takes a sync iterable). */
function* fileChunks(path: string): Generator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(1 << 20);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      yield Buffer.from(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
}

/** Resolves base instructions captured as text or as an artifact ref. */
function baseInstructions(start: Json, artifactsDir: string | undefined): Json | undefined {
  const info = isObject(start.base_instructions) ? start.base_instructions : undefined;
  if (!info) return undefined;
  if (info.native !== undefined) return info.native as Json;
  const { text, artifact, digest: _d, chars: _c, ...other } = info;
  if (typeof text === 'string') return { text, ...other };
  if (typeof artifact === 'string' && artifactsDir) {
    const read = readArtifactForWriter(artifactsDir, artifact);
    if (read.ok) return { text: read.bytes.toString('utf8'), ...other };
  }
  return undefined;
}

/** Writes the (first, or `session`-selected) session of `events` as a new Codex rollout. */
export async function materializeCodex(events: AsyncIterable<SpEvent>, options: CodexMaterializeOptions = {}): Promise<CodexMaterializeResult> {
  boundHeapGrowth(); // the writer makes garbage at the rate it reads: collect it sooner (heap-growth.ts)
  const spool = await spoolEvents(events);
  try {
    return await write(spool, options);
  } finally {
    spool.events.remove();
  }
}

/**
 * The events to write: all of them, or with `--branch active` the active branch (lib/write/branches.ts;
 * the rest reported other-branch), with the call pairing over what is written. A session without a
 * tree (no parent_seq) is one branch: nothing to choose. Either way passes over the spool: no events held.
 */
async function chosenBranch(spool: Spool, session: string, index: SessionIndex, options: CodexMaterializeOptions, ledger: LossLedger): Promise<{ pairing: Pairing; events: () => AsyncIterable<SpEvent> }> {
  const all = (): AsyncIterable<SpEvent> => spool.events.events(session);
  if (options.branch !== 'active' || !index.tree) return { pairing: index.pairing.done(), events: all };
  const kept = await activeBranchOf(all, (action, code, reason, event) => ledger.report(action, code, reason, event));
  const pairing = new CallPairing();
  for await (const event of kept()) pairing.add(event);
  return { pairing: pairing.done(), events: kept };
}

/** The rollout as it is made: a temp file in the spool's folder, lines buffered in 64 KiB writes, each one shown to `onLine`. */
class RolloutOut {
  readonly path: string;
  private readonly fd: number;
  private buffer = '';

  constructor(dir: string, private readonly onLine?: (line: string) => void) {
    this.path = join(dir, 'rollout.jsonl');
    this.fd = openSync(this.path, 'w', 0o600);
  }

  readonly emit = (line: string): void => {
    this.onLine?.(line);
    this.buffer += line + '\n';
    if (this.buffer.length >= 1 << 16) {
      writeSync(this.fd, this.buffer);
      this.buffer = '';
    }
  };

  /** The last line of a file that ended without a newline. */
  unterminated(line: string): void {
    this.onLine?.(line);
    this.buffer += line;
  }

  flush(): void {
    if (this.buffer) writeSync(this.fd, this.buffer);
    this.buffer = '';
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** The new session's id, start time and rollout path (a same-id move keeps the session's own, and never overwrites). */
function rolloutTarget(start: SpEvent | undefined, sp: Json, home: string, now: number, options: CodexMaterializeOptions): { sessionId: string; startedAt: number; path: string } {
  const sourceAgent = start?.agent;
  let sessionId: string;
  let startedAt: number;
  if (options.sameId) {
    if (sourceAgent !== AGENT) throw new UserError(`--same-id keeps a Codex session's own id; this session comes from ${sourceAgent ?? 'an unknown agent'} (drop --same-id to write it under a new id)`);
    sessionId = sameNativeId(NATIVE_ID, str(sp.native_id));
    const named = typeof sp.source_path === 'string' ? parseRolloutName(sp.source_path) : undefined;
    startedAt = named?.startedAt ?? (typeof sp.started_at === 'string' && !Number.isNaN(Date.parse(sp.started_at)) ? Date.parse(sp.started_at) / 1000 : start?.ts ?? now / 1000);
  } else {
    sessionId = uuidv7(now);
    startedAt = now / 1000;
  }
  const path = ensureUnder(home, join(home, rolloutRelPath(startedAt, sessionId)), 'the home');
  if (options.sameId) {
    const existing = existsSync(path) ? path : existingRollout(home, sessionId);
    if (existing) throw new UserError('exists already: --same-id never overwrites a session (move it away, or drop --same-id to write a copy under a new id)', existing);
  }
  return { sessionId, startedAt, path };
}

/**
 * The provider the session_meta names. The client refuses to resume a thread under another provider
 * than the one its session_meta names, so a new session takes the target home's provider; a
 * same-id move keeps its own.
 */
function modelProviderFor(home: string, sp: Json, codexSource: boolean, options: CodexMaterializeOptions, ledger: LossLedger): string | undefined {
  const providerOfHome = configProvider(home);
  const sourceProvider = codexSource ? str(sp.model_provider) : undefined;
  const modelProvider = options.sameId ? sourceProvider : providerOfHome ?? sourceProvider;
  if (!options.sameId && sourceProvider && modelProvider !== sourceProvider) {
    ledger.add({ action: 'transformed', code: 'model-provider', reason: `model_provider ${JSON.stringify(sourceProvider)} written as ${JSON.stringify(modelProvider)} (the provider ${home}/config.toml uses; the client refuses to switch a thread's provider on resume)` });
  }
  return modelProvider;
}

/** The session_meta payload of a rebuilt rollout. */
function sessionMeta(sp: Json, at: { sessionId: string; now: number; cwd: string; modelProvider?: string; codexSource: boolean }, options: CodexMaterializeOptions, ledger: LossLedger): Json {
  const { codexSource } = at;
  const meta: Json = {};
  if (options.sameId && isObject(sp.meta_extra)) Object.assign(meta, sp.meta_extra);
  Object.assign(meta, {
    id: at.sessionId,
    timestamp: options.sameId && typeof sp.started_at === 'string' ? sp.started_at : new Date(at.now).toISOString(),
    cwd: at.cwd,
    originator: (codexSource ? str(sp.originator) : undefined) ?? DEFAULT_ORIGINATOR,
    cli_version: (codexSource ? str(sp.version) : undefined) ?? CLIENT_VERSION,
    // "cli" so the TUI picker lists it (it hides exec sessions); a same-id move keeps its own.
    source: options.sameId && sp.source !== undefined ? sp.source : 'cli',
  });
  if (at.modelProvider) meta.model_provider = at.modelProvider;
  if (codexSource && typeof sp.instructions === 'string') meta.instructions = sp.instructions;
  if (codexSource) {
    const base = baseInstructions(sp, options.artifactsDir);
    if (base) meta.base_instructions = base;
    else if (sp.base_instructions !== undefined) ledger.add({ action: 'dropped', code: 'base-instructions', reason: 'base instructions stored as an artifact that was not found (pass --artifacts DIR): the client uses its default prompt' });
  }
  if (str(sp.git_head) || str(sp.git_branch) || str(sp.git_origin)) {
    const git: Json = {};
    if (str(sp.git_head)) git.commit_hash = sp.git_head;
    if (str(sp.git_branch)) git.branch = sp.git_branch;
    if (str(sp.git_origin)) git.repository_url = sp.git_origin;
    meta.git = git;
  }
  if (codexSource && sp.history_mode === 'paginated') {
    ledger.add({ action: 'transformed', code: 'legacy-style', reason: 'paginated rollout written in the legacy style (no ordinals, no paginated item metadata)' });
    if (options.sameId) meta.history_mode = 'legacy';
  } else if (options.sameId && sp.history_mode !== undefined) {
    // 0.171 knows only "legacy" and "paginated"; any other value makes it refuse the file.
    if (sp.history_mode === 'legacy' || options.safety === false) meta.history_mode = sp.history_mode;
    else ledger.add({ action: 'dropped', code: 'history-mode', reason: `history_mode ${JSON.stringify(sp.history_mode)} not written (the client accepts only "legacy" or "paginated")` });
  }
  return meta;
}

/** A same-id move of a whole capture: the native lines as they were (the last one without a newline when the file had none). Returns the line count. */
async function writeRawLines(spool: Spool, session: string, sp: Json, out: RolloutOut): Promise<number> {
  const finalNewline = sp.raw_final_newline !== false;
  let records = 0;
  let pendingLine: string | undefined;
  for await (const event of spool.events.events(session)) {
    for (const line of event.origin?.raw ?? []) {
      if (pendingLine !== undefined) out.emit(pendingLine);
      pendingLine = line;
      records += 1;
    }
  }
  if (pendingLine !== undefined) {
    if (finalNewline) out.emit(pendingLine);
    else out.unterminated(pendingLine);
  }
  return records;
}

/** The rollout's lines into `out`: raw (byte-identical) when a same-id move allows it, else rebuilt from the events. */
async function writeRollout(spool: Spool, session: string, index: SessionIndex, sp: Json, at: { sessionId: string; now: number; cwd: string; modelProvider?: string; codexSource: boolean }, out: RolloutOut, options: CodexMaterializeOptions, ledger: LossLedger): Promise<{ records: number; userEvents: number; writtenAs: 'raw' | 'rebuilt' }> {
  // Byte-identical only when every line came along and the session stays in its own folder.
  const stays = str(sp.cwd) !== undefined && resolve(String(sp.cwd)) === at.cwd;
  if (options.sameId && stays && index.onlyLines && index.raw.complete) {
    const records = await writeRawLines(spool, session, sp, out);
    return { records, userEvents: index.firstPrompt !== undefined ? 1 : 0, writtenAs: 'raw' };
  }
  const meta = sessionMeta(sp, at, options, ledger);
  out.emit(JSON.stringify({ timestamp: String(meta.timestamp), type: 'session_meta', payload: meta }));
  const { pairing, events } = await chosenBranch(spool, session, index, options, ledger);
  const writer = new RolloutWriter(pairing, { cwdFrom: str(sp.cwd), cwdTo: at.cwd, safety: options.safety !== false, sameId: Boolean(options.sameId), artifactsDir: options.artifactsDir, ledger, write: out.emit });
  for await (const event of events()) writer.write(event);
  if (writer.items === 0) throw new UserError('nothing to write: the session has no messages or tool calls');
  return { records: writer.records + 1, userEvents: writer.userEvents, writtenAs: 'rebuilt' };
}

async function write(spool: Spool, options: CodexMaterializeOptions): Promise<CodexMaterializeResult> {
  const session = spool.events.picker.pick(options.session);
  const index = spool.sessions.get(session)!;
  const start = spool.events.picker.startOf(session);
  const sp = start ? payloadOf(start) : {};
  const codexSource = start?.agent === AGENT;
  const sessionCwd = str(options.cwd) ?? str(sp.cwd);
  if (!sessionCwd) throw new UserError('the session names no cwd: pass --cwd DIR (the project folder the client will resume it from)');
  const cwd = resolve(sessionCwd);
  const home = resolve(options.home ?? defaultHome());
  const now = Date.now();
  const { sessionId, startedAt, path } = rolloutTarget(start, sp, home, now, options);

  const ledger = new LossLedger(options.onLoss);
  for (const id of spool.events.picker.order) {
    if (id === session) continue;
    const other = spool.sessions.get(id)!;
    const otherNative = nativeIdOf(spool.events.picker.startOf(id));
    ledger.add({ action: 'dropped', code: 'other-session', reason: `session ${id}${otherNative ? ` (native ${otherNative})` : ''}, ${other.count} event(s), is a separate session: not written` });
  }
  const modelProvider = modelProviderFor(home, sp, codexSource, options, ledger);
  const out = new RolloutOut(spool.events.path, options.onLine);
  let written: { records: number; userEvents: number; writtenAs: 'raw' | 'rebuilt' };
  try {
    written = await writeRollout(spool, session, index, sp, { sessionId, now, cwd, modelProvider, codexSource }, out, options, ledger);
    out.flush();
  } finally {
    out.close();
  }
  const { records, userEvents, writtenAs } = written;

  // Planned (read-only) before the file is written, dry run or not: an unknown schema stops the run
  // with nothing written.
  const registration: Registration | undefined = await planRegistration(home, {
    id: sessionId,
    rollout_path: path,
    created_ms: startedAt * 1000,
    updated_ms: now,
    source: options.sameId && typeof sp.source === 'string' ? sp.source : 'cli',
    model_provider: modelProvider ?? 'openai',
    cwd,
    // The picker shows the title; a session's own (Claude's ai-title, Codex's thread name) beats its first prompt.
    title: str(sp.title) ?? index.firstPrompt ?? '',
    first_user_message: index.firstPrompt ?? '',
    has_user_event: userEvents > 0,
    cli_version: (codexSource ? str(sp.version) : undefined) ?? CLIENT_VERSION,
    originator: (codexSource ? str(sp.originator) : undefined) ?? DEFAULT_ORIGINATOR,
    model: index.lastModel ?? str(sp.model),
    git_sha: str(sp.git_head),
    git_branch: str(sp.git_branch),
    git_origin_url: str(sp.git_origin),
  });
  if (!options.dryRun) createFileAtomic(path, fileChunks(out.path), 0o600);
  let registered: CodexMaterializeResult['registered'];
  if (registration && options.dryRun) {
    registered = { db: registration.db, copied_columns: registration.copied };
  } else if (registration) {
    try {
      const backup = await commitRegistration(registration);
      registered = { db: registration.db, backup, copied_columns: registration.copied };
    } catch (err) {
      unlinkSync(path); // one piece without the other would half-register the session
      throw err;
    }
  }

  const result: CodexMaterializeResult = {
    agent: AGENT,
    session_id: sessionId,
    path,
    cwd,
    ...resumeFields(cwd, ['codex', 'resume', sessionId, ...(options.model ? ['-m', options.model] : [])], { variable: HOME_ENV, value: home, builtIn: builtInHome() }),
    records,
    written_as: writtenAs,
    source_session: session,
    changes: ledger.counts,
  };
  if (registered) result.registered = registered;
  if (options.dryRun) result.dry_run = true;
  return result;
}
