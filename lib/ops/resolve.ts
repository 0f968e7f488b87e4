// One session resolver for every front door (sp-capture and the other binaries, the MCP tools,
// sp serve, the library, the flows): what a selector names is decided here, the same way
// everywhere, and a failure is an OpsError whose kind says what went wrong (errors.ts).
//
// A selector is either a string, read as the first of these that fits:
//   - a path (it has a / or \, or names an existing file; `<db>#<id>` for a session in a database),
//     opened by the agent's adapter: a path needs the agent;
//   - a canonical id `sess_<32 hex>` (what the events carry), matched against each session's;
//   - a native id, or a unique prefix of one (the adapter's own find: Hermes' `id+` for a lineage).
// or a structured SessionSelector (sp-capture's --session, --path, --latest, --all, --cwd), where
// the flag says which kind the value is. lib/ does not import adapters/: the registry is passed in.
import { existsSync, statSync } from 'node:fs';
import type { Adapter, Diagnose, SessionRef } from '../adapter/interface.js';
import { findByIdPrefix } from '../capture/discover.js';
import { canonicalSessionId } from '../core/event.js';
import { OpsError, asOpsError } from './errors.js';

export type Registry = Record<string, Adapter>;

/** sp-capture's selectors, one of them set: the flag says what kind the value is. */
export interface SessionSelector {
  /** A native id, a unique prefix of one, or a canonical sess_… id. */
  session?: string;
  /** A native file (or `<db>#<id>`), wherever it lies. */
  path?: string;
  /** The newest session (with `cwd`: of that project). */
  latest?: boolean;
  /** Every session, oldest first. */
  all?: boolean;
  /** With latest/all: only this project directory's sessions. */
  cwd?: string;
}
export type Selector = string | SessionSelector;

export interface ResolveOptions {
  /** Every agent a string selector may name (adapters/index.ts `adapters`). */
  registry: Registry;
  /** The one agent to look in; omitted: every registered agent (a string selector only). */
  agent?: string;
  /** The agent's home (with `agent`). */
  home?: string;
  /** Homes per agent. */
  homes?: Record<string, string>;
  /** Homes to use when the caller names none (sp-mcp --home AGENT=DIR). */
  defaultHomes?: Record<string, string>;
  /** An agent's home when nothing above names one (default: its environment variable, else its usual folder). */
  homeOf?: (adapter: Adapter) => string;
  onDiagnostic?: Diagnose;
  /**
   * Every path a selector names goes through this before anything opens it: it returns the path to
   * use, or throws (a confinement refusal becomes an OpsError "refused"). The MCP tools confine here.
   */
  checkPath?: (path: string) => string;
}

export interface ResolvedSession {
  adapter: Adapter;
  ref: SessionRef;
  /** The home the session was looked up in. */
  home: string;
}

const CANONICAL_ID = /^sess_[0-9a-f]{32}$/;

/** The adapter registered as `id`; an unknown agent is refused with the list of known ones. */
export function adapterOf(registry: Registry, id: string): Adapter {
  if (!Object.prototype.hasOwnProperty.call(registry, id)) {
    throw new OpsError('refused', `unknown agent "${id}"; known agents: ${Object.keys(registry).sort().join(', ')}`);
  }
  return registry[id];
}

/** An agent's home: `home` when it is for this agent, else `homes`, the start-up homes, then its own default. */
export function homeOf(adapter: Adapter, options: Pick<ResolveOptions, 'agent' | 'home' | 'homes' | 'defaultHomes' | 'homeOf'>): string {
  if (options.home !== undefined && options.agent === adapter.id) return options.home;
  return options.homes?.[adapter.id] ?? options.defaultHomes?.[adapter.id] ?? options.homeOf?.(adapter) ?? adapter.defaultHome();
}

/** The agents a lookup covers: the one named, else every registered agent. */
export function agentsFor(options: Pick<ResolveOptions, 'registry' | 'agent' | 'home'>): Adapter[] {
  if (options.home !== undefined && options.agent === undefined) throw new OpsError('refused', '"home" needs "agent" (or pass "homes": {"<agent>": "<dir>"})');
  const { registry } = options;
  return options.agent !== undefined ? [adapterOf(registry, options.agent)] : Object.keys(registry).sort().map((id) => registry[id]);
}

/** The file of a `<db>#<id>` locator (a file whose own name holds a # is itself). */
function locatorFile(path: string): string {
  const hash = path.lastIndexOf('#');
  return hash > 0 && !existsSync(path) ? path.slice(0, hash) : path;
}

/** Whether a string selector names a file rather than an id. */
export function isPathSelector(selector: string): boolean {
  if (/[/\\]/.test(selector)) return true;
  const file = locatorFile(selector);
  try {
    return file !== '' && existsSync(file) && statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The sessions a selector names, each with its adapter and home. A string selector names one
 * session; a SessionSelector with `latest` one, with `all` every session of the agent (oldest
 * first, so a store that ingests them sees them in the order they happened; none is a diagnostic,
 * not an error).
 */
export async function resolveSessions(selector: Selector, options: ResolveOptions): Promise<ResolvedSession[]> {
  if (typeof selector === 'string') return [await resolveString(selector, options)];
  const adapters = agentsFor(options);
  if (adapters.length !== 1) throw new OpsError('refused', 'say which agent: --latest, --all and --cwd look in one agent');
  const adapter = adapters[0];
  const home = homeOf(adapter, options);
  const one = (ref: SessionRef): ResolvedSession[] => [{ adapter, ref, home }];
  const onDiagnostic = options.onDiagnostic ?? (() => {});
  if (selector.path !== undefined) return one(await openPath(adapter, selector.path, home, options));
  if (selector.session !== undefined) {
    if (selector.session.trim() === '') throw emptySelector();
    if (CANONICAL_ID.test(selector.session)) return one(await byCanonicalId(adapter, selector.session, home, onDiagnostic, true));
    return one(await byNativeId(adapter, selector.session, home, onDiagnostic));
  }
  const refs: SessionRef[] = [];
  try {
    for await (const ref of adapter.discover({ home, cwd: selector.cwd, onDiagnostic })) {
      refs.push(ref);
      if (selector.latest) break;
    }
  } catch (err) {
    throw asOpsError(err);
  }
  const project = selector.cwd !== undefined ? ` for the project ${selector.cwd}` : '';
  if (selector.latest && refs.length === 0) throw new OpsError('not-found', `no ${adapter.displayName} sessions under ${home}${project}`);
  if (refs.length === 0) onDiagnostic(home, `no ${adapter.displayName} sessions${project}`);
  return refs.reverse().map((ref) => ({ adapter, ref, home }));
}

/** The one session a string selector names. */
export async function resolveSession(selector: string, options: ResolveOptions): Promise<ResolvedSession> {
  return resolveString(selector, options);
}

const emptySelector = () => new OpsError('refused', 'the session selector is empty: give a native session id, a unique prefix of one, a canonical sess_… id or a session file');

async function resolveString(selector: string, options: ResolveOptions): Promise<ResolvedSession> {
  if (selector.trim() === '') throw emptySelector();
  const adapters = agentsFor(options);
  const onDiagnostic = options.onDiagnostic ?? (() => {});
  if (isPathSelector(selector)) {
    if (adapters.length !== 1) throw new OpsError('refused', `"${selector}" is a path: say which agent's session file it is`);
    const home = homeOf(adapters[0], options);
    return { adapter: adapters[0], ref: await openPath(adapters[0], selector, home, options), home };
  }
  const named = adapters.length === 1;
  const matches: ResolvedSession[] = [];
  for (const adapter of adapters) {
    const home = homeOf(adapter, options);
    try {
      const ref = CANONICAL_ID.test(selector) ? await byCanonicalId(adapter, selector, home, onDiagnostic, named) : await byNativeId(adapter, selector, home, onDiagnostic);
      matches.push({ adapter, ref, home });
    } catch (err) {
      const e = asOpsError(err);
      if (!(e instanceof OpsError)) {
        if (named) throw err;
        continue; // a failing adapter, when searching every agent
      }
      // With one agent named, why it has nothing is the answer. Searching every agent, one agent's
      // unreadable home must not hide the others' sessions; several matches in one agent end the search.
      if (named || e.kind === 'ambiguous') throw e;
    }
  }
  // The same id in two agents: an exact id wins over a prefix.
  const exact = matches.filter((m) => m.ref.native_id === selector || canonicalSessionId(m.adapter.id, m.ref.native_id) === selector);
  const chosen = exact.length > 0 ? exact : matches;
  if (chosen.length === 1) return chosen[0];
  if (chosen.length > 1) {
    const candidates = chosen.map((m) => `${m.adapter.id} ${m.ref.native_id}`);
    throw new OpsError('ambiguous', `"${selector}" matches ${chosen.length} sessions (${candidates.slice(0, 5).join(', ')}): give more of the id, or the agent`, undefined, candidates);
  }
  const where = adapters.map((a) => `${a.id}: ${homeOf(a, options)}`).join('; ');
  throw new OpsError('not-found', `no session "${selector}" (looked in ${where})`);
}

/** A session file (or `<db>#<id>`) opened by the adapter, after the caller's path check. */
async function openPath(adapter: Adapter, path: string, home: string, options: ResolveOptions): Promise<SessionRef> {
  if (path.trim() === '') throw emptySelector();
  let checked = path;
  if (options.checkPath) {
    try {
      checked = options.checkPath(path);
    } catch (err) {
      throw err instanceof OpsError ? err : new OpsError('refused', (err as Error).message);
    }
  }
  try {
    return await adapter.open(checked, { home });
  } catch (err) {
    const e = asOpsError(err);
    // An adapter says "cannot read" for a file that is not there: that is nothing found, in its words.
    if (e instanceof OpsError && e.kind === 'unreadable' && !existsSync(locatorFile(checked))) throw new OpsError('not-found', e.message, e.where, [], e.exitCode);
    throw e;
  }
}

/** A native id or a unique prefix of one: the adapter's own find, else its sessions by prefix. */
async function byNativeId(adapter: Adapter, id: string, home: string, onDiagnostic: Diagnose): Promise<SessionRef> {
  try {
    if (adapter.find) return await adapter.find(id, { home, onDiagnostic });
    return await findByIdPrefix(adapter.discover({ home, onDiagnostic }), id, `no ${adapter.displayName} session "${id}" under ${home} (sp-capture ${adapter.id} --list shows the sessions)`, { where: home });
  } catch (err) {
    throw asOpsError(err);
  }
}

/** The session whose canonical id is `id` (a native id that itself looks like one is taken too). */
async function byCanonicalId(adapter: Adapter, id: string, home: string, onDiagnostic: Diagnose, named: boolean): Promise<SessionRef> {
  try {
    for await (const ref of adapter.discover({ home, onDiagnostic: named ? onDiagnostic : undefined })) {
      if (canonicalSessionId(adapter.id, ref.native_id) === id || ref.native_id === id) return ref;
    }
  } catch (err) {
    throw asOpsError(err);
  }
  throw new OpsError('not-found', `no ${adapter.displayName} session "${id}" under ${home} (sp-capture ${adapter.id} --list shows the sessions)`, undefined);
}
