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
import { LossLedger, capturedRawLines, ensureComponent, ensureUnder, payloadOf, resumeFields, sameNativeId, selectSession, uuidv7, writeLines, type SelectedSession, type WriterResult } from '../../lib/write/writer.js';
import { STOP_REASONS } from './format.js';
import { DEFAULT_MODEL, parseModel, piStopReason, piUsage, type ModelIdentity } from './models.js';
import { HOME_ENV, NATIVE_ID, builtInHome, cwdFolder, defaultHome, resolveCwd, sessionFileName, sessionsDir } from './paths.js';
import { TreeBuilder, fromPi, type Report, type Unit } from './tree.js';

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

class EntryWriter {
  private readonly usedIds = new Set<string>();
  private readonly usedToolIds = new Set<string>();

  constructor(private readonly options: WriterOptions) {}

  /** A fresh 8-hex id (the client's own shape), or the native one for a same-id rebuild. */
  assignId(unit: Unit): void {
    const native = unit.events[0]?.origin?.native_uuid;
    if (this.options.sameId && typeof native === 'string' && fromPi(unit.events[0]) && !this.usedIds.has(native)) {
      unit.id = native;
    } else {
      let id: string;
      do id = randomBytes(4).toString('hex');
      while (this.usedIds.has(id));
      unit.id = id;
    }
    this.usedIds.add(unit.id);
  }

  /** The model a foreign (or model-less) assistant message is written for. */
  identityOf(unit: Unit): ModelIdentity {
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

  /** A tool id this message's API accepts, unique in the file. */
  toolId(callId: string, api: string, event: SpEvent): string {
    let id = callId;
    if (this.options.safety && api === 'anthropic-messages' && !ANTHROPIC_TOOL_ID.test(id)) {
      id = id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'toolu_sp';
      let n = 2;
      while (this.usedToolIds.has(id)) id = `${id.slice(0, 60)}_${n++}`;
      this.options.report('transformed', 'tool-id', `tool id ${JSON.stringify(callId)} written as ${id} (Anthropic accepts [A-Za-z0-9_-]{1,64})`, event);
    }
    this.usedToolIds.add(id);
    return id;
  }

  private imageBlock(block: Json, event: SpEvent): Json {
    const mimeType = str(block.media_type) ?? 'image/png';
    if (typeof block.data === 'string') return { type: 'image', data: block.data, mimeType };
    const artifact = str(block.artifact);
    const read = artifact && this.options.artifactsDir ? readArtifactForWriter(this.options.artifactsDir, artifact) : undefined;
    if (read?.ok) return { type: 'image', data: read.bytes.toString('base64'), mimeType };
    const why = artifact ? `artifact ${artifactNote(artifact)}: ${read ? read.reason : 'pass --artifacts DIR'}` : 'no image data';
    this.options.report('transformed', 'image', `image (${mimeType}) written as a text placeholder: ${why}`, event);
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
          this.options.report('transformed', 'unsupported-block', `${String(block.type)} block in a ${where} written as JSON text`, event);
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
  entry(unit: Unit): Json | undefined {
    switch (unit.kind) {
      case 'user':
        return this.userEntry(unit);
      case 'assistant':
        return this.assistantEntry(unit);
      case 'toolResult':
        return this.resultEntry(unit);
      case 'stub': {
        const call = unit.callUnit!.calls!.get(unit.callId!)!;
        const message = { role: 'toolResult', toolCallId: call.written, toolName: call.name, content: [{ type: 'text', text: STUB_RESULT }], isError: true, timestamp: this.timestampMs(undefined, unit.ts) };
        return { type: 'message', timestamp: toIso(unit.ts ?? Date.now() / 1000), message };
      }
      case 'compaction':
        return this.compactionEntry(unit);
      case 'native':
        return this.nativeEntry(unit);
      case 'added':
        return unit.body;
    }
  }

  private userEntry(unit: Unit): Json | undefined {
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
      this.options.report('dropped', 'empty-message', 'user message with no content: not written (the API rejects empty messages)', event);
      return undefined;
    }
    const message: Json = { role: 'user', content, timestamp: this.timestampMs(event), ...this.extras(event, 'message_extra') };
    return { type: 'message', timestamp, ...this.extras(event, 'extra'), message };
  }

  private assistantEntry(unit: Unit): Json | undefined {
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
        const call = unit.calls!.get(callId)!;
        call.written = this.toolId(callId, identity.api, event);
        let args = p.input;
        if (!isObject(args)) {
          this.options.report('transformed', 'tool-input', `tool call ${callId} input is not an object: written as {"input": …}`, event);
          args = { input: args };
        }
        const block: Json = { type: 'toolCall', id: call.written, name: call.name, arguments: args };
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
            this.options.report('transformed', 'unsupported-block', `assistant ${String(block.type)} block has no Pi equivalent: written as JSON text`, event);
            blocks.push({ type: 'text', text: JSON.stringify(block) });
          }
        }
      }
    }
    const hasCalls = blocks.some((b) => b.type === 'toolCall');
    if (blocks.length === 0 && !pi && this.options.safety) {
      this.options.report('dropped', 'empty-message', 'assistant message with no content: not written', first);
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
      this.options.report('transformed', 'stop-reason', `stop reason ${stop} written as ${String(message.stopReason)}`, first);
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
      this.options.report('dropped', 'redacted-thinking', `redacted reasoning from ${made ?? 'an unknown provider'} cannot be replayed to ${identity.provider}: not written`, event);
      return undefined;
    }
    if (str(p.opaque) && !fromPi(event)) {
      this.options.report('transformed', 'opaque-reasoning', `encrypted reasoning state from ${made ?? event.agent} not written (only that provider can read it)`, event);
    }
    if (text === '' && !signature) return undefined;
    const block: Json = { type: 'thinking', thinking: text };
    if (signature && (sameProvider || !this.options.safety)) block.thinkingSignature = signature;
    else if (signature) this.options.report('transformed', 'signature', `thinking signature from ${made ?? 'an unknown provider'} dropped: the message is written for ${identity.provider}`, event);
    if (fromPi(event) && isObject(p.block_extra)) Object.assign(block, p.block_extra);
    return block;
  }

  private resultEntry(unit: Unit): Json {
    const event = unit.events[0];
    const p = payloadOf(event);
    const call = unit.callUnit?.calls?.get(unit.callId ?? '');
    const message: Json = {
      role: 'toolResult',
      toolCallId: call?.written ?? unit.callId ?? '',
      toolName: str(p.name) ?? call?.name ?? 'unknown',
      content: this.userBlocks(p.content, event, 'tool result'),
    };
    if (p.structured !== undefined) {
      // details feeds the client's renderers (edit diffs …); another agent's structure would not fit them.
      if (fromPi(event)) message.details = p.structured;
      else this.options.report('dropped', 'structured-result', `structured ${event.agent} tool result (UI data, never sent to the model) not written`, event);
    }
    message.isError = p.is_error === true;
    message.timestamp = this.timestampMs(event);
    Object.assign(message, this.extras(event, 'message_extra'));
    return { type: 'message', timestamp: toIso(event.ts), ...this.extras(event, 'extra'), message };
  }

  private compactionEntry(unit: Unit): Json {
    const event = unit.events[0];
    const p = payloadOf(event);
    const entry: Json = { type: 'compaction', timestamp: toIso(event.ts), ...this.extras(event, 'extra'), summary: p.summary, firstKeptEntryId: '' };
    entry.tokensBefore = typeof p.tokens_before === 'number' ? p.tokens_before : 0;
    if (p.details !== undefined) entry.details = p.details;
    if (p.from_hook !== undefined) entry.fromHook = p.from_hook;
    return entry;
  }

  private nativeEntry(unit: Unit): Json {
    const event = unit.events[0];
    const raw = payloadOf(event).raw as Json;
    const { id: _id, parentId: _parent, ...rest } = raw;
    return { ...rest };
  }
}

// ---- entry point --------------------------------------------------------------------------------

/** Writes the (first, or `session`-selected) session of `events` as a new Pi session file. */
export async function materializePi(events: AsyncIterable<SpEvent>, options: PiMaterializeOptions = {}): Promise<PiMaterializeResult> {
  const selected = await selectSession(events, options.session);
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

  let sessionId: string;
  if (options.sameId) {
    sessionId = sameNativeId(NATIVE_ID, nativeId);
  } else {
    sessionId = uuidv7();
  }
  const createdMs = options.sameId && typeof sp.created === 'string' && !Number.isNaN(Date.parse(sp.created)) ? Date.parse(sp.created) : Date.now();
  const sourceName = typeof sp.source_path === 'string' ? basename(sp.source_path) : undefined;
  const fileName = options.sameId && sourceName?.endsWith(`_${sessionId}.jsonl`) ? sourceName : sessionFileName(createdMs, sessionId);
  const path = ensureUnder(home, join(sessionsDir(home), ensureComponent(cwdFolder(cwd), 'the project folder'), ensureComponent(fileName, 'the session file name')), 'the home');
  if (options.sameId && existsSync(path)) {
    throw new UserError('exists already: --same-id never overwrites a session (move it away, or drop --same-id to write a copy under a new id)', path);
  }

  let lines: string[];
  let writtenAs: 'raw' | 'rebuilt' = 'rebuilt';
  let leafId: string | undefined;
  let branches = 1;
  let finalNewline = true;
  const raw = options.sameId && options.branch !== 'active' ? capturedRawLines(selected.events) : undefined;
  const headerCwd = raw ? headerCwdOf(raw[0]) : undefined;
  if (raw && headerCwd !== undefined && resolveCwd(headerCwd) === cwd) {
    lines = raw;
    writtenAs = 'raw';
    finalNewline = sp.raw_final_newline !== false;
  } else {
    const built = buildLines(selected, { ...options, safety, cwd, sessionId, createdMs, report });
    lines = built.lines;
    leafId = built.leafId;
    branches = built.branches;
  }

  writeLines(path, lines, { finalNewline, dryRun: options.dryRun, onLine: options.onLine });

  const result: PiMaterializeResult = {
    agent: 'pi',
    session_id: sessionId,
    path,
    cwd,
    ...resumeFields(cwd, ['pi', '--session', path], { variable: HOME_ENV, value: home, builtIn: builtInHome() }),
    records: lines.length,
    written_as: writtenAs,
    source_session: selected.session,
    branches,
    changes: ledger.counts,
  };
  if (leafId !== undefined) result.leaf_id = leafId;
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
function buildLines(selected: SelectedSession, options: BuildOptions): { lines: string[]; leafId?: string; branches: number } {
  const sp = selected.start ? payloadOf(selected.start) : {};
  const tree = new TreeBuilder(selected.events, options.safety, options.report);
  tree.build();
  tree.link();
  tree.parents();
  if (options.safety) tree.stubs();

  const writer = new EntryWriter({
    safety: options.safety,
    sameId: Boolean(options.sameId),
    artifactsDir: options.artifactsDir,
    model: options.model,
    sessionModel: str(sp.provider) && str(sp.model) ? `${String(sp.provider)}/${String(sp.model)}` : str(sp.model),
    report: options.report,
  });

  // Build every entry first: a unit that writes nothing (an empty foreign message) drops out and
  // its children move up to its parent.
  const entries = new Map<Unit, Json>();
  for (const unit of tree.units) {
    if (unit.dropped) continue;
    const entry = writer.entry(unit);
    if (entry) entries.set(unit, entry);
    else unit.dropped = true;
  }
  for (const unit of tree.units) {
    let parent = unit.parent;
    while (parent && parent.dropped) parent = parent.parent;
    unit.parent = parent;
  }

  let leaf = tree.leaf();
  if (leaf?.dropped) {
    let at: Unit | null = leaf;
    while (at && at.dropped) at = at.parent;
    leaf = at ?? undefined;
  }
  if (!leaf && entries.size === 0) throw new UserError('nothing to write: the session has no messages');

  // --model: the client continues with the last model on the active path, so a different one is
  // appended there as a model_change (what the client itself writes when the user switches).
  if (options.model && leaf) {
    const wanted = parseModel(options.model);
    const current = currentModel(tree.pathTo(leaf), entries);
    if (wanted && (!current || current.provider !== wanted.provider || current.model !== wanted.model)) {
      const unit: Unit = { kind: 'added', events: [], seq: Number.MAX_SAFE_INTEGER, parent: leaf, id: '', ts: leaf.events[0]?.ts };
      unit.body = { type: 'model_change', timestamp: toIso(Date.now() / 1000), provider: wanted.provider, modelId: wanted.model };
      tree.units.push(unit);
      entries.set(unit, unit.body);
      leaf = unit;
    }
  }

  // Another agent's title becomes the session's name in the client's picker: a session_info entry
  // after the leaf, as the client writes one for /name.
  const title = str(sp.title);
  if (title && leaf && selected.start && !fromPi(selected.start)) {
    const unit: Unit = { kind: 'added', events: [], seq: Number.MAX_SAFE_INTEGER, parent: leaf, id: '' };
    unit.body = { type: 'session_info', timestamp: toIso(leaf.events[0]?.ts ?? Date.now() / 1000), name: title };
    tree.units.push(unit);
    entries.set(unit, unit.body);
    leaf = unit;
  }

  let ordered = tree.order(leaf);
  if (options.branch === 'active' && leaf) {
    const path = new Set(tree.pathTo(leaf));
    const other = ordered.filter((u) => !path.has(u));
    for (const unit of other) {
      if (unit.events[0]) options.report('dropped', 'other-branch', 'not on the active branch (--branch active): not written', unit.events[0]);
    }
    ordered = ordered.filter((u) => path.has(u));
  }

  for (const unit of ordered) writer.assignId(unit);
  const written = new Set(ordered);
  const idOfSeq = (seq: unknown): string | undefined => {
    if (typeof seq !== 'number') return undefined;
    const unit = ordered.find((u) => u.events.some((e) => e.seq === seq));
    return unit?.id;
  };

  const header: Json = { type: 'session', version: 3, id: options.sessionId, timestamp: new Date(options.createdMs).toISOString(), cwd: options.cwd };
  if (options.sameId && typeof sp.parent_session_path === 'string') header.parentSession = sp.parent_session_path;
  const headerLine = JSON.stringify(header);
  if (Buffer.byteLength(headerLine) > HEADER_LIMIT) {
    options.report('transformed', 'long-header', `the header line is ${Buffer.byteLength(headerLine)} bytes: \`pi -c\` reads 512 and will not list it (pi --session PATH still works)`);
  }
  const lines = [headerLine];
  const parents = new Set<Unit>();
  for (const unit of ordered) {
    const entry = { ...entries.get(unit)! };
    const parent = unit.parent && written.has(unit.parent) ? unit.parent : null;
    if (parent) parents.add(parent);
    const out: Json = { type: entry.type, id: unit.id, parentId: parent ? parent.id : null };
    Object.assign(out, entry);
    out.id = unit.id;
    out.parentId = parent ? parent.id : null;
    out.timestamp ??= toIso(unit.events[0]?.ts ?? Date.now() / 1000);
    if (!fixReferences(unit, out, { idOfSeq, tree, written, report: options.report })) continue;
    lines.push(JSON.stringify(out));
  }
  const leaves = ordered.filter((u) => !parents.has(u)).length;
  return { lines, leafId: leaf && written.has(leaf) ? leaf.id : undefined, branches: Math.max(1, leaves) };
}

/** The model the client would restore on this path: the last model_change or assistant message. */
function currentModel(path: Unit[], entries: Map<Unit, Json>): { provider: string; model: string } | undefined {
  let current: { provider: string; model: string } | undefined;
  for (const unit of path) {
    const entry = entries.get(unit);
    if (!entry) continue;
    if (entry.type === 'model_change' && typeof entry.provider === 'string' && typeof entry.modelId === 'string') current = { provider: entry.provider, model: entry.modelId };
    const message = isObject(entry.message) ? entry.message : undefined;
    if (message?.role === 'assistant' && typeof message.provider === 'string' && typeof message.model === 'string') current = { provider: message.provider, model: message.model };
  }
  return current;
}

/**
 * Entries that name other entries (label targets, a compaction's first kept entry, a branch
 * summary's origin) get the new ids. False: the entry cannot be written (its target is gone).
 */
function fixReferences(unit: Unit, out: Json, ctx: { idOfSeq: (seq: unknown) => string | undefined; tree: TreeBuilder; written: Set<Unit>; report: Report }): boolean {
  const event = unit.events[0];
  if (!event) return true;
  const p = payloadOf(event);
  if (out.type === 'label' && unit.kind === 'native') {
    const value = isObject(p.value) ? p.value : {};
    const target = ctx.idOfSeq(value.target_seq);
    if (!target) {
      ctx.report('dropped', 'label-target', `label ${JSON.stringify(value.label ?? '')} names an entry that is not written: dropped`, event);
      return false;
    }
    out.targetId = target;
  } else if (out.type === 'branch_summary') {
    out.fromId = ctx.idOfSeq(p.from_seq) ?? (p.from_id === 'root' ? 'root' : out.parentId ?? 'root');
  } else if (out.type === 'compaction') {
    // The kept range starts at the first written entry on the compaction's path at or after the source's.
    const path = ctx.tree.pathTo(unit).filter((u) => ctx.written.has(u) && u !== unit);
    const wanted = typeof p.first_kept_seq === 'number' ? p.first_kept_seq : undefined;
    const kept = wanted !== undefined ? path.find((u) => u.seq >= wanted) : undefined;
    if (kept) {
      out.firstKeptEntryId = kept.id;
      if (kept.seq !== wanted) ctx.report('transformed', 'compaction-kept', 'the compaction\'s first kept entry is not written: the next written entry on its path is kept from', event);
    } else {
      // Nothing kept before the summary: the client then sends the summary and what follows it.
      out.firstKeptEntryId = unit.id;
      if (wanted !== undefined) ctx.report('transformed', 'compaction-kept', 'the compaction\'s first kept entry is not on its path: only the summary and what follows are sent', event);
    }
  }
  return true;
}
