// `sp resume` (and the MCP tool resume_elsewhere): a stored session, found by id, native id, URI or
// a unique prefix (pulled from the remotes when this machine does not have it yet), redacted, its
// paths moved from the project root it was recorded under to this machine's checkout, and written
// as a new native session of the agent that continues it. The adapter is passed in: lib/ does not
// import adapters/.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Adapter, LossEntry } from '../adapter/interface.js';
import { UserError, warn } from '../cli/diagnostics.js';
import { OpsError } from './errors.js';
import type { SpEvent } from '../core/event.js';
import { isObject, str } from '../core/json.js';
import { PathMapper, checkedMapping, mapPaths, type MappedCounts, type PathMapping } from '../relay/map-paths.js';
import type { RelayOptions, RelayOutcome } from '../relay/relay.js';
import type { SessionSummary, Store } from '../store/index.js';

// ---- finding the session ---------------------------------------------------------------------------

/** How a stored session is shown when a reference is ambiguous. */
function describe(s: SessionSummary): string {
  return `${s.id} (${s.agent ?? 'unknown agent'}${s.native_id ? ` ${s.native_id}` : ''}${s.title ? `: ${JSON.stringify(s.title.slice(0, 60))}` : ''})`;
}

/**
 * The stored sessions a reference names: its canonical id, its URI or its native id exactly, else
 * every session whose canonical or native id starts with it. Tombstoned sessions are not resumed.
 */
export function matchStoredSessions(store: Store, ref: string): SessionSummary[] {
  const all = store.sessions();
  const exact = all.filter((s) => s.id === ref || s.uri === ref || s.native_id === ref);
  if (exact.length > 0) return exact;
  if (ref.length < 4) return []; // a prefix this short names half the store
  return all.filter((s) => s.id.startsWith(ref) || (s.native_id !== null && s.native_id.startsWith(ref)));
}

/** The one session a reference names; exit 2 naming the candidates when there are several. */
export function pickStoredSession(matches: SessionSummary[], ref: string, storeDir: string): SessionSummary {
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw new OpsError('not-found', `no stored session matches ${JSON.stringify(ref)}`, storeDir);
  const shown = matches.slice(0, 8).map(describe).join('; ');
  throw new OpsError('ambiguous', `${matches.length} stored sessions match ${JSON.stringify(ref)}: ${shown}${matches.length > 8 ? ' …' : ''}; give more of the id`, storeDir, matches.map((m) => m.id));
}

/**
 * Pulls every remote of the store (as `sp-sync pull` does: events signed by trusted keys, checked
 * against the schema, classified by the redaction rules). Returns how many events came in.
 */
export async function pullAll(store: Store, onRemote: (name: string) => void): Promise<number> {
  const r = await import('../sync/remote.js');
  const { Redactor } = await import('../redact/ensure.js');
  const redactor = await Redactor.load();
  await store.schema();
  let events = 0;
  for (const remote of r.listRemotes(store)) {
    onRemote(remote.name);
    const report = await r.pull(store, remote, {
      classify: (list) => (list.some((e) => redactor.hasSecrets(e)) ? { state: 'unredacted' } : { state: 'redacted', ruleset: redactor.ruleset, profile: redactor.profile }),
    });
    events += report.events;
    for (const refusal of report.refused) warn(`${remote.name}: ${refusal.where}`, `not taken: ${refusal.reason}`);
  }
  return events;
}

// ---- the default mapping: the same repository, found by its remote URL -------------------------------

/**
 * A git remote URL as a comparable key: scheme, user and `.git` dropped, and
 * scp-like `git@host:org/repo` read as `host/org/repo`, case ignored — so the HTTPS and SSH URLs of one repository match.
 */
export function remoteKey(url: string): string {
  let u = url.trim();
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(u);
  if (scp && !/^[A-Za-z]:[\\/]/.test(u)) u = `${scp[1]}/${scp[2]}`;
  else u = u.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^@/]+@/, '');
  // Hosts, and the owner/name paths of the common forges, ignore case.
  return u.replace(/\/+$/, '').replace(/\.git$/, '').replace(/\/+$/, '').toLowerCase();
}

/** The origin URL of a checkout, or undefined (not a repository, no origin, git missing). */
export function originOf(dir: string): string | undefined {
  try {
    const url = execFileSync('git', ['-C', dir, 'remote', 'get-url', 'origin'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim();
    return url === '' ? undefined : url;
  } catch {
    return undefined;
  }
}

/** Folders looked at when searching for a checkout: bounded, so a resume in ~ does not walk the disk. */
const SEARCH_DEPTH = 3;
const SEARCH_FOLDERS = 2000;
const SKIPPED = new Set(['node_modules', 'vendor', 'target', 'dist', 'build']);

/**
 * Checkouts at or under `root` (at most SEARCH_DEPTH folders down, links never followed, dot-folders
 * and dependency folders skipped) whose origin is the repository `url` names.
 */
export function checkoutsOf(url: string, root: string): string[] {
  const want = remoteKey(url);
  const found: string[] = [];
  const queue: Array<{ dir: string; depth: number }> = [{ dir: resolve(root), depth: 0 }];
  let visited = 0;
  while (queue.length > 0 && visited < SEARCH_FOLDERS) {
    const { dir, depth } = queue.shift()!;
    visited += 1;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    if (entries.some((e) => e.name === '.git')) {
      const origin = originOf(dir);
      if (origin !== undefined && remoteKey(origin) === want) found.push(dir);
      continue; // a checkout's own folders are its files, not other checkouts
    }
    if (depth >= SEARCH_DEPTH) continue;
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.') && !SKIPPED.has(e.name)) queue.push({ dir: join(dir, e.name), depth: depth + 1 });
  }
  return found;
}

/** What a session's start says about where it ran. */
export function recordedPlace(events: readonly SpEvent[]): { cwd?: string; origin?: string } {
  const start = events.find((e) => e.type === 'session.start');
  const payload = start && isObject(start.payload) ? start.payload : {};
  return { cwd: str(payload.cwd), origin: str(payload.git_origin) ?? str(payload.git_remote) };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The mapping when none is given: the checkout of the session's repository (its recorded origin URL)
 * at or under `searchRoot`; none when the recorded folder exists here as it is (the same path on
 * both machines) or the session has no folder. Exit 2 when neither is found, or several checkouts are.
 */
export function defaultMappings(events: readonly SpEvent[], searchRoot: string): PathMapping[] {
  const { cwd, origin } = recordedPlace(events);
  if (cwd === undefined) return [];
  const hint = `give --map-cwd ${cwd}=<this machine's checkout>`;
  if (origin !== undefined) {
    const found = checkoutsOf(origin, searchRoot);
    if (found.length === 1) return resolve(found[0]) === resolve(cwd) ? [] : [checkedMapping(cwd, found[0])];
    if (found.length > 1) throw new UserError(`${found.length} checkouts of ${origin} under ${searchRoot} (${found.slice(0, 5).join(', ')}): ${hint}`);
    if (isDirectory(cwd)) return [];
    throw new UserError(`no checkout of ${origin} (the session's repository) at or under ${searchRoot}, and ${cwd} does not exist here: ${hint}`);
  }
  if (isDirectory(cwd)) return [];
  throw new UserError(`the session ran in ${cwd}, which does not exist here, and it names no repository to look for: ${hint}`);
}

// ---- reading, redacting, mapping and writing ---------------------------------------------------------

export interface ResumeOptions extends Omit<RelayOptions, 'onSession'> {
  mappings: PathMapping[];
  /** Redact with this machine's rules and key (default on: what is written to an agent's home holds no secret they find). */
  redact: boolean;
}

export interface ResumeOutcome extends RelayOutcome {
  /** Paths mapped, per event type. */
  mapped: MappedCounts;
  /** Secrets replaced on the way (the store is redacted already; pulled events may not be). */
  secrets: number;
}

/** A stored session's events in seq order. */
export async function storedEvents(store: Store, id: string): Promise<SpEvent[]> {
  const events: SpEvent[] = [];
  for await (const event of store.events(id)) events.push(event);
  return events;
}

/**
 * Writes the events as a new native session of `adapter`: redacted (unless `redact` is false),
 * paths mapped (each changed event a `path-mapped` row of the ledger), then the relay of
 * sp-materialize (tool vocabulary, resume-safety, the writer: new files only).
 */
export async function resumeInto(adapter: Adapter, events: readonly SpEvent[], options: ResumeOptions): Promise<ResumeOutcome> {
  const { relay } = await import('../relay/relay.js');
  const redactor = options.redact ? await (await import('../redact/ensure.js')).Redactor.load() : undefined;
  let secrets = 0;
  async function* source(): AsyncGenerator<SpEvent> {
    for (const event of events) {
      if (!redactor) {
        yield event;
        continue;
      }
      const copy = structuredClone(event) as SpEvent;
      secrets += redactor.redactEvent(copy as unknown as Record<string, unknown>);
      yield copy;
    }
  }
  const mapped: MappedCounts = {};
  const pending: Array<{ session: string; entry: LossEntry }> = [];
  const stream = options.mappings.length > 0 ? mapPaths(source(), new PathMapper(options.mappings), { counts: mapped, onMapped: (session, entry) => pending.push({ session, entry }) }) : source();
  const { mappings: _m, redact: _r, ...relayOptions } = options;
  const outcome = await relay(adapter, stream, relayOptions);
  // The mapping ran before the relay's ledger existed: its entries join the rows of their events.
  for (const { session, entry } of pending) {
    outcome.ledger.add(session, entry);
    outcome.summary.add(entry);
  }
  return { ...outcome, mapped, secrets };
}

/** `session.start 1, tool.call 12 (30 paths)`: what a mapping changed, for one stderr line. */
export function mappedLine(counts: MappedCounts): string {
  const parts = Object.entries(counts).map(([type, c]) => `${type} ${c.events}${c.paths !== c.events ? ` (${c.paths} paths)` : ''}`);
  return parts.length ? parts.join(', ') : 'no path under the old root';
}
