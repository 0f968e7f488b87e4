// `sp-materialize pi`: canonical events → a NEW Pi v3 session file that the real client resumes
// (docs/formats/pi.md §2–§7). What the client needs, and what this writer guarantees:
//   * <home>/sessions/--<escaped cwd>--/<ts>_<id>.jsonl, created atomically, never overwritten, with
//     a header {type, version:3, id, timestamp, cwd} under 512 bytes and a cwd that exists;
//   * every entry with a fresh 8-hex id, parentId and timestamp; content always an array; every
//     assistant with api/provider/model, full usage with cost.total and a stopReason;
//   * the TREE: events become entries (one assistant message per message_id), each entry's parent is
//     the entry of its event's parent (parent_seq, else seq - 1, passing through events that write
//     nothing), so a branched source keeps its shape; the source's active leaf (the last entry it
//     wrote) is written LAST so the client continues on that branch; `--branch active` keeps only
//     the path to it;
//   * a resume-safety pass: tool results chained right after their call's message, a stub result
//     for an unanswered call, orphan results dropped, tool ids valid for Anthropic, thinking
//     signatures only for the provider that made them.
// Every change is reported through `onLoss`, so nothing is lost silently (docs/design.md §3).
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { artifactNote, readArtifactForWriter } from '../../lib/core/artifacts.js';
import { UserError, errorCode } from '../../lib/cli/diagnostics.js';
import { toIso, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { createFileAtomic } from '../../lib/fs/atomic.js';
import { HashChains, grown, hashString } from '../../lib/write/hashed.js';
import { SpooledLines, SpooledSession } from '../../lib/write/spool.js';
import { LossLedger, capturedRawLines, ensureComponent, ensureUnder, payloadOf, resumeFields, sameNativeId, uuidv7, writeLines, type WriterResult } from '../../lib/write/writer.js';
import { STOP_REASONS } from './format.js';
import { DEFAULT_MODEL, parseModel, piStopReason, piUsage, type ModelIdentity } from './models.js';
import { HOME_ENV, NATIVE_ID, builtInHome, cwdFolder, defaultHome, resolveCwd, sessionFileName, sessionsDir } from './paths.js';
import { NONE, TreeBuilder, fromPi, type Report, type UnitView } from './tree.js';

export type { PiLossEntry } from './tree.js';

export const STUB_RESULT = 'No result was recorded for this tool call (the session ended or moved on before it finished).';
/** Anthropic accepts tool ids of these characters only (and at most 64 of them). */
const ANTHROPIC_TOOL_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** `pi -c` validates only the first 512 bytes of a file. */
const HEADER_LIMIT = 511;

export type PiMaterializeOptions = MaterializeOptions;

export interface PiMaterializeResult extends WriterResult {
  /** The id of the entry the client resumes from (the last line). */
  leaf_id?: string;
  /** Leaves of the written tree: 1 for a linear session. */
  branches: number;
}

// ---- writing entries ----------------------------------------------------------------------------

interface WriterOptions {
  safety: boolean;
  sameId: boolean;
  artifactsDir?: string;
  model?: string;
  sessionModel?: string;
  report: Report;
}

/**
 * Entry ids used in the file: 8-hex ids (the client's shape, and every one this writer makes) as
 * numbers in a hash table, a few bytes each; any other native id (a --same-id rebuild) as text.
 */
class UsedIds {
  private readonly hex = new HashChains();
  private readonly other = new Set<string>();

  has(id: string): boolean {
    return HEX_ID.test(id) ? this.hex.newest(Number.parseInt(id, 16)) !== NONE : this.other.has(id);
  }

  add(id: string): void {
    if (HEX_ID.test(id)) this.hex.add(Number.parseInt(id, 16));
    else this.other.add(id);
  }
}

const HEX_ID = /^[0-9a-f]{8}$/;

/**
 * Tool ids written, for the uniqueness of a repaired one: a hash per id, the id itself re-read
 * (its call's spooled event, or the repaired text kept) when a hash matches.
 */
class UsedToolIds {
  private readonly chains = new HashChains();
  private slots = new Int32Array(64);
  private readonly repaired = new Map<number, string>();

  constructor(private readonly tree: TreeBuilder) {}

  /** `id` written for the call of `slot`, whose own id is `callId`. */
  add(id: string, slot: number, callId: string): void {
    const entry = this.chains.add(hashString(id));
    if (entry >= this.slots.length) this.slots = grown(this.slots, this.slots.length * 2);
    this.slots[entry] = slot;
    if (id !== callId) this.repaired.set(entry, id);
  }

  has(id: string): boolean {
    for (let entry = this.chains.newest(hashString(id)); entry !== NONE; entry = this.chains.previous(entry)) {
      if ((this.repaired.get(entry) ?? this.tree.callIdOf(this.slots[entry])) === id) return true;
    }
    return false;
  }
}

class EntryWriter {
  private readonly usedIds = new UsedIds();
  private readonly usedToolIds: UsedToolIds;
  /** Call slot → the tool id written for it, where it is not the call's own id. */
  private readonly writtenIds = new Map<number, string>();
  /** Call slot → the ids written for each of its calls, where a message names one id twice. */
  private readonly repeated = new Map<number, string[]>();
  /** Replaying: entries made again to be written, with the tool ids of the first pass and no reports. */
  private replay = false;
  private readonly quiet: Report = () => undefined;

  constructor(
    private readonly options: WriterOptions,
    private readonly tree: TreeBuilder,
  ) {
    this.usedToolIds = new UsedToolIds(tree);
  }

  private get report(): Report {
    return this.replay ? this.quiet : this.options.report;
  }

  /** From now on entries are made again (for writing): same tool ids, nothing reported twice. */
  replaying(): void {
    this.replay = true;
  }

  /** The tool id written for a call slot. */
  writtenId(slot: number): string {
    return this.writtenIds.get(slot) ?? this.tree.callIdOf(slot);
  }

  /** A fresh 8-hex id (the client's own shape), or the native one for a same-id rebuild. */
  assignId(first: SpEvent | undefined): string {
    const native = first?.origin?.native_uuid;
    let id: string;
    if (this.options.sameId && typeof native === 'string' && fromPi(first!) && !this.usedIds.has(native)) {
      id = native;
    } else {
      do id = randomBytes(4).toString('hex');
      while (this.usedIds.has(id));
    }
    this.usedIds.add(id);
    return id;
  }

  /** The model a foreign (or model-less) assistant message is written for. */
  identityOf(unit: UnitView): ModelIdentity {
    let api: string | undefined;
    let provider: string | undefined;
    let model: string | undefined;
    for (const e of unit.events) {
      const p = payloadOf(e);
      // A thinking event's provider says who made the reasoning, not which API the message is for.
      if (e.type !== 'message.thinking' || fromPi(e)) {
        api ??= str(p.api);
        provider ??= str(p.provider);
      }
      if (model === undefined && str(p.model) !== '<synthetic>') model = str(p.model);
    }
    if (api && provider && model) return { api, provider, model };
    const parsed = parseModel(model, provider) ?? parseModel(this.options.model) ?? parseModel(this.options.sessionModel) ?? parseModel(DEFAULT_MODEL)!;
    return { api: api ?? parsed.api, provider: provider ?? parsed.provider, model: parsed.model };
  }

  /**
   * A tool id this message's API accepts, unique in the file (replaying: the one chosen the first
   * time). `nth`: which of the message's calls with this id (a message may name one id twice).
   */
  toolId(callId: string, slot: number, nth: number, api: string, event: SpEvent): string {
    if (this.replay) return this.repeated.get(slot)?.[nth] ?? this.writtenId(slot);
    let id = callId;
    if (this.options.safety && api === 'anthropic-messages' && !ANTHROPIC_TOOL_ID.test(id)) {
      id = id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'toolu_sp';
      let n = 2;
      while (this.usedToolIds.has(id)) id = `${id.slice(0, 60)}_${n++}`;
      this.report('transformed', 'tool-id', `tool id ${JSON.stringify(callId)} written as ${id} (Anthropic accepts [A-Za-z0-9_-]{1,64})`, event);
    }
    this.usedToolIds.add(id, slot, callId);
    if (nth > 0) {
      const ids = this.repeated.get(slot) ?? [this.writtenId(slot)];
      ids.push(id);
      this.repeated.set(slot, ids);
    }
    if (id === callId) this.writtenIds.delete(slot);
    else this.writtenIds.set(slot, id);
    return id;
  }

  private imageBlock(block: Json, event: SpEvent): Json {
    const mimeType = str(block.media_type) ?? 'image/png';
    if (typeof block.data === 'string') return { type: 'image', data: block.data, mimeType };
    const artifact = str(block.artifact);
    const read = artifact && this.options.artifactsDir ? readArtifactForWriter(this.options.artifactsDir, artifact) : undefined;
    if (read?.ok) return { type: 'image', data: read.bytes.toString('base64'), mimeType };
    const why = artifact ? `artifact ${artifactNote(artifact)}: ${read ? read.reason : 'pass --artifacts DIR'}` : 'no image data';
    this.report('transformed', 'image', `image (${mimeType}) written as a text placeholder: ${why}`, event);
    return { type: 'text', text: `[image ${mimeType} not available: ${artifact ? artifactNote(artifact) : str(block.url) ?? 'no data'}]` };
  }

  /** User-side blocks (user messages, tool results): text and images; pointers skipped. */
  userBlocks(content: unknown, event: SpEvent, where: string): Json[] {
    const list = Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content }] : [];
    const out: Json[] = [];
    for (const block of list) {
      if (!isObject(block)) continue;
      switch (block.type) {
        case 'text': {
          const { type: _t, text, ...others } = block;
          out.push({ type: 'text', text: typeof text === 'string' ? text : '', ...(fromPi(event) ? others : {}) });
          break;
        }
        case 'image':
          out.push(this.imageBlock(block, event));
          break;
        case 'tool_use':
        case 'tool_result':
          break; // pointers to tool events
        default:
          this.report('transformed', 'unsupported-block', `${String(block.type)} block in a ${where} written as JSON text`, event);
          out.push({ type: 'text', text: JSON.stringify(block) });
      }
    }
    return out;
  }

  private timestampMs(event: SpEvent | undefined, fallback?: number): number {
    const p = event ? payloadOf(event) : {};
    if (typeof p.message_ts === 'number' && fromPi(event!)) return p.message_ts;
    const ts = event?.ts ?? fallback;
    return typeof ts === 'number' && Number.isFinite(ts) ? Math.round(ts * 1000) : Date.now();
  }

  /** The native fields capture kept aside (`extra` of the entry, `message_extra`), for Pi sources. */
  private extras(event: SpEvent | undefined, key: 'extra' | 'message_extra'): Json {
    if (!event || !fromPi(event)) return {};
    const value = payloadOf(event)[key];
    return isObject(value) ? value : {};
  }

  /** The entry a unit becomes, without id/parentId (set by the caller). Undefined: nothing to write. */
  entry(unit: UnitView): Json | undefined {
    switch (unit.kind) {
      case 'user':
        return this.userEntry(unit);
      case 'assistant':
        return this.assistantEntry(unit);
      case 'toolResult':
        return this.resultEntry(unit);
      case 'stub': {
        const message = { role: 'toolResult', toolCallId: this.writtenId(unit.slot), toolName: this.tree.callNameOf(unit.slot), content: [{ type: 'text', text: STUB_RESULT }], isError: true, timestamp: this.timestampMs(undefined, unit.ts) };
        return { type: 'message', timestamp: toIso(unit.ts ?? Date.now() / 1000), message };
      }
      case 'compaction':
        return this.compactionEntry(unit);
      case 'native':
        return this.nativeEntry(unit);
      case 'added':
        return unit.body!;
    }
  }

  private userEntry(unit: UnitView): Json | undefined {
    const event = unit.events[0];
    const p = payloadOf(event);
    const pi = fromPi(event);
    const timestamp = toIso(event.ts);
    if (pi && p.pi_type === 'branch_summary') {
      const entry: Json = { type: 'branch_summary', timestamp, ...this.extras(event, 'extra'), fromId: 'root', summary: str(p.summary) ?? '' };
      if (p.details !== undefined) entry.details = p.details;
      if (p.from_hook !== undefined) entry.fromHook = p.from_hook;
      return entry;
    }
    if (pi && p.pi_type === 'custom_message') {
      const content = p.string_content === true ? this.userBlocks(p.content, event, 'custom message').map((b) => b.text).join('') : this.userBlocks(p.content, event, 'custom message');
      const entry: Json = { type: 'custom_message', timestamp, ...this.extras(event, 'extra'), customType: p.custom_type ?? 'sp', content };
      if (p.display !== undefined) entry.display = p.display;
      else entry.display = true;
      if (p.details !== undefined) entry.details = p.details;
      return entry;
    }
    if (pi && p.pi_role === 'bashExecution' && isObject(p.bash_execution)) {
      return { type: 'message', timestamp, ...this.extras(event, 'extra'), message: { role: 'bashExecution', ...p.bash_execution } };
    }
    const content = this.userBlocks(p.content, event, 'user message');
    if (pi && p.pi_role === 'custom') {
      const message: Json = { role: 'custom', customType: p.custom_type ?? 'sp', content, display: p.display ?? true };
      if (p.details !== undefined) message.details = p.details;
      message.timestamp = this.timestampMs(event);
      Object.assign(message, this.extras(event, 'message_extra'));
      return { type: 'message', timestamp, ...this.extras(event, 'extra'), message };
    }
    if (this.options.safety && !pi && content.every((b) => b.type === 'text' && String(b.text).trim() === '')) {
      this.report('dropped', 'empty-message', 'user message with no content: not written (the API rejects empty messages)', event);
      return undefined;
    }
    const message: Json = { role: 'user', content, timestamp: this.timestampMs(event), ...this.extras(event, 'message_extra') };
    return { type: 'message', timestamp, ...this.extras(event, 'extra'), message };
  }

  private assistantEntry(unit: UnitView): Json | undefined {
    const first = unit.events[0];
    const identity = this.identityOf(unit);
    const pi = unit.events.every(fromPi);
    const blocks: Json[] = [];
    let usage: unknown;
    let stop: unknown;
    let errorMessage: unknown;
    let messageTs: number | undefined;
    let responseId: string | undefined;
    let messageExtra: Json = {};
    const seen = new Map<number, number>();
    for (const event of unit.events) {
      const p = payloadOf(event);
      if (usage === undefined && isObject(p.usage)) usage = p.usage;
      if (p.stop_reason !== undefined && p.stop_reason !== null) stop = p.stop_reason;
      if (errorMessage === undefined && p.error_message !== undefined) errorMessage = p.error_message;
      if (messageTs === undefined && typeof p.message_ts === 'number' && fromPi(event)) messageTs = p.message_ts;
      if (responseId === undefined && fromPi(event) && p.message_id_synthetic !== true) responseId = str(p.message_id);
      if (fromPi(event) && isObject(p.message_extra)) messageExtra = p.message_extra;
      if (event.type === 'message.thinking') {
        const block = this.thinkingBlock(event, p, identity);
        if (block) blocks.push(block);
      } else if (event.type === 'tool.call') {
        const callId = str(p.call_id) ?? `call_${event.seq}`;
        const slot = unit.calls!.get(callId)!;
        const nth = seen.get(slot) ?? 0;
        seen.set(slot, nth + 1);
        const written = this.toolId(callId, slot, nth, identity.api, event);
        let args = p.input;
        if (!isObject(args)) {
          this.report('transformed', 'tool-input', `tool call ${callId} input is not an object: written as {"input": …}`, event);
          args = { input: args };
        }
        const block: Json = { type: 'toolCall', id: written, name: this.tree.callNameOf(slot), arguments: args };
        if (typeof p.thought_signature === 'string' && fromPi(event) && str(p.provider) === identity.provider) block.thoughtSignature = p.thought_signature;
        if (fromPi(event) && isObject(p.block_extra)) Object.assign(block, p.block_extra);
        blocks.push(block);
      } else {
        for (const block of Array.isArray(p.content) ? p.content : []) {
          if (!isObject(block)) continue;
          if (block.type === 'text') {
            const { type: _t, text, text_signature, ...others } = block;
            const out: Json = { type: 'text', text: typeof text === 'string' ? text : '' };
            if (typeof text_signature === 'string' && fromPi(event) && str(p.provider) === identity.provider) out.textSignature = text_signature;
            if (fromPi(event)) Object.assign(out, others);
            blocks.push(out);
          } else if (block.type === 'thinking') {
            const out = this.thinkingBlock(event, { ...block, provider: block.provider ?? p.provider }, identity);
            if (out) blocks.push(out);
          } else if (block.type === 'tool_use' || block.type === 'tool_result') {
            // pointers to tool events
          } else if (fromPi(event)) {
            blocks.push(block); // a block the capture kept verbatim
          } else {
            this.report('transformed', 'unsupported-block', `assistant ${String(block.type)} block has no Pi equivalent: written as JSON text`, event);
            blocks.push({ type: 'text', text: JSON.stringify(block) });
          }
        }
      }
    }
    const hasCalls = blocks.some((b) => b.type === 'toolCall');
    if (blocks.length === 0 && !pi && this.options.safety) {
      this.report('dropped', 'empty-message', 'assistant message with no content: not written', first);
      return undefined;
    }
    const message: Json = {
      role: 'assistant',
      content: blocks,
      api: identity.api,
      provider: identity.provider,
      model: identity.model,
      usage: piUsage(usage),
      stopReason: piStopReason(stop, hasCalls),
      timestamp: messageTs ?? this.timestampMs(first),
    };
    if (responseId !== undefined) message.responseId = responseId;
    if (errorMessage !== undefined) message.errorMessage = errorMessage;
    Object.assign(message, messageExtra);
    if (typeof stop === 'string' && !STOP_REASONS.has(stop) && pi) {
      this.report('transformed', 'stop-reason', `stop reason ${stop} written as ${String(message.stopReason)}`, first);
    }
    return { type: 'message', timestamp: toIso(first.ts), ...this.extras(first, 'extra'), message };
  }

  /** A thinking block, its signature only where it verifies: the provider that made it. */
  private thinkingBlock(event: SpEvent, p: Json, identity: ModelIdentity): Json | undefined {
    const text = typeof p.text === 'string' ? p.text : typeof p.thinking === 'string' ? p.thinking : '';
    const made = str(p.provider) ?? (event.agent === 'claude' ? 'anthropic' : undefined);
    const sameProvider = made !== undefined && made === identity.provider;
    const signature = str(p.signature) ?? (p.visibility === 'redacted' && event.agent === 'claude' ? str(p.opaque) : undefined);
    const redacted = p.redacted === true || p.visibility === 'redacted';
    if (redacted) {
      if (signature && (sameProvider || !this.options.safety)) return { type: 'thinking', thinking: text || '[Reasoning redacted]', thinkingSignature: signature, redacted: true };
      this.report('dropped', 'redacted-thinking', `redacted reasoning from ${made ?? 'an unknown provider'} cannot be replayed to ${identity.provider}: not written`, event);
      return undefined;
    }
    if (str(p.opaque) && !fromPi(event)) {
      this.report('transformed', 'opaque-reasoning', `encrypted reasoning state from ${made ?? event.agent} not written (only that provider can read it)`, event);
    }
    if (text === '' && !signature) return undefined;
    const block: Json = { type: 'thinking', thinking: text };
    if (signature && (sameProvider || !this.options.safety)) block.thinkingSignature = signature;
    else if (signature) this.report('transformed', 'signature', `thinking signature from ${made ?? 'an unknown provider'} dropped: the message is written for ${identity.provider}`, event);
    if (fromPi(event) && isObject(p.block_extra)) Object.assign(block, p.block_extra);
    return block;
  }

  private resultEntry(unit: UnitView): Json {
    const event = unit.events[0];
    const p = payloadOf(event);
    const linked = unit.slot !== NONE;
    const message: Json = {
      role: 'toolResult',
      toolCallId: linked ? this.writtenId(unit.slot) : (unit.callId ?? ''),
      toolName: str(p.name) ?? (linked ? this.tree.callNameOf(unit.slot) : 'unknown'),
      content: this.userBlocks(p.content, event, 'tool result'),
    };
    if (p.structured !== undefined) {
      // details feeds the client's renderers (edit diffs …); another agent's structure would not fit them.
      if (fromPi(event)) message.details = p.structured;
      else this.report('dropped', 'structured-result', `structured ${event.agent} tool result (UI data, never sent to the model) not written`, event);
    }
    message.isError = p.is_error === true;
    message.timestamp = this.timestampMs(event);
    Object.assign(message, this.extras(event, 'message_extra'));
    return { type: 'message', timestamp: toIso(event.ts), ...this.extras(event, 'extra'), message };
  }

  private compactionEntry(unit: UnitView): Json {
    const event = unit.events[0];
    const p = payloadOf(event);
    const entry: Json = { type: 'compaction', timestamp: toIso(event.ts), ...this.extras(event, 'extra'), summary: p.summary, firstKeptEntryId: '' };
    entry.tokensBefore = typeof p.tokens_before === 'number' ? p.tokens_before : 0;
    if (p.details !== undefined) entry.details = p.details;
    if (p.from_hook !== undefined) entry.fromHook = p.from_hook;
    return entry;
  }

  private nativeEntry(unit: UnitView): Json {
    const event = unit.events[0];
    const raw = payloadOf(event).raw as Json;
    const { id: _id, parentId: _parent, ...rest } = raw;
    return { ...rest };
  }
}

// ---- entry point --------------------------------------------------------------------------------

/** Writes the (first, or `session`-selected) session of `events` as a new Pi session file. */
export async function materializePi(events: AsyncIterable<SpEvent>, options: PiMaterializeOptions = {}): Promise<PiMaterializeResult> {
  // The session on disk, read by position (lib/write/spool.ts): the tree holds numbers, never the events.
  const selected = await SpooledSession.create(events, options.session);
  try {
    return writeSession(selected, options);
  } finally {
    selected.remove();
  }
}

function writeSession(selected: SpooledSession, options: PiMaterializeOptions): PiMaterializeResult {
  const start = selected.start;
  const sp = start ? payloadOf(start) : {};
  const sourceAgent = start?.agent ?? selected.events[0]?.agent;
  const nativeId = str(sp.native_id);
  const sessionCwd = str(options.cwd) ?? str(sp.cwd);
  if (!sessionCwd) throw new UserError('the session names no cwd: pass --cwd DIR (the project folder Pi will run its tools in)');
  // The id is checked before anything is created: it becomes the file name.
  if (options.sameId) {
    if (sourceAgent !== 'pi') throw new UserError(`--same-id keeps a Pi session's own id; this session comes from ${sourceAgent ?? 'an unknown agent'} (drop --same-id to write it under a new id)`);
    sameNativeId(NATIVE_ID, nativeId);
  }
  const cwd = prepareCwd(sessionCwd, Boolean(options.mkcwd), Boolean(options.dryRun));
  const home = resolve(options.home ?? defaultHome());
  const safety = options.safety !== false;

  const ledger = new LossLedger(options.onLoss);
  const report: Report = (action, code, reason, event) => ledger.report(action, code, reason, event);
  for (const [id, other] of selected.others) {
    report('dropped', 'child-session', `session ${id}${other.nativeId ? ` (native ${other.nativeId})` : ''}, ${other.count} event(s), is a separate (subagent) session: not written; the main session keeps the call that started it and its result`);
  }

  const sessionId = options.sameId ? sameNativeId(NATIVE_ID, nativeId) : uuidv7();
  const createdMs = options.sameId && typeof sp.created === 'string' && !Number.isNaN(Date.parse(sp.created)) ? Date.parse(sp.created) : Date.now();
  const sourceName = typeof sp.source_path === 'string' ? basename(sp.source_path) : undefined;
  const fileName = options.sameId && sourceName?.endsWith(`_${sessionId}.jsonl`) ? sourceName : sessionFileName(createdMs, sessionId);
  const path = ensureUnder(home, join(sessionsDir(home), ensureComponent(cwdFolder(cwd), 'the project folder'), ensureComponent(fileName, 'the session file name')), 'the home');
  if (options.sameId && existsSync(path)) {
    throw new UserError('exists already: --same-id never overwrites a session (move it away, or drop --same-id to write a copy under a new id)', path);
  }

  const result: PiMaterializeResult = {
    agent: 'pi',
    session_id: sessionId,
    path,
    cwd,
    ...resumeFields(cwd, ['pi', '--session', path], { variable: HOME_ENV, value: home, builtIn: builtInHome() }),
    records: 0,
    written_as: 'rebuilt',
    source_session: selected.session,
    branches: 1,
    changes: ledger.counts,
  };
  const raw = options.sameId && options.branch !== 'active' ? capturedRawLines(selected.events) : undefined;
  const headerCwd = raw ? headerCwdOf(raw[0]) : undefined;
  if (raw && headerCwd !== undefined && resolveCwd(headerCwd) === cwd) {
    writeLines(path, raw, { finalNewline: sp.raw_final_newline !== false, dryRun: options.dryRun, onLine: options.onLine });
    result.records = raw.length;
    result.written_as = 'raw';
  } else {
    const built = buildLines(selected, { ...options, safety, cwd, sessionId, createdMs, report });
    try {
      if (options.onLine) for (const line of built.lines.lines()) options.onLine(line);
      if (!options.dryRun) createFileAtomic(path, built.lines.chunks(), 0o600);
    } finally {
      built.lines.remove();
    }
    result.records = built.lines.length;
    result.branches = built.branches;
    if (built.leafId !== undefined) result.leaf_id = built.leafId;
  }
  result.changes = ledger.counts;
  if (options.dryRun) result.dry_run = true;
  return result;
}

function headerCwdOf(line: string): string | undefined {
  try {
    const header: unknown = JSON.parse(line);
    return isObject(header) && typeof header.cwd === 'string' ? header.cwd : undefined;
  } catch {
    return undefined;
  }
}

/** The client refuses a session whose cwd does not exist: check it, or create it with --mkcwd. */
function prepareCwd(sessionCwd: string, mkcwd: boolean, dryRun: boolean): string {
  let cwd = resolveCwd(sessionCwd);
  let stat: ReturnType<typeof statSync> | undefined;
  try {
    stat = statSync(cwd);
  } catch {
    stat = undefined;
  }
  if (stat && !stat.isDirectory()) throw new UserError('the session cwd is not a directory: pass --cwd DIR', cwd);
  if (!stat) {
    if (!mkcwd) {
      throw new UserError(
        'the session cwd does not exist here, and Pi refuses to resume a session whose cwd is missing ("Stored session working directory does not exist"): create it, pass --mkcwd, or pass --cwd DIR',
        cwd,
      );
    }
    if (!dryRun) {
      try {
        mkdirSync(cwd, { recursive: true });
      } catch (err) {
        throw new UserError(`cannot create the session cwd: ${errorCode(err)}`, cwd);
      }
      cwd = resolveCwd(cwd);
    }
  }
  return cwd;
}

interface BuildOptions extends PiMaterializeOptions {
  safety: boolean;
  cwd: string;
  sessionId: string;
  createdMs: number;
  report: Report;
}

/** The lines of a rebuilt session: header, then the entries of the tree with the active branch last. */
function buildLines(selected: SpooledSession, options: BuildOptions): { lines: SpooledLines; leafId?: string; branches: number } {
  const sp = selected.start ? payloadOf(selected.start) : {};
  const tree = new TreeBuilder(selected.events, options.safety, options.report);
  tree.build();
  tree.link();
  tree.parentsPass();
  if (options.safety) tree.stubs();

  const writer = new EntryWriter(
    {
      safety: options.safety,
      sameId: Boolean(options.sameId),
      artifactsDir: options.artifactsDir,
      model: options.model,
      sessionModel: str(sp.provider) && str(sp.model) ? `${String(sp.provider)}/${String(sp.model)}` : str(sp.model),
      report: options.report,
    },
    tree,
  );
  const models = options.model ? new ModelsOf(tree.count) : undefined;
  let leaf = chooseLeaf(tree, writer, models);
  leaf = addEntries(tree, leaf, selected.start, sp, options, models);

  let ordered = tree.fileOrder(leaf);
  if (options.branch === 'active' && leaf !== NONE) ordered = activePath(tree, ordered, leaf, options.report);
  for (const unit of ordered) tree.markWritten(unit);

  const lines = new SpooledLines();
  try {
    const leafId = writeEntries(tree, writer, ordered, leaf, lines, options, sp);
    let leaves = 0;
    for (const unit of ordered) if (!tree.hasChild(unit)) leaves += 1;
    return { lines, leafId, branches: Math.max(1, leaves) };
  } catch (err) {
    lines.remove();
    throw err;
  }
}

/**
 * Every entry is made once first, in the tree's order (the reports come in that order): a unit that
 * writes nothing (an empty foreign message) drops out and its children move up to its parent. The
 * entries are not kept (they are made again when written); the active leaf is chosen after.
 */
function chooseLeaf(tree: TreeBuilder, writer: EntryWriter, models: ModelsOf | undefined): number {
  let entries = 0;
  for (const unit of tree.order()) {
    if (tree.isDropped(unit)) continue;
    const entry = writer.entry(tree.view(unit));
    if (!entry) tree.drop(unit);
    else {
      entries += 1;
      models?.note(unit, entry);
    }
  }
  for (let unit = 0; unit < tree.count; unit += 1) {
    let parent = tree.parentOf(unit);
    while (parent !== NONE && tree.isDropped(parent)) parent = tree.parentOf(parent);
    tree.setParent(unit, parent);
  }
  let leaf = tree.leaf();
  while (leaf !== NONE && tree.isDropped(leaf)) leaf = tree.parentOf(leaf);
  if (leaf === NONE && entries === 0) throw new UserError('nothing to write: the session has no messages');
  writer.replaying();
  return leaf;
}

/** The model each written entry leaves the client on (a model_change, an assistant message): for --model. */
class ModelsOf {
  private readonly names: string[] = [];
  private readonly numbers = new Map<string, number>();
  /** Per unit: the number of its model in `names` (NONE: it names none). */
  private readonly units: Int32Array;

  constructor(count: number) {
    this.units = new Int32Array(count).fill(NONE);
  }

  note(unit: number, entry: Json): void {
    let model: { provider: string; model: string } | undefined;
    if (entry.type === 'model_change' && typeof entry.provider === 'string' && typeof entry.modelId === 'string') model = { provider: entry.provider, model: entry.modelId };
    const message = isObject(entry.message) ? entry.message : undefined;
    if (message?.role === 'assistant' && typeof message.provider === 'string' && typeof message.model === 'string') model = { provider: message.provider, model: message.model };
    if (!model) return;
    const key = JSON.stringify([model.provider, model.model]);
    let number = this.numbers.get(key);
    if (number === undefined) {
      number = this.names.length;
      this.names.push(key);
      this.numbers.set(key, number);
    }
    this.units[unit] = number;
  }

  /** The model the client would restore on this path: the last model_change or assistant message. */
  current(path: Int32Array): { provider: string; model: string } | undefined {
    let current = NONE;
    for (const unit of path) if (unit < this.units.length && this.units[unit] !== NONE) current = this.units[unit];
    if (current === NONE) return undefined;
    const [provider, model] = JSON.parse(this.names[current]) as [string, string];
    return { provider, model };
  }
}

/**
 * --model: the client continues with the last model on the active path, so a different one is
 * appended there as a model_change (what the client itself writes when the user switches). Another
 * agent's title becomes the session's name in the client's picker: a session_info entry after the
 * leaf, as the client writes one for /name. Returns the leaf.
 */
function addEntries(tree: TreeBuilder, leaf: number, start: SpEvent | undefined, sp: Json, options: BuildOptions, models: ModelsOf | undefined): number {
  if (options.model && leaf !== NONE) {
    const wanted = parseModel(options.model);
    const current = models!.current(tree.pathTo(leaf));
    if (wanted && (!current || current.provider !== wanted.provider || current.model !== wanted.model)) {
      const body: Json = { type: 'model_change', timestamp: toIso(Date.now() / 1000), provider: wanted.provider, modelId: wanted.model };
      leaf = tree.addUnit(leaf, body, tree.firstEvent(leaf)?.ts);
    }
  }
  const title = str(sp.title);
  if (title && leaf !== NONE && start && !fromPi(start)) {
    const body: Json = { type: 'session_info', timestamp: toIso(tree.firstEvent(leaf)?.ts ?? Date.now() / 1000), name: title };
    leaf = tree.addUnit(leaf, body);
  }
  return leaf;
}

/** --branch active: only the path to the leaf; what is off it is reported. */
function activePath(tree: TreeBuilder, ordered: Int32Array, leaf: number, report: Report): Int32Array {
  tree.markPath(leaf);
  let kept = 0;
  for (const unit of ordered) {
    if (tree.onPath(unit)) kept += 1;
    else {
      const first = tree.firstEvent(unit);
      if (first) report('dropped', 'other-branch', 'not on the active branch (--branch active): not written', first);
    }
  }
  const path = new Int32Array(kept);
  let k = 0;
  for (const unit of ordered) if (tree.onPath(unit)) path[k++] = unit;
  return path;
}

/** The header and the entries, in `ordered` order, each made again and spooled; returns the leaf's id. */
function writeEntries(tree: TreeBuilder, writer: EntryWriter, ordered: Int32Array, leaf: number, lines: SpooledLines, options: BuildOptions, sp: Json): string | undefined {
  const ids = new EntryIds(tree, ordered, writer);
  const header: Json = { type: 'session', version: 3, id: options.sessionId, timestamp: new Date(options.createdMs).toISOString(), cwd: options.cwd };
  if (options.sameId && typeof sp.parent_session_path === 'string') header.parentSession = sp.parent_session_path;
  const headerLine = JSON.stringify(header);
  if (Buffer.byteLength(headerLine) > HEADER_LIMIT) {
    options.report('transformed', 'long-header', `the header line is ${Buffer.byteLength(headerLine)} bytes: \`pi -c\` reads 512 and will not list it (pi --session PATH still works)`);
  }
  lines.push(headerLine);
  for (const unit of ordered) {
    const view = tree.view(unit);
    const entry = writer.entry(view)!;
    const parentUnit = tree.parentOf(unit);
    const parent = parentUnit !== NONE && tree.isWritten(parentUnit) ? parentUnit : NONE;
    if (parent !== NONE) tree.markParent(parent);
    const id = ids.of(unit);
    const parentId = parent !== NONE ? ids.of(parent) : null;
    const out: Json = { type: entry.type, id, parentId };
    Object.assign(out, entry);
    out.id = id;
    out.parentId = parentId;
    out.timestamp ??= toIso(view.events[0]?.ts ?? Date.now() / 1000);
    if (!fixReferences(unit, view, out, { ids, tree, report: options.report })) continue;
    lines.push(JSON.stringify(out));
  }
  return leaf !== NONE && tree.isWritten(leaf) ? ids.of(leaf) : undefined;
}

/** The id of every written unit, chosen in file order before any is written (a child may come first). */
class EntryIds {
  private readonly hex: Uint32Array;
  private readonly other = new Map<number, string>();
  private rank: Int32Array | undefined;

  constructor(
    tree: TreeBuilder,
    private readonly ordered: Int32Array,
    writer: EntryWriter,
  ) {
    this.hex = new Uint32Array(tree.count);
    for (const unit of ordered) {
      const id = writer.assignId(tree.firstEvent(unit));
      if (/^[0-9a-f]{8}$/.test(id)) this.hex[unit] = Number.parseInt(id, 16);
      else this.other.set(unit, id);
    }
  }

  of(unit: number): string {
    return this.other.get(unit) ?? this.hex[unit].toString(16).padStart(8, '0');
  }

  /** The id of the first written unit (in file order) holding the event with this seq. */
  ofSeq(tree: TreeBuilder, seq: unknown): string | undefined {
    if (typeof seq !== 'number') return undefined;
    if (!this.rank) {
      this.rank = new Int32Array(tree.count).fill(NONE);
      this.ordered.forEach((unit, k) => (this.rank![unit] = k));
    }
    let best = NONE;
    for (const unit of tree.unitsWithSeq(seq)) {
      const rank = this.rank[unit];
      if (rank !== NONE && (best === NONE || rank < this.rank[best])) best = unit;
    }
    return best === NONE ? undefined : this.of(best);
  }
}

/**
 * Entries that name other entries (label targets, a compaction's first kept entry, a branch
 * summary's origin) get the new ids. False: the entry cannot be written (its target is gone).
 */
function fixReferences(unit: number, view: UnitView, out: Json, ctx: { ids: EntryIds; tree: TreeBuilder; report: Report }): boolean {
  const event = view.events[0];
  if (!event) return true;
  const p = payloadOf(event);
  if (out.type === 'label' && view.kind === 'native') {
    const value = isObject(p.value) ? p.value : {};
    const target = ctx.ids.ofSeq(ctx.tree, value.target_seq);
    if (!target) {
      ctx.report('dropped', 'label-target', `label ${JSON.stringify(value.label ?? '')} names an entry that is not written: dropped`, event);
      return false;
    }
    out.targetId = target;
  } else if (out.type === 'branch_summary') {
    out.fromId = ctx.ids.ofSeq(ctx.tree, p.from_seq) ?? (p.from_id === 'root' ? 'root' : out.parentId ?? 'root');
  } else if (out.type === 'compaction') {
    // The kept range starts at the first written entry on the compaction's path at or after the source's.
    const wanted = typeof p.first_kept_seq === 'number' ? p.first_kept_seq : undefined;
    let kept = NONE;
    if (wanted !== undefined) {
      for (const at of ctx.tree.pathTo(unit)) {
        if (ctx.tree.isWritten(at) && at !== unit && ctx.tree.seqOf(at) >= wanted) {
          kept = at;
          break;
        }
      }
    }
    if (kept !== NONE) {
      out.firstKeptEntryId = ctx.ids.of(kept);
      if (ctx.tree.seqOf(kept) !== wanted) ctx.report('transformed', 'compaction-kept', 'the compaction\'s first kept entry is not written: the next written entry on its path is kept from', event);
    } else {
      // Nothing kept before the summary: the client then sends the summary and what follows it.
      out.firstKeptEntryId = ctx.ids.of(unit);
      if (wanted !== undefined) ctx.report('transformed', 'compaction-kept', 'the compaction\'s first kept entry is not on its path: only the summary and what follows are sent', event);
    }
  }
  return true;
}
