// sp-compile end to end: read the stream once (extracting as it goes), pick the session, select
// items within the budget, render, then write the input events followed by one chained
// context.compiled event — or only the rendered text, or the files.
//
// Nothing reaches stdout before the compile has succeeded, so a failed compile (P0 over budget)
// never leaves a stream without its context.compiled event in a pipeline. Regular files are read a
// second time for the copy; stdin, a FIFO (anything but a regular file) is spooled to a temp file
// while it is read, and so are files from the first line redaction changes (or drops) on. Memory stays bounded either way: lines are not
// kept, only the extractor's bounded state.
import { isUtf8 } from 'node:buffer';
import { closeSync, createReadStream, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { Chainer } from '../core/chain.js';
import { excerpt, UserError, warn } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';
import { canonicalize } from '../core/jcs.js';
import { parseJsonObject } from '../core/json.js';
import { splitLines } from '../core/lines.js';
import { scratchDir } from '../fs/private.js';
import { NdjsonWriter, openInput, type Input } from '../core/ndjson.js';
import { forEachLine, readsOnce, type RawLine } from './read.js';
import { selectItems, type Selection } from './budget.js';
import { Extractor, type SessionState } from './extract.js';
import { answerCap, isLocal, modelSummary, summaryItem, SummarizerError, type SummarizerConfig } from './model-summary.js';
import { extract, type Extraction, type Item, type Loss } from './items.js';
import { A2A_PROTOCOL_VERSION, a2aTask } from './a2a.js';
import { writeOutputs } from './output.js';
import { render, type Rendered } from './render.js';
import { compileTargets, resolveBudget, targetOf, type FormatName, type TargetName } from './targets.js';
import { seqRanges } from './text.js';
import { lastTestCommand, observeWorkspace } from './workspace.js';
import { createCounter, prepareTokenizer, releaseTokenizers, type TokenCounter, type TokenizerName } from './tokens.js';

export interface CompileOptions {
  inputs: Input[];
  target: TargetName;
  format?: FormatName;
  budget?: number;
  window?: number;
  reserve?: number;
  tokenizer?: TokenizerName;
  /** Which session of the stream to compile (id, id prefix or native id). */
  session?: string;
  /** Print only the rendered text (no events). */
  renderOnly?: boolean;
  /** Write the rendered files into this directory. */
  outDir?: string;
  force?: boolean;
  out?: Writable;
  /** Observe this folder's git and test state now (undefined: the session's cwd when it exists here; false: none). */
  workspace?: string | false;
  /** Re-run the session's last test command in the workspace (bounded). */
  rerunTests?: boolean;
  /** Applied to the workspace items' text (the handoff's redaction: observed text can hold secrets too). */
  redactText?: (text: string) => string;
  /** A model-written P2 summary (`--summarizer`); the extractive one stays as the fallback. */
  summarizer?: SummarizerConfig;
  /** Applied to the dialogue before it goes to the summarizer, and to its answer; `label` is recorded. */
  summarizerRedaction?: { redact: (text: string) => string; label: string };
  /** Append a derived `decision` event for each decision only text suggests, before context.compiled. */
  extractDecisions?: boolean;
  /**
   * Redacts each parsed line in place (lib/redact/ensure.ts LineRedaction), in this one pass over
   * the input: the line's new text, or undefined when it passes as it is.
   */
  lineRedaction?: { line(event: Record<string, unknown>, text: string, where: string): string | undefined };
  /** Frees the tokenizers once the last count is made, before the output is written (a caller that compiles once). */
  releaseTokenizer?: boolean;
}

export interface CompileResult {
  event: SpEvent;
  selection: Selection;
  extraction: Extraction;
  written: string[];
}

/** Individually listed dropped items; beyond this many they are grouped by kind with seq ranges. */
const DROPPED_LISTED = 500;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const NEWLINE = Buffer.from('\n');

function badLine(line: RawLine, reason: string): string {
  return `${reason}${line.terminated ? '' : ' (last line has no newline: truncated?)'}: ${excerpt(line.text)}`;
}

/** Appends bytes to a file in 1 MB batches, in a private folder that goes on exit or interrupt too. */
class Spool {
  private readonly dir = scratchDir('sp-compile');
  readonly path = join(this.dir.path, 'events.ndjson');
  private readonly fd = openSync(this.path, 'wx', 0o600);
  private buffer = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  write(bytes: Buffer): void {
    if (this.used + bytes.length > this.buffer.length) this.flush();
    if (bytes.length > this.buffer.length) writeSync(this.fd, bytes);
    else this.used += bytes.copy(this.buffer, this.used);
  }
  flush(): void {
    if (this.used > 0) writeSync(this.fd, this.buffer, 0, this.used);
    this.used = 0;
  }
  /** Bytes [start, end) of a file. */
  copyRange(path: string, start: number, end: number): void {
    const fd = openSync(path, 'r');
    try {
      for (let at = start; at < end; ) {
        if (this.used === this.buffer.length) this.flush();
        const n = readSync(fd, this.buffer, this.used, Math.min(this.buffer.length - this.used, end - at), at);
        if (n === 0) throw new Error(`${path} shrank while it was read`);
        this.used += n;
        at += n;
      }
    } finally {
      closeSync(fd);
    }
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
  remove(): void {
    this.dir.remove();
  }
}

/** A file's size, whether it starts with a UTF-8 BOM (3 bytes) or not (0), and whether it ends with a newline. */
function fileHead(path: string): { size: number; bom: number; endsWithNewline: boolean } {
  const fd = openSync(path, 'r');
  try {
    const { size } = fstatSync(fd);
    const head = Buffer.alloc(3);
    const bom = readSync(fd, head, 0, 3, 0) === 3 && head.equals(BOM) ? 3 : 0;
    const last = Buffer.alloc(1);
    const endsWithNewline = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a;
    return { size, bom, endsWithNewline };
  } finally {
    closeSync(fd);
  }
}

function checkEvent(value: Record<string, unknown>, source: string, number: number): SpEvent {
  if (typeof value.session === 'string' && value.session !== '' && typeof value.type === 'string' && Number.isSafeInteger(value.seq) && (value.seq as number) >= 0) {
    return value as SpEvent;
  }
  const where = () => `${source}:${number}`;
  const missing = ['session', 'seq', 'type'].filter((k) => !(k in value));
  if (missing.length) throw new UserError(`not a canonical event: no ${missing.join(', ')}`, where());
  if (typeof value.session !== 'string' || value.session === '') throw new UserError('not a canonical event: session is not a non-empty string', where());
  if (typeof value.type !== 'string') throw new UserError('not a canonical event: type is not a string', where());
  throw new UserError('not a canonical event: seq is not a non-negative integer', where());
}

function pickSession(ex: Extractor, wanted: string | undefined): string {
  if (ex.sessions.size === 0) throw new UserError('no events to compile', 'input');
  const describe = (ids: string[]) => ids.slice(0, 5).map((id) => {
    const info = ex.sessions.get(id)!.info;
    return `${id}${info.nativeId ? ` (${info.agent} ${info.nativeId})` : ''}`;
  }).join(', ') + (ids.length > 5 ? ', …' : '');
  if (wanted) {
    const all = ex.order;
    const exact = all.filter((id) => id === wanted || ex.sessions.get(id)!.info.nativeId === wanted);
    const matches = exact.length ? exact : all.filter((id) => id.startsWith(wanted) || ex.sessions.get(id)!.info.nativeId?.startsWith(wanted));
    if (matches.length === 1) return matches[0];
    if (matches.length === 0) throw new UserError(`no session ${JSON.stringify(wanted)} in the stream; it holds ${describe(all)}`, '--session');
    throw new UserError(`${JSON.stringify(wanted)} matches ${matches.length} sessions: ${describe(matches)}`, '--session');
  }
  const roots = ex.roots();
  if (roots.length === 1) return roots[0].info.id;
  if (roots.length === 0) return ex.order[0];
  throw new UserError(`the stream holds ${roots.length} sessions: ${describe(roots.map((r) => r.info.id))}; pick one with --session`, 'input');
}

function lossEntry(loss: Loss, primary: string): Record<string, unknown> {
  return { kind: loss.kind, reason: loss.reason, ...(loss.session !== primary ? { session: loss.session } : {}), count: loss.count, seqs: loss.ranges };
}

/** Dropped items: each listed (up to a limit), then the rest grouped by kind, plus what is not carried. */
function droppedList(selection: Selection, losses: Loss[], counter: TokenCounter, primary: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const dropped = [...selection.dropped].sort((a, b) => a.priority - b.priority || b.value - a.value || (a.id < b.id ? -1 : 1));
  for (const item of dropped.slice(0, DROPPED_LISTED)) {
    const counted = selection.counts.get(item.id);
    out.push({
      id: item.id,
      kind: item.kind,
      priority: item.priority,
      ...(item.session !== primary ? { session: item.session } : {}),
      seqs: item.seqs,
      ...(counted !== undefined ? { tokens: counted } : { tokens_estimate: counter.estimate(`${item.text}\n`) }),
      reason: 'budget',
    });
  }
  const rest = new Map<string, Item[]>();
  for (const item of dropped.slice(DROPPED_LISTED)) {
    const key = `${item.kind}\0${item.priority}\0${item.session}`;
    const list = rest.get(key) ?? [];
    list.push(item);
    rest.set(key, list);
  }
  for (const list of [...rest.values()]) {
    const first = list[0];
    out.push({
      kind: first.kind,
      priority: first.priority,
      ...(first.session !== primary ? { session: first.session } : {}),
      count: list.length,
      seqs: seqRanges(list.flatMap((i) => i.seqs)),
      reason: 'budget',
    });
  }
  for (const loss of losses) out.push(lossEntry(loss, primary));
  return out;
}

function itemEntry(item: Item, selection: Selection, primary: string): Record<string, unknown> {
  return {
    id: item.id,
    kind: item.kind,
    priority: item.priority,
    section: item.section,
    ...(item.session !== primary ? { session: item.session } : {}),
    seqs: item.seqs,
    tokens: selection.counts.get(item.id) ?? null,
    ...(item.quote !== undefined ? { quote: item.quote } : {}),
    ...(item.detail ?? {}),
  };
}

/** Writes a buffer to a stream, waiting when it asks to (backpressure). */
async function send(out: Writable, bytes: Buffer): Promise<void> {
  if (!out.write(bytes)) await once(out, 'drain');
}

/** Writes a buffer and waits until the stream is done with it (its callback), so it can be reused. */
function sendAndWait(out: Writable, bytes: Buffer): Promise<void> {
  // On an error the stream's 'error' handlers end the process (NdjsonWriter, lib/cli), as with send().
  return new Promise((resolve) => out.write(bytes, (err) => err || resolve()));
}

/** Copies a source's bytes as they are: a leading BOM left out, a final newline added when missing. */
async function copyBytes(path: string, out: Writable): Promise<void> {
  // process.stdout has written a chunk when its callback runs, so one buffer serves the whole copy:
  // a fresh 1 MB per chunk piles up outside the heap until a GC (+30 MB on a 66 MB copy). Any other
  // stream may keep the chunks it is given, and gets fresh ones.
  const reuse = out === process.stdout;
  const fd = openSync(path, 'r');
  let last = 0x0a;
  try {
    let buffer = Buffer.allocUnsafe(1 << 20);
    let first = true;
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      let bytes = buffer.subarray(0, n);
      if (first && bytes.length >= 3 && bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
      first = false;
      if (bytes.length === 0) continue;
      last = bytes[bytes.length - 1];
      if (reuse) await sendAndWait(out, bytes);
      else {
        await send(out, bytes);
        buffer = Buffer.allocUnsafe(1 << 20);
      }
    }
  } finally {
    closeSync(fd);
  }
  if (last !== 0x0a) await send(out, NEWLINE);
}

/** Re-reads sources and writes every event chained afresh (the input carried no chain). */
async function copyRechained(paths: string[], writer: NdjsonWriter, chainer: Chainer): Promise<void> {
  for (const path of paths) {
    for await (const line of splitLines(createReadStream(path, { highWaterMark: 1 << 20 }))) {
      if (line.text.trim() === '') continue;
      await writer.writeLine(canonicalize(chainer.chain(JSON.parse(line.text) as SpEvent)));
    }
  }
}

/** The model's summary as an item, and what the compiled event records of the exchange (also a failure). */
async function summarizeWithModel(options: CompileOptions, state: SessionState, session: string, budget: number, counter: TokenCounter): Promise<{ item?: Item; record: Record<string, unknown> }> {
  const c = options.summarizer!;
  const redaction = options.summarizerRedaction ?? { redact: (text: string) => text, label: 'none' };
  const base = { provider: c.provider, ...(c.provider === 'command' ? { command: c.endpoint } : { endpoint: c.endpoint }), model: c.model ?? null, local: isLocal(c), redaction: redaction.label };
  const messages = [
    ...state.requests.items.map((m) => ({ ...m, role: 'user' as const })),
    ...state.replies.items.map((m) => ({ ...m, role: 'assistant' as const })),
  ]
    .filter((m) => state.onPath(m.seq))
    .sort((a, b) => a.seq - b.seq);
  const cap = answerCap(budget);
  try {
    const summary = await modelSummary(c, { session, messages, redact: redaction.redact }, cap);
    const { item, cut } = summaryItem(summary, session, counter, cap, redaction.redact);
    const tokens = { prompt: summary.tokens.prompt ?? counter.count(summary.prompt), answer: summary.tokens.answer ?? counter.count(summary.answer), counted_by: summary.tokens.prompt !== undefined ? 'the model' : counter.name };
    return { item, record: { ...base, model: summary.model, prompt: summary.prompt, answer: redaction.redact(summary.answer), tokens, cut, used: false } };
  } catch (err) {
    if (!(err instanceof SummarizerError)) throw err;
    warn('--summarizer', `${err.message}; the extractive summary stands in`);
    return { record: { ...base, used: false, error: err.message } };
  }
}

/** The derived decision events for the decisions the handoff only guessed from text. */
function decisionEvents(extraction: Extraction, info: Extraction['primary']['info']): SpEvent[] {
  return extraction.guessedDecisions.map((d, i) => ({
    session: info.id,
    seq: info.lastSeq + 1 + i,
    ts: info.lastTs ?? 0,
    agent: info.agent,
    type: 'decision',
    actor: 'system',
    level: 1,
    derived_from: d.seq,
    payload: { decision: d.decision, ...(d.reason ? { reason: d.reason } : {}), found_in: d.source, extracted_by: 'sp-compile' },
  }));
}

/**
 * Compile's one pass over its inputs: each line parsed once, redacted (options.lineRedaction), checked
 * and handed to the extractor; the lines that go out are spooled when they cannot be copied from
 * the inputs themselves. `onSpool` learns of the spool as soon as it exists, so a failure removes it.
 */
async function readInputs(options: CompileOptions, writesEvents: boolean, onSpool: (spool: Spool) => Spool): Promise<{ ex: Extractor; chained: boolean }> {
  const fromFiles = !options.inputs.some(readsOnce);
  const redaction = options.lineRedaction;
  let spool = writesEvents && !fromFiles ? onSpool(new Spool()) : undefined;
  // Redacted file inputs are copied from the files themselves while every line passes as it is
  // (the usual case: a stream sp-redact wrote); the spool starts at the first line that does not.
  const lazy = writesEvents && fromFiles && redaction !== undefined;
  /** Starts the spool with what the files gave so far: inputs before `index` whole, then `passed` bytes of it. */
  const startSpool = (index: number, passed: number): Spool => {
    const s = onSpool(new Spool());
    for (let i = 0; i <= index; i++) {
      const path = options.inputs[i].name;
      const head = fileHead(path);
      if (i < index) {
        s.copyRange(path, head.bom, head.size);
        if (head.size > head.bom && !head.endsWithNewline) s.write(NEWLINE);
      } else s.copyRange(path, head.bom, head.bom + passed);
    }
    return s;
  };
  const ex = new Extractor();
  let chained = true;
  for (const [index, input] of options.inputs.entries()) {
    let passed = 0; // bytes of this input's lines so far (lazy: before the spool starts)
    const stream = openInput(input);
    try {
      await forEachLine(stream, true, (line) => {
        if (line.text.charCodeAt(0) !== 0x7b && line.text.trim() === '') {
          // a JSON object starts with {; a blank line is left out of a redacted copy
          if (lazy && !spool) spool = startSpool(index, passed);
          passed += line.bytes!.length;
          return;
        }
        // Bytes that are not UTF-8 would be passed on as they are, into a stream that no longer verifies.
        const invalid = line.text.includes('\ufffd') && line.bytes !== undefined && !isUtf8(line.bytes);
        const parsed = invalid ? { reason: 'not valid UTF-8' } : parseJsonObject(line.text);
        if (!parsed.value) throw new UserError(badLine(line, parsed.reason!), `${input.name}:${line.number}`);
        let value = parsed.value;
        let bytes = line.bytes;
        const redacted = redaction?.line(value, line.text, `${input.name}:${line.number}`);
        if (redacted !== undefined) {
          // Read back from its text, as a later stage reading this output would.
          value = parseJsonObject(redacted).value!;
          bytes = Buffer.from(line.terminated ? `${redacted}\n` : redacted);
          if (lazy && !spool) spool = startSpool(index, passed);
        }
        const event = checkEvent(value, input.name, line.number);
        if (typeof event.checksum !== 'string') chained = false;
        ex.push(event);
        passed += line.bytes!.length;
        if (spool && bytes) {
          spool.write(bytes);
          if (!line.terminated) spool.write(NEWLINE);
        }
      });
    } catch (err) {
      if (err instanceof UserError) throw err;
      throw new UserError(`cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, input.name);
    }
  }
  spool?.close();
  return { ex, chained };
}

export async function compile(options: CompileOptions): Promise<CompileResult> {
  const target = targetOf(options.target);
  if (!target) throw new UserError(`unknown target "${options.target}"; targets: ${Object.keys(compileTargets()).join(', ')}`);
  const format = options.format ?? 'message';
  const budget = resolveBudget(target, options);
  if (!Number.isSafeInteger(budget) || budget <= 0) throw new UserError(`the budget must be a positive number of tokens (got ${budget})`, '--budget');
  const out = options.out ?? process.stdout;
  const writesEvents = !options.renderOnly;
  let spool: Spool | undefined;
  const counter = createCounter(options.tokenizer ?? target.tokenizer);
  prepareTokenizer(counter.name); // loads while the input is read
  try {
    // ---- one pass over the input ---------------------------------------------------------------
    const { ex, chained } = await readInputs(options, writesEvents, (started) => (spool = started));

    // ---- items, budget, rendering ------------------------------------------------------------------
    const primaryId = pickSession(ex, options.session);
    const extraction = extract(ex, primaryId);
    const state = ex.sessions.get(primaryId)!;
    const folder = options.workspace === false ? undefined : options.workspace ?? state.info.cwd;
    if (folder) {
      const observed = observeWorkspace({ dir: folder, session: primaryId, since: state.info.firstTs, lastTest: lastTestCommand(state.commands.items), rerunTests: options.rerunTests });
      const redactText = options.redactText;
      extraction.items.push(...(redactText ? observed.map((i) => ({ ...i, text: redactText(i.text) })) : observed));
    }
    // An A2A task carries the message form of the handoff as its artifact.
    const renderInput = { target, format: format === 'a2a' ? ('message' as const) : format, extraction };
    const renderItems = (items: readonly Item[]) => render(renderInput, items);
    const measure = (r: Rendered) => {
      const whole = counter.count(r.text);
      if (r.docs.length === 1) return whole;
      return Math.max(whole, r.docs.reduce((n, d) => n + counter.count(d.text), 0));
    };
    const summarized = options.summarizer ? await summarizeWithModel(options, state, primaryId, budget, counter) : undefined;
    if (summarized?.item) extraction.items.push(summarized.item);
    const selection = selectItems(extraction.items, budget, counter, renderItems, measure, primaryId);
    if (summarized?.item) summarized.record.used = selection.selected.includes(summarized.item);

    const info = extraction.primary.info;
    // Decisions found only in text become events of their own (for the store), chained after the
    // input and before the compiled event; each points at the event its text was found in.
    const extracted = options.extractDecisions && writesEvents ? decisionEvents(extraction, info) : [];
    const compiledSeq = info.lastSeq + 1 + extracted.length;
    const payload: Record<string, unknown> = {
      target: target.name,
      format,
      tokenizer: counter.name,
      budget,
      tokens: selection.tokens,
      ...(options.window !== undefined || options.reserve !== undefined
        ? { window: options.window ?? target.window, reserve: options.reserve ?? target.reserve }
        : {}),
      source: { session: info.id, agent: info.agent, ...(info.nativeId ? { native_id: info.nativeId } : {}), first_seq: info.firstSeq, last_seq: info.lastSeq, events: info.events },
      items: selection.selected.map((i) => itemEntry(i, selection, primaryId)),
      dropped: droppedList(selection, extraction.losses, counter, primaryId),
      ...(format === 'files' ? { files: selection.rendered.docs.map((d) => ({ name: d.name, tokens: counter.count(d.text) })) } : {}),
      text: selection.rendered.text,
      ...(summarized ? { summarizer: summarized.record } : {}),
    };
    if (format === 'a2a') {
      const latest = extraction.items.find((i) => i.kind === 'goal' && i.priority === 0);
      const task = a2aTask(
        selection.rendered.text,
        { session: info.id, agent: info.agent, native_id: info.nativeId, compiled_seq: compiledSeq, last_ts: info.lastTs, request: latest?.quote },
        { target: target.name, tokenizer: counter.name, budget, tokens: selection.tokens, items: payload.items as Array<Record<string, unknown>>, dropped: (payload.dropped as unknown[]).length },
      );
      // The text a reader of the event (or --render) gets is the task itself.
      payload.a2a_protocol = A2A_PROTOCOL_VERSION;
      payload.text = `${JSON.stringify(task, null, 2)}\n`;
    }
    if (extracted.length > 0) payload.extracted_decisions = extracted.map((e) => e.seq);
    const event: SpEvent = {
      session: info.id,
      seq: compiledSeq,
      // Source time of the last event, not the clock: the same input compiles to the same bytes.
      ts: info.lastTs ?? 0,
      agent: info.agent,
      type: 'context.compiled',
      actor: 'system',
      level: 1,
      payload,
    };

    // ---- output -----------------------------------------------------------------------------------
    // Nothing is counted from here on: the encoder's tables (and its thread) need not last through the copy.
    if (options.releaseTokenizer) releaseTokenizers();
    const written = options.outDir ? writeOutputs(options.outDir, format, target, selection.rendered, options.force === true) : [];
    if (options.renderOnly) {
      const writer = new NdjsonWriter(out);
      await writer.writeBytes(Buffer.from(payload.text as string));
      await writer.end();
    } else {
      const writer = new NdjsonWriter(out); // also ends the process quietly on a closed pipe
      const sources = spool ? [spool.path] : options.inputs.map((i) => i.name);
      const chainer = new Chainer();
      if (chained) {
        for (const path of sources) await copyBytes(path, out);
        if (info.tail) chainer.seed(info.id, info.tail);
      } else {
        warn('input', 'events without a checksum: the output stream is chained afresh');
        await copyRechained(sources, writer, chainer);
        await writer.flush();
      }
      for (const decision of extracted) await writer.write(chainer.chain(decision));
      const final = chainer.chain(event);
      Object.assign(event, { checksum: final.checksum });
      await writer.write(final);
      await writer.end();
    }
    return { event, selection, extraction, written };
  } finally {
    spool?.remove();
  }
}
