// History-mode relay: canonical events of one agent's session rewritten so that another agent's
// writer produces a session in the target's own terms (issue 9):
//   * tool calls in the target's vocabulary (each adapter's `vocabulary()`: native call ⇄ intent ⇄
//     native call), their results made plain where the source wrapped them; a call without a counterpart
//     becomes a marked assistant text that carries the call and its result, never a call to a tool
//     the target does not have;
//   * thinking kept native only when the target continues with the provider that made it, else a
//     marked text block (`keep-text`, default) or dropped;
//   * images kept where the target takes them in that position, else a note with their hash;
//   * a `[sp relay]` header as the first user message: where the session came from and what did
//     not come along.
// Same agent in and out: every event passes through untouched. Each change goes to `onLoss`.
//
// The header must come first but counts what is found later, so the stream is read twice: pass 1
// spools the events once (lib/write/spool.ts: memory stays flat) and counts;
// pass 2 reads them back and translates. Only the results of calls rendered as text are kept
// between the passes (the text of such a call carries its result), on disk.
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LossEntry } from '../adapter/interface.js';
import type { SpEvent } from '../core/event.js';
import { toIso } from '../core/event.js';
import { isObject, str, type Json } from '../core/json.js';
import { SessionSpool } from '../write/spool.js';
import { SeqMap } from '../write/seq-map.js';
import { adapterOf, agentLabel, registeredAdapters, Vocabularies } from '../adapter/registry.js';
import { removeOnInterrupt } from '../fs/private.js';
import { relayedFor, type RelayMark } from './mark.js';
import { PlanState, planText, type Intent, type NativeCall, type VocabularyContext } from './vocabulary/types.js';

export type ThinkingMode = 'keep-text' | 'drop';

export interface RelayOptions {
  /** The agent the events are written for (`sp-materialize <target>`). */
  target: string;
  /** Thinking from another provider: a marked text block (default) or dropped. */
  thinking?: ThinkingMode;
  /** The `[sp relay]` first user message of a cross-agent relay (default on). */
  header?: boolean;
  onLoss?: (entry: LossEntry) => void;
  /** The model the target continues with (`--model`): decides whose thinking Pi and Hermes can keep. */
  model?: string;
  /** The relay time the header states (default: now). */
  now?: Date;
}

const nameOf = agentLabel;

/** The provider an agent sends to whatever its model (capabilities.provider); undefined: the one its model names. */
const agentProvider = (agent: string): string | undefined => adapterOf(agent)?.capabilities.provider;

/** A provider from a provider or model name (`anthropic/claude-…`, `gpt-5`, `openrouter` says nothing). */
export function providerOf(name: string | undefined): string | undefined {
  if (!name || name === 'openrouter' || name === '<synthetic>') return undefined;
  const slash = name.indexOf('/');
  if (slash > 0) return providerOf(name.slice(0, slash)) ?? providerOf(name.slice(slash + 1));
  for (const family of modelFamilies()) if (family.names.test(name)) return family.provider;
  return name.toLowerCase();
}

/** Model families no agent is named after (the families of agents are their adapters' `modelFamily`). */
const OTHER_FAMILIES: ReadonlyArray<{ provider: string; names: RegExp }> = [
  { provider: 'deepseek', names: /^deepseek/i },
  { provider: 'xai', names: /^(xai|grok)/i },
];

// The families of the registry handed to lib/ (one table per registry: providerOf runs per event).
let families: { of: object; list: ReadonlyArray<{ provider: string; names: RegExp }> } | undefined;

/** Every known model family: the adapters' (registry order), then the others. No two share a prefix, so order does not decide. */
function modelFamilies(): ReadonlyArray<{ provider: string; names: RegExp }> {
  const all = registeredAdapters();
  if (families?.of !== all) {
    const declared = Object.values(all).flatMap((a) => (a.modelFamily ? [a.modelFamily] : []));
    families = { of: all, list: [...declared, ...OTHER_FAMILIES] };
  }
  return families.list;
}

/** The text a call without a counterpart in the target is written as: the call, then its result. */
function renderedText(source: string, name: string, input: unknown, intent: Intent | undefined, result: SpEvent | undefined, target: string): string {
  const why = adapterOf(target)?.capabilities.textOnlyToolCalls ? 'carried as text' : `${nameOf(target)} has no such tool; shown as text`;
  const head = `[sp relay] ${nameOf(source)} tool call \`${name}\` (${why}):`;
  const body = intent?.kind === 'plan' ? planText(intent.items, intent.explanation) : typeof input === 'string' ? input : JSON.stringify(input, null, 2);
  let tail = '(no result was recorded)';
  if (result) {
    const p = isObject(result.payload) ? result.payload : {};
    const text = contentText(p.content);
    tail = `${p.is_error === true ? 'Result (error)' : 'Result'}:\n${text}`;
  }
  return `${head}\n${body}\n${tail}`;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => (isObject(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : isObject(b) && b.type === 'image' ? imageNote(b, 'text') : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function imageRef(block: Json): string {
  if (typeof block.artifact === 'string') return block.artifact;
  if (typeof block.data === 'string') return 'sha256:' + createHash('sha256').update(Buffer.from(block.data, 'base64')).digest('hex');
  return typeof block.url === 'string' ? block.url : 'no data';
}

function imageNote(block: Json, where: string): string {
  return `[image ${str(block.media_type) ?? 'image'} ${imageRef(block)}: not carried (${where})]`;
}

/** Whether the target takes an image in this position (its capabilities.images). */
function acceptsImage(target: string, type: string): boolean {
  const images = adapterOf(target)?.capabilities.images;
  if (type === 'message.user') return images?.userMessage === true;
  if (type === 'tool.result') return images?.toolResult === true;
  return false;
}

/** Whether the target passes every event through as the source made it (an interchange format). */
const keepsSourceTerms = (target: string): boolean => adapterOf(target)?.capabilities.keepsSourceTerms === true;

/** Per-session counts for the header: what did not come along as it was. */
interface Counts {
  translated: number;
  rendered: Map<string, number>;
  thinkingText: number;
  thinkingDropped: number;
  images: number;
  subagents: number;
}

interface SessionInfo {
  agent: string;
  first?: SpEvent;
  start?: SpEvent;
  firstTs?: number;
  lastTs?: number;
  counts: Counts;
  /** Results of calls rendered as text, by call id (the text carries them), held on disk. */
  renderedResults: SpilledResults;
  headerDone?: boolean;
}

/**
 * Results of calls rendered as text, from pass 1 to pass 2, in a private temp file (0600 in a 0700
 * folder; opened on the first result): in memory only each one's call id, offset and length, so a
 * target with no tools (every result carried in the text of its call) keeps memory flat.
 */
class SpilledResults {
  private readonly index = new Map<string, number>();
  private readonly offsets: number[] = [];
  private readonly lengths: number[] = [];
  private file: { dir: string; fd: number; settle: () => void } | undefined;
  private size = 0;
  private scratch = Buffer.alloc(0);

  has(callId: string): boolean {
    return this.index.has(callId);
  }

  set(callId: string, event: SpEvent): void {
    if (!this.file) {
      const dir = mkdtempSync(join(tmpdir(), 'sp-rendered-'));
      this.file = { dir, fd: openSync(join(dir, 'results.ndjson'), 'wx+', 0o600), settle: removeOnInterrupt(dir) };
    }
    const bytes = Buffer.from(JSON.stringify(event), 'utf8');
    writeSync(this.file.fd, bytes, 0, bytes.length, this.size);
    this.index.set(callId, this.offsets.length);
    this.offsets.push(this.size);
    this.lengths.push(bytes.length);
    this.size += bytes.length;
  }

  get(callId: string): SpEvent | undefined {
    const at = this.index.get(callId);
    if (at === undefined || !this.file) return undefined;
    const length = this.lengths[at];
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafe(Math.max(length, this.scratch.length * 2));
    let got = 0;
    while (got < length) got += readSync(this.file.fd, this.scratch, got, length - got, this.offsets[at] + got);
    return JSON.parse(this.scratch.toString('utf8', 0, length)) as SpEvent;
  }

  /** Removes the temp folder (again: nothing). */
  remove(): void {
    if (!this.file) return;
    closeSync(this.file.fd);
    rmSync(this.file.dir, { recursive: true, force: true });
    this.file.settle();
    this.file = undefined;
  }
}

interface Translated {
  from: string;
  calls: NativeCall[];
  ids: string[];
}

/**
 * One session's translation, run twice with the same decisions: pass 1 counts and notes which calls
 * are rendered, pass 2 (with the results pass 1 kept) writes and reports.
 */
class SessionTranslator {
  private readonly context: VocabularyContext;
  private readonly translated = new Map<string, Translated>();
  private readonly rendered = new Map<string, { name: string; seq: number }>();
  private readonly targetProvider: string | undefined;

  constructor(
    private readonly info: SessionInfo,
    private readonly options: RelayOptions,
    private readonly report: ((entry: LossEntry) => void) | undefined,
    private readonly vocabularies: Vocabularies,
  ) {
    const sp = info.start && isObject(info.start.payload) ? info.start.payload : {};
    this.context = { cwd: str(sp.cwd), plan: new PlanState() };
    const sessionProvider = providerOf(str(sp.provider)) ?? providerOf(str(sp.model)) ?? agentProvider(info.agent);
    this.targetProvider = agentProvider(options.target) ?? providerOf(options.model) ?? sessionProvider;
  }

  private loss(entry: LossEntry): void {
    this.report?.(entry);
  }

  translate(event: SpEvent): SpEvent[] {
    if (event.agent === this.options.target || keepsSourceTerms(this.options.target)) return [event];
    if (event.derived_from !== undefined && event.derived_from !== null) return [this.derived(event)];
    switch (event.type) {
      case 'message.thinking':
        return this.thinking(event);
      case 'message.assistant':
      case 'message.user':
        return [this.message(event)];
      case 'tool.call':
        return this.call(event);
      case 'tool.result':
        return this.result(event);
      case 'session.fork':
        return [this.fork(event)];
      default:
        return [event];
    }
  }

  /**
   * A derived event (file.edit, command.run, todo.*) stays as it is: it points at its call's seq,
   * which the translated call keeps, and writers write the call, not it. Its ledger line says so.
   */
  private derived(event: SpEvent): SpEvent {
    const at = this.callOfSeq.get(Number(event.derived_from));
    const call = at === undefined || at === null ? undefined : this.nameList[at];
    const how = call === undefined ? 'which is written' : call === 'text' ? 'which is written as text' : `which is written as ${call}`;
    this.loss({ action: 'carried', code: 'derived', seq: event.seq, type: event.type, reason: `derived from the tool call at seq ${String(event.derived_from)}, ${how}: the call carries it` });
    return event;
  }

  /** A subagent (or other child session) the source started: not written into this session. */
  private fork(event: SpEvent): SpEvent {
    const p = payloadOf(event);
    this.info.counts.subagents += 1;
    const what = str(p.reason) === 'subagent' ? `subagent ${str(p.agent_type) ?? ''} session`.replace('  ', ' ') : 'child session';
    this.loss({ action: 'dropped', code: 'subagent', seq: event.seq, type: event.type, reason: `the ${what} ${str(p.to_session) ?? str(p.native_id) ?? ''} it starts is not written (capture and relay it on its own); the call that started it is written with its result` });
    return event;
  }

  /** Tool call seq → what it was written as (target tool names, or text), as its number in `nameList` (a SeqMap: a Map held about 40 bytes a call). */
  private readonly callOfSeq = new SeqMap();
  /** Each tool-name text once, numbered. */
  private readonly names = new Map<string, number>();
  private readonly nameList: string[] = [];

  private interned(text: string): number {
    const known = this.names.get(text);
    if (known !== undefined) return known;
    this.names.set(text, this.nameList.length);
    this.nameList.push(text);
    return this.nameList.length - 1;
  }

  // ---- thinking ---------------------------------------------------------------------------------

  private sourceProvider(p: Json, event: SpEvent): string | undefined {
    const sp = this.info.start && isObject(this.info.start.payload) ? this.info.start.payload : {};
    return providerOf(str(p.provider)) ?? agentProvider(event.agent) ?? providerOf(str(p.model)) ?? providerOf(str(sp.model)) ?? providerOf(str(sp.provider));
  }

  /**
   * Whether the target's writer can write this reasoning as its own thinking: made by the provider
   * the target continues with, and as its capabilities.thinking says: `signed` only with the
   * signature the API verifies, `own` never (it replays only its own encrypted reasoning).
   */
  private native(made: string | undefined, p: Json): boolean {
    if (made === undefined || made !== this.targetProvider) return false;
    const takes = adapterOf(this.options.target)?.capabilities.thinking ?? 'provider';
    if (takes === 'signed') return str(p.signature) !== undefined || (p.visibility === 'redacted' && str(p.opaque) !== undefined);
    return takes !== 'own';
  }

  private thinking(event: SpEvent): SpEvent[] {
    const p = payloadOf(event);
    const made = this.sourceProvider(p, event);
    if (this.native(made, p)) {
      if (str(p.provider) === made || made === undefined) return [event];
      // Routed (e.g. Anthropic through OpenRouter): the writer must see the provider that signed it.
      this.loss({ action: 'carried', code: 'thinking', seq: event.seq, type: event.type, reason: `thinking from ${nameOf(event.agent)} kept as native thinking: made by ${made}${str(p.provider) ? ` (through ${String(p.provider)})` : ''}, which ${nameOf(this.options.target)} continues with` });
      return [rewrite(event, event.type, { ...p, provider: made })];
    }
    const text = typeof p.text === 'string' ? p.text : '';
    const whose = `thinking from ${nameOf(event.agent)}${made ? ` (${made})` : ''}`;
    if (this.options.thinking === 'drop' || text.trim() === '') {
      this.info.counts.thinkingDropped += 1;
      const why = this.options.thinking === 'drop' ? '--thinking drop' : 'it has no readable text (only its provider can read it)';
      this.loss({ action: 'dropped', code: 'thinking', seq: event.seq, type: event.type, reason: `${whose} not written: ${why}` });
      return [];
    }
    this.info.counts.thinkingText += 1;
    this.loss({ action: 'transformed', code: 'thinking', seq: event.seq, type: event.type, from: 'thinking', to: 'text', reason: `${whose} written as a marked text block (${nameOf(this.options.target)} continues with ${this.targetProvider ?? 'another provider'}, which cannot take it as thinking)` });
    const payload: Json = { ...messageFields(p), content: [{ type: 'text', text: `[thinking from ${event.agent}]\n${text}` }] };
    return [rewrite(event, 'message.assistant', payload)];
  }

  // ---- messages: thinking blocks inside them, images --------------------------------------------

  private message(event: SpEvent): SpEvent {
    const p = payloadOf(event);
    if (!Array.isArray(p.content)) return event;
    let changed = false;
    const content: unknown[] = [];
    for (const block of p.content) {
      if (isObject(block) && block.type === 'image' && !acceptsImage(this.options.target, event.type)) {
        changed = true;
        content.push({ type: 'text', text: imageNote(block, `${nameOf(this.options.target)} takes no image in a ${event.type === 'message.user' ? 'user message' : 'assistant message'}`) });
        this.info.counts.images += 1;
        this.loss({ action: 'rendered', code: 'image', seq: event.seq, type: event.type, from: 'image', to: 'text', reason: `${str(block.media_type) ?? 'image'} ${imageRef(block)} written as a text note` });
      } else if (isObject(block) && block.type === 'thinking' && event.type === 'message.assistant') {
        const made = this.sourceProvider({ ...p, ...block }, event);
        if (this.native(made, { ...p, ...block })) {
          content.push(block);
          continue;
        }
        changed = true;
        const text = typeof block.text === 'string' ? block.text : typeof block.thinking === 'string' ? block.thinking : '';
        if (this.options.thinking === 'drop' || text.trim() === '') {
          this.info.counts.thinkingDropped += 1;
          this.loss({ action: 'dropped', code: 'thinking', seq: event.seq, type: event.type, reason: `a thinking block from ${nameOf(event.agent)} not written` });
        } else {
          this.info.counts.thinkingText += 1;
          this.loss({ action: 'transformed', code: 'thinking', seq: event.seq, type: event.type, from: 'thinking', to: 'text', reason: `a thinking block from ${nameOf(event.agent)} written as a marked text block` });
          content.push({ type: 'text', text: `[thinking from ${event.agent}]\n${text}` });
        }
      } else content.push(block);
    }
    return changed ? rewrite(event, event.type, { ...p, content }) : event;
  }

  // ---- tool calls and results -------------------------------------------------------------------

  private call(event: SpEvent): SpEvent[] {
    const p = payloadOf(event);
    const name = str(p.name) ?? 'unknown';
    const callId = String(p.call_id ?? '');
    const source = this.vocabularies.get(event.agent);
    const target = this.vocabularies.get(this.options.target);
    const intent = source?.parse(name, p.input, this.context);
    const calls = intent && target ? target.render(intent, this.context) : undefined;
    if (!calls || calls.length === 0) {
      this.rendered.set(callId, { name, seq: event.seq });
      this.callOfSeq.set(event.seq, this.interned('text'));
      this.info.counts.rendered.set(name, (this.info.counts.rendered.get(name) ?? 0) + 1);
      const why = !source
        ? `no tool vocabulary for ${event.agent}`
        : !intent
          ? `${name} has no counterpart in ${nameOf(this.options.target)}`
          : adapterOf(this.options.target)?.capabilities.textOnlyToolCalls ?? `${nameOf(this.options.target)} has no tool for a ${intent.kind}`;
      this.loss({ action: 'rendered', code: 'tool-name', seq: event.seq, type: event.type, from: name, to: 'text', reason: `tool call ${name} written as assistant text with its result (${why})` });
      const text = renderedText(event.agent, name, p.input, intent, this.info.renderedResults.get(callId), this.options.target);
      // A message of its own: a client (or a checker) reads one message's text blocks as one text,
      // and the call's text should not run into the words around it.
      const fields = messageFields(p);
      fields.message_id = `${str(p.message_id) ?? 'msg'}_sp_${callId || event.seq}`;
      return [rewrite(event, 'message.assistant', { ...fields, content: [{ type: 'text', text }] })];
    }
    this.info.counts.translated += 1;
    const ids = calls.map((_, i) => (i === 0 ? callId : `${callId}_sp${i + 1}`));
    const seqs = calls.map((_, i) => (i === 0 ? event.seq : event.seq + i / 1000));
    this.translated.set(callId, { from: name, calls, ids });
    const to = calls.map((c) => c.name).join('+');
    this.callOfSeq.set(event.seq, this.interned(to));
    this.loss({ action: 'translated', code: 'tool-name', seq: event.seq, type: event.type, from: name, to, reason: calls.length > 1 ? `${name} written as ${calls.length} calls (${to}): the target has no single call for it` : `${name} written as ${to}` });
    return calls.map((call, i) => {
      const payload: Json = { ...messageFields(p), call_id: ids[i], name: call.name, input: call.input, relay: this.mark(name) };
      if (call.custom) payload.tool_kind = 'custom_tool_call';
      const out = rewrite(event, 'tool.call', payload);
      if (i > 0) {
        out.seq = seqs[i];
        out.parent_seq = seqs[i - 1];
      }
      return out;
    });
  }

  private result(event: SpEvent): SpEvent[] {
    const p = payloadOf(event);
    const callId = String(p.call_id ?? '');
    const rendered = this.rendered.get(callId);
    if (rendered) {
      this.rendered.delete(callId);
      this.loss({ action: 'rendered', code: 'tool-result', seq: event.seq, type: event.type, from: rendered.name, to: 'text', reason: `result of ${rendered.name} written as text with its call (seq ${rendered.seq})` });
      return [];
    }
    const call = this.translated.get(callId);
    if (!call) return [this.message(event)];
    this.translated.delete(callId);
    const source = this.vocabularies.get(event.agent);
    let isError = p.is_error === true;
    const plain = (text: string): string => {
      if (!source?.plainResult) return text;
      const out = source.plainResult(call.from, text);
      if (out.isError) isError = true;
      return out.text;
    };
    let content: unknown = p.content;
    if (typeof content === 'string') content = plain(content);
    else if (Array.isArray(content)) content = content.map((b) => (isObject(b) && b.type === 'text' && typeof b.text === 'string' ? { ...b, text: plain(b.text) } : b));
    const to = call.calls.map((c) => c.name).join('+');
    this.loss({ action: 'translated', code: 'tool-result', seq: event.seq, type: event.type, from: call.from, to, reason: `result of ${call.from} written for ${to}${content !== p.content ? ' (the source tool\'s wrapping removed)' : ''}` });
    return call.calls.map((c, i) => {
      const payload: Json = { ...p, call_id: call.ids[i], name: c.name, content, relay: this.mark(call.from) };
      if (isError) payload.is_error = true;
      delete payload.tool_kind;
      const out = this.message(rewrite(event, 'tool.result', payload));
      if (i > 0) {
        out.seq = event.seq + i / 1000;
        out.parent_seq = event.seq + (i - 1) / 1000;
      }
      return out;
    });
  }

  private mark(from?: string): RelayMark {
    const mark: RelayMark = { target: this.options.target, source: this.info.agent };
    if (from) mark.from = from;
    return mark;
  }

  /**
   * Source seqs that no event carries any more (a result written with its call, thinking dropped)
   * → the seq to hang what followed them from; a split result → its last part. Tree writers (Pi)
   * find an event's parent by `parent_seq`, else seq - 1: without this, what followed a removed
   * event would become a new root, and what followed a split result would leave its other parts
   * on a side branch.
   */
  private readonly redirect = new SeqMap();

  private resolve(seq: number | null): number | null {
    for (let guard = 0; seq !== null && this.redirect.has(seq) && guard < 1e6; guard += 1) seq = this.redirect.get(seq) as number | null;
    return seq;
  }

  /** Pass 2: the translation, with parents re-linked around removed and split events. */
  translateLinked(event: SpEvent): SpEvent[] {
    const out = this.translate(event);
    const own = event.parent_seq === undefined ? event.seq - 1 : event.parent_seq;
    if (out.length === 0) {
      this.redirect.set(event.seq, this.resolve(own));
      return out;
    }
    const first = out[0];
    const parent = first.parent_seq === undefined ? first.seq - 1 : first.parent_seq;
    if (parent !== null && this.redirect.has(parent)) first.parent_seq = this.resolve(parent);
    const last = out[out.length - 1];
    if (last.seq !== event.seq) this.redirect.set(event.seq, last.seq);
    return out;
  }

  /** Pass 1: remember which calls are rendered, to keep their results for pass 2. */
  isRendered(callId: string): boolean {
    return this.rendered.has(callId);
  }
}

function payloadOf(event: SpEvent): Json {
  return isObject(event.payload) ? event.payload : {};
}

/** The fields of an assistant event that say which message and model it belongs to (writers group and label by them). */
function messageFields(p: Json): Json {
  const out: Json = {};
  for (const key of ['message_id', 'model', 'provider', 'api', 'stop_reason', 'usage']) if (p[key] !== undefined) out[key] = p[key];
  return out;
}

/** A copy of an event with a new type and payload (the old checksum no longer holds). */
function rewrite(event: SpEvent, type: string, payload: Json): SpEvent {
  const { checksum: _c, ...rest } = event;
  return { ...rest, type, payload };
}

// ---- the header -----------------------------------------------------------------------------------

function headerText(info: SessionInfo, others: number, options: RelayOptions): string {
  const sp = info.start && isObject(info.start.payload) ? info.start.payload : {};
  const when = (ts: number | undefined): string => (ts !== undefined ? toIso(ts).replace(/\.\d+Z$/, 'Z') : '?');
  const lines = [
    `[sp relay] This conversation was carried over from ${nameOf(info.agent)} (session ${str(sp.native_id) ?? '?'}${str(sp.cwd) ? `, cwd ${String(sp.cwd)}` : ''}), recorded ${when(info.firstTs)} to ${when(info.lastTs)}, relayed to ${nameOf(options.target)} ${when((options.now ?? new Date()).getTime() / 1000)}. Tool calls are shown as this agent's own tools where one does the same.`,
  ];
  const c = info.counts;
  const lost: string[] = [];
  if (c.thinkingText > 0) lost.push(`${c.thinkingText} thinking block(s) as marked text`);
  if (c.thinkingDropped > 0) lost.push(`${c.thinkingDropped} thinking block(s) dropped`);
  const rendered = [...c.rendered.values()].reduce((a, b) => a + b, 0);
  if (rendered > 0) lost.push(`${rendered} tool call(s) shown as text (${[...c.rendered].map(([n, k]) => `${n}×${k}`).join(', ')})`);
  if (c.images > 0) lost.push(`${c.images} image(s) as notes`);
  if (c.subagents > 0) lost.push(`${c.subagents} subagent session(s) not written`);
  if (others > 0) lost.push(`${others} other session(s) of the input not written`);
  lines.push(lost.length > 0 ? `Not carried as it was: ${lost.join('; ')}.` : 'Everything was carried.');
  return lines.join('\n');
}

function headerEvent(info: SessionInfo, others: number, options: RelayOptions): SpEvent {
  const first = info.first!;
  return {
    session: first.session,
    seq: first.seq - 0.5,
    ts: info.firstTs ?? first.ts,
    agent: info.agent,
    type: 'message.user',
    actor: 'user',
    payload: { content: [{ type: 'text', text: headerText(info, others, options) }], relay: { target: options.target, source: info.agent, header: true } satisfies RelayMark },
  };
}

export { relayedFor, type RelayMark };

// ---- the transform --------------------------------------------------------------------------------

/**
 * Rewrites a canonical stream for `options.target` (see the file header). Same-agent streams pass
 * through unchanged; every change is reported through `options.onLoss`. A one-pass stream is
 * spooled for its two passes; relayTransformPasses reads a source that is on disk already.
 */
export async function* relayTransform(events: AsyncIterable<SpEvent>, options: RelayOptions): AsyncGenerator<SpEvent> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return;
  if (first.value.agent === options.target) {
    // Same agent: native thinking, ids, everything as it was.
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    return;
  }
  const spool = await SessionSpool.create(resumed(first.value, iterator), { prefix: 'sp-relay' });
  try {
    yield* relayTransformPasses(() => spool.events(), options);
  } finally {
    spool.remove();
  }
}

/**
 * The transform over a re-readable source (`events()` gives the same events each time: the relay's
 * spool): pass 1 counts (for the header) and notes the results of calls rendered as text, pass 2
 * translates. Nothing is copied; the first event is read twice to see whether the agent differs.
 */
export async function* relayTransformPasses(events: () => AsyncIterable<SpEvent>, options: RelayOptions): AsyncGenerator<SpEvent> {
  let firstAgent: string | undefined;
  let empty = true;
  for await (const event of events()) {
    firstAgent = event.agent;
    empty = false;
    break;
  }
  if (empty) return;
  if (firstAgent === options.target) {
    yield* events();
    return;
  }
  const vocabularies = new Vocabularies();
  await vocabularies.load(options.target);
  const sessions = new Map<string, SessionInfo>();
  const translators = new Map<string, SessionTranslator>();
  try {
    for await (const event of events()) {
      await vocabularies.load(event.agent);
      notice(event, sessions, translators, options, vocabularies);
    }
    const writing = new Map<string, SessionTranslator>();
    for await (const event of events()) {
      const id = String(event.session ?? '');
      const info = sessions.get(id)!;
      let translator = writing.get(id);
      if (!translator) writing.set(id, (translator = new SessionTranslator(info, options, options.onLoss, vocabularies)));
      if (!info.headerDone && info.agent !== options.target && !keepsSourceTerms(options.target)) {
        info.headerDone = true;
        if (options.header !== false && info.first) {
          yield headerEvent(info, sessions.size - 1, options);
          // The session's first event now follows the header, so a tree writer (Pi) hangs the whole session below it.
          if (event.parent_seq === undefined) event.parent_seq = info.first.seq - 0.5;
          delete event.checksum;
        }
      }
      yield* translator.translateLinked(event);
    }
  } finally {
    for (const info of sessions.values()) info.renderedResults.remove();
  }
}

/** The first event (read already), then the rest of the stream. */
async function* resumed(first: SpEvent, rest: AsyncIterator<SpEvent>): AsyncGenerator<SpEvent> {
  for (let next: IteratorResult<SpEvent> = { value: first, done: false }; !next.done; next = await rest.next()) yield next.value;
}

/** Pass 1, event by event as the stream is spooled: per-session facts and counts, and the results of calls rendered as text. */
function notice(event: SpEvent, sessions: Map<string, SessionInfo>, translators: Map<string, SessionTranslator>, options: RelayOptions, vocabularies: Vocabularies): void {
  const id = String(event.session ?? '');
  let info = sessions.get(id);
  if (!info) {
    info = { agent: event.agent, counts: { translated: 0, rendered: new Map(), thinkingText: 0, thinkingDropped: 0, images: 0, subagents: 0 }, renderedResults: new SpilledResults() };
    sessions.set(id, info);
  }
  info.first ??= event;
  if (event.type === 'session.start' && !info.start) {
    info.start = event;
    info.agent = event.agent;
  }
  if (typeof event.ts === 'number' && Number.isFinite(event.ts) && event.type !== 'session.start') {
    info.firstTs ??= event.ts;
    info.lastTs = event.ts;
  }
  let translator = translators.get(id);
  if (!translator) translators.set(id, (translator = new SessionTranslator(info, options, undefined, vocabularies)));
  if (event.type === 'tool.result' && translator.isRendered(String(isObject(event.payload) ? event.payload.call_id ?? '' : ''))) {
    const callId = String(payloadOf(event).call_id ?? '');
    if (!info.renderedResults.has(callId)) info.renderedResults.set(callId, event);
  }
  translator.translate(event);
}
