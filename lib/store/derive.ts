// What the index and the manifest know about a session, derived from its events alone, so a
// rebuilt index equals the incremental one and a pulled session gets the same summary as on the
// machine that wrote it.
import { userRequest } from '../capture/titles.js';
import { createHash } from 'node:crypto';
import { canonicalize } from '../core/jcs.js';
import type { SpEvent } from '../core/event.js';
import { isObject, str } from '../core/json.js';

export interface SessionSummary {
  id: string;
  agent: string | null;
  native_id: string | null;
  cwd: string | null;
  title: string | null;
  /** Number of stored events. */
  events: number;
  first_ts: number | null;
  last_ts: number | null;
  /** The agent that holds the session now (moved by handoff events). */
  owner: string | null;
  uri: string | null;
  /** Fork lineage: the parent session and the seq it was forked at. */
  parent: string | null;
  fork_seq: number | null;
  fork_reason: string | null;
  /** A tombstone event was appended: `ls` hides it, nothing is removed. */
  deleted: boolean;
  /** Checksum of the last stored event. */
  head: string | null;
  /** Byte length of the log up to and including the last stored event. */
  bytes: number;
}

export function emptySummary(id: string): SessionSummary {
  return { id, agent: null, native_id: null, cwd: null, title: null, events: 0, first_ts: null, last_ts: null, owner: null, uri: null, parent: null, fork_seq: null, fork_reason: null, deleted: false, head: null, bytes: 0 };
}

export const TOMBSTONE_KEY = 'tombstone';

export function isTombstone(event: SpEvent): boolean {
  return event.type === 'meta' && isObject(event.payload) && event.payload.key === TOMBSTONE_KEY && event.payload.deleted === true;
}

/** Folds one stored event into the summary. */
export function applyEvent(s: SessionSummary, e: SpEvent): void {
  s.events += 1;
  if (typeof e.ts === 'number') {
    if (s.first_ts === null || e.ts < s.first_ts) s.first_ts = e.ts;
    if (s.last_ts === null || e.ts > s.last_ts) s.last_ts = e.ts;
  }
  s.head = typeof e.checksum === 'string' ? e.checksum : s.head;
  const p = isObject(e.payload) ? e.payload : {};
  if (s.agent === null && str(e.agent)) s.agent = e.agent;
  switch (e.type) {
    case 'session.start':
      s.native_id ??= str(p.native_id) ?? null;
      s.cwd ??= str(p.cwd) ?? null;
      if (str(p.title)) s.title = str(p.title)!;
      if (s.owner === null && str(e.agent)) s.owner = e.agent;
      break;
    case 'message.user':
      if (s.title === null) {
        // Injected context (skills lists, AGENTS.md, reminders) is not what the session is about.
        const request = p.is_meta === true ? undefined : firstRequest(p.content);
        if (request) s.title = oneLine(request, 80);
      }
      break;
    case 'handoff':
      if (str(p.to_agent)) s.owner = str(p.to_agent)!;
      break;
    case 'session.fork':
      if (str(p.from_session) && p.to_session === s.id) {
        s.parent = str(p.from_session)!;
        s.fork_seq = typeof p.from_seq === 'number' ? p.from_seq : null;
        s.fork_reason = str(p.reason) ?? null;
      }
      break;
    case 'meta':
      if (isTombstone(e)) s.deleted = true;
      if (p.key === 'title' && str(p.value)) s.title = str(p.value)!;
      break;
  }
}

/** The first text block of a user message that is the user's own words (not injected context). */
function firstRequest(content: unknown): string | undefined {
  if (typeof content === 'string') return userRequest(content);
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    const request = isObject(block) && block.type === 'text' && str(block.text) ? userRequest(block.text as string) : undefined;
    if (request) return request;
  }
  return undefined;
}

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const MAX_TEXT = 32 * 1024;

/** The searchable text of an event (message text, tool input and output, commands, diffs, notes). */
export function searchText(e: SpEvent): string {
  const p = isObject(e.payload) ? e.payload : {};
  const parts: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && v) parts.push(v);
  };
  const blocks = (v: unknown) => {
    if (typeof v === 'string') return add(v);
    if (Array.isArray(v)) for (const b of v) if (isObject(b)) add(b.text);
  };
  switch (e.type) {
    case 'message.user':
    case 'message.assistant':
      blocks(p.content);
      break;
    case 'message.thinking':
      add(p.text);
      break;
    case 'tool.call':
      add(p.name);
      add(typeof p.input === 'string' ? p.input : p.input === undefined ? '' : JSON.stringify(p.input));
      break;
    case 'tool.result':
      blocks(p.content);
      break;
    case 'command.run':
      add(p.cmd);
      add(p.stdout_tail);
      add(p.stderr_tail);
      break;
    case 'file.edit':
    case 'file.read':
      add(p.path);
      add(p.diff);
      break;
    case 'decision':
      add(p.decision);
      add(p.reason);
      break;
    case 'memory.write':
      add(p.key);
      add(typeof p.value === 'string' ? p.value : '');
      break;
    case 'todo.add':
    case 'todo.update':
      add(p.content);
      break;
    case 'session.start':
      add(p.title);
      add(p.cwd);
      break;
    case 'handoff':
    case 'session.fork':
      add(p.note);
      add(p.reason);
      break;
  }
  const text = parts.join('\n');
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
}

/**
 * An event's identity for deduplication: SHA-256 of its canonical JSON without the fields a store
 * assigns (session, seq, checksum) or renumbers (parent_seq, derived_from). The same native record
 * captured twice, or an event that comes back through a remote, has the same key.
 */
export function eventKey(e: SpEvent): string {
  const { session: _s, seq: _q, checksum: _c, parent_seq: _p, derived_from: _d, ...rest } = e;
  return createHash('sha256').update(canonicalize(rest)).digest('hex').slice(0, 32);
}
