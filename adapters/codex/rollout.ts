// One Codex rollout line → canonical events (docs/formats/codex.md §2–§4). Both file styles go through
// here: the paginated style only adds `ordinal` and `metadata` to the envelope (kept in
// `envelope_extra`) and other event_msg kinds (kept as meta). The model-visible history is the
// response_items; event_msg lines echo the same turns for the UI, so they become `meta` and are
// never counted as turns. The mapper is synchronous and keeps what it needs between lines in a
// plain JSON `RolloutState`, so an incremental capture stores it in its cursor and continues.
import { createHash } from 'node:crypto';
import { canonicalize } from '../../lib/core/jcs.js';
import { storeArtifact } from '../../lib/core/artifacts.js';
import type { Diagnose } from '../../lib/adapter/interface.js';
import type { SessionEmitter } from '../../lib/core/emitter.js';
import type { Line } from '../../lib/core/lines.js';
import { toEpochSeconds, toIso, type Actor, type SpEvent } from '../../lib/core/event.js';
import { isObject, jsonObject, rest, type Json } from '../../lib/core/json.js';
import { nativeRawText, parseNativeLine } from '../../lib/capture/native.js';
import { deriveEvents, newPlanState, type OpenCall, type PlanState } from './derive.js';
import { levelOf } from './fidelity.js';
import { AGENT } from './paths.js';

const ASSISTANT: Actor = 'agent:codex';

/** Everything the mapper carries from line to line (and, in a cursor, from run to run). */
export interface RolloutState {
  started: boolean;
  /** The first session_meta became session.start; later ones (forks, copies) are meta. */
  meta_seen: boolean;
  last_ts?: number;
  /** The model and cwd of the current turn (turn_context). */
  model?: string;
  cwd?: string;
  open_calls: Record<string, OpenCall>;
  plans: PlanState;
  /** The current turn's collaboration mode (turn_context.collaboration_mode.mode: plan, default …). */
  mode?: string;
  /** The last plan proposed in plan mode (`<proposed_plan>` in an agent message), until the mode ends. */
  proposed?: { seq: number; plan: string };
}

export function newRolloutState(): RolloutState {
  return { started: false, meta_seen: false, open_calls: {}, plans: newPlanState() };
}

/** What the head of a rollout says beyond its session_meta line (discover.ts scans it). */
export interface HeadInfo {
  meta?: Json;
  model?: string;
  title?: string;
  firstTs?: number;
}

export interface MapperOptions {
  emitter: SessionEmitter;
  path: string;
  state: RolloutState;
  raw?: boolean;
  artifactsDir?: string;
  onDiagnostic?: Diagnose;
  /** What the head scan found (model, title …) for session.start. */
  head: HeadInfo;
  /** session.start's time when no line has one (the file's mtime). */
  fallbackTs: number;
  /** More session.start fields (raw_final_newline …). */
  startExtra?: Json;
}

interface Pending {
  type: string;
  payload: Json;
  actor: Actor;
  derived_from?: number;
  refs?: string[];
}

/** Context the client injects as ordinary messages (docs/formats/codex.md §3.2): not the user's words. */
const CONTEXT_PREFIXES = [
  '<environment_context>', '<user_instructions>', '# AGENTS.md instructions', '<permissions instructions>',
  '<skills_instructions>', '<user_shell_command>', '<turn_aborted>', '<subagent_notification>', '<collaboration_mode>',
];
/** Output texts the client writes when a call failed as a call (not as a command). */
const ERROR_OUTPUT = /^(failed to parse function arguments|unsupported call|apply_patch verification failed|aborted$|unknown tool|Error: )/;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function sha256(text: string): string {
  return 'sha256:' + createHash('sha256').update(text).digest('hex');
}

/** The `<image name=…>` / `</image>` parts the client puts around an attached image. */
export function isImageWrapper(text: string): boolean {
  return /^<image\b[^>]*>$/.test(text.trim()) || text.trim() === '</image>';
}

/** Whether a user-role message is only client-injected context. */
export function isContextText(text: string): boolean {
  const t = text.trimStart();
  return CONTEXT_PREFIXES.some((p) => t.startsWith(p));
}

export class RolloutMapper {
  private readonly state: RolloutState;
  private readonly emitter: SessionEmitter;

  constructor(private readonly options: MapperOptions) {
    this.state = options.state;
    this.emitter = options.emitter;
  }

  get lastTs(): number | undefined {
    return this.state.last_ts;
  }

  /**
   * session.start, from the first session_meta line (then it carries that line's origin) or, for a
   * file that does not start with one, from what the head and the file name say.
   */
  private start(metaRecord: Json | undefined, lineTs: number | undefined, line?: Line, rawText?: string): SpEvent[] {
    this.state.started = true;
    const head = this.options.head;
    const meta = metaRecord ?? head.meta ?? {};
    const payload: Json = { native_id: this.emitter.nativeId, source_path: this.options.path };
    const cwd = str(meta.cwd);
    if (cwd !== undefined) payload.cwd = cwd;
    const git = isObject(meta.git) ? meta.git : undefined;
    if (git) {
      if (typeof git.branch === 'string') payload.git_branch = git.branch;
      if (typeof git.commit_hash === 'string') payload.git_head = git.commit_hash;
      if (typeof git.repository_url === 'string') payload.git_origin = git.repository_url;
    }
    if (head.model !== undefined) payload.model = head.model;
    if (typeof meta.cli_version === 'string') payload.version = meta.cli_version;
    if (head.title !== undefined) payload.title = head.title;
    for (const key of ['model_provider', 'originator', 'source', 'history_mode', 'instructions', 'timestamp'] as const) {
      if (meta[key] !== undefined) payload[key === 'timestamp' ? 'started_at' : key] = meta[key];
    }
    const refs: string[] = [];
    const base = meta.base_instructions;
    if (isObject(base) && typeof base.text === 'string') {
      // The client's whole system prompt (~20 KB): said once here, by digest, never per event.
      const info: Json = { digest: sha256(base.text), chars: base.text.length };
      if (this.options.artifactsDir) {
        const ref = storeArtifact(this.options.artifactsDir, Buffer.from(base.text));
        info.artifact = ref;
        refs.push(`artifact:${ref}`);
      } else {
        info.text = base.text;
      }
      const other = rest(base, ['text']);
      if (other) Object.assign(info, other);
      payload.base_instructions = info;
    } else if (base !== undefined) {
      payload.base_instructions = { native: base };
    }
    const metaRest = rest(meta, ['id', 'cwd', 'git', 'cli_version', 'model_provider', 'originator', 'source', 'history_mode', 'instructions', 'timestamp', 'base_instructions']);
    if (metaRest) payload.meta_extra = metaRest;
    if (this.options.startExtra) Object.assign(payload, this.options.startExtra);
    const ts = lineTs ?? toEpochSeconds(meta.timestamp) ?? head.firstTs ?? this.options.fallbackTs;
    this.state.last_ts = ts;
    if (!line) return [this.emitter.emit('session.start', payload, ts, { actor: 'system', level: levelOf('session.start'), refs })];
    this.state.meta_seen = true;
    return this.finishLine(line, undefined, [{ type: 'session.start', payload, actor: 'system', refs }], rawText);
  }

  /** session.start alone, for a file with no lines at all. */
  startOnly(): SpEvent[] {
    return this.start(undefined, undefined);
  }

  /** Events made from one native line; never throws on bad input (bad lines become meta). */
  line(line: Line): SpEvent[] {
    const rawText = nativeRawText(this.options, line);
    if (!this.state.started) {
      // The first session_meta line is session.start; any other first line gets one made up before it.
      const record = jsonObject(line.text);
      if (record?.type === 'session_meta' && isObject(record.payload)) {
        return this.start(record.payload, toEpochSeconds(record.timestamp), line, rawText);
      }
      return [...this.start(undefined, undefined), ...this.lineEvents(line, rawText)];
    }
    return this.lineEvents(line, rawText);
  }

  /** Events made from a line that is not the session's opening session_meta. */
  private lineEvents(line: Line, rawText: string | undefined): SpEvent[] {
    const parsed = parseNativeLine(this.options, line);
    if (parsed.kind === 'blank') {
      return this.finishLine(line, undefined, [{ type: 'meta', payload: { key: 'codex.blank-line' }, actor: 'system' }], rawText);
    }
    if (parsed.kind === 'unparseable') return this.finishLine(line, undefined, [{ type: 'meta', payload: parsed.meta, actor: 'system' }], rawText);
    return this.record(line, parsed.record, rawText);
  }

  private record(line: Line, record: Json, rawText: string | undefined): SpEvent[] {
    const ts = toEpochSeconds(record.timestamp);
    if (ts !== undefined) this.state.last_ts = ts;
    const payload = isObject(record.payload) ? record.payload : undefined;
    let pending: Pending[];
    let typed = false;
    switch (record.type) {
      case 'response_item':
        if (payload) {
          pending = this.item(line, payload, record);
          typed = pending[0]?.type !== 'meta';
        } else {
          pending = [this.meta(record)];
        }
        break;
      case 'event_msg':
        pending = [this.eventMsg(record, payload)];
        break;
      case 'turn_context':
        pending = this.turnContext(record, payload);
        break;
      case 'compacted':
        pending = payload ? [this.compacted(payload)] : [this.meta(record)];
        typed = payload !== undefined;
        break;
      default:
        pending = [this.meta(record)];
    }
    if (typed && pending.length > 0) {
      // Envelope fields no payload field holds: the paginated ordinal and metadata, a timestamp
      // that would not come back the same from ts.
      const envelope = rest(record, ['type', 'payload', 'timestamp']) ?? {};
      if (!(ts !== undefined && typeof record.timestamp === 'string' && toIso(ts) === record.timestamp)) {
        envelope.timestamp = record.timestamp ?? null;
      }
      if (Object.keys(envelope).length > 0) pending[0].payload.envelope_extra = envelope;
    }
    return this.finishLine(line, record, pending, rawText);
  }

  /**
   * Emits the line's events: origin on all, raw on the first; derived events that a tool output
   * produces follow it, pointing at the call.
   */
  private finishLine(line: Line, record: Json | undefined, pending: Pending[], rawText: string | undefined): SpEvent[] {
    const ts = this.state.last_ts ?? 0;
    const origin: Json = { native_seq: line.number };
    const item = record && isObject(record.payload) ? record.payload : undefined;
    if (item && typeof item.id === 'string' && item.id !== '') origin.native_uuid = item.id;
    const events: SpEvent[] = [];
    for (let i = 0; i < pending.length; i += 1) {
      const p = pending[i];
      const event = this.emitter.emit(p.type, p.payload, ts, {
        actor: p.actor,
        level: levelOf(p.type),
        refs: p.refs,
        derived_from: p.derived_from,
        origin: i === 0 && rawText !== undefined ? { ...origin, raw: [rawText] } : origin,
      });
      events.push(event);
      this.afterEmit(event, p, pending, i);
    }
    return events;
  }

  /** Open calls remember their seq; an output closes its call and adds the derived events. */
  private afterEmit(event: SpEvent, p: Pending, pending: Pending[], index: number): void {
    if (event.derived_from !== undefined) return;
    if (event.type === 'message.assistant' && this.state.mode === 'plan') {
      const plan = proposedPlan(p.payload.content);
      if (plan !== undefined) this.state.proposed = { seq: event.seq, plan };
      return;
    }
    const callId = String(p.payload.call_id);
    if (event.type === 'tool.call') {
      const call: OpenCall = { seq: event.seq, name: String(p.payload.name), kind: String(p.payload.tool_kind ?? 'function_call'), input: p.payload.input };
      if (this.state.cwd !== undefined) call.cwd = this.state.cwd;
      this.state.open_calls[callId] = call;
    } else if (event.type === 'tool.result') {
      const call = this.state.open_calls[callId];
      if (!call) return;
      delete this.state.open_calls[callId];
      const derived = deriveEvents(call, p.payload.content, this.state.plans);
      pending.splice(index + 1, 0, ...derived.map((d) => ({ type: d.type, payload: d.payload, actor: 'tool' as Actor, derived_from: call.seq })));
    }
  }

  // ---- response items -----------------------------------------------------------------------

  private item(line: Line, item: Json, record: Json): Pending[] {
    switch (item.type) {
      case 'message':
        return [this.message(item, record)];
      case 'reasoning':
        return [this.reasoning(item)];
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call':
        return [this.call(line, item)];
      case 'function_call_output':
      case 'custom_tool_call_output':
        return [this.output(line, item)];
      default:
        return [this.meta(record)];
    }
  }

  /** Content parts in canonical form: text, images (inline or artifact refs); others verbatim. */
  private parts(content: unknown[], refs: string[]): unknown[] {
    return content.map((part) => {
      if (!isObject(part)) return part;
      if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string') {
        const out: Json = { type: 'text', text: part.text };
        const other = rest(part, ['type', 'text', 'annotations']);
        if (Array.isArray(part.annotations) && part.annotations.length > 0) out.annotations = part.annotations;
        if (other) Object.assign(out, other);
        if (part.type === 'input_text' && this.assistantContext) out.native_type = 'input_text';
        return out;
      }
      if (part.type === 'input_image') {
        const url = part.image_url;
        const other = rest(part, ['type', 'image_url']) ?? {};
        const data = typeof url === 'string' ? /^data:([^;,]+);base64,(.*)$/s.exec(url) : null;
        if (data) {
          const out: Json = { type: 'image', media_type: data[1], ...other };
          if (this.options.artifactsDir) {
            const ref = storeArtifact(this.options.artifactsDir, Buffer.from(data[2], 'base64'));
            out.artifact = ref;
            refs.push(`artifact:${ref}`);
          } else {
            out.data = data[2];
          }
          return out;
        }
        // An image by URL keeps it; one without any (trimmed, or a placeholder) stays the Codex part.
        if (typeof url === 'string' && url !== '') return { type: 'image', media_type: 'application/octet-stream', url, ...other };
        return part;
      }
      return part;
    });
  }

  /** Set while mapping an assistant message, whose input_text parts (rare) must stay input_text. */
  private assistantContext = false;

  private message(item: Json, record: Json): Pending {
    const role = str(item.role) ?? 'user';
    const refs: string[] = [];
    const assistant = role === 'assistant';
    this.assistantContext = assistant;
    const content = Array.isArray(item.content) ? this.parts(item.content, refs) : [];
    this.assistantContext = false;
    const payload: Json = { content };
    if (!Array.isArray(item.content)) payload.native_content = item.content ?? null;
    if (typeof item.id === 'string') payload.message_id = item.id;
    if (!assistant && role !== 'user') payload.role = role;
    if (item.phase !== undefined) payload.phase = item.phase;
    const metadata = isObject(record.metadata) ? record.metadata : undefined;
    if (assistant) {
      if (this.state.model !== undefined) payload.model = this.state.model;
      if (metadata?.compaction_output === true) payload.compaction_output = true;
    }
    const texts = content.filter((b): b is { type: 'text'; text: string } => isObject(b) && b.type === 'text' && typeof b.text === 'string');
    const context = role === 'developer' || role === 'system' || (role === 'user' && texts.length > 0 && texts.every((t) => isContextText(t.text)));
    if (context) payload.is_meta = true;
    const other = rest(item, ['type', 'role', 'content', 'id', 'phase']);
    if (other) payload.extra = other;
    const type = assistant ? 'message.assistant' : 'message.user';
    const actor: Actor = assistant ? ASSISTANT : context ? 'system' : 'user';
    return { type, payload, actor, refs };
  }

  private reasoning(item: Json): Pending {
    const summary = Array.isArray(item.summary) ? item.summary : [];
    const summaryTexts = summary.filter((s) => isObject(s) && typeof s.text === 'string').map((s) => (s as { text: string }).text);
    const content = Array.isArray(item.content) ? item.content : [];
    const rawTexts = content.filter((c) => isObject(c) && typeof c.text === 'string').map((c) => (c as { text: string }).text);
    const payload: Json = { text: '', visibility: 'encrypted', provider: 'openai' };
    if (rawTexts.length > 0) {
      payload.text = rawTexts.join('\n\n');
      payload.visibility = 'visible';
    } else if (summaryTexts.length > 0) {
      payload.text = summaryTexts.join('\n\n');
      payload.visibility = 'summary';
    }
    payload.summary = summary;
    if (item.content !== undefined) payload.native_content = item.content;
    if (typeof item.encrypted_content === 'string') payload.opaque = item.encrypted_content;
    else if (item.encrypted_content !== undefined) payload.opaque_native = item.encrypted_content;
    if (typeof item.id === 'string') payload.message_id = item.id;
    const other = rest(item, ['type', 'id', 'summary', 'content', 'encrypted_content']);
    if (other) payload.extra = other;
    return { type: 'message.thinking', payload, actor: ASSISTANT };
  }

  private call(line: Line, item: Json): Pending {
    const kind = String(item.type);
    let callId = str(item.call_id);
    const payload: Json = { call_id: '' };
    if (callId === undefined || callId === '') {
      callId = typeof item.id === 'string' && item.id !== '' ? item.id : `line${line.number}_call`;
      payload.call_id_synthetic = true;
    }
    payload.call_id = callId;
    let mapped: string[];
    if (kind === 'local_shell_call') {
      payload.name = 'local_shell';
      payload.input = item.action ?? null;
      mapped = ['type', 'id', 'call_id', 'action'];
    } else if (kind === 'custom_tool_call') {
      payload.name = str(item.name) ?? 'unknown';
      payload.input = item.input ?? '';
      mapped = ['type', 'id', 'call_id', 'name', 'input'];
    } else {
      payload.name = str(item.name) ?? 'unknown';
      const args = item.arguments;
      let input: unknown = args;
      if (typeof args === 'string') {
        try {
          input = JSON.parse(args);
        } catch {
          input = args;
        }
      }
      payload.input = input ?? null;
      // The arguments text is what the model saw. Events cross pipes as canonical JSON (sorted
      // keys), so unless the text is already canonical it is kept as written.
      if (input !== args && !(typeof args === 'string' && canonicalize(input) === args)) payload.arguments = args ?? null;
      mapped = ['type', 'id', 'call_id', 'name', 'arguments'];
    }
    if (kind !== 'function_call') payload.tool_kind = kind;
    if (typeof item.id === 'string') payload.item_id = item.id;
    const other = rest(item, mapped);
    if (other) payload.extra = other;
    return { type: 'tool.call', payload, actor: ASSISTANT };
  }

  private output(line: Line, item: Json): Pending {
    const kind = String(item.type);
    const callId = str(item.call_id);
    const payload: Json = { call_id: callId ?? `line${line.number}_result` };
    if (callId === undefined) payload.call_id_synthetic = true;
    const output = item.output;
    const refs: string[] = [];
    if (typeof output === 'string') payload.content = output;
    else if (Array.isArray(output)) payload.content = this.parts(output, refs);
    else {
      payload.content = isObject(output) && typeof output.text === 'string' ? output.text : '';
      payload.native_output = output ?? null;
    }
    if (typeof output === 'string' && ERROR_OUTPUT.test(output)) payload.is_error = true;
    const name = callId !== undefined ? this.state.open_calls[callId]?.name : undefined;
    if (name !== undefined) payload.name = name;
    if (kind !== 'function_call_output') payload.tool_kind = kind;
    if (typeof item.id === 'string') payload.item_id = item.id;
    const other = rest(item, ['type', 'id', 'call_id', 'output']);
    if (other) payload.extra = other;
    return { type: 'tool.result', payload, actor: 'tool', refs };
  }

  // ---- other lines ---------------------------------------------------------------------------

  private eventMsg(record: Json, payload: Json | undefined): Pending {
    const type = str(payload?.type);
    let key = type !== undefined ? `codex.event_msg.${type}` : 'codex.event_msg';
    let value: unknown;
    const p = payload ?? {};
    switch (type) {
      case 'user_message':
      case 'agent_message':
        value = p.message;
        break;
      case 'agent_reasoning':
      case 'agent_reasoning_raw_content':
        value = p.text;
        break;
      case 'token_count': {
        const info = isObject(p.info) ? p.info : undefined;
        if (info) value = { last: info.last_token_usage, total: info.total_token_usage, context_window: info.model_context_window };
        break;
      }
      case 'task_started':
      case 'task_complete':
      case 'turn_aborted':
        value = p.turn_id;
        break;
      case 'thread_name_updated':
        value = p.thread_name;
        break;
      case 'patch_apply_end': {
        const call = typeof p.call_id === 'string' ? this.state.open_calls[p.call_id] : undefined;
        if (call) {
          if (isObject(p.changes)) call.changes = p.changes;
          if (typeof p.success === 'boolean') call.patch_success = p.success;
        }
        value = { call_id: p.call_id, success: p.success };
        break;
      }
      case 'exec_command_end': {
        const call = typeof p.call_id === 'string' ? this.state.open_calls[p.call_id] : undefined;
        if (call) {
          if (typeof p.exit_code === 'number') call.exit_code = p.exit_code;
          const out = str(p.aggregated_output) ?? str(p.stdout);
          if (out !== undefined) call.aggregated_output = out;
        }
        value = { call_id: p.call_id, exit_code: p.exit_code };
        break;
      }
      case 'item_completed': {
        const item = isObject(p.item) ? p.item : undefined;
        if (typeof item?.type === 'string') key += `.${item.type}`;
        const call = typeof item?.id === 'string' ? this.state.open_calls[item.id] : undefined;
        if (call && item?.type === 'FileChange') {
          if (isObject(item.changes)) call.changes = item.changes;
          if (typeof item.status === 'string') call.patch_success = item.status === 'completed';
        } else if (call && item?.type === 'CommandExecution') {
          if (typeof item.exit_code === 'number' || item.exit_code === null) call.exit_code = item.exit_code as number | null;
          if (typeof item.aggregated_output === 'string') call.aggregated_output = item.aggregated_output;
        }
        break;
      }
    }
    const out: Json = { key };
    if (value !== undefined) out.value = value;
    out.raw = record;
    return { type: 'meta', payload: out, actor: 'system' };
  }

  private turnContext(record: Json, payload: Json | undefined): Pending[] {
    const value: Json = {};
    if (payload) {
      for (const key of ['model', 'cwd', 'approval_policy', 'sandbox_policy', 'effort', 'summary']) {
        if (payload[key] !== undefined) value[key] = payload[key];
      }
      if (typeof payload.model === 'string') this.state.model = payload.model;
      if (typeof payload.cwd === 'string') this.state.cwd = payload.cwd;
    }
    const out: Pending[] = [{ type: 'meta', payload: { key: 'codex.turn_context', value, raw: record }, actor: 'system' }];
    // Leaving plan mode after the agent proposed a plan is the user taking it: the next turn runs
    // in another mode. Leaving it with no plan proposed decides nothing.
    const collaboration = payload && isObject(payload.collaboration_mode) ? payload.collaboration_mode : undefined;
    const mode = typeof collaboration?.mode === 'string' ? collaboration.mode : undefined;
    if (mode !== undefined) {
      const proposed = this.state.proposed;
      if (this.state.mode === 'plan' && mode !== 'plan' && proposed) {
        out.push({ type: 'decision', payload: planDecision(proposed.plan, mode), actor: 'user', derived_from: proposed.seq });
      }
      if (mode !== 'plan') delete this.state.proposed;
      this.state.mode = mode;
    }
    return out;
  }

  /** compacted → a checkpoint: from here on the model sees `context` (replacement_history), not the earlier items. */
  private compacted(payload: Json): Pending {
    const out: Json = { kind: 'compaction' };
    if (payload.message !== undefined) out.summary = payload.message;
    if (Array.isArray(payload.replacement_history)) out.context = payload.replacement_history;
    const other = rest(payload, ['message', 'replacement_history']);
    if (other) out.extra = other;
    return { type: 'checkpoint', payload: out, actor: 'system' };
  }

  /** Any other record: `meta` keyed by its type (and item type), with the record itself. */
  private meta(record: Json): Pending {
    const type = typeof record.type === 'string' && record.type !== '' ? record.type : undefined;
    let key = type !== undefined ? `codex.${type}` : 'codex.untyped';
    const payload = isObject(record.payload) ? record.payload : undefined;
    if (type === 'response_item' && typeof payload?.type === 'string') key += `.${payload.type}`;
    if (type === 'session_meta' && typeof payload?.id === 'string') return { type: 'meta', payload: { key, value: payload.id, raw: record }, actor: 'system' };
    const out: Json = { key };
    if (type === 'response_item' && payload?.type === 'web_search_call' && payload.action !== undefined) out.value = payload.action;
    out.raw = record;
    return { type: 'meta', payload: out, actor: 'system' };
  }
}

export { AGENT };

const PROPOSED_PLAN = /<proposed_plan>\s*([\s\S]*?)\s*<\/proposed_plan>/g;

/** The last `<proposed_plan>` block of a message's text blocks, if any. */
function proposedPlan(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  let plan: string | undefined;
  for (const block of content) {
    if (!isObject(block) || typeof block.text !== 'string') continue;
    for (const m of block.text.matchAll(PROPOSED_PLAN)) if (m[1] !== '') plan = m[1];
  }
  return plan;
}

function planDecision(plan: string, nextMode: string): Json {
  const first = plan.split('\n').map((l) => l.replace(/^#+\s*/, '').replace(/\*\*/g, '').trim()).find((l) => l !== '') ?? plan.trim();
  const title = first.length > 300 ? `${first.slice(0, 299)}…` : first;
  return { decision: `Approved plan: ${title}`, kind: 'plan', approved_by: 'user', plan, next_mode: nextMode, tool: 'plan_mode' };
}
