// `sp-sync status`: per session, the local merged head and owner, and for each remote its merged
// head, how many own events it lacks (ahead), how many events of other machines it holds that this
// store has not pulled (behind), and the folders pull would refuse (unsigned, untrusted, broken).
// The rows come from one function so a table view can print the same data.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonObject } from '../core/json.js';
import { mergeChains, convergedView, parseSeen, type MachineChain } from '../store/converge.js';
import { MACHINE_PATTERN, mirrorDir, nodeKind } from '../store/origins.js';
import { SESSION_ID_PATTERN } from '../store/paths.js';
import { machineId, trustedKeys, type Store } from '../store/index.js';
import { listRemotes, remoteTreeForReading } from './remote.js';

export interface RemoteSessionStatus {
  remote: string;
  head: string | null;
  events: number;
  /** Own events the remote does not hold yet (push sends them). */
  ahead: number;
  /** Events of other machines on the remote that this store has not pulled yet. */
  behind: number;
  /** Folders on the remote pull would not take, and why (unsigned, untrusted signer, broken chain …). */
  waiting: Array<{ machine: string; reason: string }>;
}

export interface SessionStatusRow {
  session: string;
  local: { events: number; head: string | null };
  owner: string | null;
  owner_history: Array<{ agent: string; granted_at?: number; receipt?: string }>;
  remotes: RemoteSessionStatus[];
  in_sync: boolean;
}

interface RemoteChains {
  name: string;
  /** Per session: the verified chains on the remote, and the refusals. */
  sessions: Map<string, { chains: MachineChain[]; waiting: Array<{ machine: string; reason: string }> }>;
}

async function readRemote(store: Store, name: string): Promise<RemoteChains> {
  const remote = listRemotes(store).find((r) => r.name === name)!;
  const out: RemoteChains = { name, sessions: new Map() };
  const opened = await remoteTreeForReading(store, remote);
  if (!opened) return out;
  const machinesDir = join(opened.root, 'machines');
  if (nodeKind(machinesDir) !== 'dir') return out;
  const trusted = trustedKeys(store.home);
  for (const machine of readdirSync(machinesDir).sort()) {
    const sessionsDir = join(machinesDir, machine, 'sessions');
    if (!MACHINE_PATTERN.test(machine) || nodeKind(join(machinesDir, machine)) !== 'dir' || nodeKind(sessionsDir) !== 'dir') continue;
    const problem = await opened.tree.machineProblem(join(machinesDir, machine));
    for (const id of readdirSync(sessionsDir).sort()) {
      if (!SESSION_ID_PATTERN.test(id)) continue;
      const entry = out.sessions.get(id) ?? { chains: [], waiting: [] };
      out.sessions.set(id, entry);
      if (problem) {
        entry.waiting.push({ machine, reason: problem });
        continue;
      }
      const read = await opened.tree.readFolder(join(sessionsDir, id), machine, id, trusted, { collect: true });
      if (!read.ok) entry.waiting.push({ machine, reason: read.reason });
      else entry.chains.push({ machine, events: read.events, seen: parseSeen(read.manifest.seen) });
    }
  }
  return out;
}

/** How many events of `machine`'s chain this store mirrors (its mirror manifest's count). */
function mirroredCount(storeDir: string, machine: string, id: string): number {
  const path = join(mirrorDir(storeDir, machine, id), 'manifest.json');
  if (!existsSync(path)) return 0;
  const count = parseJsonObject(readFileSync(path, 'utf8')).value?.event_count;
  return Number.isInteger(count) ? (count as number) : 0;
}

/** One row per session (stored here or on any remote), sorted by session id. */
export async function sessionStatusRows(store: Store, options: { remote?: string } = {}): Promise<SessionStatusRow[]> {
  const self = store.machine || machineId(store.home);
  const names = listRemotes(store)
    .map((r) => r.name)
    .filter((n) => options.remote === undefined || n === options.remote);
  const remotes: RemoteChains[] = [];
  for (const name of names) remotes.push(await readRemote(store, name));
  const ids = new Set(store.sessions({ all: true }).map((s) => s.id));
  for (const r of remotes) for (const id of r.sessions.keys()) ids.add(id);
  const rows: SessionStatusRow[] = [];
  for (const id of [...ids].sort()) {
    const stored = store.session(id);
    const view = stored && stored.events > 0 ? convergedView(store, id) : undefined;
    const ownCount = view ? view.from.filter((m) => m === self).length : 0;
    const row: SessionStatusRow = {
      session: id,
      local: { events: view?.events.length ?? 0, head: view?.head ?? null },
      owner: view?.owner ?? null,
      owner_history: view?.owner_history ?? [],
      remotes: [],
      in_sync: true,
    };
    for (const r of remotes) {
      const there = r.sessions.get(id) ?? { chains: [], waiting: [] };
      const merged = there.chains.length ? mergeChains(id, there.chains) : undefined;
      const ownThere = there.chains.find((c) => c.machine === self)?.events.length ?? 0;
      let behind = 0;
      for (const c of there.chains) if (c.machine !== self) behind += Math.max(0, c.events.length - mirroredCount(store.dir, c.machine, id));
      const status: RemoteSessionStatus = { remote: r.name, head: merged?.head ?? null, events: merged?.events.length ?? 0, ahead: Math.max(0, ownCount - ownThere), behind, waiting: there.waiting };
      row.remotes.push(status);
      if (status.ahead > 0 || status.behind > 0 || status.waiting.length > 0 || status.head !== row.local.head) row.in_sync = false;
    }
    rows.push(row);
  }
  return rows;
}
