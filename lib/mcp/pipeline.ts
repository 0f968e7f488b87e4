// The sp pipeline in memory for the MCP tools: find a session in an agent's home, capture it as
// chained events, redact it, and compile or relay it. The same library code the binaries
// run, with buffers in place of stdin/stdout (a tool answers once, so nothing here streams).
import type { Adapter, DiscoverOptions, SessionRef } from '../adapter/interface.js';
import { UserError } from '../cli/diagnostics.js';
import * as ops from '../ops/index.js';
import type { SpEvent } from '../core/event.js';
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

/** The adapter registered as `id` (lib/ops), an unknown agent a tool error. */
export function adapterOf(registry: Registry, id: string): Adapter {
  return asToolError(() => ops.adapterOf(registry, id));
}

/** An agent's home: `home` with its `agent`, else `homes`, the start-up homes, then its default (lib/ops). */
export const homeOf = (adapter: Adapter, args: HomeArgs): string => ops.homeOf(adapter, args);

/** The agents a lookup covers: the one named, else every registered agent. */
export function agentsFor(registry: Registry, args: HomeArgs): Adapter[] {
  return asToolError(() => ops.agentsFor({ registry, ...args }));
}

/** An OpsError met by a synchronous lookup, as the tool error it is for a caller. */
function asToolError<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof ops.OpsError) throw new ToolInputError(err.message);
    throw err;
  }
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
 * The session a selector names (lib/ops resolveSessions: a native id or a unique prefix of one, a
 * canonical sess_… id, a session file or `<db>#<id>` with "agent"), in the agent named or in every
 * registered agent's home. `checkPath` confines a path before it is opened. Each kind of failure
 * becomes a tool error that says what to do.
 */
export async function findSession(registry: Registry, id: string, args: HomeArgs & { checkPath?: (path: string) => string }): Promise<{ adapter: Adapter; ref: SessionRef }> {
  if (id.trim() === '') throw new ToolInputError('"session" is empty: pass a native session id, a unique prefix of one, or a canonical sess_… id');
  try {
    const { adapter, ref } = await ops.resolveSession(id, { registry, ...args });
    return { adapter, ref };
  } catch (err) {
    if (!(err instanceof ops.OpsError)) throw err;
    switch (err.kind) {
      case 'not-found': {
        const where = agentsFor(registry, args).map((a) => `${a.id}: ${homeOf(a, args)}`).join('; ');
        throw new ToolInputError(`no session "${id}" (looked in ${where}); list_sessions shows the sessions`);
      }
      case 'ambiguous':
        throw new ToolInputError(err.message);
      case 'unreadable':
        throw new ToolInputError(err.where ? `${err.where}: ${err.message}` : err.message);
      case 'refused':
        throw new ToolInputError(err.message);
    }
  }
}

/** The session's canonical events, chained as sp-capture writes them. */
export async function captureEvents(
  adapter: Adapter,
  ref: SessionRef,
  onDiagnostic?: (where: string, what: string) => void,
  /** Called before each event is kept (a limit check may throw to stop the capture). */
  onEvent?: () => void,
): Promise<SpEvent[]> {
  return ops.collect(ops.capture([{ adapter, ref }], { redact: false, onDiagnostic, onEvent }));
}

/** sp-redact over the events (the machine's rules and placeholder key; no vault): redacted and re-chained. */
export async function redactEvents(events: readonly SpEvent[]): Promise<SpEvent[]> {
  return ops.collect(ops.redact(events));
}

export interface CompileArgs {
  target: string;
  budget?: number;
  format?: string;
}

/** A compile stage's UserError (a bad budget, an empty session) as the tool error it is for a caller. */
async function asToolInput<T>(run: () => Promise<T>, withWhere = false): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof UserError) throw new ToolInputError(withWhere && err.where ? `${err.where}: ${err.message}` : err.message);
    throw err;
  }
}

/** sp-compile --render over the (already redacted) events: the handoff text and what it cost. */
export async function compileHandoff(events: readonly SpEvent[], args: CompileArgs): Promise<{ text: string; tokens: unknown; budget: unknown; dropped: unknown }> {
  const { compileTargets, targetOf, FORMATS } = await import('../compile/targets.js');
  if (!targetOf(args.target)) throw new ToolInputError(`unknown target "${args.target}"; targets: ${Object.keys(compileTargets()).join(', ')}`);
  const format = args.format ?? 'message';
  if (!(FORMATS as readonly string[]).includes(format) || format === 'files') {
    throw new ToolInputError(`unknown format "${format}"; formats: ${FORMATS.filter((f) => f !== 'files').join(', ')}`);
  }
  const result = await asToolInput(() => ops.compile(events, { target: args.target as never, format: format as never, budget: args.budget, redact: false }));
  const payload = result.event.payload as Record<string, unknown>;
  return { text: String(payload.text ?? ''), tokens: payload.tokens, budget: payload.budget, dropped: payload.dropped };
}

/** sp-compile over the (already redacted) events: the context.compiled event that puts the relay in context mode. */
export async function compiledEvent(events: readonly SpEvent[], args: { target: string; budget?: number }): Promise<SpEvent> {
  const { compileTargets, targetOf, MARKDOWN } = await import('../compile/targets.js');
  if (!targetOf(args.target)) {
    const agents = Object.keys(compileTargets()).filter((t) => t !== MARKDOWN);
    throw new ToolInputError(`context mode compiles for ${agents.join(', ')}; "${args.target}" takes history mode`);
  }
  return (await asToolInput(() => ops.compile(events, { target: args.target as never, budget: args.budget, redact: false }))).event;
}

/**
 * The relay sp-materialize runs (lib/ops relay): tool vocabulary translated, context mode when the
 * events end with a context.compiled event, branches, and a ledger row per source event. The
 * events were redacted when they were read.
 */
export async function relayEvents(adapter: Adapter, events: readonly SpEvent[], options: RelayOptions): Promise<RelayOutcome> {
  if (!adapter.materialize) throw new ToolInputError(`${adapter.displayName} sessions cannot be written`);
  return asToolInput(() => ops.relay(adapter, events, { ...options, redact: 'done' }), true);
}
