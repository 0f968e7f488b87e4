// A session's canonical events as a conversation on a terminal (sp show). Works from canonical
// events only, so every agent renders the same way: user and assistant turns wrapped to the width,
// each tool call on one line with the first lines of its result and its exit status, edits as
// coloured unified diffs, thinking folded to one line, images as [image W×H type], branch points
// marked, redaction placeholders highlighted. Everything shown is the input's text: control
// characters are made visible so a session cannot drive the terminal (clear it, move the cursor,
// set the title).
import { PLACEHOLDER } from '../redact/keys.js';
import type { Palette } from '../term/color.js';
import { cutToWidth, wrapText } from '../term/width.js';
import { base64Head, imageSize } from './image.js';

export interface ShowOptions {
  width: number;
  palette: Palette;
  /** Thinking unfolded, whole tool results and diffs. */
  full?: boolean;
  /** Only tool calls (with their results and diffs). */
  toolsOnly?: boolean;
  /** Only events from this seq on. */
  since?: number;
  /** The first bytes of an artifact (`sha256:…`), to read an image's size; undefined when not at hand. */
  artifactHead?: (ref: string) => Buffer | undefined;
  /** Local time of day for headers (tests pass a fixed formatter). */
  timeOf?: (seconds: number) => string;
}

type Json = Record<string, unknown>;
interface Ev {
  session: string;
  seq: number;
  ts?: number;
  type: string;
  actor?: string;
  agent?: string;
  payload: Json;
  parent_seq?: number | null;
  derived_from?: number;
}

const RESULT_LINES = 3;
const DIFF_LINES = 16;
const INDENT = '  ';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);

/** Control characters (ESC, CR, BEL, C1 …) shown as visible symbols; newlines and tabs kept. */
export function visible(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : '\ufffd';
  });
}

/** Events as read: anything that is not an object with a session, an integer seq and a type is left out. */
export function asEvent(value: unknown): Ev | undefined {
  if (!isObject(value)) return undefined;
  const seq = int(value.seq);
  const type = str(value.type);
  const session = str(value.session);
  if (seq === undefined || type === undefined || session === undefined) return undefined;
  return {
    session,
    seq,
    type,
    ts: typeof value.ts === 'number' && Number.isFinite(value.ts) ? value.ts : undefined,
    actor: str(value.actor),
    agent: str(value.agent),
    payload: isObject(value.payload) ? value.payload : {},
    parent_seq: int(value.parent_seq) ?? (value.parent_seq === null ? null : undefined),
    derived_from: int(value.derived_from),
  };
}

function defaultTime(seconds: number): string {
  const d = new Date(seconds * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Renders the events of one or more sessions (in input order, grouped by session). */
export function renderSessions(input: unknown[], options: ShowOptions): string {
  const bySession = new Map<string, Ev[]>();
  for (const value of input) {
    const ev = asEvent(value);
    if (!ev) continue;
    let list = bySession.get(ev.session);
    if (!list) bySession.set(ev.session, (list = []));
    list.push(ev);
  }
  const parts: string[] = [];
  for (const events of bySession.values()) parts.push(new SessionView(events, options).render());
  return parts.join('\n');
}

class SessionView {
  private readonly p: Palette;
  private readonly width: number;
  private readonly out: string[] = [];
  private readonly results = new Map<string, Ev>();
  private readonly derived = new Map<number, Ev[]>();
  private readonly callSeqById = new Map<string, number>();
  private readonly conversational: number[] = [];
  private lastRole: string | undefined;

  constructor(
    private readonly events: Ev[],
    private readonly o: ShowOptions,
  ) {
    this.p = o.palette;
    this.width = Math.max(20, o.width);
    for (const ev of events) {
      const callId = str(ev.payload.call_id);
      if (ev.type === 'tool.result' && callId !== undefined && !this.results.has(callId)) this.results.set(callId, ev);
      if (ev.type === 'tool.call' && callId !== undefined) this.callSeqById.set(callId, ev.seq);
      if (ev.derived_from !== undefined) {
        const list = this.derived.get(ev.derived_from) ?? [];
        list.push(ev);
        this.derived.set(ev.derived_from, list);
      }
      if (ev.type === 'message.user' || ev.type === 'message.assistant') this.conversational.push(ev.seq);
    }
  }

  render(): string {
    this.header();
    const since = this.o.since ?? 0;
    for (const ev of this.events) {
      if (ev.seq < since) continue;
      this.event(ev);
    }
    return this.out.map((line) => line.replace(/\s+$/, '')).join('\n') + '\n';
  }

  private time(seconds: number | undefined): string {
    return seconds === undefined ? '' : (this.o.timeOf ?? defaultTime)(seconds);
  }

  /** Highlights redaction placeholders in a line of plain text. */
  private marks(line: string): string {
    if (!this.p.enabled) return line;
    return line.replace(PLACEHOLDER, (m) => this.p.mark(m));
  }

  private push(line: string): void {
    this.out.push(line);
  }

  /** Wrapped text under an indent, placeholders highlighted. */
  private text(text: string, indent = INDENT, style: (s: string) => string = (s) => s): void {
    for (const line of wrapText(visible(text), this.width - indent.length)) this.push(indent + style(this.marks(line)));
  }

  private header(): void {
    const start = this.events.find((e) => e.type === 'session.start');
    const first = this.events[0]!;
    const agent = visible(first.agent ?? '?');
    const bits = [agent];
    const pl = start?.payload ?? {};
    const ts = start?.ts ?? first.ts;
    if (ts !== undefined) bits.push(this.time(ts));
    if (str(pl.cwd)) bits.push(visible(str(pl.cwd)!));
    if (str(pl.model)) bits.push(visible(str(pl.model)!));
    // The id last: on a narrow terminal it is what gets cut.
    bits.push(visible(str(pl.native_id) ?? first.session));
    this.push(this.p.bold(cutToWidth(bits.join(' · '), this.width)));
    const title = str(pl.title) ?? this.metaTitle();
    if (title !== undefined) this.push(this.marks(cutToWidth(visible(title), this.width)));
    if (str(pl.parent_session)) this.push(this.p.dim(cutToWidth(`child of ${visible(str(pl.parent_session)!)}`, this.width)));
  }

  /** A title the agent keeps as a meta record (Claude's ai-title and custom-title). */
  private metaTitle(): string | undefined {
    let title: string | undefined;
    for (const ev of this.events) {
      if (ev.type !== 'meta') continue;
      const key = str(ev.payload.key);
      if (key !== undefined && /(^|\.)(ai-title|custom-title|title)$/.test(key) && typeof ev.payload.value === 'string') title = ev.payload.value;
    }
    return title;
  }

  /** A role header when the speaker changes: "user  #4  2026-11-30 05:14". */
  private role(role: 'user' | 'assistant', ev: Ev): void {
    if (this.lastRole === role) return;
    this.lastRole = role;
    const model = role === 'assistant' ? str(ev.payload.model) : undefined;
    const name = role === 'user' ? this.p.green(this.p.bold('user')) : this.p.blue(this.p.bold(model ? `assistant ${visible(model)}` : 'assistant'));
    const meta = this.p.dim(`#${ev.seq}${ev.ts !== undefined ? `  ${this.time(ev.ts)}` : ''}`);
    this.push('');
    this.push(`${name}  ${meta}`);
  }

  /** A branch marker where the conversation continues from an earlier point than the turn before it. */
  private branch(ev: Ev): void {
    if (typeof ev.parent_seq !== 'number') return;
    const parent = ev.parent_seq;
    if (!this.conversational.some((seq) => seq > parent && seq < ev.seq)) return;
    this.lastRole = undefined;
    this.push('');
    this.push(this.p.magenta(cutToWidth(`⑂ branch: #${ev.seq} continues from #${parent}`, this.width)));
  }

  private event(ev: Ev): void {
    if (this.o.toolsOnly && ev.type !== 'tool.call' && ev.type !== 'command.run') return;
    switch (ev.type) {
      case 'message.user':
        this.branch(ev);
        this.message('user', ev);
        return;
      case 'message.assistant':
        this.branch(ev);
        this.message('assistant', ev);
        return;
      case 'message.thinking':
        this.thinking(ev);
        return;
      case 'tool.call':
        this.toolCall(ev);
        return;
      case 'command.run':
        // Shown with its call; a command with no call behind it gets its own line.
        if (ev.derived_from === undefined) this.commandLine(ev);
        return;
      case 'session.fork':
      case 'session.merge':
        this.lastRole = undefined;
        this.push('');
        this.push(this.p.magenta(cutToWidth(`⑂ ${ev.type === 'session.fork' ? 'fork' : 'merge'}${describeFork(ev.payload)}`, this.width)));
        return;
      case 'session.end': {
        const reason = str(ev.payload.end_reason);
        this.push('');
        this.push(this.p.dim(`— end${reason ? ` (${visible(reason)})` : ''}`));
        return;
      }
      case 'todo.add':
      case 'todo.update':
      case 'todo.remove': {
        if (ev.derived_from !== undefined) return; // shown as its tool call
        const content = str(ev.payload.content) ?? str(ev.payload.id) ?? '';
        const status = str(ev.payload.status);
        this.push(INDENT + this.p.dim(cutToWidth(visible(`☐ ${ev.type.slice(5)}: ${content}${status ? ` [${status}]` : ''}`), this.width - INDENT.length)));
        return;
      }
      case 'decision':
        this.text(`decision: ${str(ev.payload.decision) ?? ''}`, INDENT, this.p.yellow);
        return;
      default:
        // Raw records (meta), reads and the rest are bookkeeping, not conversation.
        return;
    }
  }

  private message(role: 'user' | 'assistant', ev: Ev): void {
    const content = ev.payload.content;
    const blocks: unknown[] = Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content }] : [];
    // A user message that only carries tool results (Claude) is shown under the calls, not as a turn.
    const shown = blocks.filter((b) => isObject(b) && b.type !== 'tool_result' && b.type !== 'tool_use');
    if (shown.length === 0) return;
    // Context the client injected as a user message (Codex instructions, environment): folded.
    if (role === 'user' && (ev.actor === 'system' || ev.payload.is_meta === true) && !this.o.full) {
      const text = shown.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('\n');
      const lines = text.split('\n').length;
      const first = visible(text.trim().split('\n')[0] ?? '');
      this.lastRole = undefined;
      this.push(this.p.dim(cutToWidth(`⚙ context #${ev.seq} (${lines} line${lines === 1 ? '' : 's'}, --full shows it) ${first}`, this.width)));
      return;
    }
    this.role(role, ev);
    let images = 0;
    for (const block of shown) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') this.text(block.text);
      else if (block.type === 'image') this.push(INDENT + this.p.cyan(this.imageLabel(block, ++images)));
      else if (block.type === 'thinking' && typeof block.text === 'string') this.thinkingText(block.text);
      else this.push(INDENT + this.p.dim(cutToWidth(`[${visible(String(block.type))}]`, this.width - INDENT.length)));
    }
  }

  private imageLabel(block: Json, _index: number): string {
    const type = (str(block.media_type) ?? 'image').replace(/^image\//, '');
    let size: { width: number; height: number } | undefined;
    const w = int(block.width);
    const h = int(block.height);
    if (w !== undefined && h !== undefined && w > 0 && h > 0) size = { width: w, height: h };
    else if (typeof block.data === 'string') size = imageSize(base64Head(block.data));
    else if (typeof block.artifact === 'string' && this.o.artifactHead) {
      const head = this.o.artifactHead(block.artifact);
      if (head) size = imageSize(head);
    }
    const label = `[image ${size ? `${size.width}×${size.height} ` : ''}${visible(type)}]`;
    return cutToWidth(label, this.width - INDENT.length);
  }

  private thinking(ev: Ev): void {
    if (this.o.toolsOnly) return;
    this.role('assistant', ev);
    const text = str(ev.payload.text) ?? '';
    const visibility = str(ev.payload.visibility);
    if (text === '' && visibility !== undefined && visibility !== 'visible') {
      this.push(INDENT + this.p.dim(`∴ thinking (${visible(visibility)})`));
      return;
    }
    this.thinkingText(text);
  }

  private thinkingText(text: string): void {
    if (this.o.full) {
      this.push(INDENT + this.p.dim('∴ thinking'));
      this.text(text, INDENT + '  ', this.p.dim);
      return;
    }
    const words = text.trim().split(/\s+/).filter(Boolean).length;
    const label = `∴ thinking (${words} word${words === 1 ? '' : 's'}) `;
    const first = visible(text.trim().split('\n')[0] ?? '');
    this.push(INDENT + this.p.dim(cutToWidth(label + first, this.width - INDENT.length)));
  }

  private toolCall(ev: Ev): void {
    if (!this.o.toolsOnly) this.role('assistant', ev);
    else this.lastRole = undefined;
    const name = visible(str(ev.payload.name) ?? '?');
    const summary = visible(summarizeInput(ev.payload.input));
    const seq = this.o.toolsOnly ? this.p.dim(`#${ev.seq} `) : '';
    const room = this.width - INDENT.length - (this.o.toolsOnly ? `#${ev.seq} `.length : 0);
    const line = cutToWidth(`● ${name}${summary ? `  ${summary}` : ''}`, room);
    this.push(INDENT + seq + this.p.bold(this.marks(line)));
    const callId = str(ev.payload.call_id);
    const result = callId !== undefined ? this.results.get(callId) : undefined;
    const derived = this.derived.get(ev.seq) ?? [];
    const run = derived.find((d) => d.type === 'command.run');
    if (result) this.result(result, run);
    else if (run) this.status(run, undefined);
    for (const edit of derived.filter((d) => d.type === 'file.edit')) this.diff(edit);
  }

  private result(result: Ev, run: Ev | undefined): void {
    const content = result.payload.content;
    let text = '';
    let images = 0;
    const labels: string[] = [];
    if (typeof content === 'string') text = content;
    else if (Array.isArray(content)) {
      for (const block of content) {
        if (!isObject(block)) continue;
        if (block.type === 'text' && typeof block.text === 'string') text += (text ? '\n' : '') + block.text;
        else if (block.type === 'image') labels.push(this.imageLabel(block, ++images));
      }
    }
    const lines = visible(text).replace(/\r\n?/g, '\n').split('\n');
    while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
    while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
    const limit = this.o.full ? lines.length : RESULT_LINES;
    const pad = INDENT + '  ';
    const room = this.width - pad.length - 2;
    lines.slice(0, limit).forEach((line, i) => this.push(pad + this.p.dim((i === 0 ? '⎿ ' : '  ') + this.marks(cutToWidth(line, room)))));
    for (const label of labels) this.push(pad + '  ' + this.p.cyan(label));
    if (lines.length > limit) this.push(pad + this.p.dim(`  … ${lines.length - limit} more line${lines.length - limit === 1 ? '' : 's'}`));
    this.status(run, result);
  }

  private status(run: Ev | undefined, result: Ev | undefined): void {
    const pad = INDENT + '    ';
    const code = run?.payload.exit_code;
    if (typeof code === 'number') {
      const text = `exit ${code}`;
      this.push(pad + (code === 0 ? this.p.green(text) : this.p.red(this.p.bold(text))));
    } else if (run?.payload.interrupted === true) this.push(pad + this.p.yellow('interrupted'));
    else if (result?.payload.is_error === true) this.push(pad + this.p.red(this.p.bold('error')));
  }

  private diff(edit: Ev): void {
    const pad = INDENT + '    ';
    const diff = str(edit.payload.diff);
    const path = str(edit.payload.path) ?? '';
    const counts = typeof edit.payload.added === 'number' || typeof edit.payload.removed === 'number' ? ` +${int(edit.payload.added) ?? 0} -${int(edit.payload.removed) ?? 0}` : '';
    if (diff === undefined || diff === '') {
      this.push(pad + this.p.yellow(cutToWidth(visible(`${str(edit.payload.kind) ?? 'edit'} ${path}${counts}`), this.width - pad.length)));
      return;
    }
    const lines = visible(diff).replace(/\r\n?/g, '\n').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const limit = this.o.full ? lines.length : DIFF_LINES;
    const room = this.width - pad.length;
    for (const line of lines.slice(0, limit)) {
      const cut = this.marks(cutToWidth(line, room, '…'));
      if (line.startsWith('+++') || line.startsWith('---')) this.push(pad + this.p.bold(cut));
      else if (line.startsWith('@@')) this.push(pad + this.p.cyan(cut));
      else if (line.startsWith('+')) this.push(pad + this.p.green(cut));
      else if (line.startsWith('-')) this.push(pad + this.p.red(cut));
      else this.push(pad + cut);
    }
    if (lines.length > limit) this.push(pad + this.p.dim(`… ${lines.length - limit} more diff line${lines.length - limit === 1 ? '' : 's'} (--full)`));
  }

  private commandLine(ev: Ev): void {
    const cmd = visible(str(ev.payload.cmd) ?? '');
    this.push(INDENT + this.p.bold(this.marks(cutToWidth(`$ ${cmd}`, this.width - INDENT.length))));
    this.status(ev, undefined);
  }
}

function describeFork(payload: Json): string {
  const from = str(payload.from_session);
  const at = int(payload.from_seq);
  const reason = str(payload.reason);
  return visible(`${from ? ` from ${from}` : ''}${at !== undefined ? ` at #${at}` : ''}${reason ? `: ${reason}` : ''}`);
}

/** The one thing that says what a call does: its command, path, pattern or query; else its input as JSON. */
export function summarizeInput(input: unknown): string {
  if (typeof input === 'string') return input.split('\n')[0] ?? '';
  if (!isObject(input)) return input === undefined ? '' : JSON.stringify(input) ?? '';
  for (const key of ['command', 'cmd', 'file_path', 'filePath', 'path', 'absolute_path', 'pattern', 'query', 'url', 'prompt', 'description']) {
    const value = input[key];
    if (typeof value === 'string' && value !== '') return value.split('\n')[0]!;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string') && value.length > 0) {
      // Codex shells: ["bash", "-lc", "npm test"] reads best as its script.
      const args = value as string[];
      return (args.length === 3 && /(^|\/)(ba|z|)sh$/.test(args[0]!) && /^-l?c$/.test(args[1]!) ? args[2]! : args.join(' ')).split('\n')[0]!;
    }
  }
  const json = JSON.stringify(input) ?? '';
  return json === '{}' ? '' : json;
}
