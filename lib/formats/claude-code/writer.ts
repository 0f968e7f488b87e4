// The writer of Claude Code's transcript format: canonical events → a NEW transcript that the real
// client resumes (docs/formats/claude.md §5–§7). Claude Code defined the format; Qoder CLI writes it
// too, so both adapters (adapters/claude, adapters/qoder) write through this file, each naming its
// own paths, id format, default model and resume command (ClaudeCodeTarget). What the client needs,
// and what this writer guarantees:
//   * <home>/projects/<slug(realpath(cwd))>/<uuid>.jsonl, created atomically, never overwritten;
//   * one line per content block, lines of one API message sharing `message.id`, every assistant
//     line with `message.model` (the client hangs without it) and `content` as an array;
//   * a `parentUuid` chain with increasing timestamps (linear, or a tree where the source branched:
//     the last line is the active leaf), each tool_result in its own user line right after the
//     tool_use (the client's own §2.4 layout for parallel calls);
//   * a resume-safety pass: no orphaned tool_use or tool_result (the client silently drops them),
//     tool ids in [A-Za-z0-9_-], no foreign reasoning as signed `thinking`, no empty messages.
// Every change is reported through `onLoss`, so nothing is lost silently (docs/design.md §3).
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { LossEntry, MaterializeOptions } from '../../adapter/interface.js';
import { UserError } from '../../cli/diagnostics.js';
import { artifactNote, readArtifactForWriter } from '../../core/artifacts.js';
import type { SpEvent } from '../../core/event.js';
import { isObject, setMember, str, type Json } from '../../core/json.js';
import { LOSS, ToolIds, pairCalls, reportOrphan, reportStub, type PlanReport, type SkippedResult, type ToolIdSpelling } from '../../write/plan.js';
import { LossLedger, capturedRawLines, ensureUnder, isDerived, payloadOf, resumeFields, sameNativeId, writeLines, type ClientHome, type NativeIdFormat, type WriterResult } from '../../write/writer.js';
import { SeqPositions } from '../../write/positions.js';
import { UuidColumn } from '../../write/uuids.js';
import { IdSet } from '../../write/ids.js';
import { boundHeapGrowth } from '../../write/heap-growth.js';
import { SpooledLines, SpooledSession } from '../../write/spool.js';
import { createFileAtomic } from '../../fs/atomic.js';

/**
 * What a client that reads this format declares: its agent id (whose sessions a `--same-id` move
 * keeps), its paths and ids, the model a message without one gets, and its resume command.
 */
export interface ClaudeCodeTarget {
  agent: string;
  /** The project folder name of a cwd (the client's slug rule), and a cwd resolved as the client does. */
  projectSlug: (cwd: string) => string;
  resolveCwd: (cwd: string) => string;
  defaultHome: () => string;
  /** The home variable and its built-in value, for the resume command. */
  home: (home: string) => ClientHome;
  idFormat: NativeIdFormat;
  defaultModel: string;
  /** The resume command's words for a session (and the model to continue with). */
  resumeArgv: (sessionId: string, model: string | undefined) => string[];
}

/** The agent whose own sessions this format's records come from (its native blocks, ids and thinking are kept). */
const FORMAT_AGENT = 'claude';

/** The client version this writer was verified against (written as `version` for foreign sessions). */
export const CLIENT_VERSION = '2.1.332';
/** The tool_result written for a tool_use that never got one. */
export const STUB_RESULT = 'interrupted: no result was recorded';

/**
 * Fields of a native line that tie it to its old file, chain or session: always rebuilt. (`slug`
 * names the old session's plan; it is kept only on same-id moves.)
 */
const RELINK_KEYS = new Set([
  'parentUuid', 'logicalParentUuid', 'isSidechain', 'uuid', 'timestamp', 'sessionId', 'cwd', 'version', 'gitBranch',
  'userType', 'entrypoint', 'agentId',
]);
/** Fields the writer sets itself on message lines, besides the envelope. */
const CHAIN_KEYS = new Set([
  ...RELINK_KEYS, 'sourceToolAssistantUUID', 'toolUseResult', 'type', 'message', 'isMeta', 'isCompactSummary', 'isVisibleInTranscriptOnly',
]);
/** Native records that form the conversation chain (they carry uuid/parentUuid). */
const TRANSCRIPT_TYPES = new Set(['user', 'assistant', 'attachment', 'system']);
/** Content block types of Claude's own messages that are written back unchanged. */
const CLAUDE_PASSTHROUGH_BLOCKS = new Set([
  'document', 'search_result', 'server_tool_use', 'web_search_tool_result', 'web_fetch_tool_result',
  'code_execution_tool_result', 'mcp_tool_use', 'mcp_tool_result', 'container_upload', 'redacted_thinking',
]);
const ZERO_USAGE = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };

/**
 * The generic options (lib/adapter/interface.ts): `session` may also be a native id; `model` is the model to
 * continue with (put into the resume command) and the `message.model` of messages that name none.
 */
export interface ClaudeMaterializeOptions extends MaterializeOptions {
  /** The id format a `--same-id` write checks (default: the target's). */
  idFormat?: NativeIdFormat;
}

export type ClaudeLossEntry = LossEntry;

export type ClaudeMaterializeResult = WriterResult;

/** The transcript path the client looks up for a session id in a cwd (already resolved); `slug` is the client's rule. */
export function transcriptPathOf(slug: (cwd: string) => string, home: string, cwd: string, sessionId: string): string {
  return join(home, 'projects', slug(cwd), `${sessionId}.jsonl`);
}

/** transcriptPathOf, checked to lie inside the home after resolving symlinks (a linked project folder is refused). */
export function checkedTranscriptPathOf(slug: (cwd: string) => string, home: string, cwd: string, sessionId: string): string {
  return ensureUnder(home, transcriptPathOf(slug, home, cwd, sessionId), 'the home');
}

// ---- helpers over loosely typed payloads --------------------------------------------------------

/** A meta event's native record: `payload.raw` as an object (or JSON text), else its line from `origin.raw`. */
function rawRecord(event: SpEvent): Json | undefined {
  const candidates: unknown[] = [payloadOf(event).raw];
  if (event.origin?.raw?.length === 1) candidates.push(event.origin.raw[0]);
  for (const c of candidates) {
    if (isObject(c)) return c;
    if (typeof c === 'string') {
      try {
        const parsed: unknown = JSON.parse(c);
        if (isObject(parsed)) return parsed;
      } catch {
        // not JSON: no usable record
      }
    }
  }
  return undefined;
}
function fromClaude(event: SpEvent): boolean {
  return (event.origin?.agent ?? event.agent) === FORMAT_AGENT;
}
/** A tool call's own id ('' when it has none): what the tool id check starts from. */
function ownCallId(event: SpEvent): string {
  const id = payloadOf(event).call_id;
  return typeof id === 'string' ? id : '';
}

function messageId(event: SpEvent): string | undefined {
  return str(payloadOf(event).message_id);
}
function randomToken(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

// ---- the writer ---------------------------------------------------------------------------------

/** Tool ids as the Anthropic API takes them: [A-Za-z0-9_-], a new `toolu_sp…` one for a call without. */
const TOOL_ID_SPELLING: ToolIdSpelling = {
  valid: /^[A-Za-z0-9_-]+$/,
  repair: (id) => id.replace(/[^A-Za-z0-9_-]/g, '_'),
  mint: () => `toolu_sp${randomToken(20)}`,
  accepts: 'only [A-Za-z0-9_-]',
};

interface Envelope {
  sessionId: string;
  cwd: string;
  version: string;
  gitBranch: string;
  entrypoint: string;
}

/** Builds the lines of one transcript: uuids, the parent chain, increasing timestamps, the envelope. */
class TranscriptLines {
  /** The lines as they are made, on disk (a large session's transcript is never held in memory). */
  readonly lines = new SpooledLines();
  /** The uuid of the last transcript line: the parent of the next one and the final leaf. */
  last: string | null = null;
  private lastMs = 0;
  private readonly usedUuids = new Set<string>();

  constructor(private readonly envelope: Envelope) {}

  get sessionId(): string {
    return this.envelope.sessionId;
  }

  /** An ISO time for a line: the event's own time, moved just past the previous line if it is not later. */
  private time(ts: number | undefined): string {
    const known = typeof ts === 'number' && Number.isFinite(ts) && ts > 0;
    let ms = known ? Math.round(ts * 1000) : this.lastMs === 0 ? Date.now() : this.lastMs + 1;
    if (ms <= this.lastMs) ms = this.lastMs + 1;
    this.lastMs = ms;
    return new Date(ms).toISOString();
  }

  /** A uuid for a line: the wanted one (same-id moves keep native uuids) when unused, else a fresh one. */
  private uuid(wanted?: string): string {
    // Only kept uuids are remembered: a fresh random one never meets another (a large session keeps no set of all).
    const id = wanted && !this.usedUuids.has(wanted) ? wanted : randomUUID();
    if (wanted) this.usedUuids.add(id);
    return id;
  }

  /** Adds a transcript line (user/assistant/attachment/system) and returns its uuid. */
  transcript(body: Json, at: { ts?: number; parent?: string | null; uuid?: string; logicalParent?: string | null; tail?: Json } = {}): string {
    const uuid = this.uuid(at.uuid);
    const parentUuid = at.parent === undefined ? this.last : at.parent;
    const line: Json = { parentUuid };
    if (at.logicalParent !== undefined) line.logicalParentUuid = at.logicalParent;
    Object.assign(line, { isSidechain: false }, body, { uuid, timestamp: this.time(at.ts) }, at.tail ?? {}, {
      userType: 'external',
      entrypoint: this.envelope.entrypoint,
      cwd: this.envelope.cwd,
      sessionId: this.envelope.sessionId,
      version: this.envelope.version,
      gitBranch: this.envelope.gitBranch,
    });
    this.lines.push(JSON.stringify(line));
    this.last = uuid;
    return uuid;
  }

  /** Adds a metadata line (no uuid, not part of the chain). */
  metadata(record: Json): void {
    this.lines.push(JSON.stringify(record));
  }
}

interface Call {
  index: number;
  /** The id written for both the tool_use and its tool_result. */
  id: string;
  resultIndex?: number;
}

interface OpenMessage {
  id?: string;
  parts: number[];
  /** A result of one of its calls came by: an id-less assistant event after it starts a new message. */
  sawResult: boolean;
}

interface Block {
  block: Json;
  index: number;
  call?: Call;
}

interface WriterOptions {
  safety: boolean;
  sameId: boolean;
  branch: 'all' | 'active';
  defaultModel: string;
  artifactsDir?: string;
  start?: SpEvent;
  ledger: LossLedger;
}

const CONVERSATIONAL = /^(message\.(user|assistant|thinking)|tool\.(call|result)|context\.compiled)$/;

function isConversational(event: SpEvent): boolean {
  return !isDerived(event) && CONVERSATIONAL.test(event.type);
}

function isCompactBoundary(event: SpEvent): boolean {
  if (event.type !== 'meta') return false;
  const raw = rawRecord(event);
  return raw !== undefined && raw.type === 'system' && raw.subtype === 'compact_boundary';
}

/** A meta event holding one of Claude's own chain records (attachment, system). */
function isTranscriptMeta(event: SpEvent): boolean {
  if (event.type !== 'meta' || !fromClaude(event)) return false;
  const type = rawRecord(event)?.type;
  return type === 'attachment' || type === 'system';
}

class ClaudeWriter {
  readonly out: TranscriptLines;
  /** How often the chain went back to an earlier line: branches of the source session. */
  branches = 0;
  /** Per event: its result's position (-1 none; -2 not a call), and a result's call (-1 none): columns, not a Call object per call. */
  private readonly resultOf: Int32Array;
  private readonly ownerOf: Int32Array;
  /** The written ids that differ from the call's own (the rest are read from the call again). */
  private readonly renamedIds = new Map<number, string>();
  private skippedResults = new Map<number, SkippedResult>();
  /** Message ids written (an IdSet: a large session's Set of them held about 70 bytes an id). */
  private readonly usedMessageIds = new IdSet();
  /** Tool ids the API accepts, unique in the file (the resume-safety pass, lib/write/plan.ts). */
  private readonly toolIds: ToolIds;
  private readonly indexOfSeq: SeqPositions;
  /** Event index → the line that what follows the event hangs from (for an assistant message: its last result). */
  private readonly lineOf: UuidColumn;
  private readonly sessionModel?: string;
  private lastModel?: string;
  private lastPrompt?: string;
  private wroteTitle = false;
  /** The preserved segment of the last compact boundary, written again at the next conversation. */
  private pendingCopy?: number[];
  /** The event whose line was written last: a compaction's copy hangs from it. */
  private lastUnit?: number;
  /** True while re-writing a compaction's preserved segment: fresh ids, no second report. */
  private copying = false;

  constructor(
    private readonly events: SpEvent[],
    envelope: Envelope,
    private readonly options: WriterOptions,
  ) {
    this.out = new TranscriptLines(envelope);
    this.toolIds = new ToolIds(TOOL_ID_SPELLING, (action, code, reason, event) => this.loss(action, code, reason, event), options.safety);
    this.sessionModel = options.start ? str(payloadOf(options.start).model) : undefined;
    this.indexOfSeq = new SeqPositions(events);
    this.lineOf = new UuidColumn(events.length);
    this.resultOf = new Int32Array(events.length).fill(-2);
    this.ownerOf = new Int32Array(events.length).fill(-1);
  }

  private loss(action: LossEntry['action'], code: string, reason: string, event?: SpEvent): void {
    if (!this.copying) this.options.ledger.report(action, code, reason, event);
  }

  private readonly report: PlanReport = (action, code, reason, event) => this.loss(action, code, reason, event);

  /** Keeps native uuids on same-id moves; a rebuilt copy always gets fresh ones. */
  private nativeUuid(event: SpEvent): string | undefined {
    return this.options.sameId && !this.copying ? str(event.origin?.native_uuid) : undefined;
  }

  run(): void {
    this.pair();
    const keep = this.options.branch === 'active' ? this.activePath() : undefined;
    // Every event kept (the tree written whole): no column of positions (4 bytes an event) and no pass to fill it.
    if (!keep) this.layout(this.events.length);
    else {
      const indices = new Int32Array(this.events.length);
      let kept = 0;
      this.events.forEach((event, index) => {
        if (keep.has(index)) indices[kept++] = index;
        else if (isConversational(event) || isTranscriptMeta(event) || isDerived(event)) this.loss('dropped', LOSS.otherBranch, 'not on the active branch (--branch active)', event);
      });
      this.layout(kept, indices);
    }
    this.finish();
  }

  // ---- the session's tree (parent_seq) ----

  /** The event an event follows: `parent_seq` where capture set it (null: a new root), else the one before. */
  private parentOf(index: number): number | null {
    const event = this.events[index];
    if (event.parent_seq === null) return null;
    if (typeof event.parent_seq === 'number') {
      const at = this.indexOfSeq.last(event.parent_seq);
      if (at !== undefined && at < index) return at;
    }
    return index > 0 ? index - 1 : null;
  }

  /** The line an event hangs from: the nearest ancestor that was written. */
  private attachPoint(index: number): string | null {
    for (let p = this.parentOf(index); p !== null; p = this.parentOf(p)) {
      const line = this.lineOf.get(p);
      if (line !== undefined) return line;
    }
    return null;
  }

  /**
   * Before a new unit (message, attachment): when the source says it follows an earlier line than
   * the last one written (a branch, a rewind), the new line hangs from that line, so the written
   * file keeps the tree and the client's leaf walk finds the same history.
   */
  private attach(index: number): void {
    if (this.copying) return;
    const event = this.events[index];
    const at = event.parent_seq === null ? null : this.attachPoint(index);
    if (at === null && event.parent_seq !== null) return; // nothing written above it: stay linear
    if (at !== this.out.last) {
      if (at !== null) this.branches += 1;
      this.out.last = at;
    }
  }

  /** `--branch active`: the path from the last conversational event up to the root, results of its calls, and all metadata. */
  private activePath(): Set<number> {
    const keep = new Set<number>();
    let leaf = -1;
    this.events.forEach((e, i) => {
      if (isConversational(e)) leaf = i;
    });
    for (let i: number | null = leaf; i !== null && i >= 0; ) {
      keep.add(i);
      let parent = this.parentOf(i);
      // A compact boundary starts a new root; the history before it continues at its logical parent.
      if (parent === null && isCompactBoundary(this.events[i])) parent = this.logicalParentOf(i);
      i = parent;
    }
    this.events.forEach((e, i) => {
      if (keep.has(i)) return;
      if (e.type === 'tool.result') {
        const owner = this.ownerOf[i];
        if (owner !== -1 && keep.has(owner)) keep.add(i);
      } else if (!isConversational(e) && !isTranscriptMeta(e) && !isDerived(e)) {
        keep.add(i);
      }
    });
    return keep;
  }

  private logicalParentOf(index: number): number | null {
    const wanted = str(rawRecord(this.events[index])?.logicalParentUuid);
    for (let i = index - 1; i >= 0; i -= 1) if (wanted !== undefined && this.events[i].origin?.native_uuid === wanted) return i;
    return index > 0 ? index - 1 : null;
  }

  // ---- tool pairing ----

  // Pass 1: tool ids and call/result pairs (lib/write/plan.ts), before anything is written, so
  // that results can be placed right after their call wherever they appear in the stream.
  private pair(): void {
    const pairing = pairCalls(this.events);
    this.skippedResults = pairing.skipped;
    this.events.forEach((event, index) => {
      if (isDerived(event) || event.type !== 'tool.call') return;
      const own = ownCallId(event);
      const id = this.toolIds.id(own, event);
      if (id !== own) this.renamedIds.set(index, id);
      const result = pairing.resultOf.get(index);
      this.resultOf[index] = result ?? -1;
      if (result !== undefined) this.ownerOf[result] = index;
    });
  }

  /** The call at `index` (undefined: not a call): its written id and its result. */
  private callAt(index: number): Call | undefined {
    const result = this.resultOf[index];
    if (result === undefined || result === -2) return undefined;
    const call: Call = { index, id: this.renamedIds.get(index) ?? ownCallId(this.events[index]) };
    if (result !== -1) call.resultIndex = result;
    return call;
  }

  // ---- pass 2: lines in stream order ----

  /** Writes the first `count` events, or those at `indices` (the kept ones) when given. */
  private layout(count: number, indices?: ArrayLike<number>): void {
    let message: OpenMessage | null = null;
    const flush = (): void => {
      if (message) this.writeAssistant(message);
      message = null;
    };
    for (let k = 0; k < count; k += 1) {
      const index = indices ? indices[k] : k;
      const event = this.events[index];
      // Derived: its call carries it (the relay ledger counts what no writer reports on as carried).
      if (isDerived(event)) continue;
      const p = payloadOf(event);
      switch (event.type) {
        case 'message.thinking':
        case 'message.assistant':
        case 'tool.call': {
          const id = messageId(event);
          const m = message as OpenMessage | null;
          const continues = m !== null && (id !== undefined ? id === m.id : m.id === undefined && !m.sawResult);
          if (m && continues) {
            m.parts.push(index);
          } else {
            flush();
            this.writePreservedCopy();
            this.attach(index);
            message = { id, parts: [index], sawResult: false };
          }
          break;
        }
        case 'tool.result': {
          const owner = this.ownerOf[index];
          const m = message as OpenMessage | null;
          if (owner !== -1) {
            if (m && m.parts.includes(owner)) m.sawResult = true;
            break; // written right after its call
          }
          if (this.copying) break;
          if (this.options.safety) {
            reportOrphan(this.report, event, this.skippedResults.get(index) ?? 'orphan', 'the client would drop it silently', 'tool_result');
          } else {
            flush();
            this.attach(index);
            this.lineOf.set(index, this.writeResult(event, String(p.call_id ?? ''), this.out.last));
            this.lastUnit = index;
          }
          break;
        }
        case 'message.user':
          flush();
          this.writeUser(index);
          break;
        case 'context.compiled':
          // A compiled handoff context (sp-compile) becomes the opening user message.
          flush();
          this.writeUser(index, [{ type: 'text', text: String(p.text ?? '') }]);
          break;
        case 'meta':
          if (this.copying) break;
          this.writeMeta(index, flush);
          break;
        case 'session.start':
          break; // the envelope of every line says it
        case 'session.fork':
          break; // the child session it names is reported as a whole (child-session)
        case 'session.end':
          // Claude Code records no end: a transcript just stops.
          if (!this.copying) this.loss('dropped', 'session-end', 'session.end has no Claude Code record: not written', event);
          break;
        default:
          if (this.copying) break;
          this.loss('dropped', 'no-claude-record', `${event.type} has no Claude Code record; not written`, event);
      }
    }
    flush();
  }

  /**
   * After a compact boundary the client sends the summary and then the boundary's preserved
   * segment (formats §4). Fresh uuids cannot point back into the old segment, so it is written
   * again, right after the summary (or after the boundary when no summary follows), and what
   * followed the summary hangs from the copy.
   */
  private writePreservedCopy(): void {
    const preserved = this.pendingCopy;
    if (!preserved || this.copying) return;
    this.pendingCopy = undefined;
    if (preserved.length === 0) return;
    this.copying = true;
    try {
      this.layout(preserved.length, preserved);
    } finally {
      this.copying = false;
    }
    if (this.lastUnit !== undefined && this.out.last !== null) this.lineOf.set(this.lastUnit, this.out.last);
  }

  private writeAssistant(message: OpenMessage): void {
    const blocks: Block[] = [];
    let model: string | undefined;
    let stopReason: unknown;
    let usage: unknown;
    let messageExtra: Json | undefined;
    for (const index of message.parts) {
      const event = this.events[index];
      const p = payloadOf(event);
      model ??= str(p.model);
      if (p.stop_reason !== undefined && p.stop_reason !== null) stopReason = p.stop_reason;
      if (isObject(p.usage)) usage = p.usage;
      if (fromClaude(event) && isObject(p.message_extra)) messageExtra ??= p.message_extra;
      if (event.type === 'message.thinking') {
        const block = this.thinkingBlock(event);
        if (block) blocks.push({ block, index });
      } else if (event.type === 'tool.call') {
        const call = this.callAt(index)!;
        const block: Json = { type: 'tool_use', id: call.id, name: String(p.name ?? 'unknown'), input: p.input ?? {} };
        blocks.push({ block: this.withBlockExtra(block, event), index, call });
      } else {
        for (const block of this.assistantBlocks(event)) blocks.push({ block, index });
      }
    }
    const first = this.events[message.parts[0]];
    if (blocks.length === 0) {
      this.loss('dropped', 'empty-message', 'assistant message with no content left to write: skipped (the API rejects empty messages)', first);
      return;
    }
    if (model) {
      this.lastModel = model;
    } else {
      model = this.lastModel ?? this.sessionModel ?? this.options.defaultModel;
      const source = this.lastModel ? 'the previous message' : this.sessionModel ? 'the session' : 'the default';
      this.loss('stubbed', 'model', `assistant message had no model: wrote ${JSON.stringify(model)} from ${source} (the client hangs without one)`, first);
    }
    const hasToolUse = blocks.some((b) => b.call);
    const { type: _t, role: _r, stop_sequence: stopSequence, ...otherExtra } = messageExtra ?? {};
    const id = this.messageIdFor(message.id);
    const toolLines: Array<{ call: Call; uuid: string }> = [];
    for (const { block, index, call } of blocks) {
      const event = this.events[index];
      // Key order as the client writes it; every line carries the message's final stop_reason and usage.
      const msg = {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [block],
        stop_reason: stopReason ?? (hasToolUse ? 'tool_use' : 'end_turn'),
        stop_sequence: stopSequence ?? null,
        usage: usage ?? ZERO_USAGE,
        ...otherExtra,
      };
      const uuid = this.out.transcript({ type: 'assistant', message: msg }, { ts: event.ts, uuid: this.nativeUuid(event), tail: this.lineExtras(event) });
      if (call) toolLines.push({ call, uuid });
    }
    // §2.4: each result's parent is its own tool_use line; the next line follows the last result.
    let last = this.out.last;
    for (const { call, uuid } of toolLines) {
      if (call.resultIndex !== undefined) {
        last = this.writeResult(this.events[call.resultIndex], call.id, uuid);
      } else if (this.options.safety) {
        const callEvent = this.events[call.index];
        reportStub(this.report, callEvent, `wrote "${STUB_RESULT}"`, { noun: 'tool_use', id: call.id });
        last = this.out.transcript(
          { type: 'user', message: { role: 'user', content: [{ tool_use_id: call.id, type: 'tool_result', content: STUB_RESULT, is_error: true }] } },
          { ts: callEvent.ts, parent: uuid, tail: { sourceToolAssistantUUID: uuid } },
        );
      }
    }
    this.out.last = last;
    if (this.copying) return; // the copy is hung after its anchor as a whole
    // Whatever follows any part of this message (or one of its results) hangs from its last line.
    if (last !== null) {
      for (const index of message.parts) {
        this.lineOf.set(index, last);
        const resultIndex = this.resultOf[index];
        if (resultIndex >= 0) this.lineOf.set(resultIndex, last);
      }
    }
    this.lastUnit = message.parts[message.parts.length - 1];
  }

  /** A unique `message.id`: the client merges lines that share one, so two messages must never. */
  private messageIdFor(wanted: string | undefined): string {
    let id = wanted && !this.copying ? wanted : `msg_01${randomToken(22)}`;
    if (this.usedMessageIds.has(id)) {
      let n = 2;
      while (this.usedMessageIds.has(`${id}_${n}`)) n += 1;
      id = `${id}_${n}`;
    }
    this.usedMessageIds.add(id);
    return id;
  }

  /** Native line fields capture kept in `extra` (promptId, requestId, permissionMode …), for Claude's own events. */
  private lineExtras(event: SpEvent): Json {
    const extra = payloadOf(event).extra;
    if (!fromClaude(event) || !isObject(extra)) return {};
    const out: Json = {};
    for (const [k, v] of Object.entries(extra)) {
      if (CHAIN_KEYS.has(k) || (k === 'slug' && !this.options.sameId)) continue;
      setMember(out, k, v);
    }
    return out;
  }

  /** A block's own extra fields (capture's `block_extra`), for Claude's own events. */
  private withBlockExtra(block: Json, event: SpEvent): Json {
    const extra = payloadOf(event).block_extra;
    return fromClaude(event) && isObject(extra) ? { ...extra, ...block } : block;
  }

  private thinkingBlock(event: SpEvent): Json | undefined {
    const p = payloadOf(event);
    const text = typeof p.text === 'string' ? p.text : '';
    const provider = str(p.provider) ?? (fromClaude(event) ? 'anthropic' : undefined);
    const signature = str(p.signature);
    const anthropic = provider === 'anthropic';
    if (!this.options.safety) return this.withBlockExtra({ type: 'thinking', thinking: text, signature: signature ?? '' }, event);
    if (anthropic && p.visibility === 'redacted' && str(p.opaque)) return this.withBlockExtra({ type: 'redacted_thinking', data: p.opaque }, event);
    if (anthropic && signature) return this.withBlockExtra({ type: 'thinking', thinking: text, signature }, event);
    const whose = anthropic ? 'Anthropic reasoning without a signature' : `reasoning from ${provider ?? event.agent ?? 'another provider'}`;
    if (text.trim() === '') {
      this.loss('dropped', 'foreign-thinking', `${whose} has no readable text (${String(p.visibility ?? 'encrypted')}): dropped`, event);
      return undefined;
    }
    this.loss('transformed', 'foreign-thinking', `${whose} written as a text block (a thinking block needs a valid Anthropic signature)`, event);
    return { type: 'text', text: `[reasoning]\n${text}` };
  }

  private assistantBlocks(event: SpEvent): Json[] {
    const p = payloadOf(event);
    const content = Array.isArray(p.content) ? p.content : typeof p.content === 'string' ? [{ type: 'text', text: p.content }] : [];
    const out: Json[] = [];
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block.type === 'text') {
        const text = typeof block.text === 'string' ? block.text : '';
        if (this.options.safety && text.trim() === '') {
          this.loss('dropped', 'empty-text', 'empty text block dropped (the API rejects blank text blocks)', event);
          continue;
        }
        // Claude's own text blocks may carry more (citations …): kept as they were.
        out.push(fromClaude(event) ? { ...block, text } : { type: 'text', text });
      } else if (block.type === 'tool_use' || block.type === 'tool_result') {
        // Pointers to the tool.call / tool.result events, which carry the calls themselves.
      } else if (block.type === 'thinking') {
        const b = this.thinkingBlock({ ...event, payload: { ...block, message_id: p.message_id } });
        if (b) out.push(b);
      } else if (fromClaude(event) && typeof block.type === 'string' && CLAUDE_PASSTHROUGH_BLOCKS.has(block.type)) {
        out.push(block);
      } else {
        this.loss('dropped', 'unsupported-block', `assistant ${String(block.type)} block has no Claude equivalent: dropped`, event);
      }
    }
    return out;
  }

  /** User or tool-result content blocks in Anthropic shape; images resolved, pointers skipped. */
  private userBlocks(event: SpEvent, content: unknown, where: 'user message' | 'tool result'): Json[] {
    const list = Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content }] : [];
    const out: Json[] = [];
    for (const block of list) {
      if (!isObject(block)) continue;
      switch (block.type) {
        case 'text': {
          const text = typeof block.text === 'string' ? block.text : '';
          if (this.options.safety && text.trim() === '' && where === 'user message') {
            this.loss('dropped', 'empty-text', 'empty text block dropped (the API rejects blank text blocks)', event);
            continue;
          }
          out.push(fromClaude(event) ? { ...block, text } : { type: 'text', text });
          break;
        }
        case 'image': {
          const image = this.imageBlock(block, event);
          if (image) out.push(image);
          break;
        }
        case 'tool_use':
        case 'tool_result':
          break; // pointers to tool events
        default:
          if (fromClaude(event) && typeof block.type === 'string' && CLAUDE_PASSTHROUGH_BLOCKS.has(block.type)) {
            out.push(block);
          } else {
            this.loss('transformed', 'unsupported-block', `${String(block.type)} block in a ${where} written as JSON text`, event);
            out.push({ type: 'text', text: JSON.stringify(block) });
          }
      }
    }
    return out;
  }

  private imageBlock(block: Json, event: SpEvent): Json | undefined {
    const mediaType = str(block.media_type) ?? 'image/png';
    if (str(block.data)) return { type: 'image', source: { type: 'base64', media_type: mediaType, data: block.data } };
    const artifact = str(block.artifact);
    const read = artifact && this.options.artifactsDir ? readArtifactForWriter(this.options.artifactsDir, artifact) : undefined;
    if (read?.ok) return { type: 'image', source: { type: 'base64', media_type: mediaType, data: read.bytes.toString('base64') } };
    if (str(block.url)) return { type: 'image', source: { type: 'url', url: block.url } };
    const why = artifact ? `artifact ${artifactNote(artifact)}: ${read ? read.reason : 'pass --artifacts DIR'}` : 'no image data';
    this.loss('transformed', 'image', `image (${mediaType}) written as a text placeholder: ${why}`, event);
    return { type: 'text', text: `[image ${mediaType} not available: ${artifact ? artifactNote(artifact) : 'no data'}]` };
  }

  private writeUser(index: number, content?: Json[]): void {
    const event = this.events[index];
    const p = payloadOf(event);
    const isSummary = p.compact_summary === true;
    // The preserved segment goes right after the summary; any other message comes after it.
    if (!isSummary) this.writePreservedCopy();
    const blocks = content ?? this.userBlocks(event, p.content, 'user message');
    if (this.options.safety && blocks.every((b) => b.type === 'text' && String(b.text).trim() === '')) {
      this.loss('dropped', 'empty-message', 'user message with no content: skipped (the API rejects empty messages)', event);
      return;
    }
    this.attach(index);
    // A prompt is a plain string as the client writes it; Claude's own lines keep the form they had.
    const plain = blocks.length === 1 && blocks[0].type === 'text' && Object.keys(blocks[0]).length === 2;
    const asString = plain && (fromClaude(event) ? p.string_content === true : true);
    const message: Json = { role: 'user', content: asString ? blocks[0].text : blocks };
    if (fromClaude(event) && isObject(p.message_extra)) Object.assign(message, p.message_extra, { role: 'user', content: message.content });
    const body: Json = { type: 'user', message };
    if (p.is_meta === true) body.isMeta = true;
    if (isSummary) {
      body.isCompactSummary = true;
      body.isVisibleInTranscriptOnly = typeof p.visible_in_transcript_only === 'boolean' ? p.visible_in_transcript_only : true;
    } else if (p.visible_in_transcript_only === true) {
      body.isVisibleInTranscriptOnly = true;
    }
    const uuid = this.out.transcript(body, { ts: event.ts, uuid: this.nativeUuid(event), tail: this.lineExtras(event) });
    if (this.copying) return;
    this.lineOf.set(index, uuid);
    this.lastUnit = index;
    if (p.is_meta !== true && !isSummary) {
      const text = blocks.filter((b) => b.type === 'text').map((b) => String(b.text)).join('\n');
      if (text.trim() !== '') this.lastPrompt = text;
    }
    if (isSummary) this.writePreservedCopy();
  }

  private writeResult(event: SpEvent, id: string, parent: string | null): string {
    const p = payloadOf(event);
    const content = typeof p.content === 'string' ? p.content : this.userBlocks(event, p.content, 'tool result');
    const block: Json = this.withBlockExtra({ tool_use_id: id, type: 'tool_result', content }, event);
    if (p.is_error === true) block.is_error = true;
    const tail: Json = {};
    if (p.structured !== undefined) {
      // toolUseResult feeds the client's UI only; another agent's structure would not fit it.
      if (fromClaude(event)) tail.toolUseResult = p.structured;
      else this.loss('dropped', 'structured-result', `structured ${event.agent} tool result (UI data, never sent to the model) not written`, event);
    }
    if (parent) tail.sourceToolAssistantUUID = parent;
    Object.assign(tail, this.lineExtras(event));
    return this.out.transcript({ type: 'user', message: { role: 'user', content: [block] } }, { ts: event.ts, parent, uuid: this.nativeUuid(event), tail });
  }

  private writeMeta(index: number, flush: () => void): void {
    const event = this.events[index];
    const p = payloadOf(event);
    const key = String(p.key ?? '');
    const raw = rawRecord(event);
    const claude = fromClaude(event);
    const rawType = claude && raw ? str(raw.type) : undefined;

    if (rawType === 'ai-title' || rawType === 'custom-title' || key === 'claude.ai-title' || key === 'claude.custom-title') {
      const custom = rawType === 'custom-title' || key === 'claude.custom-title';
      const title = str(raw?.[custom ? 'customTitle' : 'aiTitle']) ?? str(p.value);
      if (title) {
        this.out.metadata(custom
          ? { type: 'custom-title', customTitle: title, sessionId: this.out.sessionId }
          : { type: 'ai-title', aiTitle: title, sessionId: this.out.sessionId });
        this.wroteTitle = true;
        return;
      }
    }
    if (raw && isCompactBoundary(event)) {
      flush();
      this.writeBoundary(index, raw);
      return;
    }
    if (raw && isTranscriptMeta(event)) {
      // The client's own attachment/system lines (listings, file attachments …): the same records,
      // re-linked into the new chain.
      flush();
      if (raw.isSidechain === true) {
        this.loss('dropped', 'sidechain', `sidechain ${String(rawType)} line not written into the main chain`, event);
        return;
      }
      const body: Json = {};
      for (const [k, v] of Object.entries(raw)) {
        if (!RELINK_KEYS.has(k) && !(k === 'slug' && !this.options.sameId)) body[k] = v;
      }
      this.attach(index);
      this.lineOf.set(index, this.out.transcript(body, { ts: event.ts, uuid: this.nativeUuid(event) }));
      this.lastUnit = index;
      return;
    }
    if (raw && rawType && !TRANSCRIPT_TYPES.has(rawType) && this.options.sameId && rawType !== 'last-prompt') {
      // Same-id move: the session's own metadata records stay valid as they are.
      this.out.metadata(raw);
      return;
    }
    if (claude && raw && rawType && !TRANSCRIPT_TYPES.has(rawType)) {
      const why = rawType === 'last-prompt' ? 'a new one is written for the new chain'
        : rawType === 'file-history-snapshot' ? 'it points at file backups of the old session'
        : 'bookkeeping of the old session, not needed to resume';
      this.loss('dropped', rawType, `${rawType} record not written: ${why}`, event);
      return;
    }
    if (rawType === 'user' || rawType === 'assistant') {
      this.loss('dropped', 'raw-message', `${rawType} line kept only as meta (${key || 'no key'}): not written`, event);
      return;
    }
    const what = key === 'unparseable' ? 'a line that was not JSON' : key === 'claude.blank-line' ? 'a blank line' : `meta ${key || '(no key)'} from ${event.agent}`;
    this.loss('dropped', claude ? 'meta' : 'foreign-meta', `${what} has no Claude Code record: not written`, event);
  }

  private writeBoundary(index: number, raw: Json): void {
    const event = this.events[index];
    const metadata = isObject(raw.compactMetadata) ? raw.compactMetadata : {};
    const preserved = this.preservedIndices(metadata, index);
    // The preserved-segment uuids name old lines; the copy written after the summary replaces them.
    const { preservedSegment: _s, preservedMessages: _m, ...kept } = metadata;
    const body: Json = {
      type: 'system',
      subtype: 'compact_boundary',
      content: typeof raw.content === 'string' ? raw.content : 'Conversation compacted',
      isMeta: false,
    };
    const tail: Json = { level: raw.level ?? 'info', compactMetadata: kept };
    if (this.options.sameId && typeof raw.slug === 'string') tail.slug = raw.slug;
    const uuid = this.out.transcript(body, { ts: event.ts, parent: null, logicalParent: this.out.last, uuid: this.nativeUuid(event), tail });
    this.lineOf.set(index, uuid);
    this.lastUnit = index;
    this.pendingCopy = preserved;
    if (preserved.length > 0) {
      this.loss('transformed', 'compaction', `compact boundary written with fresh uuids; its preserved segment (${preserved.length} event(s)) is written again after the summary so the client still sends it`, event);
    }
  }

  /** Indices of the events a compact boundary preserved (by native uuid), in stream order. */
  private preservedIndices(metadata: Json, boundary: number): number[] {
    const messages = isObject(metadata.preservedMessages) ? metadata.preservedMessages : undefined;
    const segment = isObject(metadata.preservedSegment) ? metadata.preservedSegment : undefined;
    const listed = Array.isArray(messages?.allUuids) ? messages.allUuids : Array.isArray(messages?.uuids) ? messages.uuids : undefined;
    const before = this.events.slice(0, boundary).map((event, index) => ({ event, index }));
    if (listed) {
      const wanted = new Set(listed.filter((u): u is string => typeof u === 'string'));
      return before.filter(({ event }) => isConversational(event) && wanted.has(String(event.origin?.native_uuid))).map(({ index }) => index);
    }
    const head = str(segment?.headUuid);
    const tail = str(segment?.tailUuid);
    if (!head || !tail) return [];
    const from = before.findIndex(({ event }) => event.origin?.native_uuid === head);
    let to = -1;
    before.forEach(({ event }, i) => {
      if (event.origin?.native_uuid === tail) to = i;
    });
    if (from < 0 || to < from) return [];
    return before.slice(from, to + 1).filter(({ event }) => isConversational(event)).map(({ index }) => index);
  }

  private finish(): void {
    this.writePreservedCopy();
    const start = this.options.start;
    const title = start ? str(payloadOf(start).title) : undefined;
    if (!this.wroteTitle && title) this.out.metadata({ type: 'ai-title', aiTitle: title, sessionId: this.out.sessionId });
    if (this.out.last === null) return;
    const record: Json = { type: 'last-prompt' };
    if (this.lastPrompt !== undefined) record.lastPrompt = this.lastPrompt;
    Object.assign(record, { leafUuid: this.out.last, sessionId: this.out.sessionId });
    this.out.metadata(record);
  }
}

// ---- entry point --------------------------------------------------------------------------------

/** Writes the (first, or `session`-selected) session of `events` as a new Claude Code transcript. */
export async function writeClaudeCodeTranscript(events: AsyncIterable<SpEvent>, options: ClaudeMaterializeOptions, target: ClaudeCodeTarget): Promise<ClaudeMaterializeResult> {
  // The session on disk, read by position (lib/write/spool.ts): the writer's plan holds indices, never the events.
  boundHeapGrowth(); // the writer makes garbage at the rate it reads: collect it sooner (heap-growth.ts)
  const selected = await SpooledSession.create(events, options.session);
  try {
    return writeSession(selected, options, target);
  } finally {
    selected.remove();
  }
}

/** The transcript of the selected session, written (or previewed). */
function writeSession(selected: SpooledSession, options: ClaudeMaterializeOptions, target: ClaudeCodeTarget): ClaudeMaterializeResult {
  const start = selected.start;
  const sp = start ? payloadOf(start) : {};
  const nativeId = str(sp.native_id);
  const sessionCwd = str(options.cwd) ?? str(sp.cwd);
  if (!sessionCwd) throw new UserError('the session names no cwd: pass --cwd DIR (the project folder the client will resume it from)');
  const claudeStart = start !== undefined && fromClaude(start);

  // The id is checked before anything is created: it becomes the file name and a word of the resume command.
  let sessionId: string;
  if (options.sameId) {
    const agent = start?.agent ?? selected.events[0]?.agent;
    if (agent !== FORMAT_AGENT) throw new UserError(`--same-id keeps a Claude Code session's own id; this session comes from ${agent ?? 'an unknown agent'} (drop --same-id to write it under a new id)`);
    sessionId = sameNativeId(options.idFormat ?? target.idFormat, nativeId);
  } else {
    sessionId = randomUUID();
  }
  if (options.mkcwd && !options.dryRun) mkdirSync(resolve(sessionCwd), { recursive: true });
  const cwd = target.resolveCwd(sessionCwd);
  const home = resolve(options.home ?? target.defaultHome());
  const path = checkedTranscriptPathOf(target.projectSlug, home, cwd, sessionId);
  if (options.sameId && existsSync(path)) {
    throw new UserError('exists already: --same-id never overwrites a session (move it away, or drop --same-id to write a copy under a new id)', path);
  }

  const ledger = new LossLedger(options.onLoss);
  for (const [id, other] of selected.others) {
    ledger.add({
      action: 'dropped',
      code: 'child-session',
      reason: `session ${id}${other.nativeId ? ` (native ${other.nativeId})` : ''}, ${other.count} event(s), is a separate (subagent) session: not written; the main transcript keeps the call that started it and its result`,
    });
  }

  let lines: string[] | SpooledLines;
  let finalNewline = true;
  let writtenAs: 'raw' | 'rebuilt';
  let branches = 0;
  const raw = options.sameId ? capturedRawLines(selected.events) : undefined;
  if (raw) {
    // The capture says whether the file ended with a newline; joined, the lines give it back exactly.
    finalNewline = sp.raw_final_newline !== false;
    lines = raw;
    writtenAs = 'raw';
  } else {
    const envelope: Envelope = {
      sessionId,
      cwd,
      version: claudeStart && str(sp.version) ? String(sp.version) : CLIENT_VERSION,
      gitBranch: str(sp.git_branch) ?? '',
      entrypoint: claudeStart && str(sp.entrypoint) ? String(sp.entrypoint) : 'cli',
    };
    const writer = new ClaudeWriter(selected.events, envelope, {
      safety: options.safety !== false,
      sameId: Boolean(options.sameId),
      branch: options.branch ?? 'all',
      defaultModel: options.model ?? target.defaultModel,
      artifactsDir: options.artifactsDir,
      start,
      ledger,
    });
    try {
      writer.run();
      if (writer.out.last === null) throw new UserError('nothing to write: the session has no messages');
    } catch (err) {
      writer.out.lines.remove();
      throw err;
    }
    lines = writer.out.lines;
    writtenAs = 'rebuilt';
    branches = writer.branches;
  }

  if (Array.isArray(lines)) writeLines(path, lines, { finalNewline, dryRun: options.dryRun, onLine: options.onLine });
  else {
    try {
      if (options.onLine) for (const line of lines.lines()) options.onLine(line);
      if (!options.dryRun) createFileAtomic(path, lines.chunks(), 0o600);
    } finally {
      lines.remove();
    }
  }

  const result: ClaudeMaterializeResult = {
    agent: target.agent,
    session_id: sessionId,
    path,
    cwd,
    ...resumeFields(cwd, target.resumeArgv(sessionId, options.model), target.home(home)),
    records: lines.length,
    written_as: writtenAs,
    source_session: selected.session,
    changes: ledger.counts,
  };
  if (branches > 0) result.branches = branches;
  if (options.dryRun) result.dry_run = true;
  return result;
}
