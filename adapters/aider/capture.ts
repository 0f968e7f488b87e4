// `capture` for Aider (docs/formats/aider.md §2, §7). One `.aider.chat.history.md` holds every session
// Aider ran in that repository: each `# aider chat started at <time>` begins a canonical session
// (native id `<file id>:<line of the header>`, stable while the file only grows). In a session:
//   `#### ` lines        → one message.user (prefix and Aider's two trailing spaces removed)
//   other lines          → one message.assistant per reply (blank lines kept inside, trimmed around)
//   `> ` lines           → meta `aider.output` (Aider's status/tool output: banners, applied edits,
//                          commits, confirm answers); `> Aider v…` and `> Main model: …` also fill session.start
//   `# ` outside a reply → meta `aider.unknown` with the raw line (Aider writes `# ` only as headers;
//                          inside a reply it is the reply's own text: a comment or a heading)
// A line that is not valid UTF-8 is reported (file:line) and kept as meta `aider.invalid-utf8`.
// Times: the header's (local time, no zone, read as UTC), user turns take the time of the matching
// `.aider.input.history` entry beside the file when there is one. Capture streams the file and is
// always complete (no incremental cursor: a history file is re-read whole, as Aider's restore does).
// `.aider.input.history` on its own gives one session of user messages.
import { statSync } from 'node:fs';
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { readError } from '../../lib/cli/diagnostics.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import type { SpEvent } from '../../lib/core/event.js';
import { sourceLines } from '../../lib/capture/read-position.js';
import type { Line } from '../../lib/core/lines.js';
import { InputTimes, readInputHistory } from './input.js';
import { AGENT, fileId, inputHistoryBeside, isInputHistory, parseLocalStamp } from './paths.js';

export const HEADER = '# aider chat started at ';

type Kind = 'user' | 'assistant' | 'output';

interface Block {
  kind: Kind;
  lines: string[];
  first: number;
  raw: string[];
}

/** The text of a user line: Aider writes `#### <line>  ` (a Markdown hard break) and `#### <blank>` for empty input. */
export function userLineText(text: string): string {
  const body = text.slice(5).replace(/ {2}$/, '');
  return body === '<blank>' ? '' : body;
}

function outputLineText(text: string): string {
  return (text === '>' ? '' : text.slice(2)).replace(/ {2}$/, '');
}

export function classify(text: string): Kind | 'header' | 'hash' {
  if (text.startsWith(HEADER)) return 'header';
  if (text.startsWith('#### ') || text === '####') return 'user';
  if (text.startsWith('> ') || text === '>') return 'output';
  if (text.startsWith('# ')) return 'hash';
  return 'assistant';
}

class AiderSession {
  readonly emitter: SessionEmitter;
  started = false;
  model?: string;
  version?: string;
  private pendingOutputs: Block[] = [];

  constructor(
    readonly nativeId: string,
    readonly headerLine: number | undefined,
    readonly ts: number,
    readonly stamp: string | undefined,
    private readonly path: string,
    private readonly raw: boolean,
  ) {
    this.emitter = new SessionEmitter(AGENT, nativeId);
  }

  private origin(line: number, raw: string[]): Record<string, unknown> {
    const origin: Record<string, unknown> = { native_seq: line, path: this.path };
    if (this.raw) origin.raw = raw;
    return origin;
  }

  private start(): SpEvent {
    this.started = true;
    const payload: Record<string, unknown> = { native_id: this.nativeId, time_zone: 'unknown (Aider writes local time; read as UTC)' };
    if (this.model) payload.model = this.model;
    if (this.version) payload.version = this.version;
    if (this.stamp) payload.started_at_local = this.stamp;
    if (this.headerLine === undefined) payload.header = false;
    return this.emitter.emit('session.start', payload, this.ts, { actor: 'system', origin: this.origin(this.headerLine ?? 1, this.headerLine ? [`${HEADER}${this.stamp ?? ''}`] : []) });
  }

  /** Events for a finished block. Output blocks before the first message wait so that session.start carries the banner's model. */
  *block(block: Block, ts: number): Generator<SpEvent> {
    if (block.kind === 'output') {
      for (const text of block.lines) {
        const version = /^Aider (v\S+)/.exec(text);
        if (version && !this.version) this.version = version[1];
        const model = /^(?:Main model|Models?): (\S+)/.exec(text);
        if (model && !this.model) this.model = model[1];
      }
      if (!this.started) {
        this.pendingOutputs.push(block);
        return;
      }
    }
    yield* this.ensureStarted();
    if (block.kind === 'output') {
      yield this.output(block);
      return;
    }
    let lines = block.lines;
    if (block.kind === 'assistant') {
      let from = 0;
      let to = lines.length;
      while (from < to && lines[from].trim() === '') from += 1;
      while (to > from && lines[to - 1].trim() === '') to -= 1;
      lines = lines.slice(from, to);
      if (lines.length === 0) return;
    }
    const text = lines.join('\n');
    const origin = this.origin(block.first, block.raw);
    if (block.kind === 'user') {
      const payload: Record<string, unknown> = { content: [{ type: 'text', text }] };
      const command = /^\/([A-Za-z][\w-]*)/.exec(text);
      if (command) payload.command = command[1];
      yield this.emitter.emit('message.user', payload, ts, { actor: 'user', level: 0, origin });
    } else {
      const payload: Record<string, unknown> = { content: [{ type: 'text', text }] };
      if (this.model) payload.model = this.model;
      yield this.emitter.emit('message.assistant', payload, ts, { actor: `agent:${AGENT}`, level: 0, origin });
    }
  }

  private output(block: Block): SpEvent {
    return this.emitter.emit('meta', { key: 'aider.output', text: block.lines.join('\n'), lines: block.lines }, this.ts, { actor: 'tool', origin: this.origin(block.first, block.raw) });
  }

  *ensureStarted(): Generator<SpEvent> {
    if (this.started) return;
    yield this.start();
    for (const block of this.pendingOutputs) yield this.output(block);
    this.pendingOutputs = [];
  }

  meta(payload: Record<string, unknown>, line: Line): SpEvent {
    return this.emitter.emit('meta', payload, this.ts, { actor: 'system', origin: this.origin(line.number, [line.text]) });
  }
}

export async function* captureAider(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  if (isInputHistory(ref.path)) {
    yield* captureInputHistory(ref, options);
    return;
  }
  const path = ref.path;
  let size: number;
  let mtime: number;
  try {
    const stat = statSync(path);
    size = stat.size;
    mtime = stat.mtimeMs / 1000;
  } catch (err) {
    throw readError(err, path);
  }
  const times = new InputTimes(await readInputHistory(inputHistoryBeside(path)));
  const id = fileId(path);
  let session: AiderSession | undefined;
  let block: Block | undefined;
  let blockTs = 0;
  const raw = options.raw === true;

  const finish = function* (): Generator<SpEvent> {
    if (!session || !block) return;
    const done = block;
    block = undefined;
    let ts = session.ts;
    if (done.kind === 'user') ts = times.take(done.lines.join('\n'), session.ts) ?? Math.max(blockTs, session.ts);
    blockTs = Math.max(blockTs, ts);
    yield* session.block(done, ts);
  };
  const newSession = (line: Line | undefined, stamp: string | undefined): AiderSession => {
    const ts = (stamp !== undefined ? parseLocalStamp(stamp) : undefined) ?? mtime;
    blockTs = ts;
    return new AiderSession(`${id}:${line?.number ?? 1}`, line?.number, ts, stamp, path, raw);
  };

  // Lines before the first header (a stray preamble) have no time of their own: their events wait
  // for the first header's time (the file's mtime, a later date, would put them after everything).
  let preamble: SpEvent[] | undefined = [];
  const release = function* (ts: number | undefined): Generator<SpEvent> {
    if (!preamble) return;
    for (const event of preamble) yield ts !== undefined && ts < event.ts ? { ...event, ts } : event;
    preamble = undefined;
  };
  const hold = function* (events: Iterable<SpEvent>): Generator<SpEvent> {
    for (const event of events) {
      if (preamble && session?.headerLine === undefined) preamble.push(event);
      else yield event;
    }
  };
  try {
    for await (const line of sourceLines(path, 0, size, 1)) {
      const kind = classify(line.text);
      if (kind === 'header') {
        yield* hold(finish());
        if (session) yield* hold(session.ensureStarted());
        const stamp = line.text.slice(HEADER.length);
        yield* release(parseLocalStamp(stamp));
        session = newSession(line, stamp);
        continue;
      }
      // Blank lines before the first header (Aider starts every header with one) belong to no session.
      if (!session && line.text.trim() === '') continue;
      session ??= newSession(undefined, undefined);
      if (line.invalidUtf8) {
        yield* hold(finish());
        options.onDiagnostic?.(`${path}:${line.number}`, `not valid UTF-8 (kept as meta, bad bytes as U+FFFD): ${line.text.slice(0, 120)}`);
        yield* hold(session.ensureStarted());
        yield* hold([session.meta({ key: 'aider.invalid-utf8', raw: line.text }, line)]);
        continue;
      }
      if (kind === 'hash') {
        if (block?.kind === 'assistant' && block.lines.some((l) => l.trim() !== '')) {
          block.lines.push(line.text);
          block.raw.push(line.text);
          continue;
        }
        yield* hold(finish());
        yield* hold(session.ensureStarted());
        yield* hold([session.meta({ key: 'aider.unknown', raw: line.text }, line)]);
        continue;
      }
      if (block && block.kind !== kind) {
        // A blank line between two user lines or two output lines does not occur in Aider's writer; blank lines belong to replies.
        if (line.text.trim() === '' && block.kind !== 'assistant') {
          yield* hold(finish());
          continue;
        }
        yield* hold(finish());
      }
      if (!block) {
        if (kind === 'assistant' && line.text.trim() === '') continue;
        block = { kind, lines: [], first: line.number, raw: [] };
      }
      block.lines.push(kind === 'user' ? userLineText(line.text) : kind === 'output' ? outputLineText(line.text) : line.text);
      block.raw.push(line.text);
    }
  } catch (err) {
    throw readError(err, path);
  }
  yield* hold(finish());
  if (session) yield* hold(session.ensureStarted());
  else yield* newSession(undefined, undefined).ensureStarted();
  yield* release(undefined);
}

/** `.aider.input.history` alone: one session whose user messages are its entries, each at its own time. */
async function* captureInputHistory(ref: SessionRef, options: CaptureOptions): AsyncGenerator<SpEvent> {
  const others: { line: number; text: string }[] = [];
  const entries = await readInputHistory(ref.path, (line, text) => others.push({ line, text }));
  const emitter = new SessionEmitter(AGENT, ref.native_id);
  const first = entries[0]?.ts ?? statSync(ref.path).mtimeMs / 1000;
  yield emitter.emit('session.start', { native_id: ref.native_id, source: 'input-history', time_zone: 'unknown (Aider writes local time; read as UTC)' }, first, { actor: 'system', origin: { path: ref.path } });
  for (const entry of entries) {
    yield emitter.emit('message.user', { content: [{ type: 'text', text: entry.text }] }, entry.ts, { actor: 'user', level: 0, origin: { native_seq: entry.line, path: ref.path } });
  }
  for (const other of others) {
    options.onDiagnostic?.(`${ref.path}:${other.line}`, `not an input-history entry: ${other.text.slice(0, 120)}`);
  }
}
