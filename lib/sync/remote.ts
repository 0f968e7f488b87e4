// Remotes (seed §8.2–8.4): other stores reached through a git repository (any URL the git CLI
// accepts: a bare repo path, file://, ssh://, a hosted repo) or a plain directory (`dir:PATH`).
//
// Layout on a remote, the same for both kinds:
//   machines/<machine>/sessions/<session>/<first seq, 12 digits>.jsonl   512 events per segment
//   machines/<machine>/sessions/<session>/manifest.json                   the pusher's signed manifest
//   artifacts/<sha256 hex>                                                 content-addressed blobs
// Each machine writes only below its own machines/<machine>/, so pushes from several machines
// never touch the same file and never conflict; a blob's name is its hash, so machines writing the
// same blob write the same bytes (only missing ones are written, each hash-checked on pull). A segment holds the pusher's own stored log
// lines verbatim (its seq numbering and chain), so a puller verifies the chain as it reads.
//
// push: append to the own segments what the remote lacks (the remote's own files say how far it
// is: it is the truth, so an interrupted push just resumes); git: commit, push without force
// (rejected because another machine pushed: rebase the own commit onto theirs, disjoint paths,
// and push again). pull: read every other machine's segments from a cursor (session, machine,
// seq, checksum), verify the chain from the cursor's checksum, and store the events (dedup by
// event key). A rewritten remote is refused: for git, the last remote commit seen must still be
// an ancestor of the remote's branch; for both, a cursor's checksum must still be the event
// before it.
//
// Every remote file is read and written through a RemoteTree: the plain one below, or the sealed
// one of sealed.ts for a remote configured with age recipients (encrypted remotes).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { replaceFileAtomic } from '../atomic.js';
import { UserError, warn } from '../diagnostics.js';
import { copyArtifact, listArtifacts } from '../artifacts.js';
import { computeChecksum } from '../chain.js';
import { parseJsonObject } from '../json.js';
import type { SpEvent } from '../event.js';
import { Store } from '../store/index.js';
import { openSealedTree, type RemoteTree, type TreeSegment } from './sealed.js';

const run = promisify(execFile);

export const SEGMENT = 512;
export const BRANCH = 'main';

export interface RemoteConfig {
  name: string;
  kind: 'git' | 'dir';
  url: string;
  /** age recipients (age1…): what is pushed there is encrypted to all of them. */
  recipients?: string[];
  /** false: the remote was added with --no-encrypt (plaintext even when recipients are listed). */
  encrypt?: boolean;
}

/** Whether a remote's files are sealed with age. */
export function isEncrypted(remote: RemoteConfig): boolean {
  return remote.encrypt !== false && Array.isArray(remote.recipients) && remote.recipients.length > 0;
}

export interface SyncReport {
  remote: string;
  sessions: number;
  events: number;
  /** Artifact blobs written to the remote (push) or the store (pull). */
  artifacts: number;
  /** git: the remote commit after the operation. */
  commit?: string;
  /** pull: one line per machine folder (or the artifacts) not taken, and why (the exit status is 1). */
  refused?: string[];
}

export interface SyncOptions {
  onProgress?: (events: number, session: string) => void;
}

// ---- configuration ------------------------------------------------------------------------------

function configPath(store: Store): string {
  return join(store.dir, 'remotes.json');
}

export function listRemotes(store: Store): RemoteConfig[] {
  const path = configPath(store);
  if (!existsSync(path)) return [];
  const value = parseJsonObject(readFileSync(path, 'utf8')).value ?? {};
  return Object.values(value as Record<string, RemoteConfig>);
}

/** `dir:PATH` (or `dir` true) is a plain directory; anything else goes to git as it is. */
export function parseRemoteUrl(url: string, dir = false): { kind: 'git' | 'dir'; url: string } {
  if (url.startsWith('dir:')) return { kind: 'dir', url: resolve(url.slice(4)) };
  if (dir) return { kind: 'dir', url: resolve(url) };
  // A relative local path means the same repository from any working directory later.
  const local = !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !/^[^/]+@[^:]+:/.test(url) && !isAbsolute(url) && existsSync(url);
  return { kind: 'git', url: local ? resolve(url) : url };
}

export function addRemote(store: Store, name: string, url: string, dir = false, sealing: { recipients?: string[]; encrypt?: boolean } = {}): RemoteConfig {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) throw new UserError(`not a remote name: ${JSON.stringify(name)} (letters, digits, _ . -)`);
  const all = Object.fromEntries(listRemotes(store).map((r) => [r.name, r]));
  if (all[name]) throw new UserError(`a remote named ${name} exists already (${all[name].url})`, configPath(store));
  const parsed = parseRemoteUrl(url, dir);
  const config: RemoteConfig = { name, ...parsed };
  if (sealing.recipients?.length) config.recipients = [...sealing.recipients];
  if (sealing.encrypt === false) config.encrypt = false;
  all[name] = config;
  replaceFileAtomic(configPath(store), JSON.stringify(all, null, 2) + '\n', 0o644);
  return config;
}

export function getRemote(store: Store, name?: string): RemoteConfig {
  const all = listRemotes(store);
  if (all.length === 0) throw new UserError('no remote configured; add one with `sp-sync remote add NAME URL`', store.dir);
  if (!name) {
    const origin = all.find((r) => r.name === 'origin');
    if (origin) return origin;
    if (all.length === 1) return all[0];
    throw new UserError(`several remotes (${all.map((r) => r.name).join(', ')}); say which`);
  }
  const found = all.find((r) => r.name === name);
  if (!found) throw new UserError(`no remote named ${name} (have: ${all.map((r) => r.name).join(', ')})`, store.dir);
  return found;
}

// ---- git ------------------------------------------------------------------------------------------

interface GitState {
  /** The remote branch's commit after the last successful push or pull. */
  seen?: string;
}

function statePath(store: Store, remote: RemoteConfig): string {
  return join(store.dir, 'remotes', `${remote.name}.state.json`);
}

function readState(store: Store, remote: RemoteConfig): GitState {
  const path = statePath(store, remote);
  return existsSync(path) ? ((parseJsonObject(readFileSync(path, 'utf8')).value ?? {}) as GitState) : {};
}

function writeState(store: Store, remote: RemoteConfig, state: GitState): void {
  mkdirSync(join(store.dir, 'remotes'), { recursive: true });
  replaceFileAtomic(statePath(store, remote), JSON.stringify(state) + '\n', 0o644);
}

class Git {
  constructor(
    readonly dir: string,
    private readonly machine: string,
  ) {}

  async run(args: string[], options: { allowFail?: boolean } = {}): Promise<{ ok: boolean; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run('git', ['-C', this.dir, '-c', 'user.name=sp-sync', '-c', `user.email=${this.machine}@sp-sync`, '-c', 'commit.gpgsign=false', ...args], {
        maxBuffer: 64 << 20,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      });
      return { ok: true, stdout, stderr };
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string; code?: string };
      if (e.code === 'ENOENT') throw new UserError('git is not installed (needed for git remotes)');
      if (options.allowFail) return { ok: false, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message };
      throw new UserError(`git ${args[0]} failed: ${(e.stderr ?? e.message).trim().split('\n').slice(-3).join(' / ')}`, this.dir);
    }
  }

  async remoteHead(): Promise<string | undefined> {
    const r = await this.run(['rev-parse', '--verify', '-q', `refs/remotes/origin/${BRANCH}`], { allowFail: true });
    return r.ok ? r.stdout.trim() : undefined;
  }
}

/** The private working clone of a git remote: $store/remotes/<name>/. */
async function openClone(store: Store, remote: RemoteConfig): Promise<Git> {
  const dir = join(store.dir, 'remotes', remote.name);
  const git = new Git(dir, store.machine);
  if (!existsSync(join(dir, '.git'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await git.run(['init', '-q']);
    await git.run(['remote', 'add', 'origin', remote.url]);
  }
  return git;
}

/**
 * Fetches the remote branch and refuses a rewritten history: the commit seen last must still be
 * an ancestor of the branch. Returns the branch's commit (undefined: the remote is empty).
 */
async function fetchChecked(store: Store, remote: RemoteConfig, git: Git): Promise<string | undefined> {
  const fetched = await git.run(['fetch', '-q', 'origin', `+refs/heads/${BRANCH}:refs/remotes/origin/${BRANCH}`], { allowFail: true });
  if (!fetched.ok && !/couldn't find remote ref|could not find remote ref/i.test(fetched.stderr)) {
    throw new UserError(`cannot fetch: ${fetched.stderr.trim().split('\n').slice(-2).join(' / ')}`, remote.url);
  }
  const head = fetched.ok ? await git.remoteHead() : undefined;
  const { seen } = readState(store, remote);
  if (seen) {
    const descends = head !== undefined && (await git.run(['merge-base', '--is-ancestor', seen, head], { allowFail: true })).ok;
    if (!descends) {
      throw new UserError(
        `the remote's history was rewritten (commit ${seen.slice(0, 12)} seen last is no longer in ${BRANCH}${head ? `, now ${head.slice(0, 12)}` : ', now empty'}); refusing to merge it. ` +
          'If the rewrite is intended, remove the remote and add it again.',
        remote.url,
      );
    }
  }
  return head;
}

/** Makes the working tree exactly the remote branch (dropping what an interrupted run left). */
async function resetTo(git: Git, head: string | undefined): Promise<void> {
  if (head) await git.run(['checkout', '-q', '-f', '-B', BRANCH, head]);
  else {
    await git.run(['symbolic-ref', 'HEAD', `refs/heads/${BRANCH}`]);
    await git.run(['update-ref', '-d', `refs/heads/${BRANCH}`], { allowFail: true });
    await git.run(['read-tree', '--empty']);
  }
  await git.run(['clean', '-q', '-f', '-d', '-x']);
}

// ---- the tree (a dir remote, or a git working tree) -----------------------------------------------

function segmentName(seq: number): string {
  return `${String(seq).padStart(12, '0')}.jsonl`;
}

function segmentsOf(dir: string): Array<{ start: number; path: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => /^\d{12}\.jsonl$/.test(n))
    .map((n) => ({ start: Number(n.slice(0, 12)), path: join(dir, n) }))
    .sort((a, b) => a.start - b.start);
}

/** Complete lines of a segment (a torn last line is not counted) and where they end. */
function completeLines(path: string): { lines: string[]; end: number } {
  const bytes = readFileSync(path);
  const end = bytes.lastIndexOf(0x0a) + 1;
  const lines = end === 0 ? [] : bytes.toString('utf8', 0, end - 1).split('\n');
  return { lines, end };
}

function appendFsync(path: string, text: string): void {
  const fd = openSync(path, 'a', 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The remote's files as they are: aligned segments appended to, manifest.json, artifacts/<sha256>. */
function plainTree(): RemoteTree {
  return {
    refused: [],
    segments: (dir) => segmentsOf(dir),
    lines: async (segment) => completeLines(segment.path).lines,
    ownLines: async (segment: TreeSegment) => {
      const { lines, end } = completeLines(segment.path);
      if (end < statSync(segment.path).size) {
        // A torn line from an interrupted push to a directory: the own file, cut it off.
        const fd = openSync(segment.path, 'r+');
        ftruncateSync(fd, end);
        closeSync(fd);
      }
      return lines;
    },
    writeChunk: async (dir, start, text) => appendFsync(join(dir, segmentName(start - (start % SEGMENT))), text),
    writeManifest: async (dir, text) => replaceFileAtomic(join(dir, 'manifest.json'), text, 0o644),
    readManifest: async (dir) => (existsSync(join(dir, 'manifest.json')) ? parseJsonObject(readFileSync(join(dir, 'manifest.json'), 'utf8')).value : undefined),
    machineProblem: async (machineDir) => {
      const sessionsDir = join(machineDir, 'sessions');
      if (!existsSync(sessionsDir)) return undefined;
      const sealed = readdirSync(sessionsDir).some((id) => existsSync(join(sessionsDir, id)) && readdirSync(join(sessionsDir, id)).some((n) => n.endsWith('.age')));
      return sealed ? 'holds encrypted files, but this remote is not configured for encryption (sp-sync remote add NAME URL --encrypt-to FILE)' : undefined;
    },
    pushArtifacts: async (store, root) => copyMissingArtifacts(store.dir, root),
    pullArtifacts: async (root, store) => copyMissingArtifacts(root, store.dir),
  };
}

/** The tree a push or pull reads and writes the remote through. */
async function treeFor(store: Store, remote: RemoteConfig, direction: 'push' | 'pull'): Promise<RemoteTree> {
  return isEncrypted(remote) ? openSealedTree(store, remote, { recipients: remote.recipients!, forPush: direction === 'push' }) : plainTree();
}

/** Writes the store's sessions to the own folder of a tree; returns what it added. */
async function pushTree(store: Store, root: string, remoteName: string, options: SyncOptions, tree: RemoteTree = plainTree()): Promise<{ sessions: number; events: number }> {
  const own = join(root, 'machines', store.machine, 'sessions');
  const problem = await tree.machineProblem(join(root, 'machines', store.machine));
  if (problem) throw new UserError(`machines/${store.machine}: ${problem}; refusing to push there`, root);
  let sessions = 0;
  let events = 0;
  for (const s of store.sessions({ all: true })) {
    const dir = join(own, s.id);
    const segments = tree.segments(dir);
    let remoteCount = 0;
    let remoteHead: string | undefined;
    const last = segments[segments.length - 1];
    if (last) {
      const lines = await tree.ownLines(last);
      remoteCount = last.start + lines.length;
      if (lines.length > 0) remoteHead = parseJsonObject(lines[lines.length - 1]).value?.checksum as string | undefined;
    }
    if (remoteCount > s.events) {
      throw new UserError(`the remote holds ${remoteCount} events of ${s.id} from this machine (${store.machine}) but the store only ${s.events}: is another store using the same SP_HOME machine id?`, root);
    }
    if (remoteCount > 0) {
      const local = store.rawLines(s.id, remoteCount - 1).next().value;
      const localHead = local ? (parseJsonObject(local.text).value?.checksum as string | undefined) : undefined;
      if (localHead !== remoteHead) throw new UserError(`the remote's copy of ${s.id} from this machine differs from the store at seq ${remoteCount - 1}; refusing to push over it`, root);
    }
    if (remoteCount === s.events) {
      store.setCursor(remoteName, store.machine, s.id, remoteCount, remoteHead ?? null);
      continue;
    }
    mkdirSync(dir, { recursive: true });
    let chunk = '';
    let chunkStart = -1;
    let lastHead: string | null = remoteHead ?? null;
    const flush = async () => {
      if (!chunk) return;
      await tree.writeChunk(dir, chunkStart, chunk);
      chunk = '';
    };
    for (const { seq, text } of store.rawLines(s.id, remoteCount)) {
      if (seq % SEGMENT === 0) await flush();
      if (!chunk) chunkStart = seq;
      chunk += text + '\n';
      events += 1;
      if (seq % 1000 === 999) options.onProgress?.(1000, s.id);
    }
    await flush();
    const manifest = store.manifest(s.id);
    if (manifest) {
      await tree.writeManifest(dir, JSON.stringify(manifest, null, 2) + '\n');
      lastHead = manifest.head;
    }
    store.setCursor(remoteName, store.machine, s.id, s.events, lastHead);
    sessions += 1;
  }
  return { sessions, events };
}

/** Copies the blobs of `from`/artifacts that `to`/artifacts lacks, each checked against its name. */
function copyMissingArtifacts(from: string, to: string): number {
  let copied = 0;
  for (const hex of listArtifacts(join(from, 'artifacts'))) {
    const outcome = copyArtifact(join(from, 'artifacts'), join(to, 'artifacts'), hex);
    if (outcome === 'stored') copied += 1;
    else if (outcome === 'mismatch') warn(join(from, 'artifacts', hex), 'does not hash to its name; not copied');
  }
  return copied;
}

/** Reads every other machine's sessions in a tree from the cursors on and stores new events. */
async function pullTree(store: Store, root: string, remoteName: string, options: SyncOptions, tree: RemoteTree = plainTree()): Promise<{ sessions: number; events: number }> {
  const machinesDir = join(root, 'machines');
  if (!existsSync(machinesDir)) return { sessions: 0, events: 0 };
  let sessions = 0;
  let events = 0;
  for (const machine of readdirSync(machinesDir).sort()) {
    if (machine === store.machine) continue;
    const sessionsDir = join(machinesDir, machine, 'sessions');
    if (!existsSync(sessionsDir)) continue;
    const problem = await tree.machineProblem(join(machinesDir, machine));
    if (problem) {
      tree.refused.push(`machines/${machine}: ${problem}; nothing taken`);
      continue;
    }
    for (const id of readdirSync(sessionsDir).sort()) {
      const dir = join(sessionsDir, id);
      const cursor = store.cursor(remoteName, machine, id) ?? { seq: 0, head: null };
      const manifest = await tree.readManifest(dir);
      const uri = typeof manifest?.session_uri === 'string' ? manifest.session_uri : undefined;
      let head = cursor.head ?? '';
      let next = cursor.seq;
      let added = 0;
      let batch: SpEvent[] = [];
      const flush = () => {
        if (batch.length === 0) return;
        added += store.append(id, batch, { uri, source: `${remoteName}/${machine}` }).added;
        store.setCursor(remoteName, machine, id, next, head);
        batch = [];
      };
      const segments = tree.segments(dir);
      const lastSegment = segments[segments.length - 1];
      const remoteEnd = lastSegment ? lastSegment.start + (await tree.lines(lastSegment)).length : 0;
      if (remoteEnd < cursor.seq) throw new UserError(`${machine}'s log of ${id} is shorter on the remote (${remoteEnd} events) than when last pulled (${cursor.seq}): it was rewritten; refusing it`, dir);
      for (const [index, segment] of segments.entries()) {
        // Segments wholly before the event at the cursor are not read (sealed chunks can be short).
        if ((segments[index + 1]?.start ?? Infinity) <= cursor.seq - 1) continue;
        const lines = await tree.lines(segment);
        for (let i = 0; i < lines.length; i++) {
          const seq = segment.start + i;
          if (seq < next - 1) continue;
          const event = parseJsonObject(lines[i]).value as SpEvent | undefined;
          if (seq === next - 1) {
            // The event before the cursor must still be the one read last time.
            if (!event || event.checksum !== cursor.head) {
              throw new UserError(`${machine}'s log of ${id} was rewritten on the remote (seq ${seq} changed since the last pull); refusing to merge it`, segment.path);
            }
            continue;
          }
          if (!event || event.seq !== seq || event.session !== id || typeof event.checksum !== 'string' || computeChecksum(head, event) !== event.checksum) {
            throw new UserError(`${machine}'s log of ${id} does not verify at seq ${seq} (damaged or rewritten); refusing to merge it`, segment.path);
          }
          head = event.checksum;
          next = seq + 1;
          batch.push(event);
          if (batch.length >= 1000) {
            flush();
            options.onProgress?.(1000, id);
          }
        }
      }
      flush();
      if (added > 0) sessions += 1;
      events += added;
    }
  }
  return { sessions, events };
}

// ---- the commands -----------------------------------------------------------------------------------

export async function push(store: Store, remote: RemoteConfig, options: SyncOptions = {}): Promise<SyncReport> {
  const tree = await treeFor(store, remote, 'push');
  if (remote.kind === 'dir') {
    mkdirSync(remote.url, { recursive: true });
    const r = await pushTree(store, remote.url, remote.name, options, tree);
    return { remote: remote.name, ...r, artifacts: await tree.pushArtifacts(store, remote.url) };
  }
  const git = await openClone(store, remote);
  for (let attempt = 0; ; attempt++) {
    const head = await fetchChecked(store, remote, git);
    await resetTo(git, head);
    const r = { ...(await pushTree(store, git.dir, remote.name, options, tree)), artifacts: await tree.pushArtifacts(store, git.dir) };
    if (r.events === 0 && r.artifacts === 0 && (await git.run(['status', '--porcelain'])).stdout.trim() === '') {
      if (head) writeState(store, remote, { seen: head });
      return { remote: remote.name, ...r, commit: head };
    }
    const paths = [join('machines', store.machine)];
    if (r.artifacts > 0) paths.push('artifacts');
    await git.run(['add', '-A', ...paths]);
    await git.run(['commit', '-q', '-m', `sp-sync push from ${store.machine}: ${r.events} events in ${r.sessions} sessions, ${r.artifacts} artifacts`]);
    const pushed = await git.run(['push', '-q', 'origin', `HEAD:refs/heads/${BRANCH}`], { allowFail: true });
    if (pushed.ok) {
      const commit = (await git.run(['rev-parse', 'HEAD'])).stdout.trim();
      await git.run(['update-ref', `refs/remotes/origin/${BRANCH}`, commit]);
      writeState(store, remote, { seen: commit });
      return { remote: remote.name, ...r, commit };
    }
    // Another machine pushed first (its own files only): start again from its commit.
    if (attempt >= 4 || !/rejected|non-fast-forward|fetch first|failed to push/i.test(pushed.stderr)) {
      throw new UserError(`git push failed: ${pushed.stderr.trim().split('\n').slice(-2).join(' / ')}`, remote.url);
    }
  }
}

export async function pull(store: Store, remote: RemoteConfig, options: SyncOptions = {}): Promise<SyncReport> {
  const tree = await treeFor(store, remote, 'pull');
  const refused = () => (tree.refused.length > 0 ? { refused: tree.refused } : {});
  if (remote.kind === 'dir') {
    if (!existsSync(remote.url)) throw new UserError('no such directory', remote.url);
    const r = await pullTree(store, remote.url, remote.name, options, tree);
    return { remote: remote.name, ...r, artifacts: await tree.pullArtifacts(remote.url, store), ...refused() };
  }
  const git = await openClone(store, remote);
  const head = await fetchChecked(store, remote, git);
  await resetTo(git, head);
  const r = { ...(await pullTree(store, git.dir, remote.name, options, tree)), artifacts: await tree.pullArtifacts(git.dir, store) };
  if (head) writeState(store, remote, { seen: head });
  return { remote: remote.name, ...r, commit: head, ...refused() };
}

export interface RemoteStatus {
  remote: string;
  kind: string;
  url: string;
  seen?: string;
  cursors: Array<{ machine: string; session: string; seq: number; local_events: number | null }>;
}

export function status(store: Store): RemoteStatus[] {
  return listRemotes(store).map((remote) => ({
    remote: remote.name,
    kind: remote.kind,
    url: remote.url,
    seen: remote.kind === 'git' ? readState(store, remote).seen : undefined,
    cursors: store.cursors(remote.name).map((c) => ({ machine: c.machine, session: c.session, seq: c.seq, local_events: store.session(c.session)?.events ?? null })),
  }));
}
