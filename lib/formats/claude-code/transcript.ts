// One Claude Code transcript line → canonical events (docs/formats/claude.md §2–§4). The mapper is
// synchronous and keeps all it needs between lines in a plain JSON `FileState`, so an incremental
// capture can store it in its cursor and continue exactly where the last run stopped.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { storeArtifact } from '../../core/artifacts.js';
import type { Diagnose } from '../../adapter/interface.js';
import type { SessionEmitter } from '../../core/emitter.js';
import type { Line } from '../../core/lines.js';
import { canonicalSessionId, toEpochSeconds, toIso, type Actor, type SpEvent } from '../../core/event.js';
import { isObject, rest, type Json } from '../../core/json.js';
import { nativeRawText, nonBlockContent, parseNativeLine } from '../../capture/native.js';
import { deriveEvents, newTodoState, type TodoState } from './derive.js';
import { levelOf } from './fidelity.js';
import { subagentNativeId } from './paths.js';
import { UuidMap } from '../../core/uuid-map.js';

export const AGENT = 'claude';
const ASSISTANT: Actor = 'agent:claude';

interface OpenCall {
  seq: number;
  name: string;
  input: unknown;
}

interface AgentCall {
  seq: number;
  subagent_type?: string;
  description?: string;
  /** Set once the call's result arrived. */
  done?: boolean;
  /** The subagent a fork already linked to this call. */
  forked?: string;
}

/** Everything the mapper carries from line to line (and, in a cursor, from run to run). */
export interface FileState {
  started: boolean;
  /** Envelope values announced in session.start: a line's equal values are not repeated in `extra`. */
  level: Record<string, string | boolean>;
  /** Whether the first line with a parentUuid was seen: later null parents are cuts (compaction). */
  root_seen: boolean;
  last_ts?: number;
  /** Native uuid → seq of the last event made from that line (the parent for its children). */
  uuids: Record<string, number>;
  /** Tool calls waiting for their result: what the derived events need. */
  open_calls: Record<string, OpenCall>;
  /** Calls whose tool_use had no id (old files), oldest first: results without an id pair with them. */
  idless_calls: string[];
  /** Agent/Task calls: the subagents' forks point at them. */
  agent_calls: Record<string, AgentCall>;
  /** agentId (from an Agent result) → call id. */
  agent_results: Record<string, string>;
  /** Task id → seq of the last TaskCreate/TaskUpdate call that touched it. */
  task_calls: Record<string, number>;
  todos: TodoState;
}

export function newFileState(): FileState {
  return { started: false, level: {}, root_seen: false, uuids: {}, open_calls: {}, idless_calls: [], agent_calls: {}, agent_results: {}, task_calls: {}, todos: newTodoState() };
}

const UUID_MAP = Symbol('uuids');

/**
 * The state's uuid → seq map, held compactly (a 1 GB transcript has a million uuids): the cursor's
 * plain object is built from it only when the state is written or copied (a getter in its place).
 */
function uuidMapOf(state: FileState): UuidMap {
  const held = (state as FileState & { [UUID_MAP]?: UuidMap })[UUID_MAP];
  if (held) return held;
  const map = UuidMap.from(state.uuids);
  Object.defineProperty(state, UUID_MAP, { value: map, enumerable: false });
  Object.defineProperty(state, 'uuids', { get: () => map.toRecord(), enumerable: true, configurable: true });
  return map;
}

/** A subagent transcript of this session, from its file name and `.meta.json`. */
export interface SubagentInfo {
  agentId: string;
  path: string;
  nativeId: string;
  session: string;
  toolUseId?: string;
  agentType?: string;
  description?: string;
  spawnDepth?: number;
}

export function subagentInfo(parentNativeId: string, agentId: string, path: string, meta: Json | undefined): SubagentInfo {
  const nativeId = subagentNativeId(parentNativeId, agentId);
  const info: SubagentInfo = { agentId, path, nativeId, session: canonicalSessionId(AGENT, nativeId) };
  if (meta) {
    if (typeof meta.toolUseId === 'string') info.toolUseId = meta.toolUseId;
    if (typeof meta.agentType === 'string') info.agentType = meta.agentType;
    if (typeof meta.description === 'string') info.description = meta.description;
    if (typeof meta.spawnDepth === 'number') info.spawnDepth = meta.spawnDepth;
  }
  return info;
}

export interface MapperOptions {
  emitter: SessionEmitter;
  path: string;
  state: FileState;
  raw?: boolean;
  artifactsDir?: string;
  /** Where file-history backups of this session live (for --artifacts). */
  fileHistoryDir?: string;
  onDiagnostic?: Diagnose;
  /** Subagents of this session (main transcripts only), and which of them already have a fork. */
  subagents?: SubagentInfo[];
  forks?: Record<string, boolean>;
}

/** Keys every envelope may repeat; equal to the session's values they are said once, in session.start. */
export const SESSION_KEYS = ['sessionId', 'cwd', 'version', 'gitBranch', 'userType', 'entrypoint', 'isSidechain', 'agentId'] as const;

const AGENT_TOOLS = new Set(['Agent', 'Task']);
const ASSISTANT_MAPPED = new Set(['id', 'model', 'content', 'stop_reason', 'usage', 'role']);
const ASSISTANT_MAPPED_BUT_ROLE = new Set(['id', 'model', 'content', 'stop_reason', 'usage']);

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

interface Pending {
  type: string;
  payload: Json;
  actor: Actor;
  derived_from?: number;
  refs?: string[];
  /** The cwd the record itself names (for command.run): never a value guessed from other lines. */
  cwd?: string;
}

export class TranscriptMapper {
  private readonly state: FileState;
  private readonly emitter: SessionEmitter;
  private readonly uuids: UuidMap;

  constructor(private readonly options: MapperOptions) {
    this.state = options.state;
    this.emitter = options.emitter;
    this.uuids = uuidMapOf(options.state);
  }

  get lastTs(): number | undefined {
    return this.state.last_ts;
  }

  /** The session.start event. `level` becomes the session-level envelope values. */
  start(payload: Json, ts: number, level: Record<string, string | boolean>): SpEvent {
    this.state.started = true;
    this.state.level = level;
    this.state.last_ts = ts;
    return this.emitter.emit('session.start', payload, ts, { actor: 'system', level: levelOf('session.start') });
  }

  /** Events made from one native line; never throws on bad input (bad lines become meta). */
  line(line: Line): SpEvent[] {
    const rawText = nativeRawText(this.options, line);
    const parsed = parseNativeLine(this.options, line);
    if (parsed.kind === 'blank') {
      return this.finishLine(line, undefined, [{ type: 'meta', payload: { key: 'claude.blank-line' }, actor: 'system' }], rawText);
    }
    if (parsed.kind === 'unparseable') return this.finishLine(line, undefined, [{ type: 'meta', payload: parsed.meta, actor: 'system' }], rawText);
    return this.record(line, parsed.record, rawText);
  }

  private record(line: Line, record: Json, rawText: string | undefined): SpEvent[] {
    const mapped = new Set<string>(['type']);
    const ts = toEpochSeconds(record.timestamp);
    // The ISO text is rebuilt from ts; keep it only when it would not come back the same.
    if (ts !== undefined && typeof record.timestamp === 'string' && toIso(ts) === record.timestamp) mapped.add('timestamp');
    if (typeof record.uuid === 'string') mapped.add('uuid');
    if (ts !== undefined) this.state.last_ts = ts;

    // parentUuid → parent_seq, decided before any event of the line takes a seq.
    let parentSeq: number | null | undefined;
    if ('parentUuid' in record) {
      const parent = record.parentUuid;
      if (parent === null) {
        if (this.state.root_seen) parentSeq = null; // a cut: compact_boundary, or a new root
        mapped.add('parentUuid');
      } else if (typeof parent === 'string' && this.uuids.get(parent) !== undefined) {
        const seq = this.uuids.get(parent)!;
        if (seq !== this.emitter.nextSeq - 1) parentSeq = seq;
        mapped.add('parentUuid');
      }
      this.state.root_seen = true;
    }

    let pending: Pending[];
    switch (record.type) {
      case 'user':
        pending = this.user(line, record, mapped);
        break;
      case 'assistant':
        pending = this.assistant(line, record, mapped);
        break;
      case 'tool_use':
        pending = this.topLevelToolUse(line, record, mapped);
        break;
      case 'tool_result':
        pending = this.topLevelToolResult(line, record, mapped);
        break;
      default:
        pending = [this.meta(record)];
        mapped.clear(); // meta carries the whole record as raw
    }
    if (pending.length > 0 && mapped.size > 0) {
      const extra = this.extra(record, mapped);
      if (extra) pending[0].payload.extra = extra;
    }
    const events = this.finishLine(line, record, pending, rawText, parentSeq);
    if (typeof record.uuid === 'string' && events.length > 0) this.uuids.set(record.uuid, events[events.length - 1].seq);
    return events;
  }

  /** Envelope fields no payload field holds, minus those equal to the session's own values. */
  private extra(record: Json, mapped: Set<string>): Json | undefined {
    let out: Json | undefined;
    const level = this.state.level;
    for (const key of Object.keys(record)) {
      if (mapped.has(key)) continue;
      const value = record[key];
      if (key in level && level[key] === value) continue;
      (out ??= {})[key] = value;
    }
    return out;
  }

  /**
   * Emits the line's events: origin on all, raw and parent_seq on the first; derived events and
   * forks that the line's tool calls and results produce follow their source event.
   */
  private finishLine(line: Line, record: Json | undefined, pending: Pending[], rawText: string | undefined, parentSeq?: number | null): SpEvent[] {
    const ts = this.state.last_ts ?? 0;
    const origin: Json = { native_seq: line.number };
    if (record && typeof record.uuid === 'string') origin.native_uuid = record.uuid;
    const events: SpEvent[] = [];
    for (let i = 0; i < pending.length; i += 1) {
      const p = pending[i];
      const event = this.emitter.emit(p.type, p.payload, ts, {
        actor: p.actor,
        level: levelOf(p.type),
        refs: p.refs,
        parent_seq: i === 0 ? parentSeq : undefined,
        derived_from: p.derived_from,
        origin: i === 0 && rawText !== undefined ? { ...origin, raw: [rawText] } : origin,
      });
      events.push(event);
      this.afterEmit(event, p, pending, i);
    }
    return events;
  }

  /** Bookkeeping that needs the seq an event got: open calls, agent calls, task ids. */
  private afterEmit(event: SpEvent, p: Pending, pending: Pending[], index: number): void {
    if (event.type === 'tool.call') {
      const callId = String(p.payload.call_id);
      this.state.open_calls[callId] = { seq: event.seq, name: String(p.payload.name), input: p.payload.input };
      if (AGENT_TOOLS.has(String(p.payload.name))) {
        const input = isObject(p.payload.input) ? p.payload.input : {};
        const call: AgentCall = { seq: event.seq };
        if (typeof input.subagent_type === 'string') call.subagent_type = input.subagent_type;
        if (typeof input.description === 'string') call.description = input.description;
        this.state.agent_calls[callId] = call;
        const sub = this.options.subagents?.find((s) => s.toolUseId === callId && !this.options.forks?.[s.agentId]);
        if (sub) pending.splice(index + 1, 0, this.fork(sub, callId, call));
      }
    } else if (event.type === 'tool.result') {
      const callId = String(p.payload.call_id);
      const call = this.state.open_calls[callId];
      if (!call) return;
      delete this.state.open_calls[callId];
      const derived = deriveEvents(
        {
          name: call.name,
          input: call.input,
          content: p.payload.content,
          isError: p.payload.is_error === true,
          structured: p.payload.structured,
          cwd: p.cwd,
        },
        this.state.todos,
      );
      const follow: Pending[] = derived.map((d) => ({ type: d.type, payload: d.payload, actor: 'tool' as Actor, derived_from: call.seq }));
      if (call.name === 'TaskCreate' || call.name === 'TaskUpdate') {
        for (const d of derived) this.state.task_calls[String(d.payload.id)] = call.seq;
      }
      const agentCall = this.state.agent_calls[callId];
      if (agentCall) {
        agentCall.done = true;
        const structured = p.payload.structured;
        const agentId = isObject(structured) && typeof structured.agentId === 'string' ? structured.agentId : undefined;
        if (agentId !== undefined) {
          this.state.agent_results[agentId] = callId;
          const sub = this.options.subagents?.find((s) => s.agentId === agentId && !this.options.forks?.[s.agentId]);
          if (sub) follow.push(this.fork(sub, callId, agentCall));
        }
      }
      pending.splice(index + 1, 0, ...follow);
    }
  }

  private fork(sub: SubagentInfo, callId: string | undefined, call: AgentCall | undefined): Pending {
    this.options.forks![sub.agentId] = true;
    if (call) call.forked = sub.agentId;
    const payload: Json = { to_session: sub.session, native_id: sub.nativeId, reason: 'subagent', agent_id: sub.agentId };
    if (callId !== undefined) payload.call_id = callId;
    if (call) payload.from_seq = call.seq;
    if (sub.agentType !== undefined) payload.agent_type = sub.agentType;
    if (sub.description !== undefined) payload.description = sub.description;
    return { type: 'session.fork', payload, actor: 'system' };
  }

  /**
   * Forks for subagents that no call has claimed yet: matched by the call id in their meta, by the
   * agentId an Agent result named, or by agent type. With `final` false (incremental capture) a
   * subagent waits while Agent calls are still running, since their results may still name it.
   */
  finish(final: boolean): SpEvent[] {
    const subs = (this.options.subagents ?? []).filter((s) => !this.options.forks?.[s.agentId]);
    if (subs.length === 0) return [];
    const pending: Pending[] = [];
    const running = Object.values(this.state.agent_calls).some((c) => !c.done);
    for (const sub of subs) {
      let callId = sub.toolUseId !== undefined && this.state.agent_calls[sub.toolUseId] ? sub.toolUseId : this.state.agent_results[sub.agentId];
      if (callId === undefined && (final || !running) && sub.agentType !== undefined) {
        callId = Object.entries(this.state.agent_calls)
          .filter(([, c]) => !c.forked && c.subagent_type === sub.agentType)
          .sort((a, b) => a[1].seq - b[1].seq)[0]?.[0];
      }
      if (callId === undefined && !final && running) continue;
      pending.push(this.fork(sub, callId, callId !== undefined ? this.state.agent_calls[callId] : undefined));
    }
    const ts = this.state.last_ts ?? 0;
    return pending.map((p) => this.emitter.emit(p.type, p.payload, ts, { actor: p.actor, level: levelOf(p.type) }));
  }

  /** A todo event for one `tasks/<session>/<n>.json` file (the task list's current state). */
  taskFile(path: string, task: Json): SpEvent {
    const id = String(task.id ?? '');
    const known = this.state.task_calls[id];
    const payload: Json = { id, source: 'tasks_file' };
    if (typeof task.subject === 'string') payload.content = task.subject;
    if (typeof task.status === 'string') payload.status = task.status;
    if (typeof task.activeForm === 'string') payload.active_form = task.activeForm;
    if (typeof task.description === 'string') payload.description = task.description;
    if (Array.isArray(task.blocks)) payload.blocks = task.blocks;
    if (Array.isArray(task.blockedBy)) payload.blocked_by = task.blockedBy;
    const other = rest(task, new Set(['id', 'subject', 'status', 'activeForm', 'description', 'blocks', 'blockedBy']));
    if (other) payload.extra = other;
    const type = known !== undefined ? 'todo.update' : 'todo.add';
    return this.emitter.emit(type, payload, this.state.last_ts ?? 0, {
      actor: 'tool',
      level: levelOf(type),
      derived_from: known,
      origin: { path },
    });
  }

  /** A meta event about a side file of this session (not a transcript line). */
  metaFor(path: string, payload: Json): SpEvent {
    return this.emitter.emit('meta', payload, this.state.last_ts ?? 0, { actor: 'system', level: levelOf('meta'), origin: { path } });
  }

  // ---- record kinds -------------------------------------------------------------------------

  /** Content blocks in canonical form: images as {media_type, data} or artifact refs; others as they are. */
  private blocks(content: unknown[], refs: string[]): unknown[] {
    return content.map((block) => {
      if (!isObject(block) || block.type !== 'image' || !isObject(block.source)) return block;
      const { source, type: _type, ...others } = block;
      if (source.type === 'base64' && typeof source.data === 'string') {
        const out: Json = { type: 'image', media_type: str(source.media_type) ?? 'application/octet-stream', ...others };
        if (this.options.artifactsDir) {
          const ref = storeArtifact(this.options.artifactsDir, Buffer.from(source.data, 'base64'));
          out.artifact = ref;
          refs.push(`artifact:${ref}`);
        } else {
          out.data = source.data;
        }
        const sourceRest = rest(source, new Set(['type', 'media_type', 'data']));
        if (sourceRest) out.source_extra = sourceRest;
        return out;
      }
      if (source.type === 'url' && typeof source.url === 'string') {
        const out: Json = { type: 'image', url: source.url, ...others };
        out.media_type = str(source.media_type) ?? 'application/octet-stream';
        return out;
      }
      return block; // an image source this capture does not know: kept verbatim
    });
  }

  private userFlags(record: Json, mapped: Set<string>): Json {
    const flags: Json = {};
    const names: Array<[string, string]> = [
      ['isMeta', 'is_meta'],
      ['isCompactSummary', 'compact_summary'],
      ['isVisibleInTranscriptOnly', 'visible_in_transcript_only'],
    ];
    for (const [native, canonical] of names) {
      if (typeof record[native] === 'boolean') {
        flags[canonical] = record[native];
        mapped.add(native);
      }
    }
    return flags;
  }

  private user(line: Line, record: Json, mapped: Set<string>): Pending[] {
    const message = record.message;
    const flags = this.userFlags(record, mapped);
    const system = flags.is_meta === true || flags.compact_summary === true;
    const promptActor: Actor = system ? 'system' : 'user';
    if (!isObject(message)) {
      // No message: keep the line as an empty user message; the record's fields go to extra.
      return [{ type: 'message.user', payload: { content: [], ...flags }, actor: promptActor }];
    }
    mapped.add('message');
    const messageExtra = rest(message, new Set(message.role === 'user' || message.role === undefined ? ['role', 'content'] : ['content']));
    const content = message.content;
    const refs: string[] = [];
    if (!Array.isArray(content)) {
      const payload = nonBlockContent(content, { ...flags });
      if (messageExtra) payload.message_extra = messageExtra;
      return [{ type: 'message.user', payload, actor: promptActor }];
    }
    const out: Pending[] = [];
    let group: unknown[] = [];
    let structuredUsed = false;
    const flushGroup = () => {
      if (group.length === 0) return;
      const payload: Json = { content: this.blocks(group, refs), ...flags };
      out.push({ type: 'message.user', payload, actor: promptActor, refs: refs.splice(0) });
      group = [];
    };
    content.forEach((block, index) => {
      if (!isObject(block) || block.type !== 'tool_result') {
        group.push(block);
        return;
      }
      flushGroup();
      const callId = this.resultCallId(line, record, block, index);
      const payload: Json = {
        call_id: callId.id,
        content: Array.isArray(block.content) ? this.blocks(block.content, refs) : typeof block.content === 'string' ? block.content : '',
        is_error: block.is_error === true,
      };
      if (callId.synthetic) payload.call_id_synthetic = true;
      if (callId.inferred) payload.call_id_inferred = true;
      if (block.content !== undefined && typeof block.content !== 'string' && !Array.isArray(block.content)) payload.native_content = block.content;
      const name = this.state.open_calls[callId.id]?.name;
      if (name !== undefined) payload.name = name;
      if (!structuredUsed && 'toolUseResult' in record) {
        payload.structured = record.toolUseResult;
        mapped.add('toolUseResult');
        structuredUsed = true;
      }
      const blockExtra = rest(block, new Set(['type', 'tool_use_id', 'content', 'is_error']));
      if (blockExtra) payload.block_extra = blockExtra;
      Object.assign(payload, flags);
      out.push({ type: 'tool.result', payload, actor: 'tool', refs: refs.splice(0), cwd: str(record.cwd) });
    });
    flushGroup();
    if (out.length === 0) out.push({ type: 'message.user', payload: { content: [], ...flags }, actor: promptActor });
    if (messageExtra) out[0].payload.message_extra = messageExtra;
    return out;
  }

  /** The call a tool_result answers: its tool_use_id, else the oldest id-less call, else a made-up id. */
  private resultCallId(line: Line, record: Json, block: Json, index: number): { id: string; synthetic?: boolean; inferred?: boolean } {
    if (typeof block.tool_use_id === 'string' && block.tool_use_id !== '') return { id: block.tool_use_id };
    const oldest = this.state.idless_calls.shift();
    if (oldest !== undefined) return { id: oldest, inferred: true };
    if (typeof record.sourceToolUseID === 'string' && record.sourceToolUseID !== '') return { id: record.sourceToolUseID, inferred: true };
    return { id: `line${line.number}_result${index}`, synthetic: true };
  }

  private assistant(line: Line, record: Json, mapped: Set<string>): Pending[] {
    const message = record.message;
    if (!isObject(message)) {
      return [{ type: 'message.assistant', payload: { content: [], message_id: `line${line.number}`, message_id_synthetic: true }, actor: ASSISTANT }];
    }
    mapped.add('message');
    const common: Json = {};
    if (typeof message.id === 'string' && message.id !== '') common.message_id = message.id;
    else {
      // Old files have no message.id: one line was one API message, so the line names it.
      common.message_id = typeof record.uuid === 'string' ? record.uuid : `line${line.number}`;
      common.message_id_synthetic = true;
    }
    if (typeof message.model === 'string') common.model = message.model;
    if (message.model === '<synthetic>') common.synthetic = true;
    if ('stop_reason' in message) common.stop_reason = message.stop_reason ?? null;
    if (isObject(message.usage)) common.usage = message.usage;
    const messageExtra = rest(message, message.role === 'assistant' || message.role === undefined ? ASSISTANT_MAPPED : ASSISTANT_MAPPED_BUT_ROLE);
    if (messageExtra) common.message_extra = messageExtra;
    const content = message.content;
    if (!Array.isArray(content)) {
      return [{ type: 'message.assistant', payload: nonBlockContent(content, { ...common }), actor: ASSISTANT }];
    }
    const out: Pending[] = [];
    content.forEach((block, index) => {
      if (!isObject(block)) {
        out.push({ type: 'message.assistant', payload: { content: [block], ...common }, actor: ASSISTANT });
        return;
      }
      switch (block.type) {
        case 'thinking': {
          const payload: Json = { text: str(block.thinking) ?? '', visibility: 'visible', provider: 'anthropic', ...common };
          if (typeof block.signature === 'string') payload.signature = block.signature;
          const blockExtra = rest(block, new Set(['type', 'thinking', 'signature']));
          if (blockExtra) payload.block_extra = blockExtra;
          out.push({ type: 'message.thinking', payload, actor: ASSISTANT });
          break;
        }
        case 'redacted_thinking': {
          const payload: Json = { text: '', visibility: 'redacted', provider: 'anthropic', ...common };
          if (typeof block.data === 'string') payload.opaque = block.data;
          const blockExtra = rest(block, new Set(['type', 'data']));
          if (blockExtra) payload.block_extra = blockExtra;
          out.push({ type: 'message.thinking', payload, actor: ASSISTANT });
          break;
        }
        case 'tool_use': {
          let callId = str(block.id);
          let synthetic = false;
          if (callId === undefined || callId === '') {
            callId = `line${line.number}_call${index}`;
            synthetic = true;
            this.state.idless_calls.push(callId);
          }
          const payload: Json = { call_id: callId, name: str(block.name) ?? 'unknown', input: block.input ?? {}, ...common };
          if (synthetic) payload.call_id_synthetic = true;
          if (block.input === undefined) payload.input_missing = true;
          const blockExtra = rest(block, new Set(['type', 'id', 'name', 'input']));
          if (blockExtra) payload.block_extra = blockExtra;
          out.push({ type: 'tool.call', payload, actor: ASSISTANT });
          break;
        }
        default: {
          // text, and any block this capture does not know (server tools, fallbacks …), verbatim.
          const refs: string[] = [];
          out.push({ type: 'message.assistant', payload: { content: this.blocks([block], refs), ...common }, actor: ASSISTANT, refs });
        }
      }
    });
    if (out.length === 0) out.push({ type: 'message.assistant', payload: { content: [], ...common }, actor: ASSISTANT });
    return out;
  }

  /** Old files: a tool call as its own record `{type:"tool_use", name, input}`. */
  private topLevelToolUse(line: Line, record: Json, mapped: Set<string>): Pending[] {
    let callId = str(record.id) ?? str(record.tool_use_id);
    let synthetic = false;
    if (callId) mapped.add(record.id !== undefined ? 'id' : 'tool_use_id');
    else {
      callId = str(record.uuid) ?? `line${line.number}_call`;
      synthetic = true;
      this.state.idless_calls.push(callId);
    }
    for (const key of ['name', 'input']) mapped.add(key);
    const payload: Json = { call_id: callId, name: str(record.name) ?? 'unknown', input: record.input ?? {} };
    if (synthetic) payload.call_id_synthetic = true;
    return [{ type: 'tool.call', payload, actor: ASSISTANT }];
  }

  /** Old files: a tool result as its own record `{type:"tool_result", name, output}`. */
  private topLevelToolResult(line: Line, record: Json, mapped: Set<string>): Pending[] {
    const id = this.resultCallId(line, record, { tool_use_id: record.tool_use_id }, 0);
    if (record.tool_use_id !== undefined) mapped.add('tool_use_id');
    const contentKey = 'output' in record ? 'output' : 'content' in record ? 'content' : undefined;
    const value = contentKey ? record[contentKey] : undefined;
    if (contentKey) mapped.add(contentKey);
    const payload: Json = { call_id: id.id, content: typeof value === 'string' ? value : Array.isArray(value) ? this.blocks(value, []) : '' };
    if (contentKey !== undefined && typeof value !== 'string' && !Array.isArray(value)) payload.native_content = value;
    payload.is_error = record.is_error === true;
    if (typeof record.is_error === 'boolean') mapped.add('is_error');
    if (id.synthetic) payload.call_id_synthetic = true;
    if (id.inferred) payload.call_id_inferred = true;
    if (typeof record.name === 'string') {
      payload.name = record.name;
      mapped.add('name');
    }
    return [{ type: 'tool.result', payload, actor: 'tool', cwd: str(record.cwd) }];
  }

  /** Any other record: `meta` keyed by its type (and subtype), with a useful value and the record itself. */
  private meta(record: Json): Pending {
    const type = typeof record.type === 'string' && record.type !== '' ? record.type : undefined;
    let key = type !== undefined ? `claude.${type}` : 'claude.untyped';
    const payload: Json = { key };
    let value: unknown;
    const refs: string[] = [];
    switch (type) {
      case 'system':
        if (typeof record.subtype === 'string') key += `.${record.subtype}`;
        value = record.subtype === 'compact_boundary' ? record.compactMetadata : record.content ?? undefined;
        break;
      case 'attachment': {
        const attachment = isObject(record.attachment) ? record.attachment : undefined;
        if (typeof attachment?.type === 'string') key += `.${attachment.type}`;
        if (typeof attachment?.filename === 'string') value = attachment.filename;
        break;
      }
      case 'progress':
        if (isObject(record.data) && typeof record.data.type === 'string') value = record.data.type;
        break;
      case 'summary':
        value = record.summary;
        break;
      case 'ai-title':
        value = record.aiTitle;
        break;
      case 'custom-title':
        value = record.customTitle;
        break;
      case 'agent-name':
        value = record.agentName;
        break;
      case 'last-prompt': {
        const v: Json = {};
        if (record.lastPrompt !== undefined) v.last_prompt = record.lastPrompt;
        if (record.leafUuid !== undefined) v.leaf_uuid = record.leafUuid;
        value = v;
        break;
      }
      case 'queue-operation': {
        const v: Json = { operation: record.operation };
        if (record.content !== undefined) v.content = record.content;
        value = v;
        break;
      }
      case 'mode':
        value = record.mode;
        break;
      case 'permission-mode':
        value = record.permissionMode;
        break;
      case 'file-history-snapshot':
        value = this.snapshotValue(record, refs);
        break;
    }
    payload.key = key;
    if (value !== undefined) payload.value = value;
    payload.raw = record;
    return { type: 'meta', payload, actor: 'system', refs };
  }

  /** The files a file-history snapshot tracks; with --artifacts their backups are stored as artifacts. */
  private snapshotValue(record: Json, refs: string[]): Json {
    const snapshot = isObject(record.snapshot) ? record.snapshot : {};
    const tracked = isObject(snapshot.trackedFileBackups) ? snapshot.trackedFileBackups : {};
    const value: Json = { message_id: record.messageId, is_update: record.isSnapshotUpdate, files: Object.keys(tracked) };
    if (this.options.artifactsDir && this.options.fileHistoryDir) {
      const artifacts: Json = {};
      for (const [file, backup] of Object.entries(tracked)) {
        const name = isObject(backup) ? str(backup.backupFileName) : undefined;
        if (!name) continue;
        let bytes: Buffer;
        try {
          bytes = readFileSync(join(this.options.fileHistoryDir, name));
        } catch {
          continue; // the client prunes old backups; the snapshot still says which existed
        }
        const ref = storeArtifact(this.options.artifactsDir, bytes);
        artifacts[file] = ref;
        refs.push(`artifact:${ref}`);
      }
      if (Object.keys(artifacts).length > 0) value.artifacts = artifacts;
    }
    return value;
  }
}
