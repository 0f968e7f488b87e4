// The canonical event (docs/design.md §2): one JSON object per NDJSON line.
import { createHash } from 'node:crypto';

/** What an event guarantees across agents: 0 history, 1 working context, 2 native resume. */
export type Level = 0 | 1 | 2;

export type Actor = 'user' | 'system' | 'tool' | `agent:${string}`;

/** Where an event came from in the source agent's own store. */
export interface Origin {
  agent: string;
  /** The source agent's session id. */
  native_id: string;
  /** Position of the (first) native record: the 1-based line number of a file, or a row id. */
  native_seq?: number;
  /** The native record's own id (Claude `uuid`, Pi `id`, Codex call id …). */
  native_uuid?: string;
  /** The file or database the record was read from. */
  path?: string;
  /** With `--raw`: the native line(s) verbatim, for byte-exact round trips. */
  raw?: string[];
  [extra: string]: unknown;
}

export interface SpEvent<P = Record<string, unknown>> {
  session: string;
  seq: number;
  /** Source time: epoch seconds with sub-second precision. */
  ts: number;
  agent: string;
  type: string;
  payload: P;
  actor?: Actor;
  level?: Level;
  refs?: string[];
  /** DAG: the seq this event follows (set at branch points and wherever it is not seq - 1). */
  parent_seq?: number | null;
  /** Set on semantic events an adapter derives (file.edit, command.run, todo.*, decision, memory.write): the seq of the event it was read from (the tool.call, or the message that proposed a plan). */
  derived_from?: number;
  origin?: Origin;
  checksum?: string;
  [extra: string]: unknown;
}

// ---- content blocks -------------------------------------------------------------------------

export interface TextBlock { type: 'text'; text: string }
/** An image inline (base64 `data`) or stored as a content-addressed artifact (`artifact: sha256:…`). */
export interface ImageBlock { type: 'image'; media_type: string; data?: string; artifact?: string; url?: string }
/**
 * Reasoning. `signature` (Anthropic) and `opaque` (e.g. Codex `encrypted_content`) only verify with
 * the provider that made them: `provider` says which one.
 */
export interface ThinkingBlock { type: 'thinking'; text: string; signature?: string; opaque?: string; provider?: string }
/** A pointer from a message to the tool.call event that carries the call. */
export interface ToolUseRef { type: 'tool_use'; call_id: string; name?: string }
/** A pointer from a message to the tool.result event that carries the result. */
export interface ToolResultRef { type: 'tool_result'; call_id: string }
export type ContentBlock = TextBlock | ImageBlock | ThinkingBlock | ToolUseRef | ToolResultRef | ({ type: string } & Record<string, unknown>);

// ---- payloads of the core types ------------------------------------------------------------

export interface SessionStartPayload {
  native_id: string;
  cwd?: string;
  git_branch?: string;
  git_head?: string;
  model?: string;
  version?: string;
  title?: string;
  /** Set on a child session (subagent, compression child): the parent's canonical id. */
  parent_session?: string;
  [extra: string]: unknown;
}
export interface SessionEndPayload { end_reason?: string; stats?: Record<string, number>; [extra: string]: unknown }
export interface MessagePayload {
  content: ContentBlock[];
  /** The API message this block belongs to: blocks of one message share it (Claude `message.id`). */
  message_id?: string;
  model?: string;
  stop_reason?: string | null;
  usage?: Record<string, unknown>;
  [extra: string]: unknown;
}
export interface ThinkingPayload {
  text: string;
  visibility: 'visible' | 'summary' | 'encrypted' | 'redacted';
  signature?: string;
  opaque?: string;
  provider?: string;
  message_id?: string;
  [extra: string]: unknown;
}
export interface ToolCallPayload { call_id: string; name: string; input: unknown; message_id?: string; [extra: string]: unknown }
export interface ToolResultPayload {
  call_id: string;
  content: string | ContentBlock[];
  is_error?: boolean;
  /** The agent's structured result for its UI (Claude `toolUseResult`), kept verbatim. */
  structured?: unknown;
  [extra: string]: unknown;
}
export interface FileReadPayload { path: string; range?: { start?: number; lines?: number }; digest?: string; [extra: string]: unknown }
export interface FileEditPayload {
  path: string;
  /** Unified diff of the change. */
  diff: string;
  kind?: 'create' | 'modify' | 'delete';
  added?: number;
  removed?: number;
  before_digest?: string;
  after_digest?: string;
  [extra: string]: unknown;
}
export interface CommandRunPayload {
  cmd: string;
  exit_code?: number | null;
  cwd?: string;
  stdout_head?: string;
  stdout_tail?: string;
  stderr_tail?: string;
  interrupted?: boolean;
  [extra: string]: unknown;
}
export interface TodoPayload { id: string; content?: string; status?: string; active_form?: string; [extra: string]: unknown }
export interface DecisionPayload { decision: string; reason?: string; alternatives?: string[]; [extra: string]: unknown }
export interface MemoryWritePayload { key: string; value: unknown; scope?: string; [extra: string]: unknown }
export interface CheckpointPayload { artifacts?: string[]; [extra: string]: unknown }
export interface ContextCompiledPayload { target: string; tokens: number; text: string; [extra: string]: unknown }
export interface HandoffPayload { to_agent: string; receipt?: unknown; [extra: string]: unknown }
export interface ForkPayload { from_session?: string; from_seq?: number; to_session?: string; reason?: string; [extra: string]: unknown }
/** Anything else the source holds: `key` names it, `raw` keeps the native record untouched. */
export interface MetaPayload { key: string; value?: unknown; raw?: unknown; dropped?: string; [extra: string]: unknown }

/** The types docs/design.md §2 names. The namespace is open: any dotted lowercase name is a valid type. */
export const CORE_TYPES = [
  'session.start', 'session.end',
  'message.user', 'message.assistant', 'message.thinking',
  'tool.call', 'tool.result',
  'file.read', 'file.edit', 'command.run',
  'todo.add', 'todo.update', 'todo.remove',
  'decision', 'memory.write', 'checkpoint', 'context.compiled', 'handoff',
  'session.fork', 'session.merge', 'meta',
] as const;
export type CoreType = (typeof CORE_TYPES)[number];

/**
 * The canonical session id: deterministic from (agent, native id), so capturing the same native
 * session twice gives the same id and imports stay idempotent.
 */
export function canonicalSessionId(agent: string, nativeId: string): string {
  const digest = createHash('sha256').update(`sp-session\0${agent}\0${nativeId}`).digest('hex');
  return `sess_${digest.slice(0, 32)}`;
}

/** Epoch seconds (with ms precision) from an ISO-8601 string or epoch ms; undefined when unparseable. */
export function toEpochSeconds(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value > 1e11 ? value / 1000 : value;
  if (typeof value === 'string' && value) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms / 1000;
  }
  return undefined;
}

/** ISO-8601 (ms, `Z`) from epoch seconds. */
export function toIso(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString();
}

export function isEventLike(value: unknown): value is SpEvent {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
