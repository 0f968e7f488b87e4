// Remotes (seed §8.2–8.4): other stores reached through a git repository (any URL the git CLI
// accepts: a bare repo path, file://, ssh://, a hosted repo) or a plain directory (`dir:PATH`).
//
// Layout on a remote, the same for both kinds:
//   machines/<machine>/sessions/<session>/<first seq, 12 digits>.jsonl   512 events per segment
//   machines/<machine>/sessions/<session>/manifest.json                   signed by that machine
//   artifacts/<sha256 hex>                                                 content-addressed blobs
// Each machine writes only below its own machines/<machine>/, so pushes from several machines
// never touch the same file and never conflict; a blob's name is its hash (each hash-checked on pull).
//
// Trust and origin (who vouches for which event):
// - A machine publishes only its OWN events of a session: the events no origin mirror (below)
//   holds. A session nobody else wrote to goes out as its stored log lines verbatim; one with
//   pulled events goes out as just the own events, numbered 0.. and chained from ''. The folder's
//   manifest.json is signed by the pusher and names its machine, the session, the event count and
//   the head, so it vouches for exactly those events and nothing another machine wrote.
// - pull/clone adopt a machine's session folder only when lib/store/origins.ts readSignedFolder
//   accepts it: plain files only, a manifest whose signature verifies with a key this SP_HOME
//   trusts ($SP_HOME/keys/trusted/, `sp-sync trust`), that names this machine and session, and a
//   chain of segments 0, 512, … ending exactly at the manifest's count and head. Anything else (no
//   manifest, an unknown signer, events past the manifest, a hand-chained event, a missing or
//   re-ordered segment, a symlink) refuses that folder whole; the other folders are still taken.
// - What is adopted is first kept verbatim in the store's origin mirror,
//   <store>/origins/<machine>/sessions/<session>/ (the origin's signed segments and manifest), then
//   merged into the local session log (dedup by event key), and the local manifest's `origins`
//   records, per origin, its machine id, key id, the SHA-256 of the origin manifest and the local
//   seq ranges that hold its events. The local signature covers the local log's integrity and this
//   attribution; the pulled events themselves stay vouched for only by their origin's signature,
//   which sp-verify --store checks in the mirror. The puller never publishes them as its own.
//
// push: append to the own segments what the remote lacks (the remote's own files say how far it
// is: it is the truth, so an interrupted push just resumes); git: commit, push without force
// (rejected because another machine pushed: rebase the own commit onto theirs, disjoint paths,
// and push again). Before writing, the part of the tree push writes is checked with lstat: a
// symlink or special file there refuses the push (nothing written). A rewritten remote is refused:
// for git, the last remote commit seen must still be an ancestor of the remote's branch; for both,
// a cursor's checksum must still be the event before it.
//
// Every remote file is read and written through a RemoteTree: the plain one below, or the sealed
// one of sealed.ts for a remote configured with age recipients (encrypted remotes). Both give
// pull the same signed folder to verify (the sealed one decrypted), so the rules above hold alike.
// A PostgreSQL remote (pg.ts) keeps the tree in tables; push and pull go through a private working
// folder shaped like a folder remote, so the same pushTree and pullTree (and verification) apply.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { replaceFileAtomic } from '../fs/atomic.js';
import { makePrivateDir, PRIVATE_FILE } from '../fs/private.js';
import { UserError, warn } from '../cli/diagnostics.js';
import { copyArtifact, listArtifacts } from '../core/artifacts.js';
import { parseJsonObject } from '../core/json.js';
import type { SpEvent } from '../core/event.js';
import { Store, eventKey, trustedKeys, checkSignature, type SessionSummary, type Signature, type RedactionRecord } from '../store/index.js';
import { signDocument } from '../store/identity.js';
import { SESSION_ID_PATTERN } from '../store/paths.js';
import {
  MACHINE_PATTERN,
  SEGMENT,
  manifestHash,
  mirrorDir,
  addToRanges,
  firstIrregular,
  mirroredEvents,
  mirroredOrigins,
  nodeKind,
  notPlainDir,
  notPlainFile,
  readSignedFolder,
  SignerBindings,
  segmentName,
  writeMirror,
  mirrorEventsFrom,
  type OriginRecord,
} from '../store/origins.js';
import { addTrusted, listTrusted, type TrustedSigner } from '../store/trust.js';
import type { Json } from '../core/json.js';
import { openSealedTree, type RemoteTree, type TreeSegment } from './sealed.js';
import { ownChain, type SeenMark } from '../store/converge.js';
import { importReceipts, receiptsIssuedBy, sameReceipts } from '../store/receipts.js';
import { refreshConverged } from '../store/handoff.js';
import { forwardTree, markSealedSource } from './forward.js';

const run = promisify(execFile);

export { SEGMENT };
export const BRANCH = 'main';

export interface RemoteConfig {
  name: string;
  kind: 'git' | 'dir' | 'pg';
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
  /** pull: the folders (or blobs) not taken, and why. */
  refused: Refusal[];
  /** clone --trust-all: the signers trusted on the way. */
  trusted?: TrustedSigner[];
  /** push: other machines' signed folders forwarded unchanged (lib/sync/forward.ts), and their new events. */
  forwarded?: { folders: number; events: number };
}

/** A part of a remote that pull did not take. */
export interface Refusal {
  /** Its path in the remote's tree (machines/<machine>/sessions/<session>, artifacts/<hex> …). */
  where: string;
  machine?: string;
  session?: string;
  reason: string;
  /** A valid signature by a key not trusted yet (first contact): what `sp-sync trust add` needs. */
  signer?: { keyId: string; publicKey: string };
}

export interface SyncOptions {
  onProgress?: (events: number, session: string) => void;
  /** clone --trust-all: trust every signer whose signature verifies before reading. */
  trustAll?: boolean;
  /** push: sessions not to send (tombstoned originals still holding secrets). */
  skip?: ReadonlySet<string>;
  /** pull: how pulled events are recorded in the manifest (redacted, or holding secrets these rules find). */
  classify?: (events: SpEvent[]) => RedactionRecord;
  /** pull (set by pull itself): the remote is encrypted, so what is mirrored from it is never forwarded in plaintext. */
  sealedSource?: boolean;
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
export function parseRemoteUrl(url: string, dir = false): { kind: 'git' | 'dir' | 'pg'; url: string } {
  if (!dir && /^postgres(ql)?:\/\//i.test(url)) return { kind: 'pg', url };
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
  replaceFileAtomic(configPath(store), JSON.stringify(all, null, 2) + '\n', PRIVATE_FILE);
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
  makePrivateDir(join(store.dir, 'remotes'));
  replaceFileAtomic(statePath(store, remote), JSON.stringify(state) + '\n', PRIVATE_FILE);
}

class Git {
  constructor(
    readonly dir: string,
    private readonly machine: string,
  ) {}

  async run(args: string[], options: { allowFail?: boolean } = {}): Promise<{ ok: boolean; stdout: string; stderr: string }> {
    // The working clone lives under $SP_HOME: git makes its files 0600 and folders 0700
    // (core.sharedRepository for .git, umask 077 for the work tree). A push keeps the caller's
    // umask: on a local remote the receiving git writes into the remote repository, not here.
    const umask = args[0] === 'push' ? undefined : process.umask(0o077);
    let running: Promise<{ stdout: string; stderr: string }>;
    try {
      running = run('git', ['-C', this.dir, '-c', 'user.name=sp-sync', '-c', `user.email=${this.machine}@sp-sync`, '-c', 'commit.gpgsign=false', '-c', 'core.sharedRepository=0600', ...args], {
        maxBuffer: 64 << 20,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
      });
    } finally {
      // The child took its umask when it was spawned (synchronously, inside execFile).
      if (umask !== undefined) process.umask(umask);
    }
    try {
      const { stdout, stderr } = await running;
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
    makePrivateDir(dir);
    await git.run(['init', '-q']);
    await git.run(['remote', 'add', 'origin', remote.url]);
  } else if (!(await git.run(['remote', 'get-url', 'origin'], { allowFail: true })).ok) {
    // A run killed between `init` and `remote add` left a clone without its origin.
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

/** Complete lines of a segment (a torn last line is not counted) and where they end. */
function completeLines(path: string): { lines: string[]; end: number } {
  const bytes = readFileSync(path);
  const end = bytes.lastIndexOf(0x0a) + 1;
  const lines = end === 0 ? [] : bytes.toString('utf8', 0, end - 1).split('\n');
  return { lines, end };
}

function segmentsOf(dir: string): Array<{ start: number; path: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => /^\d{12}\.jsonl$/.test(n))
    .map((n) => ({ start: Number(n.slice(0, 12)), path: join(dir, n) }))
    .sort((a, b) => a.start - b.start);
}

function appendFsync(path: string, text: string): void {
  const fd = openSync(path, 'a', PRIVATE_FILE);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses (exit 2, before anything is written) a tree whose part push writes into is not plain
 * folders and files: machines/, machines/<own>/ and everything below it, artifacts/ and its blobs.
 * A symlink there would make push write outside the tree.
 */
function checkWritableTree(root: string, machine: string): void {
  const rootKind = nodeKind(root);
  if (rootKind !== 'dir' && rootKind !== 'missing') {
    // The root itself was given by the user; a symlink to a folder is their choice, anything else is not a tree.
    if (!(rootKind === 'symlink' && existsSync(root) && statSync(root).isDirectory())) throw new UserError('the remote is not a folder; nothing pushed', root);
  }
  const parts = [join(root, 'machines'), join(root, 'machines', machine), join(root, 'machines', machine, 'sessions')];
  for (const path of parts) {
    const bad = notPlainDir(path, true);
    if (bad) throw new UserError(`${bad}; nothing pushed`, path);
  }
  for (const dir of [join(root, 'machines', machine), join(root, 'artifacts')]) {
    const bad = firstIrregular(dir);
    if (bad) throw new UserError(`${bad.reason}; nothing pushed`, bad.path);
  }
}

/** A remote manifest.json as plain JSON (undefined: absent, not a plain file, too large or not JSON). */
function readPlainManifest(dir: string): Json | undefined {
  const path = join(dir, 'manifest.json');
  if (nodeKind(dir) !== 'dir' || nodeKind(path) !== 'file' || statSync(path).size > 1 << 20) return undefined;
  return parseJsonObject(readFileSync(path, 'utf8')).value;
}

/** The remote's files as they are: aligned segments appended to, manifest.json, artifacts/<sha256>. */
function plainTree(): RemoteTree {
  return {
    segments: (dir) => segmentsOf(dir),
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
    writeManifest: async (dir, text) => replaceFileAtomic(join(dir, 'manifest.json'), text, PRIVATE_FILE),
    readManifest: async (dir) => readPlainManifest(dir),
    readFolder: async (dir, machine, id, trusted, options) => readSignedFolder(dir, machine, id, trusted, options),
    machineProblem: async (machineDir) => {
      const sessionsDir = join(machineDir, 'sessions');
      if (nodeKind(sessionsDir) !== 'dir') return undefined;
      const sealed = readdirSync(sessionsDir).some((id) => nodeKind(join(sessionsDir, id)) === 'dir' && readdirSync(join(sessionsDir, id)).some((n) => n.endsWith('.age')));
      return sealed ? 'holds encrypted files, but this remote is not configured for encryption (sp-sync remote add NAME URL --encrypt-to FILE)' : undefined;
    },
    pushArtifacts: async (store, root) => copyMissingArtifacts(store.dir, root),
    pullArtifacts: async (root, store, refused) => copyMissingArtifacts(root, store.dir, refused),
  };
}

/** The tree a push or pull reads and writes the remote through. */
async function treeFor(store: Store, remote: RemoteConfig, direction: 'push' | 'pull'): Promise<RemoteTree> {
  return isEncrypted(remote) ? openSealedTree(store, remote, { recipients: remote.recipients!, forPush: direction === 'push' }) : plainTree();
}

/** This machine's own chain of a session as published (lib/store/converge.ts ownChain). */
interface OwnExport {
  count: number;
  head: string | null;
  seen: SeenMark[];
  /** The published line at `seq`. */
  lineAt(seq: number): string | undefined;
  lines(from: number): Iterable<{ seq: number; text: string }>;
}

async function ownExport(store: Store, id: string): Promise<OwnExport> {
  const own = ownChain(store, id);
  return {
    count: own.lines.length,
    head: own.head,
    seen: own.seen,
    lineAt: (seq) => own.lines[seq],
    lines: function* (from) {
      for (let seq = from; seq < own.lines.length; seq++) yield { seq, text: own.lines[seq] };
    },
  };
}

function ownReceipts(store: Store, id: string): Array<Record<string, unknown>> {
  return receiptsIssuedBy(store.dir, store.machine, id);
}

/** The manifest published with a machine's own events: signed by it, naming it, covering only them. */
function publishedManifest(store: Store, id: string, own: OwnExport): Record<string, unknown> {
  const local = store.manifest(id);
  const { signature: _s, origins: _o, bytes: _b, ...rest } = (local ?? {}) as Record<string, unknown>;
  const { converged: _v, ...published } = rest;
  return signDocument(
    { ...published, session_id: id, machine: store.machine, event_count: own.count, first_seq: 0, last_seq: own.count - 1, head: own.head, seen: own.seen, receipts: ownReceipts(store, id) },
    store.signer(),
  );
}

/** Writes the store's own events to the own folder of a tree; returns what it added. */
async function pushTree(store: Store, root: string, remoteName: string, options: SyncOptions, tree: RemoteTree): Promise<{ sessions: number; events: number }> {
  checkWritableTree(root, store.machine);
  const problem = await tree.machineProblem(join(root, 'machines', store.machine));
  if (problem) throw new UserError(`machines/${store.machine}: ${problem}; refusing to push there`, root);
  const own = join(root, 'machines', store.machine, 'sessions');
  let sessions = 0;
  let events = 0;
  for (const s of store.sessions({ all: true })) {
    if (options.skip?.has(s.id)) continue;
    const dir = join(own, s.id);
    const mine = await ownExport(store, s.id);
    const segments = tree.segments(dir);
    if (mine.count === 0 && segments.length === 0) continue; // only others' events: theirs to publish
    let remoteCount = 0;
    let remoteHead: string | undefined;
    const last = segments[segments.length - 1];
    if (last) {
      const lines = await tree.ownLines(last);
      remoteCount = last.start + lines.length;
      if (lines.length > 0) remoteHead = parseJsonObject(lines[lines.length - 1]).value?.checksum as string | undefined;
    }
    if (remoteCount > mine.count) {
      throw new UserError(`the remote holds ${remoteCount} events of ${s.id} from this machine (${store.machine}) but the store only ${mine.count} of its own: is another store using the same SP_HOME machine id, or did an older sp-sync publish pulled events under this machine?`, root);
    }
    if (remoteCount > 0) {
      const local = mine.lineAt(remoteCount - 1);
      const localHead = local ? (parseJsonObject(local).value?.checksum as string | undefined) : undefined;
      if (localHead !== remoteHead) throw new UserError(`the remote's copy of ${s.id} from this machine differs from the store at seq ${remoteCount - 1}; refusing to push over it`, root);
    }
    const published = await tree.readManifest(dir);
    // The manifest is signed again when its causal marks or receipts are not the current ones
    // (an older release published none).
    const receiptsPublished = sameReceipts(published?.receipts, ownReceipts(store, s.id)) && JSON.stringify(published?.seen ?? null) === JSON.stringify(mine.seen);
    if (remoteCount === mine.count && published?.event_count === mine.count && published?.head === mine.head && published?.machine === store.machine && receiptsPublished) {
      store.setCursor(remoteName, store.machine, s.id, remoteCount, remoteHead ?? null);
      continue;
    }
    makePrivateDir(dir);
    let chunk = '';
    let chunkStart = -1;
    // A chunk never crosses a 512 boundary: a plain tree appends it to its segment, a sealed one
    // writes it as a new file named by its first seq.
    const flush = async () => {
      if (!chunk) return;
      await tree.writeChunk(dir, chunkStart, chunk);
      chunk = '';
    };
    for (const { seq, text } of mine.lines(remoteCount)) {
      if (seq % SEGMENT === 0) await flush();
      if (!chunk) chunkStart = seq;
      chunk += text + '\n';
      events += 1;
      if (seq % 1000 === 999) options.onProgress?.(1000, s.id);
    }
    await flush();
    // Segments first, then the manifest: a reader never sees a manifest ahead of its events.
    await tree.writeManifest(dir, JSON.stringify(publishedManifest(store, s.id, mine), null, 2) + '\n');
    store.setCursor(remoteName, store.machine, s.id, mine.count, mine.head);
    sessions += 1;
  }
  return { sessions, events };
}

/** Copies the blobs of `from`/artifacts that `to`/artifacts lacks, each checked against its name. */
function copyMissingArtifacts(from: string, to: string, refused?: Refusal[]): number {
  const source = join(from, 'artifacts');
  const bad = notPlainDir(source, true);
  if (bad) {
    refused?.push({ where: 'artifacts', reason: bad });
    return 0;
  }
  let copied = 0;
  for (const hex of listArtifacts(source)) {
    const irregular = notPlainFile(join(source, hex), false);
    if (irregular) {
      refused?.push({ where: `artifacts/${hex}`, reason: irregular });
      continue;
    }
    const outcome = copyArtifact(source, join(to, 'artifacts'), hex);
    if (outcome === 'stored') copied += 1;
    else if (outcome === 'mismatch') warn(join(source, hex), 'does not hash to its name; not copied');
  }
  return copied;
}

/** The valid signatures on a tree's manifests by keys not trusted yet: one per key, with the machine that used it. */
async function untrustedSigners(root: string, trusted: Map<string, Buffer>, tree: RemoteTree): Promise<Array<{ machine: string; keyId: string; publicKey: string }>> {
  const found = new Map<string, { machine: string; keyId: string; publicKey: string }>();
  const machinesDir = join(root, 'machines');
  if (nodeKind(machinesDir) !== 'dir') return [];
  for (const machine of readdirSync(machinesDir).sort()) {
    const sessionsDir = join(machinesDir, machine, 'sessions');
    if (!MACHINE_PATTERN.test(machine) || nodeKind(join(machinesDir, machine)) !== 'dir' || nodeKind(sessionsDir) !== 'dir') continue;
    if (await tree.machineProblem(join(machinesDir, machine))) continue;
    for (const id of readdirSync(sessionsDir).sort()) {
      // Read as pull reads it (decrypted on a sealed tree); a manifest that cannot be read is pull's to refuse.
      const manifest = await tree.readManifest(join(sessionsDir, id)).catch((err: unknown) => {
        if (err instanceof UserError) return undefined;
        throw err;
      });
      if (!manifest || manifest.machine !== machine) continue;
      const check = checkSignature(manifest, trusted);
      const s = manifest.signature as Signature;
      if (check.status === 'unknown-signer' && !found.has(s.key_id)) found.set(s.key_id, { machine, keyId: s.key_id, publicKey: s.public_key });
    }
  }
  return [...found.values()];
}

/**
 * Reads every other machine's sessions in a tree from the cursors on and stores what verifies
 * (see the top of this file); a folder that does not verify is refused whole and named in `refused`.
 */
async function pullTree(store: Store, root: string, remoteName: string, options: SyncOptions, refused: Refusal[], tree: RemoteTree): Promise<{ sessions: number; events: number }> {
  const machinesDir = join(root, 'machines');
  let sessions = 0;
  let events = 0;
  const badRoot = notPlainDir(machinesDir, true);
  if (badRoot) {
    refused.push({ where: 'machines', reason: badRoot });
    return { sessions, events };
  }
  if (nodeKind(machinesDir) === 'missing') return { sessions, events };
  const trusted = trustedKeys(store.home);
  const bindings = new SignerBindings(store.dir, trusted);
  const touched = new Set<string>();
  try {
    await pullMachines();
  } finally {
    // The merged view's owner and head, signed into the local manifest (also after a partial pull).
    for (const id of touched) refreshConverged(store, id);
  }
  return { sessions, events };

  async function pullMachines(): Promise<void> {
    for (const machine of readdirSync(machinesDir).sort()) {
      if (machine === store.machine) continue;
      const where = `machines/${machine}`;
      if (!MACHINE_PATTERN.test(machine)) {
        refused.push({ where: `machines/${JSON.stringify(machine)}`, reason: 'not a machine id' });
        continue;
      }
      const badMachine = notPlainDir(join(machinesDir, machine), false) ?? notPlainDir(join(machinesDir, machine, 'sessions'), true);
      if (badMachine) {
        refused.push({ where, machine, reason: badMachine });
        continue;
      }
      const sessionsDir = join(machinesDir, machine, 'sessions');
      if (nodeKind(sessionsDir) === 'missing') continue;
      const problem = await tree.machineProblem(join(machinesDir, machine));
      if (problem) {
        refused.push({ where, machine, reason: problem });
        continue;
      }
      for (const id of readdirSync(sessionsDir).sort()) {
        if (!SESSION_ID_PATTERN.test(id)) {
          refused.push({ where: `${where}/sessions/${JSON.stringify(id)}`, machine, reason: 'not a session id' });
          continue;
        }
        const cursor = store.cursor(remoteName, machine, id);
        // Verified without keeping its events: they are read back from the mirror, a segment at a time.
        const read = await tree.readFolder(join(sessionsDir, id), machine, id, trusted, { from: cursor ?? undefined });
        if (!read.ok) {
          refused.push({ where: `${where}/sessions/${id}`, machine, session: id, reason: read.reason, signer: read.unknownSigner });
          continue;
        }
        const misbound = bindings.conflict(machine, read.keyId);
        if (misbound) {
          refused.push({ where: `${where}/sessions/${id}`, machine, session: id, reason: misbound });
          continue;
        }
        const receipts = importReceipts(store.dir, read.manifest.receipts, machine, id, read.keyId, trusted);
        for (const reason of receipts.refused) refused.push({ where: `${where}/sessions/${id}/manifest.json`, machine, session: id, reason: `receipt not taken: ${reason}` });
        const from = cursor?.seq ?? 0;
        if (read.manifest.event_count === from) {
          // No new events, but a newer signed manifest (its causal marks or receipts changed): mirror it.
          if (mirroredManifestHash(store.dir, machine, id) !== read.manifestHash && mirroredOrigins(store.dir, id).includes(machine)) {
            const changed = writeMirror(store.dir, machine, id, read);
            if (changed) {
              refused.push({ where: `${where}/sessions/${id}`, machine, session: id, reason: changed });
              continue;
            }
            bindings.bind(machine, read.keyId);
            if (options.sealedSource) markSealedSource(store.dir, machine, id);
            recordOriginManifest(store, id, machine, read.keyId, read.manifestHash);
            touched.add(id);
          }
          continue;
        }
        bindings.bind(machine, read.keyId);
        const uri = typeof read.manifest.session_uri === 'string' && read.manifest.session_uri.startsWith('session://') ? read.manifest.session_uri : undefined;
        // The signed copy first: what is stored from an origin is always covered by its mirror.
        const changed = writeMirror(store.dir, machine, id, read);
        if (changed) {
          refused.push({ where: `${where}/sessions/${id}`, machine, session: id, reason: changed });
          continue;
        }
        if (options.sealedSource) markSealedSource(store.dir, machine, id);
        let added = 0;
        const storeBatch = (batch: SpEvent[]): void => {
          added += store.append(id, batch, { uri, source: `${remoteName}/${machine}`, redaction: options.classify?.(batch) }).added;
          recordOrigin(store, id, machine, read.keyId, read.manifestHash, batch);
          const lastEvent = batch[batch.length - 1];
          store.setCursor(remoteName, machine, id, lastEvent.seq + 1, lastEvent.checksum ?? null);
          if (batch.length === 1000) options.onProgress?.(1000, id);
        };
        let batch: SpEvent[] = [];
        for (const event of mirrorEventsFrom(store.dir, machine, id, read.segments, from)) {
          batch.push(event);
          if (batch.length === 1000) {
            storeBatch(batch);
            batch = [];
          }
        }
        if (batch.length > 0) storeBatch(batch);
        if (added > 0) sessions += 1;
        events += added;
        touched.add(id);
      }
    }
  }
}

/** Notes in the local manifest which origin manifest (by hash) now covers a machine's events. */
function recordOriginManifest(store: Store, id: string, machine: string, keyId: string, hash: string): void {
  if (!store.manifest(id)) return;
  store.updateManifest(id, (m) => {
    const records = Array.isArray(m.origins) ? [...(m.origins as OriginRecord[])] : [];
    const at = records.findIndex((r) => r.machine === machine);
    if (at >= 0) records[at] = { ...records[at], key_id: keyId, manifest_sha256: hash };
    m.origins = records;
  });
}

/** The SHA-256 of the origin manifest a store mirrors for a machine's session (undefined: none). */
function mirroredManifestHash(storeDir: string, machine: string, id: string): string | undefined {
  const path = join(mirrorDir(storeDir, machine, id), 'manifest.json');
  return existsSync(path) ? manifestHash(readFileSync(path)) : undefined;
}

/** Notes in the local manifest which stored seqs hold `events` of `machine` (before the cursor moves, so a crash re-records them). */
function recordOrigin(store: Store, id: string, machine: string, keyId: string, hash: string, batch: SpEvent[]): void {
  const seqs: number[] = [];
  for (const e of batch) {
    const seq = store.storedSeq(id, eventKey(e));
    if (seq !== undefined) seqs.push(seq);
  }
  if (seqs.length === 0 || !store.manifest(id)) return;
  store.updateManifest(id, (m) => {
    const records = Array.isArray(m.origins) ? [...(m.origins as OriginRecord[])] : [];
    const at = records.findIndex((r) => r.machine === machine);
    const previous = at >= 0 ? records[at].seqs : [];
    const next: OriginRecord = { machine, key_id: keyId, manifest_sha256: hash, seqs: addToRanges(previous, seqs) };
    if (at >= 0) records[at] = next;
    else records.push(next);
    m.origins = records;
  });
}

// ---- the commands -----------------------------------------------------------------------------------

export async function push(store: Store, remote: RemoteConfig, options: SyncOptions = {}): Promise<SyncReport> {
  const tree = await treeFor(store, remote, 'push');
  if (remote.kind === 'pg') {
    const { PgWork } = await import('./pg.js');
    const work = await PgWork.open(store, remote);
    try {
      await work.checkoutOwn();
      // The other machines' folders as the server holds them, so forwarding adds only what it lacks.
      await work.checkoutOthers();
      const r = await pushTree(store, work.dir, remote.name, options, tree);
      const forwarded = await forwardTree(store, work.dir, tree, { skip: options.skip, encrypted: isEncrypted(remote) });
      await tree.pushArtifacts(store, work.dir);
      // One transaction: what the server lacks of the own folder (a push interrupted before it is resent).
      const sent = await work.upload(store, forwarded.folders);
      return { remote: remote.name, sessions: r.sessions, events: sent.events, artifacts: sent.artifacts, refused: [], forwarded: { folders: sent.forwardedFolders, events: sent.forwardedEvents } };
    } finally {
      await work.close();
    }
  }
  if (remote.kind === 'dir') {
    checkWritableTree(remote.url, store.machine);
    mkdirSync(remote.url, { recursive: true });
    const r = await pushTree(store, remote.url, remote.name, options, tree);
    const forwarded = await forwardTree(store, remote.url, tree, { skip: options.skip, encrypted: isEncrypted(remote) });
    return { remote: remote.name, ...r, artifacts: await tree.pushArtifacts(store, remote.url), refused: [], forwarded: forwardedCounts(forwarded) };
  }
  const git = await openClone(store, remote);
  for (let attempt = 0; ; attempt++) {
    const head = await fetchChecked(store, remote, git);
    await resetTo(git, head);
    const own = await pushTree(store, git.dir, remote.name, options, tree);
    const forwarded = forwardedCounts(await forwardTree(store, git.dir, tree, { skip: options.skip, encrypted: isEncrypted(remote) }));
    const r = { ...own, artifacts: await tree.pushArtifacts(store, git.dir), refused: [], forwarded };
    if (r.events === 0 && r.artifacts === 0 && forwarded.folders === 0 && (await git.run(['status', '--porcelain'])).stdout.trim() === '') {
      if (head) writeState(store, remote, { seen: head });
      return { remote: remote.name, ...r, commit: head };
    }
    // Forwarded folders are other machines' paths: committed too (their bytes are the origins').
    const paths = [forwarded.folders > 0 ? 'machines' : join('machines', store.machine)];
    if (r.artifacts > 0) paths.push('artifacts');
    await git.run(['add', '-A', ...paths]);
    await git.run(['commit', '-q', '-m', `sp-sync push from ${store.machine}: ${r.events} events in ${r.sessions} sessions, ${r.artifacts} artifacts${forwarded.folders ? `, forwarded ${forwarded.events} events in ${forwarded.folders} folders of other machines` : ''}`]);
    const pushed = await git.run(['push', '-q', 'origin', `HEAD:refs/heads/${BRANCH}`], { allowFail: true });
    if (pushed.ok) {
      await pointHeadAtBranch(remote.url);
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

function forwardedCounts(report: { folders: Array<{ events: number }> }): { folders: number; events: number } {
  return { folders: report.folders.length, events: report.folders.reduce((n, f) => n + f.events, 0) };
}

/**
 * A bare repository on this machine (a path or file:// URL) made by `git init --bare` has HEAD on a
 * branch sp does not push, so `git clone` of it warns that HEAD names a missing ref: point HEAD at
 * the branch sp pushes when HEAD's branch does not exist. Hosted remotes pick their default branch
 * from the first push themselves.
 */
async function pointHeadAtBranch(url: string): Promise<void> {
  const path = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : isAbsolute(url) ? url : undefined;
  if (!path || nodeKind(join(path, 'HEAD')) !== 'file') return;
  const git = (args: string[]) => run('git', ['--git-dir', path, ...args], { env: { ...process.env, LC_ALL: 'C' } });
  try {
    const head = (await git(['symbolic-ref', '-q', 'HEAD'])).stdout.trim();
    if (head === `refs/heads/${BRANCH}`) return;
    const exists = await git(['rev-parse', '--verify', '-q', head]).then(
      () => true,
      () => false,
    );
    if (!exists) await git(['symbolic-ref', 'HEAD', `refs/heads/${BRANCH}`]);
  } catch {
    // not a repository we can read here, or a detached HEAD: left as it is
  }
}

/** Trusts every signer a tree holds (clone --trust-all), named after its machine; returns them. */
async function trustEverySigner(store: Store, root: string, tree: RemoteTree): Promise<TrustedSigner[]> {
  const added: TrustedSigner[] = [];
  const taken = new Set(listTrusted(store.home).map((s) => s.name));
  for (const signer of await untrustedSigners(root, trustedKeys(store.home), tree)) {
    let name = signer.machine;
    for (let n = 2; taken.has(name); n++) name = `${signer.machine}-${n}`;
    taken.add(name);
    added.push(addTrusted(store.home, Buffer.from(signer.publicKey, 'base64'), name));
  }
  return added;
}

export async function pull(store: Store, remote: RemoteConfig, options: SyncOptions = {}): Promise<SyncReport> {
  const refused: Refusal[] = [];
  const tree = await treeFor(store, remote, 'pull');
  let root: string;
  let commit: string | undefined;
  if (remote.kind === 'pg') {
    const { PgWork } = await import('./pg.js');
    const work = await PgWork.open(store, remote);
    try {
      await work.checkoutOthers();
      await work.checkoutArtifacts(store);
    } finally {
      await work.close();
    }
    root = work.dir;
  } else if (remote.kind === 'dir') {
    if (!existsSync(remote.url)) throw new UserError('no such directory', remote.url);
    root = remote.url;
  } else {
    const git = await openClone(store, remote);
    commit = await fetchChecked(store, remote, git);
    await resetTo(git, commit);
    root = git.dir;
  }
  const trustedNow = options.trustAll ? await trustEverySigner(store, root, tree) : [];
  const r = { ...(await pullTree(store, root, remote.name, { ...options, sealedSource: isEncrypted(remote) }, refused, tree)), artifacts: await tree.pullArtifacts(root, store, refused) };
  if (commit) writeState(store, remote, { seen: commit });
  return { remote: remote.name, ...r, refused, trusted: trustedNow, ...(commit ? { commit } : {}) };
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

/**
 * A remote's tree as pull reads it, for a look without storing anything (sp-sync status): a dir
 * remote as it is, a git remote fetched into the working clone (a rewritten history refused).
 */
export async function remoteTreeForReading(store: Store, remote: RemoteConfig): Promise<{ root: string; tree: RemoteTree } | undefined> {
  const tree = await treeFor(store, remote, 'pull');
  if (remote.kind === 'dir') return existsSync(remote.url) ? { root: remote.url, tree } : undefined;
  const git = await openClone(store, remote);
  await resetTo(git, await fetchChecked(store, remote, git));
  return { root: git.dir, tree };
}
