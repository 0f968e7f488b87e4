// session-portability as a library: what the binaries do, callable from other tools without a
// shell. Each function is the same code path as its binary (the binaries parse arguments and call
// into lib/ and the adapters; so does this file), with redaction on by default wherever events
// leave: capture, listSessions, compile and materialize redact with sp-redact's rules and this
// machine's key ($SP_HOME/keys/redact.key) unless `redact: false` is passed.
//
// Streaming forms take and give AsyncIterable<SpEvent>; the simple forms (captureAll, redactAll,
// listSessionsAll) collect into arrays. Errors are UserError (message, where) as the binaries
// print them.
import type { Diagnose, MaterializeResult, SessionRef } from './lib/adapter/interface.js';
import { UserError } from './lib/cli/diagnostics.js';
import type { SpEvent } from './lib/core/event.js';
import { readObjects } from './lib/core/ndjson.js';
import { Redactor } from './lib/redact/ensure.js';
import * as ops from './lib/ops/index.js';
import { collect, eventsInput, type Events, type RedactOptions, type SessionSelector } from './lib/ops/index.js';
import { Verifier, type VerifyReport } from './lib/core/verify.js';
import { Store, resolveStoreDir, type OpenOptions } from './lib/store/index.js';
import { adapters, getAdapter } from './adapters/index.js';

export type { SpEvent, Actor, Origin, Level, ContentBlock, MessagePayload, ToolCallPayload, ToolResultPayload, SessionStartPayload } from './lib/core/event.js';
export type { SessionRef, MaterializeResult, LossEntry, Diagnose } from './lib/adapter/interface.js';
export type { VerifyReport, SessionReport, Damage } from './lib/core/verify.js';
export type { SessionSelector, Selector, OpsErrorKind, CompiledHandoff, CompileOptions, RedactOptions, Events } from './lib/ops/index.js';
export { OpsError, resolveSessions, collect } from './lib/ops/index.js';
export type { FormatName, TargetName } from './lib/compile/targets.js';
export { UserError } from './lib/cli/diagnostics.js';
export { Store } from './lib/store/index.js';

/** Diagnostics (a bad native line, a session without events) go here; by default they are dropped. */
const ignore: Diagnose = () => {};

/** One registered agent (adapter). */
export interface AgentInfo {
  /** The name the binaries and this API take: `claude`, `codex` … */
  id: string;
  displayName: string;
  /** The environment variable that names its home, and the home it resolves to now. */
  homeEnv: string;
  home: string;
  /** Whether sessions of this agent can be written (materialize). */
  writable: boolean;
}

/** The agents sp reads (and, where `writable`, writes), sorted by id. */
export function agents(): AgentInfo[] {
  return Object.keys(adapters)
    .sort()
    .map((id) => {
      const a = adapters[id];
      return { id, displayName: a.displayName, homeEnv: a.homeEnv, home: a.defaultHome(), writable: typeof a.materialize === 'function' };
    });
}

export interface ListOptions {
  /** The agent's home (default: its environment variable, else its usual folder). */
  home?: string;
  /** Only this project directory's sessions. */
  cwd?: string;
  /** Titles and first prompts redacted (default true; false shows them as they are). */
  redact?: boolean;
  onDiagnostic?: Diagnose;
}

/** The agent's sessions, newest first, with titles, first prompts and counts (sp-capture AGENT --list). */
export async function* listSessions(agent: string, options: ListOptions = {}): AsyncGenerator<SessionRef> {
  const adapter = getAdapter(agent);
  const redactor = options.redact === false ? undefined : await Redactor.load();
  const home = options.home ?? adapter.defaultHome();
  for await (const ref of adapter.discover({ home, cwd: options.cwd, details: true, onDiagnostic: options.onDiagnostic ?? ignore })) {
    if (redactor) {
      if (ref.title !== undefined) ref.title = redactor.redactText(ref.title);
      if (ref.first_prompt !== undefined) ref.first_prompt = redactor.redactText(ref.first_prompt);
    }
    yield ref;
  }
}

export const listSessionsAll = (agent: string, options?: ListOptions): Promise<SessionRef[]> => collect(listSessions(agent, options));

export interface CaptureOptions extends SessionSelector {
  home?: string;
  /** Carry each native line verbatim in origin.raw. */
  raw?: boolean;
  /** Store images in this folder, content-addressed. */
  artifacts?: string;
  /** Secrets out before the events reach the caller (default true). */
  redact?: boolean;
  onDiagnostic?: Diagnose;
}

/**
 * Canonical, hash-chained events of an agent's sessions (sp-capture AGENT …, then sp-redact unless
 * `redact: false`). No selector: every session (`all`).
 */
export async function* capture(agent: string, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  getAdapter(agent); // an unknown agent: the binaries' message
  const chosen = (['session', 'path', 'latest', 'all'] as const).filter((k) => (k === 'latest' || k === 'all' ? options[k] === true : options[k] !== undefined));
  if (chosen.length > 1) throw new UserError(`choose one of ${chosen.join(', ')}`);
  const selector: SessionSelector = chosen.length === 0 ? { all: true, cwd: options.cwd } : options;
  const onDiagnostic = options.onDiagnostic ?? ignore;
  const sessions = await ops.resolveSessions(selector, { registry: adapters, agent, home: options.home, onDiagnostic });
  yield* ops.capture(sessions, { raw: options.raw, artifacts: options.artifacts, redact: options.redact, onDiagnostic });
}

export const captureAll = (agent: string, options?: CaptureOptions): Promise<SpEvent[]> => collect(capture(agent, options));

/**
 * Secrets replaced by [REDACTED:<rule>:<hmac>] placeholders, as sp-redact does; a session whose
 * events change is re-chained, so the result still verifies.
 */
export const redact = (events: Events, options: ops.RedactOptions = {}): AsyncGenerator<SpEvent> => ops.redact(events, options);

export const redactAll = (events: Events, options?: RedactOptions): Promise<SpEvent[]> => collect(redact(events, options));

/** A token-budgeted handoff of a session (sp-compile --for TARGET). */
export const compile = (events: Events, options: ops.CompileOptions): Promise<ops.CompiledHandoff> => ops.compile(events, options);

export interface MaterializeOptions {
  /** The target agent's home (default: its environment variable, else its usual folder). */
  home?: string;
  /** The project directory the new session belongs to. */
  cwd?: string;
  /** Create `cwd` when it does not exist. */
  mkcwd?: boolean;
  /** Compute the result without writing anything. */
  dryRun?: boolean;
  /** The model the target continues with. */
  model?: string;
  /** The session to write when the events hold several. */
  session?: string;
  /** Reasoning the target cannot take natively: kept as text (default) or dropped. */
  thinking?: 'keep-text' | 'drop';
  /** Secrets out first (default true; false is recorded as `redacted: false` in each result). */
  redact?: boolean;
}

/** A new native session of `agent` from canonical events (sp-materialize AGENT); one result per session written. */
export async function materialize(agent: string, events: Events, options: MaterializeOptions = {}): Promise<Array<MaterializeResult & { redacted?: boolean }>> {
  const outcome = await ops.relay(getAdapter(agent), events, {
    home: options.home,
    cwd: options.cwd,
    mkcwd: options.mkcwd,
    dryRun: options.dryRun,
    model: options.model,
    session: options.session,
    thinking: options.thinking,
    redact: options.redact,
  });
  return outcome.results;
}

export interface VerifyOptions {
  /** Check every event against the JSON Schemas too. */
  schema?: boolean;
  /** Accept sessions that start after seq 0 (an incremental capture). */
  allowFragment?: boolean;
}

/** The hash chain (and with `schema`, the schemas) of every session in the events (sp-verify). */
export async function verify(events: Events, options: VerifyOptions = {}): Promise<VerifyReport> {
  const validator = options.schema ? await (await import('./lib/core/schema.js')).createValidator() : undefined;
  const verifier = new Verifier({ validator, allowFragment: options.allowFragment });
  const input = eventsInput(events);
  for await (const { value, line, source } of readObjects([input], { onBadLine: (bad) => verifier.badLine(bad.source, bad.line, bad.reason) })) verifier.push(source, line, value);
  return verifier.finish();
}

export interface StoreOptions extends OpenOptions {
  /** The store folder (default $SP_HOME/store). */
  dir?: string;
}

/**
 * The sp store (sp-sync's): read-only by default, so opening never takes the writer's lock; pass
 * `readonly: false` to ingest, and close() when done.
 */
export function openStore(options: StoreOptions = {}): Store {
  return Store.open(resolveStoreDir(options.dir), { readonly: true, ...options });
}
