// One Pi session line → canonical events (docs/formats/pi.md §2–§8). The mapper is synchronous and keeps
// everything it needs between lines in a plain JSON `PiState`, so an incremental capture stores it
// in its cursor and continues exactly. v1 and v2 files are migrated in memory only: v1 entries get
// a linear parent chain and their compaction index is resolved, v2 `hookMessage` is read as role
// `custom`. The user's file is never touched.
import { storeArtifact } from '../../lib/core/artifacts.js';
import type { Diagnose } from '../../lib/adapter/interface.js';
import type { SessionEmitter } from '../../lib/core/emitter.js';
import type { Line } from '../../lib/core/lines.js';
import { toEpochSeconds, toIso, type Actor, type SpEvent } from '../../lib/core/event.js';
import { isObject, rest, str, type Json } from '../../lib/core/json.js';
import { nativeRawText, nonBlockContent, parseNativeLine } from '../../lib/capture/native.js';
import { fromPiDisplayDiff, wholeFileDiff } from './diff.js';
import { levelOf } from './fidelity.js';
import { PackedSeqs, RecordSeqs, type EntrySeqs } from './entry-seqs.js';
import { BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX, bashExecutionText, isHeader, num, textOf, versionOf } from './format.js';

export const AGENT = 'pi';
const ASSISTANT: Actor = 'agent:pi';
const HEAD_CHARS = 4096;
const TAIL_CHARS = 4096;

interface OpenCall {
  seq: number;
  name: string;
  input: unknown;
}

/** Everything the mapper carries from line to line (and, in a cursor, from run to run). */
export interface PiState {
  started: boolean;
  /** Format version: the header's, 1 when it has none (decides how parents are found). */
  version: number;
  cwd?: string;
  /** Parsed JSON lines so far, the header being 0: v1 `firstKeptEntryIndex` counts this way. */
  index: number;
  /**
   * Entry id (v1: `#<index>`) → [seq of its first event, seq of its last event]. A one-shot capture
   * (no cursor to continue) keeps it packed; that form serializes as the record.
   */
  entries: Record<string, [number, number]> | PackedSeqs;
  /** Whether an entry was seen: a later root is a new root (`parent_seq: null`). */
  root_seen: boolean;
  /** Last event of the previous entry: the parent in a v1 file. */
  last_tail?: number;
  /** Tool calls waiting for their result. */
  open_calls: Record<string, OpenCall>;
  last_ts?: number;
}

export function newPiState(): PiState {
  return { started: false, version: 3, index: 0, entries: {}, root_seen: false, open_calls: {} };
}

export interface MapperOptions {
  emitter: SessionEmitter;
  path: string;
  state: PiState;
  raw?: boolean;
  artifactsDir?: string;
  onDiagnostic?: Diagnose;
}

interface Pending {
  type: string;
  payload: Json;
  actor: Actor;
  derived_from?: number;
}

/** Epoch seconds of a record's time, when it is one (a negative or non-finite value is not). */
export function sourceTime(value: unknown): number | undefined {
  const ts = toEpochSeconds(value);
  return ts !== undefined && Number.isFinite(ts) && ts >= 0 ? ts : undefined;
}

/** `text`, cut to a head (and a tail when longer), as command.run keeps output. */
function headTail(text: string): Json {
  if (text.length <= HEAD_CHARS) return { stdout_head: text };
  return { stdout_head: text.slice(0, HEAD_CHARS), stdout_tail: text.slice(-TAIL_CHARS), stdout_chars: text.length };
}

const EXIT_CODE = /\n*Command exited with code (-?\d+)$/;
const ABORTED = /\n*Command aborted$/;
const TIMED_OUT = /\n*Command timed out after (\d+(?:\.\d+)?) seconds$/;

export class PiMapper {
  private readonly state: PiState;
  private readonly emitter: SessionEmitter;
  private readonly entries: EntrySeqs;
  /** The line being mapped (for ids made up for records that have none). */
  private lineNumber = 0;

  constructor(private readonly options: MapperOptions) {
    this.state = options.state;
    this.emitter = options.emitter;
    const entries = this.state.entries;
    this.entries = entries instanceof PackedSeqs ? entries : new RecordSeqs(entries);
  }

  /**
   * The session.start event, from the header line when line 1 is one (it then carries that line's
   * origin and raw text); `payload` holds what the head scan found.
   */
  start(payload: Json, ts: number, headerLine?: Line): SpEvent {
    this.state.started = true;
    this.state.last_ts = ts;
    const origin: Json = {};
    if (headerLine) {
      origin.native_seq = headerLine.number;
      const rawText = nativeRawText(this.options, headerLine);
      if (rawText !== undefined) origin.raw = [rawText];
      this.state.index = 1;
    }
    return this.emitter.emit('session.start', payload, ts, { actor: 'system', level: levelOf('session.start'), origin });
  }

  /** Sets what the header says (version, cwd) before the first entry is read. */
  useHeader(header: Json | undefined, firstEntry?: Json): void {
    if (header) this.state.version = versionOf(header);
    // Without a header the client treats the file as v1; entries with ids still link by id.
    else this.state.version = firstEntry && typeof firstEntry.id === 'string' ? 3 : 1;
    if (header && typeof header.cwd === 'string') this.state.cwd = header.cwd;
  }

  /** Events made from one line; never throws on bad input (bad lines become meta). */
  line(line: Line): SpEvent[] {
    this.lineNumber = line.number;
    const rawText = nativeRawText(this.options, line);
    const parsed = parseNativeLine(this.options, line);
    if (parsed.kind === 'blank') return this.finish(line, undefined, [this.metaPending({ key: 'pi.blank-line' })], rawText);
    if (parsed.kind === 'unparseable') return this.finish(line, undefined, [this.metaPending(parsed.meta)], rawText);
    const entry = parsed.record;
    const index = this.state.index;
    this.state.index += 1;
    if (isHeader(entry)) {
      // A second header: the client keeps only the first one.
      this.diagnose(line, 'a second session header; kept as meta (the client uses the first)');
      return this.finish(line, entry, [this.metaPending({ key: 'pi.session', raw: entry })], rawText);
    }
    return this.entry(line, entry, index, rawText);
  }

  private diagnose(line: Line, what: string): void {
    this.options.onDiagnostic?.(`${this.options.path}:${line.number}`, what);
  }

  private metaPending(payload: Json): Pending {
    return { type: 'meta', payload, actor: 'system' };
  }

  /** A tree entry: its parent decided first, then its events. */
  private entry(line: Line, entry: Json, index: number, rawText: string | undefined): SpEvent[] {
    const ts = sourceTime(entry.timestamp) ?? (isObject(entry.message) ? sourceTime(entry.message.timestamp) : undefined);
    if (ts !== undefined) this.state.last_ts = ts;
    const id = typeof entry.id === 'string' ? entry.id : undefined;

    let parent: number | null;
    let nativeParent: string | undefined;
    if (this.state.version >= 2) {
      const pid = entry.parentId;
      const found = typeof pid === 'string' && pid !== id ? this.entries.get(pid) : undefined;
      if (found) {
        parent = found[1];
      } else {
        // null, the entry itself, or an id not (yet) in the file: the client makes it a root.
        parent = null;
        if (typeof pid === 'string' && pid !== id) nativeParent = pid;
      }
    } else {
      parent = this.state.last_tail ?? null;
    }
    let parentSeq: number | null | undefined;
    if (parent === null) parentSeq = this.state.root_seen ? null : undefined;
    else parentSeq = parent === this.emitter.nextSeq - 1 ? undefined : parent;

    const mapped = new Set<string>(['type']);
    if (id !== undefined) mapped.add('id');
    if ('parentId' in entry && (entry.parentId === null || typeof entry.parentId === 'string')) mapped.add('parentId');
    // The ISO text is rebuilt from ts; keep it only when it would not come back the same.
    const entryTs = sourceTime(entry.timestamp);
    if (entryTs !== undefined && typeof entry.timestamp === 'string' && toIso(entryTs) === entry.timestamp) mapped.add('timestamp');

    const pending = this.dispatch(entry, mapped);
    if (pending.length > 0 && pending[0].type !== 'meta') {
      const extra = rest(entry, mapped);
      if (extra) pending[0].payload.extra = extra;
    }
    const events = this.finish(line, entry, pending, rawText, parentSeq, nativeParent);
    const first = events[0].seq;
    const last = events[events.length - 1].seq;
    // v1 entries have no ids: the client's migration (and a compaction's index) name them by position.
    this.entries.set(this.state.version >= 2 && id !== undefined ? id : `#${index}`, first, last);
    this.state.last_tail = last;
    this.state.root_seen = true;
    return events;
  }

  private dispatch(entry: Json, mapped: Set<string>): Pending[] {
    switch (entry.type) {
      case 'message': {
        if (!isObject(entry.message)) return [this.entryMeta(entry)];
        mapped.add('message');
        return this.message(entry, entry.message);
      }
      case 'compaction':
        return [this.compaction(entry, mapped)];
      case 'branch_summary':
        return [this.branchSummary(entry, mapped)];
      case 'custom_message':
        return [this.customMessage(entry, mapped)];
      case 'model_change':
        return [this.entryMeta(entry, { provider: entry.provider, model_id: entry.modelId })];
      case 'thinking_level_change':
        return [this.entryMeta(entry, entry.thinkingLevel)];
      case 'session_info':
        return [this.entryMeta(entry, entry.name)];
      case 'custom':
        return [this.entryMeta(entry, { custom_type: entry.customType, data: entry.data })];
      case 'label': {
        const value: Json = { target_id: entry.targetId, label: entry.label };
        const target = typeof entry.targetId === 'string' ? this.entries.get(entry.targetId) : undefined;
        if (target) value.target_seq = target[0];
        return [this.entryMeta(entry, value)];
      }
      default:
        return [this.entryMeta(entry)];
    }
  }

  /** `meta` {key: pi.<type>, value?, raw: the whole entry}: entries that are not conversation. */
  private entryMeta(entry: Json, value?: unknown): Pending {
    const type = typeof entry.type === 'string' && entry.type !== '' ? entry.type : undefined;
    const role = type === 'message' && isObject(entry.message) && typeof entry.message.role === 'string' ? entry.message.role : undefined;
    const key = type === undefined ? 'pi.untyped' : role !== undefined ? `pi.message.${role}` : `pi.${type}`;
    const payload: Json = { key };
    if (value !== undefined) payload.value = value;
    payload.raw = entry;
    return this.metaPending(payload);
  }

  // ---- messages -------------------------------------------------------------------------------

  private message(entry: Json, message: Json): Pending[] {
    switch (message.role) {
      case 'user':
        return [this.userMessage(message)];
      case 'assistant':
        return this.assistant(entry, message);
      case 'toolResult':
        return [this.toolResult(message)];
      case 'bashExecution':
        return this.bashExecution(entry, message);
      case 'custom':
      case 'hookMessage':
        return [this.customRole(message)];
      default:
        return [this.entryMeta(entry)];
    }
  }

  /**
   * Content blocks in canonical form: text as it is, images as {media_type, data} or artifact refs,
   * other types verbatim. A block the canonical schema could not hold as it is (no type, a text
   * that is not a string, an image without data, a type the canonical model defines differently)
   * is kept whole as {type: "unknown", value}.
   */
  private blocks(content: unknown[]): unknown[] {
    return content.map((block) => {
      if (!isObject(block) || typeof block.type !== 'string' || block.type === '') return { type: 'unknown', value: block };
      switch (block.type) {
        case 'text':
          return typeof block.text === 'string' ? block : { type: 'unknown', value: block };
        case 'image': {
          const { type: _t, data, mimeType, ...others } = block;
          if (typeof data !== 'string') return { type: 'unknown', value: block };
          const out: Json = { type: 'image', media_type: str(mimeType) ?? 'application/octet-stream', ...others };
          if (this.options.artifactsDir) out.artifact = storeArtifact(this.options.artifactsDir, Buffer.from(data, 'base64'));
          else out.data = data;
          return out;
        }
        case 'thinking':
        case 'tool_use':
        case 'tool_result':
          return { type: 'unknown', value: block };
        default:
          return block;
      }
    });
  }

  /** A user-side content value: blocks, or a string as one text block (marked). */
  private userContent(content: unknown, payload: Json): void {
    if (Array.isArray(content)) payload.content = this.blocks(content);
    else nonBlockContent(content, payload);
  }

  private userMessage(message: Json): Pending {
    const payload: Json = {};
    this.userContent(message.content, payload);
    if (num(message.timestamp) !== undefined) payload.message_ts = message.timestamp;
    const extra = rest(message, ['role', 'content', 'timestamp']);
    if (extra) payload.message_extra = extra;
    return { type: 'message.user', payload, actor: 'user' };
  }

  /** Role `custom` (v3), or `hookMessage` (v2, migrated in memory): an extension's message, sent as user text. */
  private customRole(message: Json): Pending {
    const payload: Json = {};
    this.userContent(message.content, payload);
    payload.pi_role = 'custom';
    if (message.role === 'hookMessage') payload.native_role = 'hookMessage';
    if (message.customType !== undefined) payload.custom_type = message.customType;
    if (message.display !== undefined) payload.display = message.display;
    if (message.details !== undefined) payload.details = message.details;
    if (num(message.timestamp) !== undefined) payload.message_ts = message.timestamp;
    const extra = rest(message, ['role', 'content', 'customType', 'display', 'details', 'timestamp']);
    if (extra) payload.message_extra = extra;
    return { type: 'message.user', payload, actor: 'system' };
  }

  private assistant(entry: Json, message: Json): Pending[] {
    const common: Json = {};
    const responseId = str(message.responseId);
    common.message_id = responseId ?? (typeof entry.id === 'string' ? `pi:${entry.id}` : `pi:line${this.lineNumber}`);
    // No responseId (older files): the entry names the message; the writer must not invent one.
    if (responseId === undefined) common.message_id_synthetic = true;
    for (const [native, canonical] of [['api', 'api'], ['provider', 'provider'], ['model', 'model']] as const) {
      if (typeof message[native] === 'string') common[canonical] = message[native];
    }
    const stopKnown = typeof message.stopReason === 'string' || message.stopReason === null;
    if (stopKnown) common.stop_reason = message.stopReason;
    if (message.usage !== undefined) common.usage = message.usage;
    if (message.errorMessage !== undefined) common.error_message = message.errorMessage;
    if (num(message.timestamp) !== undefined) common.message_ts = message.timestamp;
    const extra = rest(message, ['role', 'content', 'api', 'provider', 'model', ...(stopKnown ? ['stopReason'] : []), 'usage', 'responseId', 'errorMessage', 'timestamp']);
    if (extra) common.message_extra = extra;

    const content = message.content;
    if (!Array.isArray(content)) {
      return [{ type: 'message.assistant', payload: nonBlockContent(content, { ...common }), actor: ASSISTANT }];
    }
    const out: Pending[] = [];
    content.forEach((block, i) => {
      if (!isObject(block)) {
        out.push({ type: 'message.assistant', payload: { content: this.blocks([block]), ...common }, actor: ASSISTANT });
        return;
      }
      switch (block.type) {
        case 'thinking': {
          const payload: Json = { text: str(block.thinking) ?? '', visibility: block.redacted === true ? 'redacted' : 'visible', ...common };
          if (typeof block.thinkingSignature === 'string') payload.signature = block.thinkingSignature;
          if (block.redacted === true) payload.redacted = true;
          const blockExtra = rest(block, ['type', 'thinking', 'thinkingSignature', 'redacted']);
          if (blockExtra) payload.block_extra = blockExtra;
          out.push({ type: 'message.thinking', payload, actor: ASSISTANT });
          break;
        }
        case 'toolCall': {
          let callId = str(block.id);
          const payload: Json = {};
          if (callId === undefined) {
            callId = `pi_line${this.lineNumber}_call${i}`;
            payload.call_id_synthetic = true;
          }
          Object.assign(payload, { call_id: callId, name: str(block.name) ?? 'unknown', input: block.arguments ?? {} }, common);
          if (block.arguments === undefined) payload.input_missing = true;
          if (typeof block.thoughtSignature === 'string') payload.thought_signature = block.thoughtSignature;
          const blockExtra = rest(block, ['type', 'id', 'name', 'arguments', 'thoughtSignature']);
          if (blockExtra) payload.block_extra = blockExtra;
          out.push({ type: 'tool.call', payload, actor: ASSISTANT });
          break;
        }
        case 'text': {
          const { type: _t, text, textSignature, ...others } = block;
          if (typeof text !== 'string') {
            out.push({ type: 'message.assistant', payload: { content: this.blocks([block]), ...common }, actor: ASSISTANT });
            break;
          }
          const canonical: Json = { type: 'text', text, ...others };
          if (typeof textSignature === 'string') canonical.text_signature = textSignature;
          out.push({ type: 'message.assistant', payload: { content: [canonical], ...common }, actor: ASSISTANT });
          break;
        }
        default:
          out.push({ type: 'message.assistant', payload: { content: this.blocks([block]), ...common }, actor: ASSISTANT });
      }
    });
    // An aborted turn may have no blocks: its usage and stop reason still need an event.
    if (out.length === 0) out.push({ type: 'message.assistant', payload: { content: [], ...common }, actor: ASSISTANT });
    return out;
  }

  private toolResult(message: Json): Pending {
    const payload: Json = { call_id: str(message.toolCallId) ?? `pi_line${this.lineNumber}_result` };
    if (str(message.toolCallId) === undefined) payload.call_id_synthetic = true;
    if (typeof message.toolName === 'string') payload.name = message.toolName;
    const content = message.content;
    payload.content = typeof content === 'string' ? content : Array.isArray(content) ? this.blocks(content) : '';
    if (content !== undefined && typeof content !== 'string' && !Array.isArray(content)) payload.native_content = content;
    payload.is_error = message.isError === true;
    if (typeof message.isError !== 'boolean') payload.is_error_missing = true;
    if (message.details !== undefined) payload.structured = message.details;
    if (num(message.timestamp) !== undefined) payload.message_ts = message.timestamp;
    const extra = rest(message, ['role', 'toolCallId', 'toolName', 'content', 'isError', 'details', 'timestamp']);
    if (extra) payload.message_extra = extra;
    return { type: 'tool.result', payload, actor: 'tool' };
  }

  /**
   * A `!cmd` run typed by the user: the client sends it as user text (unless excluded with `!!`),
   * so it is a message.user with that exact text, plus a command.run (actor user; no tool call).
   */
  private bashExecution(entry: Json, message: Json): Pending[] {
    const { role: _role, ...fields } = message;
    const run: Json = { cmd: String(message.command ?? ''), exit_code: typeof message.exitCode === 'number' ? message.exitCode : null, via: 'bashExecution' };
    if (this.state.cwd) run.cwd = this.state.cwd;
    if (typeof message.output === 'string' && message.output !== '') Object.assign(run, headTail(message.output), { output_combined: true });
    if (message.cancelled === true) run.interrupted = true;
    if (message.truncated === true) run.truncated = true;
    const command: Pending = { type: 'command.run', payload: run, actor: 'user' };
    if (message.excludeFromContext === true) {
      // `!!cmd`: shown, never sent to the model.
      const meta = this.entryMeta(entry, { command: message.command, exit_code: run.exit_code });
      meta.payload.key = 'pi.bash_execution';
      return [meta, command];
    }
    const payload: Json = { content: [{ type: 'text', text: bashExecutionText(message) }], pi_role: 'bashExecution', bash_execution: fields };
    return [{ type: 'message.user', payload, actor: 'user' }, command];
  }

  // ---- other entries --------------------------------------------------------------------------

  private compaction(entry: Json, mapped: Set<string>): Pending {
    const payload: Json = { kind: 'compaction', summary: typeof entry.summary === 'string' ? entry.summary : '' };
    mapped.add('summary');
    if (typeof entry.firstKeptEntryId === 'string') {
      payload.first_kept_entry_id = entry.firstKeptEntryId;
      const kept = this.entries.get(entry.firstKeptEntryId);
      if (kept) payload.first_kept_seq = kept[0];
      mapped.add('firstKeptEntryId');
    }
    if (typeof entry.firstKeptEntryIndex === 'number') {
      // v1: an index into the file's parsed lines (header = 0), migrated like the client does.
      payload.first_kept_entry_index = entry.firstKeptEntryIndex;
      const kept = this.entries.get(`#${entry.firstKeptEntryIndex}`);
      if (kept) payload.first_kept_seq = kept[0];
      mapped.add('firstKeptEntryIndex');
    }
    for (const [native, canonical] of [['tokensBefore', 'tokens_before'], ['details', 'details'], ['fromHook', 'from_hook']] as const) {
      if (entry[native] !== undefined) {
        payload[canonical] = entry[native];
        mapped.add(native);
      }
    }
    return { type: 'checkpoint', payload, actor: 'system' };
  }

  private branchSummary(entry: Json, mapped: Set<string>): Pending {
    const summary = typeof entry.summary === 'string' ? entry.summary : '';
    const payload: Json = { content: [{ type: 'text', text: BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX }], pi_type: 'branch_summary', summary };
    mapped.add('summary');
    if (entry.fromId !== undefined) {
      payload.from_id = entry.fromId;
      const from = typeof entry.fromId === 'string' ? this.entries.get(entry.fromId) : undefined;
      if (from) payload.from_seq = from[1];
      mapped.add('fromId');
    }
    for (const [native, canonical] of [['details', 'details'], ['fromHook', 'from_hook']] as const) {
      if (entry[native] !== undefined) {
        payload[canonical] = entry[native];
        mapped.add(native);
      }
    }
    return { type: 'message.user', payload, actor: 'system' };
  }

  private customMessage(entry: Json, mapped: Set<string>): Pending {
    const payload: Json = {};
    this.userContent(entry.content, payload);
    payload.pi_type = 'custom_message';
    mapped.add('content');
    for (const [native, canonical] of [['customType', 'custom_type'], ['display', 'display'], ['details', 'details']] as const) {
      if (entry[native] !== undefined) {
        payload[canonical] = entry[native];
        mapped.add(native);
      }
    }
    return { type: 'message.user', payload, actor: 'system' };
  }

  // ---- emission -------------------------------------------------------------------------------

  /**
   * Emits a line's events: origin on all, raw and parent_seq on the first; the derived events a
   * tool result produces follow it.
   */
  private finish(line: Line, entry: Json | undefined, pending: Pending[], rawText: string | undefined, parentSeq?: number | null, nativeParent?: string): SpEvent[] {
    const ts = this.state.last_ts ?? 0;
    const origin: Json = { native_seq: line.number };
    if (entry && typeof entry.id === 'string') origin.native_uuid = entry.id;
    const events: SpEvent[] = [];
    for (let i = 0; i < pending.length; i += 1) {
      const p = pending[i];
      let o = origin;
      if (i === 0 && (rawText !== undefined || nativeParent !== undefined)) {
        o = { ...origin };
        if (nativeParent !== undefined) o.native_parent = nativeParent;
        if (rawText !== undefined) o.raw = [rawText];
      }
      const event = this.emitter.emit(p.type, p.payload, ts, {
        actor: p.actor,
        level: levelOf(p.type),
        parent_seq: i === 0 ? parentSeq : undefined,
        derived_from: p.derived_from,
        origin: o,
      });
      events.push(event);
      this.afterEmit(event, p, pending, i);
    }
    return events;
  }

  private afterEmit(event: SpEvent, p: Pending, pending: Pending[], index: number): void {
    if (event.type === 'tool.call') {
      this.state.open_calls[String(p.payload.call_id)] = { seq: event.seq, name: String(p.payload.name), input: p.payload.input };
    } else if (event.type === 'tool.result') {
      const callId = String(p.payload.call_id);
      const call = this.state.open_calls[callId];
      if (!call) return;
      delete this.state.open_calls[callId];
      const derived = this.derive(call, p.payload);
      if (derived) pending.splice(index + 1, 0, { ...derived, actor: 'tool', derived_from: call.seq });
    }
  }

  /** The semantic event a finished built-in tool call gives (none for others, or when nothing happened). */
  private derive(call: OpenCall, result: Json): { type: string; payload: Json } | undefined {
    const input = isObject(call.input) ? call.input : {};
    const isError = result.is_error === true;
    const text = textOf(result.content);
    const path = str(input.path) ?? str(input.file_path);
    switch (call.name) {
      case 'bash': {
        const cmd = str(input.command);
        if (cmd === undefined) return undefined;
        const payload: Json = { cmd, tool: 'bash' };
        let output = text;
        if (!isError) {
          payload.exit_code = 0;
        } else {
          const exit = EXIT_CODE.exec(text);
          const aborted = ABORTED.exec(text);
          const timedOut = TIMED_OUT.exec(text);
          // Any other error (e.g. the cwd was gone) means no command ran.
          if (!exit && !aborted && !timedOut) return undefined;
          payload.exit_code = exit ? Number(exit[1]) : null;
          if (aborted) payload.interrupted = true;
          if (timedOut) payload.timed_out = true;
          output = text.slice(0, (exit ?? aborted ?? timedOut)!.index);
        }
        if (this.state.cwd) payload.cwd = this.state.cwd;
        if (output !== '' && output !== '(no output)') Object.assign(payload, headTail(output), { output_combined: true });
        if (typeof input.timeout === 'number') payload.timeout = input.timeout;
        return { type: 'command.run', payload };
      }
      case 'edit': {
        if (isError || path === undefined) return undefined;
        const details = isObject(result.structured) ? result.structured : undefined;
        const made = typeof details?.diff === 'string' ? fromPiDisplayDiff(path, details.diff, this.state.cwd) : undefined;
        if (!made) return undefined; // no exact diff recorded: one with made-up line numbers would mislead
        const payload: Json = { path, diff: made.diff, added: made.added, removed: made.removed, kind: 'modify', tool: 'edit' };
        if (typeof details?.firstChangedLine === 'number') payload.first_changed_line = details.firstChangedLine;
        return { type: 'file.edit', payload };
      }
      case 'write': {
        if (isError || path === undefined || typeof input.content !== 'string') return undefined;
        // write creates or overwrites; the result does not say which, so no `kind`.
        const made = wholeFileDiff(path, input.content, this.state.cwd);
        return { type: 'file.edit', payload: { path, diff: made.diff, added: made.added, removed: made.removed, tool: 'write', whole_file: true } };
      }
      case 'read': {
        if (isError || path === undefined) return undefined;
        const payload: Json = { path, tool: 'read' };
        const range: Json = {};
        if (typeof input.offset === 'number') range.start = input.offset;
        if (typeof input.limit === 'number') range.lines = input.limit;
        if (Object.keys(range).length > 0) payload.range = range;
        if (Array.isArray(result.content) && result.content.some((b) => isObject(b) && b.type === 'image')) payload.kind = 'image';
        return { type: 'file.read', payload };
      }
      default:
        return undefined;
    }
  }
}
