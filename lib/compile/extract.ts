// Reads events one at a time and keeps what a handoff can use, in bounded memory: per session a
// few rings of recent messages, commands and errors, the state of every todo and edited file, and
// per event only a byte (its kind) and an int (its tool call), plus the explicit parent links, to
// tell the active branch at the end. Whether an event is on the active branch is only known once the stream has ended (a later
// event may go back to an earlier point), so everything is kept with its seq and filtered then.
import type { SpEvent } from '../core/event.js';
import {
  contentText,
  cutText,
  errorLines,
  errorQuote,
  findConstraints,
  findDecisions,
  findPlan,
  findSummaryDecisions,
  imageCount,
  oneLine,
  resultLine,
  type DecisionText,
  type PlanStep,
} from './text.js';

/** A fixed-size window onto the most recent entries, remembering what fell out of it. */
export class Ring<T extends { seq: number }> {
  items: T[] = [];
  evicted = 0;
  evictedFirst = -1;
  evictedLast = -1;
  constructor(private readonly size: number) {}
  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.size * 2) this.trim();
  }
  private trim(): void {
    const drop = this.items.length - this.size;
    for (let i = 0; i < drop; i++) {
      const seq = this.items[i].seq;
      if (this.evictedFirst === -1) this.evictedFirst = seq;
      this.evictedLast = seq;
    }
    this.evicted += drop;
    this.items = this.items.slice(drop);
  }
  /** The retained entries (at most `size`), oldest first. */
  all(): T[] {
    if (this.items.length > this.size) this.trim();
    return this.items;
  }
  get last(): T | undefined {
    return this.items[this.items.length - 1];
  }
}

/** Numbers indexed by seq − base in a typed array that grows by doubling: no object per event. */
class SeqArray<T extends Int32Array | Uint8Array> {
  data: T;
  length = 0;
  constructor(private readonly make: (n: number) => T, readonly empty: number) {
    this.data = make(1024);
    if (empty !== 0) this.data.fill(empty);
  }
  set(i: number, value: number): void {
    if (i >= this.data.length) {
      let size = this.data.length * 2;
      while (size <= i) size *= 2;
      const next = this.make(size);
      if (this.empty !== 0) next.fill(this.empty);
      next.set(this.data);
      this.data = next;
    }
    this.data[i] = value;
    if (i >= this.length) this.length = i + 1;
  }
  get(i: number): number {
    return i >= 0 && i < this.length ? this.data[i] : this.empty;
  }
}

/** The last activities of a session in a circular buffer: seq and kind (0 tool work, 1 agent text, 2 prompt). */
class ActivityRing {
  private readonly seqs: Int32Array;
  private readonly kinds: Uint8Array;
  private next = 0;
  private count = 0;
  constructor(private readonly size: number) {
    this.seqs = new Int32Array(size);
    this.kinds = new Uint8Array(size);
  }
  push(seq: number, kind: 0 | 1 | 2): void {
    this.seqs[this.next] = seq;
    this.kinds[this.next] = kind;
    this.next = (this.next + 1) % this.size;
    if (this.count < this.size) this.count++;
  }
  /** Oldest first. */
  *entries(): Generator<{ seq: number; kind: number }> {
    for (let i = 0; i < this.count; i++) {
      const at = (this.next - this.count + i + this.size) % this.size;
      yield { seq: this.seqs[at], kind: this.kinds[at] };
    }
  }
}

export interface SessionInfo {
  id: string;
  agent: string;
  nativeId?: string;
  cwd?: string;
  branch?: string;
  model?: string;
  title?: string;
  parent?: string;
  firstSeq: number;
  lastSeq: number;
  events: number;
  firstTs?: number;
  lastTs?: number;
  /** The checksum of the session's last event in stream order (the chain's tail). */
  tail?: string;
  /** Every event of the session carries a checksum. */
  chained: boolean;
}

export interface Msg {
  seq: number;
  text: string;
  /** The text was cut (only for older requests and replies; recent ones are whole). */
  cut?: boolean;
  images: number;
}

export interface Cmd {
  seq: number;
  /** The tool call it comes from (derived_from). */
  call?: number;
  cmd: string;
  exit?: number | null;
  interrupted?: boolean;
  failed: boolean;
  /** The start of its output (error and result lines are read from it only for commands that are kept). */
  output: string;
  /** A later run of the same command that succeeded. */
  resolvedBy?: number;
}

/** The error lines of a failed command: the telling line, else its last line. */
export function commandErrors(c: Cmd): string[] {
  const errors = errorLines(c.output);
  if (errors.length > 0) return errors;
  const last = c.output.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).pop();
  return last ? [oneLine(last, 240)] : [];
}

/** A verbatim piece of a failed command's output to quote: its error line, else its last line. */
export function commandErrorQuote(c: Cmd): string | undefined {
  return errorQuote(c.output) ?? c.output.split(/\r?\n/).map((l) => l.trim()).filter(Boolean).pop();
}

/** The one-line result of a command that succeeded. */
export function commandResult(c: Cmd): string | undefined {
  return resultLine(c.output);
}

export interface ToolError {
  seq: number;
  call: number;
  name: string;
  input: string;
  /** The result's text (its error lines are read only for the tool errors that are kept). */
  text: string;
}

/** A tool error's display lines and a verbatim line of it to quote. */
export function toolErrorLines(t: ToolError): { errors: string[]; quote: string } {
  const errors = errorLines(t.text);
  const first = t.text.split(/\r?\n/).map((l) => l.trim()).find(Boolean) ?? '';
  return { errors: errors.length ? errors : [oneLine(t.text.slice(0, 1000), 240)], quote: errorQuote(t.text) ?? cutText(first, 240) };
}

export interface PendingCall {
  seq: number;
  callId: string;
  name: string;
  /** The call's input as it came (summarized only for calls that stay unanswered or fail). */
  input: unknown;
}

interface TodoUpdate {
  seq: number;
  content?: string;
  status?: string;
  removed?: boolean;
}

interface FileEdit {
  seq: number;
  kind?: string;
  added: number;
  removed: number;
}

interface FileState {
  path: string;
  edits: FileEdit[];
  /** Edits beyond the kept ones (the first and the 399 latest), counted as on the active branch. */
  older: { count: number; added: number; removed: number };
  /** The last few diffs (cut), newest last. */
  diffs: Array<{ seq: number; diff: string }>;
}

export interface Decision extends DecisionText {
  seq: number;
  source: 'message' | 'event' | 'summary';
}

export interface Constraint {
  seq: number;
  text: string;
  source: 'user' | 'memory';
}

export interface Plan {
  seq: number;
  steps: PlanStep[];
}

export interface Fork {
  seq: number;
  child: string;
  kind?: string;
  description?: string;
}

/** Event counts by what a handoff does with them: carried, summarized, or not carried. */
export interface Tally {
  count: number;
  first: number;
  last: number;
}

const tally = (): Tally => ({ count: 0, first: -1, last: -1 });
function bump(t: Tally, seq: number): void {
  t.count++;
  if (t.first === -1 || seq < t.first) t.first = seq;
  if (seq > t.last) t.last = seq;
}

/** What kind of event sits at a seq: enough to tell an abandoned branch's messages from its metadata. */
export const Code = { None: 0, Meta: 1, Message: 2, Tool: 3, Other: 4 } as const;
export type Code = (typeof Code)[keyof typeof Code];

export class SessionState {
  readonly info: SessionInfo;
  /** Explicit parent links (parent_seq other than seq − 1). */
  readonly parents = new Map<number, number>();
  /** tool.result and derived events (by seq − base) → the seq of their tool.call, or −1. */
  private readonly callOf = new SeqArray((n) => new Int32Array(n), -1);
  /** What kind of event is at each seq − base. */
  private readonly codes = new SeqArray((n) => new Uint8Array(n), Code.None);
  base = -1;

  private readonly callSeq = new Map<string, number>();
  readonly pending = new Map<string, PendingCall>();
  private readonly errorResults = new Map<number, { seq: number; text: string; name: string; input: unknown }>();
  private readonly commandCalls = new Set<number>();

  firstRequest?: Msg;
  readonly requests = new Ring<Msg>(300);
  readonly replies = new Ring<Msg>(300);
  /** After each prompt: did the turn end with text (true) or with tool work (false)? */
  readonly activity = new ActivityRing(2000);
  readonly commands = new Ring<Cmd>(200);
  readonly failures = new Ring<Cmd>(20);
  readonly toolErrors = new Ring<ToolError>(50);
  readonly files = new Map<string, FileState>();
  filesOverflow = tally();
  readonly todos = new Map<string, TodoUpdate[]>();
  readonly plans = new Ring<Plan>(10);
  readonly decisions = new Ring<Decision>(300);
  readonly constraints = new Ring<Constraint>(100);
  readonly compactions: Array<{ seq: number; kind: string }> = [];
  readonly forks: Fork[] = [];

  readonly thinking = tally();
  readonly images = tally();
  readonly toolResults = tally();

  constructor(id: string, agent: string, seq: number) {
    this.info = { id, agent, firstSeq: seq, lastSeq: seq, events: 0, chained: true };
  }

  private mark(seq: number, code: Code): void {
    const i = seq - this.base;
    if (i >= 0) this.codes.set(i, code); // before the first seq seen: out of order, not placed on the path
  }

  private linkCall(seq: number, call: number): void {
    const i = seq - this.base;
    if (i >= 0) this.callOf.set(i, call);
  }

  push(e: SpEvent): void {
    const seq = e.seq;
    const info = this.info;
    info.events++;
    info.firstSeq = Math.min(info.firstSeq, seq);
    info.lastSeq = Math.max(info.lastSeq, seq);
    if (typeof e.ts === 'number' && Number.isFinite(e.ts)) {
      info.firstTs = info.firstTs === undefined ? e.ts : Math.min(info.firstTs, e.ts);
      info.lastTs = info.lastTs === undefined ? e.ts : Math.max(info.lastTs, e.ts);
    }
    if (typeof e.checksum === 'string') info.tail = e.checksum;
    else info.chained = false;
    if (typeof e.parent_seq === 'number' && e.parent_seq !== seq - 1) this.parents.set(seq, e.parent_seq);
    if (this.base === -1) this.base = seq;
    if (typeof e.derived_from === 'number') this.linkCall(seq, e.derived_from);

    const p = (e.payload && typeof e.payload === 'object' ? e.payload : {}) as Record<string, unknown>;
    switch (e.type) {
      case 'session.start':
        this.mark(seq, Code.Other);
        return this.start(p);
      case 'message.user':
        this.mark(seq, Code.Message);
        return this.user(e, p);
      case 'message.assistant':
        this.mark(seq, Code.Message);
        return this.assistant(seq, p);
      case 'message.thinking':
        this.mark(seq, Code.Message);
        return bump(this.thinking, seq);
      case 'tool.call':
        this.mark(seq, Code.Tool);
        return this.call(seq, p);
      case 'tool.result':
        this.mark(seq, Code.Tool);
        return this.result(seq, p);
      case 'command.run':
        this.mark(seq, Code.Tool);
        return this.command(e, p);
      case 'file.edit':
        this.mark(seq, Code.Tool);
        return this.edit(seq, p);
      case 'todo.add':
      case 'todo.update':
      case 'todo.remove':
        this.mark(seq, Code.Tool);
        return this.todo(e.type, seq, p);
      case 'decision':
        this.mark(seq, Code.Message);
        if (typeof p.decision === 'string' && p.decision) {
          const reason = typeof p.reason === 'string' && p.reason ? p.reason : undefined;
          this.decisions.push({ seq, text: reason ? `${p.decision} because ${reason}` : p.decision, decision: p.decision, reason, source: 'event' });
        }
        return;
      case 'memory.write':
        this.mark(seq, Code.Message);
        if (typeof p.key === 'string') {
          const value = typeof p.value === 'string' ? p.value : JSON.stringify(p.value);
          this.constraints.push({ seq, text: `${p.key}: ${oneLine(value ?? '', 600)}`, source: 'memory' });
        }
        return;
      case 'checkpoint':
        this.mark(seq, Code.Other);
        this.compactions.push({ seq, kind: typeof p.kind === 'string' ? p.kind : 'checkpoint' });
        if (typeof p.summary === 'string') {
          for (const d of findSummaryDecisions(p.summary)) this.decisions.push({ ...d, seq, source: 'summary' });
        }
        return;
      case 'session.fork':
        this.mark(seq, Code.Other);
        if (typeof p.to_session === 'string') {
          this.forks.push({
            seq,
            child: p.to_session,
            kind: typeof p.agent_type === 'string' ? p.agent_type : typeof p.reason === 'string' ? p.reason : undefined,
            description: typeof p.description === 'string' ? p.description : undefined,
          });
        }
        return;
      case 'meta':
        return this.mark(seq, Code.Meta);
      default:
        return this.mark(seq, Code.Other);
    }
  }

  private start(p: Record<string, unknown>): void {
    const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
    this.info.nativeId ??= str(p.native_id);
    this.info.cwd ??= str(p.cwd);
    this.info.branch ??= str(p.git_branch);
    this.info.model ??= str(p.model);
    this.info.title ??= str(p.title);
    this.info.parent ??= str(p.parent_session);
  }

  private user(e: SpEvent, p: Record<string, unknown>): void {
    // A client's compaction summary arrives as a system "user" message (Claude: compact_summary).
    if (p.compact_summary === true || p.isCompactSummary === true) this.compactions.push({ seq: e.seq, kind: 'compaction' });
    const images = imageCount(p.content);
    if (images > 0) bump(this.images, e.seq);
    const text = promptText(e, p);
    if (text === undefined) return;
    const msg: Msg = { seq: e.seq, text: text || '[image]', images };
    this.firstRequest ??= msg;
    // Recent requests stay whole (the latest is quoted verbatim); older ones are cut to bound memory.
    const older = this.requests.items[this.requests.items.length - 5];
    if (older && !older.cut && older.text.length > 2000) {
      older.text = older.text.slice(0, 2000);
      older.cut = true;
    }
    this.requests.push(msg);
    this.activity.push(e.seq, 2);
    for (const c of findConstraints(text)) this.constraints.push({ seq: e.seq, text: c, source: 'user' });
    for (const d of findDecisions(text)) this.decisions.push({ ...d, seq: e.seq, source: 'message' });
  }

  private assistant(seq: number, p: Record<string, unknown>): void {
    const text = contentText(p.content).trim();
    if (!text) return;
    this.replies.push({ seq, text: text.length > 8000 ? text.slice(0, 8000) : text, cut: text.length > 8000, images: 0 });
    this.activity.push(seq, 1);
    for (const d of findDecisions(text)) this.decisions.push({ ...d, seq, source: 'message' });
    const steps = findPlan(text);
    if (steps.length > 0) this.plans.push({ seq, steps });
  }

  private call(seq: number, p: Record<string, unknown>): void {
    const callId = typeof p.call_id === 'string' ? p.call_id : undefined;
    this.activity.push(seq, 0);
    if (!callId) return;
    this.callSeq.set(callId, seq);
    this.pending.set(callId, { seq, callId, name: typeof p.name === 'string' ? p.name : 'tool', input: p.input });
    if (this.callSeq.size > 5000) this.callSeq.delete(this.callSeq.keys().next().value as string);
    if (this.pending.size > 1000) this.pending.delete(this.pending.keys().next().value as string);
  }

  private result(seq: number, p: Record<string, unknown>): void {
    bump(this.toolResults, seq);
    this.activity.push(seq, 0);
    if (imageCount(p.content) > 0) bump(this.images, seq);
    const callId = typeof p.call_id === 'string' ? p.call_id : undefined;
    if (!callId) return;
    const call = this.callSeq.get(callId);
    if (call !== undefined) this.linkCall(seq, call);
    this.callSeq.delete(callId);
    const pending = this.pending.get(callId);
    this.pending.delete(callId);
    if (p.is_error !== true || call === undefined) return;
    const text = contentText(p.content).slice(0, 20_000) || (typeof p.content === 'string' ? p.content.slice(0, 20_000) : '');
    const record = { seq, text, name: pending?.name ?? 'tool', input: pending?.input };
    this.errorResults.set(call, record);
    if (this.errorResults.size > 200) this.errorResults.delete(this.errorResults.keys().next().value as number);
    if (!this.commandCalls.has(call)) this.toolErrors.push({ seq, call, name: record.name, input: inputSummary(record.input), text });
  }

  private command(e: SpEvent, p: Record<string, unknown>): void {
    const seq = e.seq;
    const call = typeof e.derived_from === 'number' ? e.derived_from : undefined;
    this.activity.push(seq, 0);
    if (call !== undefined) {
      this.commandCalls.add(call);
      if (this.commandCalls.size > 1000) this.commandCalls.delete(this.commandCalls.values().next().value as number);
    }
    const cmd = typeof p.cmd === 'string' ? p.cmd : '';
    const exit = typeof p.exit_code === 'number' ? p.exit_code : p.exit_code === null ? null : undefined;
    const errored = call !== undefined ? this.errorResults.get(call) : undefined;
    const failed = (typeof exit === 'number' && exit !== 0) || p.interrupted === true || errored !== undefined;
    // Enough output to find the error line in (a failing test report) or a result line.
    let output = [p.stdout_head, p.stdout_tail, p.stderr_tail].filter((s): s is string => typeof s === 'string' && s !== '').join('\n');
    if (!output && errored) output = errored.text;
    const entry: Cmd = { seq, call, cmd: oneLine(cmd.length > 1000 ? cmd.slice(0, 1000) : cmd, 300), exit, interrupted: p.interrupted === true, failed, output: output.length > 12_000 ? output.slice(0, 12_000) : output };
    if (failed) {
      this.failures.push(entry);
      // A tool error already counted for this call is this command's failure, not a separate one.
      if (call !== undefined) this.toolErrors.items = this.toolErrors.items.filter((t) => t.call !== call);
    } else {
      for (const f of this.failures.items) if (f.resolvedBy === undefined && f.cmd === entry.cmd) f.resolvedBy = seq;
    }
    this.commands.push(entry);
  }

  private edit(seq: number, p: Record<string, unknown>): void {
    const path = typeof p.path === 'string' ? p.path : undefined;
    if (!path) return;
    let state = this.files.get(path);
    if (!state) {
      if (this.files.size >= 5000) return bump(this.filesOverflow, seq);
      state = { path, edits: [], older: { count: 0, added: 0, removed: 0 }, diffs: [] };
      this.files.set(path, state);
    }
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    state.edits.push({ seq, kind: typeof p.kind === 'string' ? p.kind : undefined, added: num(p.added), removed: num(p.removed) });
    if (state.edits.length > 800) {
      // Keep the first (it tells a created file) and the latest 399; the others only as totals.
      for (const old of state.edits.splice(1, state.edits.length - 400)) {
        state.older.count++;
        state.older.added += old.added;
        state.older.removed += old.removed;
      }
    }
    if (typeof p.diff === 'string' && p.diff) {
      state.diffs.push({ seq, diff: p.diff.length > 3000 ? p.diff.slice(0, 3000) : p.diff });
      if (state.diffs.length > 3) state.diffs.shift();
    }
  }

  private todo(type: string, seq: number, p: Record<string, unknown>): void {
    const id = typeof p.id === 'string' || typeof p.id === 'number' ? String(p.id) : undefined;
    if (id === undefined) return;
    let history = this.todos.get(id);
    if (!history) {
      if (this.todos.size >= 5000) return;
      history = [];
      this.todos.set(id, history);
    }
    history.push({
      seq,
      content: typeof p.content === 'string' && p.content ? p.content : undefined,
      status: typeof p.status === 'string' ? p.status : undefined,
      removed: type === 'todo.remove',
    });
    if (history.length > 8) history.splice(1, history.length - 8); // the first names the todo
  }

  // ---- after the stream --------------------------------------------------------------------------

  private onPathMarks?: Uint8Array;

  /**
   * The active branch: back from the last event along parent links (seq − 1 unless an event says
   * otherwise). A tool result or derived event is on it when its tool call is (parallel calls hang
   * their results off the call, not off the line before).
   */
  onPath(seq: number): boolean {
    if (!this.onPathMarks) {
      const marks = new Uint8Array(Math.max(0, this.info.lastSeq - this.base + 1));
      let cur = this.info.lastSeq;
      while (cur >= this.base && marks[cur - this.base] === 0) {
        marks[cur - this.base] = 1;
        const parent = this.parents.get(cur);
        cur = parent !== undefined && parent < cur ? parent : cur - 1;
      }
      this.onPathMarks = marks;
    }
    const at = (s: number) => s >= this.base && this.onPathMarks![s - this.base] === 1;
    if (at(seq)) return true;
    const call = this.callOf.get(seq - this.base);
    return call !== -1 && at(call);
  }

  /** Messages and tool work that are not on the active branch, as seq ranges. */
  abandoned(): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let open: [number, number] | undefined;
    for (let i = 0; i < this.codes.length; i++) {
      const code = this.codes.data[i];
      if (code !== Code.Message && code !== Code.Tool) continue;
      const seq = i + this.base;
      if (this.onPath(seq)) {
        open = undefined;
      } else if (open) {
        open[1] = seq;
      } else {
        open = [seq, seq];
        out.push(open);
      }
    }
    return out;
  }

  /** Todos in their last state on the active branch. */
  todoStates(): Array<{ id: string; content: string; status: string; seqs: number[]; removed: boolean }> {
    const out: Array<{ id: string; content: string; status: string; seqs: number[]; removed: boolean }> = [];
    for (const [id, history] of this.todos) {
      const live = history.filter((h) => this.onPath(h.seq));
      if (live.length === 0) continue;
      let content = '';
      let status = 'pending';
      let removed = false;
      for (const h of live) {
        if (h.content) content = h.content;
        if (h.status) status = h.status;
        if (h.removed) removed = true;
      }
      if (!content) content = history.find((h) => h.content)?.content ?? `todo ${id}`;
      const withContent = live.find((h) => h.content && h.content === content);
      const seqs = [...new Set([withContent?.seq ?? live[0].seq, live[live.length - 1].seq])];
      out.push({ id, content, status, seqs, removed });
    }
    return out.sort((a, b) => a.seqs[0] - b.seqs[0] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Edited files, their edits on the active branch. */
  fileStates(): Array<{ path: string; edits: FileEdit[]; older: FileState['older']; diff?: { seq: number; diff: string } }> {
    const out: Array<{ path: string; edits: FileEdit[]; older: FileState['older']; diff?: { seq: number; diff: string } }> = [];
    for (const state of this.files.values()) {
      const edits = state.edits.filter((e) => this.onPath(e.seq));
      if (edits.length === 0) continue;
      const diff = [...state.diffs].reverse().find((d) => this.onPath(d.seq));
      out.push({ path: state.path, edits, older: state.older, diff });
    }
    return out;
  }

  /** Whether the latest prompt's turn ended with text from the agent (it was answered). */
  answered(request: Msg): boolean {
    let last: { seq: number; kind: number } | undefined;
    for (const a of this.activity.entries()) if (a.seq > request.seq && a.kind !== 2 && this.onPath(a.seq)) last = a;
    return last !== undefined && last.kind === 1;
  }
}

/** The text of a prompt the user typed, or undefined for system-injected and command records. */
function promptText(e: SpEvent, p: Record<string, unknown>): string | undefined {
  if (e.actor !== undefined && e.actor !== 'user') return undefined;
  if (p.is_meta === true || p.compact_summary === true || p.isCompactSummary === true) return undefined;
  const raw = contentText(p.content);
  const text = raw
    .replace(/<image\b[^>]*>|<\/image>/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (/^<(?:command-name|command-message|command-args|local-command-[a-z-]+|system-reminder)>/.test(text)) return undefined;
  if (!text && imageCount(p.content) === 0) return undefined;
  return text;
}

const INPUT_KEYS = ['command', 'cmd', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt'];

/** A tool call's input in one short line: its telling field (a path, a command) or its JSON. */
export function inputSummary(input: unknown): string {
  const short = (text: string) => oneLine(text.length > 400 ? text.slice(0, 400) : text, 160);
  if (typeof input === 'string') return short(input);
  if (input && typeof input === 'object') {
    const o = input as Record<string, unknown>;
    for (const key of INPUT_KEYS) if (typeof o[key] === 'string' && o[key]) return short(o[key] as string);
    try {
      return short(JSON.stringify(input));
    } catch {
      return '';
    }
  }
  return '';
}

/** Accumulates every session of a stream. */
export class Extractor {
  readonly sessions = new Map<string, SessionState>();
  /** Stream order of first appearance (the order of the sessions in the input). */
  readonly order: string[] = [];

  push(e: SpEvent): void {
    let state = this.sessions.get(e.session);
    if (!state) {
      state = new SessionState(e.session, typeof e.agent === 'string' ? e.agent : 'unknown', e.seq);
      this.sessions.set(e.session, state);
      this.order.push(e.session);
    }
    state.push(e);
  }

  /** Sessions that are nobody's child (no parent_session, not forked to from another session). */
  roots(): SessionState[] {
    const children = new Set<string>();
    for (const s of this.sessions.values()) {
      if (s.info.parent) children.add(s.info.id);
      for (const f of s.forks) children.add(f.child);
    }
    return this.order.map((id) => this.sessions.get(id)!).filter((s) => !children.has(s.info.id));
  }

  /** The children of a session, transitively, in stream order. */
  descendants(root: string): SessionState[] {
    const out: SessionState[] = [];
    const seen = new Set([root]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const id of this.order) {
        if (seen.has(id)) continue;
        const s = this.sessions.get(id)!;
        const forkedFrom = [...seen].some((p) => this.sessions.get(p)?.forks.some((f) => f.child === id));
        if ((s.info.parent && seen.has(s.info.parent)) || forkedFrom) {
          seen.add(id);
          out.push(s);
          grew = true;
        }
      }
    }
    return out.sort((a, b) => this.order.indexOf(a.info.id) - this.order.indexOf(b.info.id));
  }
}
