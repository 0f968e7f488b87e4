// The sp pipeline in memory for the MCP tools: find a session in an agent's home, capture it as
// chained events, redact it, and compile or relay it. The same library code the binaries
// run, with buffers in place of stdin/stdout (a tool answers once, so nothing here streams).
import { Writable } from 'node:stream';
import type { Adapter, DiscoverOptions, SessionRef } from '../adapter.js';
import { Chainer } from '../chain.js';
import { UserError } from '../diagnostics.js';
import { canonicalSessionId, type SpEvent } from '../event.js';
import type { Input } from '../ndjson.js';
import type { RelayOptions, RelayOutcome } from '../relay/relay.js';

export type Registry = Record<string, Adapter>;

/** A problem with the caller's arguments or data: becomes an MCP tool error with this message. */
export class ToolInputError extends Error {}

/** Homes per agent from the tool's arguments (`homes: {claude: "/x"}` or `home` with `agent`). */
export interface HomeArgs {
  agent?: string;
  home?: string;
  homes?: Record<string, string>;
  /** Homes the server was started with (sp-mcp --home AGENT=DIR): used when the caller names none. */
  defaultHomes?: Record<string, string>;
}

export function adapterOf(registry: Registry, id: string): Adapter {
  if (!Object.prototype.hasOwnProperty.call(registry, id)) {
    throw new ToolInputError(`unknown agent "${id}"; known agents: ${Object.keys(registry).sort().join(', ')}`);
  }
  return registry[id];
}

export function homeOf(adapter: Adapter, args: HomeArgs): string {
  if (args.home !== undefined && args.agent === adapter.id) return args.home;
  return args.homes?.[adapter.id] ?? args.defaultHomes?.[adapter.id] ?? adapter.defaultHome();
}

/** The agents a lookup covers: the one named, else every registered agent. */
export function agentsFor(registry: Registry, args: HomeArgs): Adapter[] {
  if (args.home !== undefined && args.agent === undefined) throw new ToolInputError('"home" needs "agent" (or pass "homes": {"<agent>": "<dir>"})');
  return args.agent !== undefined ? [adapterOf(registry, args.agent)] : Object.keys(registry).sort().map((id) => registry[id]);
}

/** Sessions of the agents, each agent's newest first; an agent whose home is missing has none. */
export async function listSessions(
  registry: Registry,
  args: HomeArgs & { cwd?: string; details?: boolean },
  onDiagnostic?: (where: string, what: string) => void,
  /** Called for each session found before it is kept (a limit check may throw to stop the listing). */
  onRef?: (ref: SessionRef) => void,
): Promise<SessionRef[]> {
  const out: SessionRef[] = [];
  for (const adapter of agentsFor(registry, args)) {
    const options: DiscoverOptions = { home: homeOf(adapter, args), cwd: args.cwd, details: args.details ?? true, onDiagnostic };
    try {
      for await (const ref of adapter.discover(options)) {
        onRef?.(ref);
        out.push(ref);
      }
    } catch (err) {
      // One agent's unreadable home must not hide the others' sessions (a limit stops the whole listing).
      if (args.agent !== undefined || err instanceof ToolInputError) throw err;
      onDiagnostic?.(options.home!, (err as Error).message);
    }
  }
  return out;
}

/**
 * A session by native id (or a unique prefix of one), or by canonical id (`sess_…`), in the agent
 * named or in every registered agent's home.
 */
export async function findSession(registry: Registry, id: string, args: HomeArgs): Promise<{ adapter: Adapter; ref: SessionRef }> {
  if (id.trim() === '') throw new ToolInputError('"session" is empty: pass a native session id, a unique prefix of one, or a canonical sess_… id');
  const matches: Array<{ adapter: Adapter; ref: SessionRef }> = [];
  // Why an agent had nothing to offer (an unreadable home …): reported when the agent was named.
  const failures: string[] = [];
  const failed = (err: unknown) => {
    if (err instanceof UserError && /ambiguous|matches \d+ sessions/i.test(err.message)) throw new ToolInputError(err.message);
    // Searching every agent, one agent's unreadable home or failing adapter must not hide the others.
    if (args.agent !== undefined && !(err instanceof UserError)) throw err;
    if (err instanceof UserError && !/^no .*session/i.test(err.message)) failures.push(err.where ? `${err.where}: ${err.message}` : err.message);
  };
  for (const adapter of agentsFor(registry, args)) {
    const home = homeOf(adapter, args);
    if (adapter.find && !id.startsWith('sess_')) {
      try {
        matches.push({ adapter, ref: await adapter.find(id, { home }) });
      } catch (err) {
        failed(err);
      }
      continue;
    }
    try {
      for await (const ref of adapter.discover({ home })) {
        if (ref.native_id === id || ref.native_id.startsWith(id) || canonicalSessionId(adapter.id, ref.native_id) === id) matches.push({ adapter, ref });
      }
    } catch (err) {
      failed(err);
    }
  }
  if (matches.length === 0 && args.agent !== undefined && failures.length > 0) throw new ToolInputError(failures[0]);
  const exact = matches.filter((m) => m.ref.native_id === id || canonicalSessionId(m.adapter.id, m.ref.native_id) === id);
  const chosen = exact.length > 0 ? exact : matches;
  if (chosen.length === 0) {
    const where = agentsFor(registry, args).map((a) => `${a.id}: ${homeOf(a, args)}`).join('; ');
    throw new ToolInputError(`no session "${id}" (looked in ${where}); list_sessions shows the sessions`);
  }
  if (chosen.length > 1) {
    throw new ToolInputError(`"${id}" matches ${chosen.length} sessions (${chosen.slice(0, 5).map((m) => `${m.adapter.id} ${m.ref.native_id}`).join(', ')}): give more of the id, or "agent"`);
  }
  return chosen[0];
}

/** The session's canonical events, chained as sp-capture writes them. */
export async function captureEvents(
  adapter: Adapter,
  ref: SessionRef,
  onDiagnostic?: (where: string, what: string) => void,
  /** Called before each event is kept (a limit check may throw to stop the capture). */
  onEvent?: () => void,
): Promise<SpEvent[]> {
  const chainer = new Chainer();
  const events: SpEvent[] = [];
  for await (const event of adapter.capture(ref, { onDiagnostic })) {
    onEvent?.();
    events.push(chainer.chain(event));
  }
  return events;
}

/** NDJSON text as an Input the library's readers take. */
export function textInput(name: string, text: string): Input {
  return {
    name,
    open: async function* () {
      yield Buffer.from(text);
    },
  };
}

/** A Writable that keeps what is written. */
export class Collector extends Writable {
  private readonly chunks: Buffer[] = [];
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    callback();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export const toNdjson = (events: readonly SpEvent[]) => events.map((e) => JSON.stringify(e)).join('\n') + (events.length ? '\n' : '');
export const fromNdjson = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as SpEvent);

/** sp-redact over the events (the machine's placeholder key; no vault): redacted and re-chained. */
export async function redactEvents(events: readonly SpEvent[]): Promise<SpEvent[]> {
  const { loadConfig } = await import('../redact/config.js');
  const { Placeholders, loadRedactKey } = await import('../redact/keys.js');
  const { runRedact } = await import('../redact/stream.js');
  const out = new Collector();
  await runRedact({ mode: 'redact', inputs: [textInput('session', toNdjson(events))], config: loadConfig(), placeholders: new Placeholders(await loadRedactKey()), out });
  return fromNdjson(out.text());
}

export interface CompileArgs {
  target: string;
  budget?: number;
  format?: string;
}

/** sp-compile --render over the events: the handoff text and what it cost. */
export async function compileHandoff(events: readonly SpEvent[], args: CompileArgs): Promise<{ text: string; tokens: unknown; budget: unknown; dropped: unknown }> {
  const { compileTargets, targetOf, FORMATS } = await import('../compile/targets.js');
  if (!targetOf(args.target)) throw new ToolInputError(`unknown target "${args.target}"; targets: ${Object.keys(compileTargets()).join(', ')}`);
  const format = args.format ?? 'message';
  if (!(FORMATS as readonly string[]).includes(format) || format === 'files') {
    throw new ToolInputError(`unknown format "${format}"; formats: ${FORMATS.filter((f) => f !== 'files').join(', ')}`);
  }
  const { compile } = await import('../compile/compile.js');
  const { releaseTokenizers } = await import('../compile/tokens.js');
  try {
    const result = await compile({
      inputs: [textInput('session', toNdjson(events))],
      target: args.target as never,
      format: format as never,
      budget: args.budget,
      renderOnly: true,
      out: new Collector(),
    });
    const payload = result.event.payload as Record<string, unknown>;
    return { text: String(payload.text ?? ''), tokens: payload.tokens, budget: payload.budget, dropped: payload.dropped };
  } catch (err) {
    if (err instanceof UserError) throw new ToolInputError(err.message);
    throw err;
  } finally {
    releaseTokenizers();
  }
}

/** sp-compile over the events: the context.compiled event that puts the relay in context mode. */
export async function compiledEvent(events: readonly SpEvent[], args: { target: string; budget?: number }): Promise<SpEvent> {
  const { compileTargets, targetOf, MARKDOWN_TARGET } = await import('../compile/targets.js');
  if (!targetOf(args.target)) {
    const agents = Object.keys(compileTargets()).filter((t) => t !== MARKDOWN_TARGET.name);
    throw new ToolInputError(`context mode compiles for ${agents.join(', ')}; "${args.target}" takes history mode`);
  }
  const { compile } = await import('../compile/compile.js');
  const { releaseTokenizers } = await import('../compile/tokens.js');
  try {
    const result = await compile({ inputs: [textInput('session', toNdjson(events))], target: args.target as never, budget: args.budget, renderOnly: true, out: new Collector() });
    return result.event;
  } catch (err) {
    if (err instanceof UserError) throw new ToolInputError(err.message);
    throw err;
  } finally {
    releaseTokenizers();
  }
}

/**
 * The relay sp-materialize runs (lib/relay/relay.ts): tool vocabulary translated, context mode when
 * the events end with a context.compiled event, branches, and a ledger row per source event.
 */
export async function relayEvents(adapter: Adapter, events: readonly SpEvent[], options: RelayOptions): Promise<RelayOutcome> {
  if (!adapter.materialize) throw new ToolInputError(`${adapter.displayName} sessions cannot be written`);
  const { relay } = await import('../relay/relay.js');
  async function* stream() {
    yield* events;
  }
  try {
    return await relay(adapter, stream(), options);
  } catch (err) {
    if (err instanceof UserError) throw new ToolInputError(err.where ? `${err.where}: ${err.message}` : err.message);
    throw err;
  }
}
