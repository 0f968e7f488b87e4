// The pipeline stages as functions over async iterables of events: capture, redact, compile, relay,
// ingest. The binaries, the MCP tools, sp serve, the library (index.ts) and the flows call these
// rather than rebuilding the pipeline each. Whatever leaves through them (events given back, a
// handoff, a written session, a stored one) is redacted unless the caller passes `redact: false`,
// and that opt-out is recorded where the result is kept (the relay's results, the store's manifest).
import { Writable } from 'node:stream';
import type { Adapter, Diagnose, SessionRef } from '../adapter/interface.js';
import { Chainer } from '../core/chain.js';
import { UserError } from '../cli/diagnostics.js';
import { canonicalSessionId, isEventLike, type SpEvent } from '../core/event.js';
import { replaceFileAtomic } from '../fs/atomic.js';
import { canonicalize } from '../core/jcs.js';
import { readObjects, type Input } from '../core/ndjson.js';
import { isMarker, LineRedaction, redactedInputs } from '../redact/ensure.js';
import type { CompileOptions as FullCompileOptions, CompileResult } from '../compile/compile.js';
import type { FormatName, TargetName } from '../compile/targets.js';
import type { RelayOptions, RelayOutcome, RelayResult } from '../relay/relay.js';
import type { RelayLedger } from '../relay/ledger.js';
import type { IngestItem, RedactionRecord, Store } from '../store/index.js';

/** Events in, as a plain iterable or a stream. */
export type Events = AsyncIterable<SpEvent> | Iterable<SpEvent>;

/** Every item of an async iterable, in order (Array.fromAsync is Node 22+). */
export async function collect<T>(items: AsyncIterable<T> | Iterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Events as an NDJSON input, for the stages that read inputs (compile, redaction). */
export function eventsInput(events: Events, name = 'events'): Input {
  return {
    name,
    readOnce: true,
    open: async function* () {
      for await (const event of events) yield `${canonicalize(event)}\n`;
    },
  };
}

/**
 * The canonical events of NDJSON inputs, strictly: the first line that is not one stops the read
 * with a file:line error. sp-redact's closing sp.redacted marker describes the stream, not the
 * conversation: skipped.
 */
export async function* eventsOf(inputs: Input[]): AsyncGenerator<SpEvent> {
  for await (const { value, line, source } of readObjects(inputs, { strict: true })) {
    if (isMarker(value)) continue;
    const where = `${source}:${line.number}`;
    if (!isEventLike(value) || typeof value.type !== 'string' || value.type === '') throw new UserError('not a canonical event: no "type"', where);
    if (typeof value.session !== 'string') throw new UserError('not a canonical event: no "session"', where);
    if (typeof value.payload !== 'object' || value.payload === null || Array.isArray(value.payload)) {
      throw new UserError('not a canonical event: "payload" is not an object', where);
    }
    yield value as SpEvent;
  }
}

export interface CaptureOptions {
  /** Carry each native line verbatim in origin.raw. */
  raw?: boolean;
  /** Store images in this folder, content-addressed. */
  artifacts?: string;
  /** Secrets out before the events reach the caller (default true; sp-capture's stream passes false and says so). */
  redact?: boolean;
  onDiagnostic?: Diagnose;
  /** Called before each event is kept (a limit check may throw to stop the capture). */
  onEvent?: () => void;
}

/** The sessions' canonical events, hash-chained per session as sp-capture writes them. */
export async function* capture(sessions: Iterable<{ adapter: Adapter; ref: SessionRef }>, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const chained = chainedEvents(sessions, options);
  if (options.redact === false) yield* chained;
  else yield* redact(chained);
}

async function* chainedEvents(sessions: Iterable<{ adapter: Adapter; ref: SessionRef }>, options: CaptureOptions): AsyncGenerator<SpEvent> {
  const chainer = new Chainer();
  for (const { adapter, ref } of sessions) {
    for await (const event of adapter.capture(ref, { raw: options.raw, artifactsDir: options.artifacts, onDiagnostic: options.onDiagnostic })) {
      options.onEvent?.();
      yield chainer.chain(event);
    }
  }
}

export interface RedactOptions {
  /** The HMAC key file for placeholders (default $SP_HOME/keys/redact.key, created on first use). */
  keyPath?: string;
}

/**
 * Secrets replaced by [REDACTED:<rule>:<hmac>] placeholders with sp-redact's rules and this machine's
 * key; a session whose events change is re-chained, so the result still verifies.
 */
export async function* redact(events: Events, options: RedactOptions = {}): AsyncGenerator<SpEvent> {
  yield* eventsOf(await redactedInputs([eventsInput(events)], { keyPath: options.keyPath }));
}

export interface CompileOptions {
  /** The agent the handoff is for (its tokenizer and default budget). */
  target: TargetName;
  format?: FormatName;
  /** Token budget (default: the target's). */
  budget?: number;
  /** The session to compile when the events hold several. */
  session?: string;
  /** Secrets out first (default true). */
  redact?: boolean;
}

export interface CompiledHandoff {
  /** The rendered handoff (markdown). */
  text: string;
  /** Its size in the target's tokens. */
  tokens: number;
  /** The context.compiled event (what was kept, what was dropped and why). */
  event: SpEvent;
}

/** A token-budgeted handoff of a session (sp-compile --for TARGET --render). */
export async function compile(events: Events, options: CompileOptions): Promise<CompiledHandoff> {
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  const result = await compileInputs([eventsInput(events)], {
    target: options.target,
    format: options.format,
    budget: options.budget,
    session: options.session,
    renderOnly: true,
    out: discard,
    redact: options.redact,
  });
  const payload = result.event.payload as { text: string; tokens: number };
  return { text: payload.text, tokens: payload.tokens, event: result.event };
}

export type CompileInputsOptions = Omit<FullCompileOptions, 'inputs' | 'redactText' | 'lineRedaction'> & {
  /** Secrets out first, with sp-redact's rules and key (default true); the handoff's own texts too. */
  redact?: boolean;
  /** An input chain that did not verify where redaction re-chained it. */
  onUnverified?: (where: string, session: string) => void;
};

/**
 * compile over NDJSON inputs (sp-compile's files or stdin): redacted line for line as it reads unless
 * `redact: false`, written to `out` (default stdout) as lib/compile writes it; the tokenizers
 * are released afterwards.
 */
export async function compileInputs(inputs: Input[], options: CompileInputsOptions): Promise<CompileResult> {
  const { compile: run } = await import('../compile/compile.js');
  const { releaseTokenizers } = await import('../compile/tokens.js');
  const { redact: redactFirst = true, onUnverified, ...rest } = options;
  const redactor = redactFirst ? await (await import('../redact/ensure.js')).Redactor.load() : undefined;
  // Redacted in compile's own pass over the input: each line parsed once, files not spooled when nothing changes.
  const lineRedaction = redactor ? new LineRedaction(redactor, onUnverified) : undefined;
  try {
    return await run({ ...rest, inputs, lineRedaction, releaseTokenizer: true, redactText: redactor ? (text) => redactor.redactText(text) : undefined });
  } finally {
    releaseTokenizers();
  }
}

export interface RelayStageOptions extends RelayOptions {
  /**
   * Secrets out first (default true); false writes them as they are and records `redacted: false`
   * in each result; 'done': the caller redacted these very events already (an MCP tool), so
   * nothing is redone and nothing is recorded.
   */
  redact?: boolean | 'done';
}

/**
 * The events written as new native sessions of `adapter` (sp-materialize): tool vocabulary
 * translated, context mode when they end with a context.compiled event, a ledger row per event.
 */
export async function relay(adapter: Adapter, events: Events, options: RelayStageOptions = {}): Promise<RelayOutcome> {
  if (options.redact === false || options.redact === 'done') return relayEvents(adapter, iterate(events), options);
  return relayInputs(adapter, [eventsInput(events)], options);
}

/**
 * relay over NDJSON inputs (sp-materialize's files or stdin): redacted line for line, so a bad
 * line is still named by its file:line. `onUnverified`: an input chain that did not verify where
 * redaction re-chained it.
 */
export async function relayInputs(adapter: Adapter, inputs: Input[], options: RelayStageOptions & { onUnverified?: (where: string, session: string) => void } = {}): Promise<RelayOutcome> {
  const { onUnverified, ...rest } = options;
  const redacted = rest.redact === false || rest.redact === 'done' ? inputs : await redactedInputs(inputs, { onUnverified });
  return relayEvents(adapter, eventsOf(redacted), rest);
}

async function relayEvents(adapter: Adapter, events: AsyncIterable<SpEvent>, options: RelayStageOptions): Promise<RelayOutcome> {
  if (!adapter.materialize) throw new UserError(`${adapter.displayName} sessions cannot be written`);
  const { relay: run } = await import('../relay/relay.js');
  const { redact: redactEvents, ...relayOptions } = options;
  const outcome = await run(adapter, events, relayOptions);
  if (redactEvents === false) for (const result of outcome.results) (result as { redacted?: boolean }).redacted = false;
  return outcome;
}

async function* iterate(events: Events): AsyncGenerator<SpEvent> {
  yield* events;
}

export interface IngestOptions {
  /** Secrets out before the store sees them (default true; false is recorded in the store's manifest). */
  redact?: boolean;
  onBatch?: (events: number, session: string) => void;
}

/** The events appended to the store (idempotent: what it holds already is skipped), redacted first. */
export async function ingest(store: Store, events: AsyncIterable<IngestItem | SpEvent> | Iterable<IngestItem | SpEvent>, options: IngestOptions = {}) {
  const redactor = options.redact === false ? undefined : await (await import('../redact/ensure.js')).Redactor.load();
  const redaction: RedactionRecord = redactor ? { state: 'redacted', ruleset: redactor.ruleset, key_id: redactor.keyId, profile: redactor.profile } : { state: 'unredacted' };
  const secrets = { found: 0 };
  async function* items(): AsyncGenerator<IngestItem> {
    for await (const item of events) {
      const it: IngestItem = isIngestItem(item) ? item : { event: item as unknown as IngestItem['event'] };
      // Redacted in place: the store re-chains what it appends.
      if (redactor) secrets.found += redactor.redactEvent(it.event);
      yield it;
    }
  }
  const result = await store.ingest(items(), { onBatch: options.onBatch, redaction });
  return { ...result, secrets: secrets.found };
}

const isIngestItem = (item: unknown): item is IngestItem =>
  typeof item === 'object' && item !== null && 'event' in item && typeof (item as { event: unknown }).event === 'object' && !('type' in item);

/**
 * The relay's ledger as a chained NDJSON file (sp-materialize --report): one meta event per source
 * event's row, the losses not tied to one, and the results; written whole or not at all.
 */
export function writeLedgerReport(path: string, ledger: RelayLedger, results: RelayResult[]): void {
  const main = results[0];
  const session = canonicalSessionId(main.agent, main.session_id);
  const ts = Date.now() / 1000;
  const chainer = new Chainer();
  const lines: string[] = [];
  const add = (payload: Record<string, unknown>): void => {
    const event: SpEvent = { session, seq: lines.length, ts, agent: main.agent, type: 'meta', actor: 'system', payload };
    lines.push(canonicalize(chainer.chain(event)));
  };
  for (const row of ledger.rows()) add({ key: 'sp.materialize.ledger', value: row });
  for (const entry of ledger.unattached) add({ key: 'sp.materialize.loss', value: entry });
  for (const result of [...results.slice(1), main]) add({ key: 'sp.materialize.result', value: result });
  try {
    replaceFileAtomic(path, lines.join('\n') + '\n', 0o644);
  } catch (err) {
    throw new UserError(`cannot write the report: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
  }
}
