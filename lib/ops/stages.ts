// The pipeline stages as functions over async iterables of events: capture, redact, compile, relay,
// ingest. The binaries, the MCP tools, sp serve, the library (index.ts) and the flows call these
// rather than rebuilding the pipeline each. Whatever leaves through them (events given back, a
// handoff, a written session, a stored one) is redacted unless the caller passes `redact: false`,
// and that opt-out is recorded where the result is kept (the relay's results, the store's manifest).
import { Writable } from 'node:stream';
import type { Adapter, Diagnose, SessionRef } from '../adapter.js';
import { Chainer } from '../chain.js';
import { UserError } from '../diagnostics.js';
import { isEventLike, type SpEvent } from '../event.js';
import { canonicalize } from '../jcs.js';
import { readObjects, type Input } from '../ndjson.js';
import { isMarker, redactedInputs } from '../redact/ensure.js';
import type { FormatName, TargetName } from '../compile/targets.js';
import type { RelayOptions, RelayOutcome } from '../relay/relay.js';
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

/** The canonical events of NDJSON inputs (redaction markers skipped); anything else is a file:line error. */
export async function* eventsOf(inputs: Input[]): AsyncGenerator<SpEvent> {
  for await (const { value, line, source } of readObjects(inputs, { strict: true })) {
    if (isMarker(value)) continue;
    if (!isEventLike(value) || typeof value.type !== 'string' || typeof value.session !== 'string') throw new UserError('not a canonical event', `${source}:${line.number}`);
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
  const { compile: run } = await import('../compile/compile.js');
  const { releaseTokenizers } = await import('../compile/tokens.js');
  const input = eventsInput(events);
  const inputs = options.redact === false ? [input] : await redactedInputs([input]);
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  try {
    const result = await run({ inputs, target: options.target, format: options.format, budget: options.budget, session: options.session, renderOnly: true, out: discard });
    const payload = result.event.payload as { text: string; tokens: number };
    return { text: payload.text, tokens: payload.tokens, event: result.event };
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
  if (!adapter.materialize) throw new UserError(`${adapter.displayName} sessions cannot be written`);
  const { relay: run } = await import('../relay/relay.js');
  const { redact: redactEvents, ...relayOptions } = options;
  const source = redactEvents === false || redactEvents === 'done' ? iterate(events) : eventsOf(await redactedInputs([eventsInput(events)]));
  const outcome = await run(adapter, source, relayOptions);
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
