// One step of `sp watch`: find every session of the watched agent homes, skip the ones whose files
// did not change (a stat, no read), and for the others capture only what is new from the stored
// cursor, redact it, and ingest it into the store. Digest-aware in three stages: (ino, size, mtime)
// first; then the SHA-256 of the first bytes of each line file (a rotated, compacted or rewritten
// file differs there, and is read again from the start, the store keeping each event once); then
// the adapter's cursor, which checks the last consumed line and reads only the tail after it.
//
// The state advances only for what the store accepted: a store that is busy (another writer holds
// its lock) leaves the state as it was, so the next scan captures the same tail again — nothing is
// lost, nothing is stored twice. Each problem is one line on stderr (once per signature, so a
// broken file does not print a line every interval) and the scan goes on with the other sessions.
import { closeSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import type { Adapter, Cursor, SessionRef } from '../adapter/interface.js';
import { emptyCursor, sha256Hex } from '../capture/read-position.js';
import { UserError, errorCode } from '../cli/diagnostics.js';
import type { SpEvent } from '../core/event.js';
import type { Redactor } from '../redact/ensure.js';
import { Store, type IngestItem, type RedactionRecord } from '../store/index.js';
import { HEAD_BYTES, cursorOf, dropSession, sessionKey, setSession, type DiscoveryState, type SessionState, type WatchState } from './state.js';

export interface WatchTarget {
  adapter: Adapter;
  home: string;
  /** A default home that may not exist (an agent not installed here): its absence is not reported. */
  optional?: boolean;
}

export interface ScanOptions {
  targets: WatchTarget[];
  storeDir: string;
  /** SP_HOME for the store's keys (default: $SP_HOME). */
  spHome?: string;
  /** The redactor every event goes through; undefined only with an explicit --no-redact. */
  redactor?: Redactor;
  /** How long to wait for another writer's store lock before calling the store busy (default 200 ms). */
  lockTimeoutMs?: number;
  /** A line file with a line longer than this in its new part is skipped (default 64 MiB). */
  maxLineBytes?: number;
  /** One diagnostic line: `where: what`. */
  log: (where: string, what: string) => void;
  /** Stops between sessions (the current one is finished and its state kept). */
  signal?: AbortSignal;
}

export interface AgentCounts {
  sessions: number;
  changed: number;
  added: number;
  skipped: number;
}

export interface ScanResult {
  /** Sessions found, sessions read (changed), events stored, events the store had already. */
  sessions: number;
  changed: number;
  added: number;
  skipped: number;
  /** Sessions that could not be read this time (one line each). */
  errors: number;
  removed: number;
  /** Another writer held the store: nothing was stored, the state did not move, try again later. */
  busy: boolean;
  /** Whether the state changed (the caller saves it). */
  dirty: boolean;
  agents: Record<string, AgentCounts>;
  /** The folders the sessions live in (what a long-running watch listens on). */
  folders: string[];
}

const DEFAULT_MAX_LINE = 64 * 1024 * 1024;
/** Names of files that hold sessions (what a link or a FIFO in an agent's folder is reported for). */
const SESSION_FILE = /\.(jsonl|json|db|sqlite|vscdb|md)$/;

/** Remembers the problems reported, so each is one line until it changes or goes away. */
export class Notes {
  private readonly said = new Map<string, string>();
  private readonly seen = new Set<string>();
  constructor(private readonly log: (where: string, what: string) => void) {}
  note(where: string, what: string): void {
    this.seen.add(where);
    if (this.said.get(where) === what) return;
    this.said.set(where, what);
    this.log(where, what);
  }
  /** Forgets the problems not seen since the last call (fixed ones are reported again if they come back). */
  sweep(): void {
    for (const key of [...this.said.keys()]) if (!this.seen.has(key)) this.said.delete(key);
    this.seen.clear();
  }
}

function signatureOf(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'absent';
  }
}

function sameSig(a: Record<string, string>, b: Record<string, string>): boolean {
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  return ak.every((k) => a[k] === b[k]);
}

function readHead(path: string, length: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const n = readSync(fd, buffer, done, length - done, done);
      if (n === 0) break;
      done += n;
    }
    return buffer.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/** The head hashes of the line files a cursor consumed (byte-offset sources; database rows have none). */
function headsOf(cursor: Cursor): Record<string, string> {
  const heads: Record<string, string> = {};
  for (const [path, position] of Object.entries(cursor.sources)) {
    if (typeof position.offset !== 'number' || position.last_line_sha256 === undefined) continue;
    const bytes = readHead(path, Math.min(HEAD_BYTES, position.offset));
    if (bytes) heads[path] = sha256Hex(bytes);
  }
  return heads;
}

/** Why the stored cursor cannot be continued (the file was rotated, compacted, truncated), or undefined. */
function rewritten(entry: SessionState, cursor: Cursor): string | undefined {
  for (const [path, position] of Object.entries(cursor.sources)) {
    if (typeof position.offset !== 'number' || position.last_line_sha256 === undefined) continue;
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      continue; // a side file that went away: the adapter decides
    }
    if (size < position.offset) return `${path} is shorter (${size} bytes) than what was read (${position.offset})`;
    const head = entry.heads[path];
    const bytes = readHead(path, Math.min(HEAD_BYTES, position.offset));
    if (head !== undefined && bytes !== undefined && sha256Hex(bytes) !== head) return `${path} begins differently than when it was read`;
  }
  return undefined;
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** What makes a watched path unfit to read: a link, a FIFO, a socket, a device (undefined: fine or absent). */
function hostile(path: string, homeReal: string): string | undefined {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink()) {
    let target = '?';
    try {
      target = realpathSync(path);
    } catch {
      // a dangling link
    }
    return isInside(target, homeReal) ? 'a symbolic link; not followed' : `a symbolic link to ${target}, outside the home; not followed`;
  }
  if (st.isFile() || st.isDirectory()) return undefined;
  const kind = st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : 'a device';
  return `${kind}, not a regular file; not read`;
}

/** Whether the bytes [start, end) of `path` hold a line longer than `max` (the unread tail of a line file). */
function hasLongLine(path: string, start: number, end: number, max: number): boolean {
  if (end - start <= max) return false;
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(1 << 16);
    let run = 0;
    for (let at = start; at < end; ) {
      const n = readSync(fd, buffer, 0, Math.min(buffer.length, end - at), at);
      if (n === 0) break;
      let from = 0;
      for (;;) {
        const lf = buffer.indexOf(0x0a, from);
        if (lf === -1 || lf >= n) {
          run += n - from;
          break;
        }
        run += lf - from;
        if (run > max) return true;
        run = 0;
        from = lf + 1;
      }
      if (run > max) return true;
      at += n;
    }
    return false;
  } finally {
    closeSync(fd);
  }
}

const DATABASE_FILE = /(\.db|\.sqlite|\.vscdb)(-wal|-shm)?$/;

/** A reason to skip the session for a huge line in the part not read yet, or undefined. */
function longLine(paths: string[], cursor: Cursor | undefined, max: number): string | undefined {
  for (const path of paths) {
    if (DATABASE_FILE.test(path)) continue;
    let st: Stats;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const from = cursor?.sources[path]?.offset;
    if (hasLongLine(path, typeof from === 'number' ? from : 0, st.size, max)) return `${path}: a line longer than ${max} bytes; session skipped until the file changes`;
  }
  return undefined;
}

/** Links, FIFOs and other non-files with session-like names directly in `dir`. */
function* strangeEntries(dir: string): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!SESSION_FILE.test(name)) continue;
    const path = join(dir, name);
    let st: Stats;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    if (st.isFile() || st.isDirectory()) continue;
    yield path;
  }
}

/**
 * The signatures of the folders from each path up to `home` (inclusive), or undefined when one of
 * them changed during the discovery that started at `since` (then the next scan discovers again,
 * so a session created meanwhile is not missed).
 */
function folderSignatures(paths: string[], home: string, since: number): Record<string, string> | undefined {
  const dirs: Record<string, string> = { [home]: '' };
  for (const p of paths) {
    const hash = p.indexOf('#');
    let dir = dirname(hash > 0 ? p.slice(0, hash) : p);
    while (!(dir in dirs) && isInside(dir, home)) {
      dirs[dir] = '';
      dir = dirname(dir);
    }
  }
  for (const dir of Object.keys(dirs)) {
    try {
      const st = statSync(dir);
      if (st.mtimeMs >= since - 1000) return undefined;
      dirs[dir] = `${st.ino}:${st.mtimeMs}`;
    } catch {
      dirs[dir] = 'absent';
    }
  }
  return dirs;
}

/** Whether a cached discovery still describes the home (see DiscoveryState). */
function discoveryHolds(cached: DiscoveryState, state: WatchState, agent: string): boolean {
  for (const [dir, sig] of Object.entries(cached.dirs)) {
    let now = 'absent';
    try {
      const st = statSync(dir);
      now = `${st.ino}:${st.mtimeMs}`;
    } catch {
      // gone
    }
    if (now !== sig) return false;
  }
  for (const ref of cached.refs) {
    const entry = state.sessions[sessionKey(agent, ref.path)];
    if (!entry) continue;
    for (const [path, sig] of Object.entries(entry.sig)) {
      // A session file growing adds no session; a database (or any other file) changing may.
      if (!path.endsWith('.jsonl') && signatureOf(path) !== sig) return false;
    }
  }
  return true;
}

async function* redacted(events: AsyncIterable<SpEvent>, redactor: Redactor | undefined): AsyncGenerator<IngestItem> {
  for await (const event of events) {
    const value = event as unknown as Record<string, unknown>;
    if (redactor) redactor.redactEvent(value);
    yield { event: value };
  }
}

/** The folders and files a long-running watch listens on for a state (session files' folders and the homes). */
function foldersOf(paths: Iterable<string>, homes: string[]): string[] {
  const out = new Set<string>(homes);
  for (const p of paths) {
    const slash = p.lastIndexOf(sep);
    if (slash > 0) out.add(p.slice(0, slash));
  }
  return [...out];
}

/** A session whose files changed since the last scan: to be captured from its cursor and ingested. */
interface Work {
  ref: SessionRef;
  adapter: Adapter;
  key: string;
  paths: string[];
  sig: Record<string, string>;
}

/** What one scan gathers over the targets before it ingests. */
interface Gathered {
  work: Work[];
  found: Set<string>;
  watchedFiles: string[];
  homes: string[];
}

/**
 * One scan over the targets; updates `state` in place. `notes` keeps problems to one line each
 * across scans (pass the same one every time).
 */
export async function scan(state: WatchState, options: ScanOptions, notes = new Notes(options.log)): Promise<ScanResult> {
  const result: ScanResult = { sessions: 0, changed: 0, added: 0, skipped: 0, errors: 0, removed: 0, busy: false, dirty: false, agents: {}, folders: [] };
  const gathered: Gathered = { work: [], found: new Set<string>(), watchedFiles: [], homes: [] };
  for (const target of options.targets) await scanTarget(target, state, result, notes, gathered);
  forgetGone(state, options, gathered.found, result);
  result.folders = foldersOf(gathered.watchedFiles, gathered.homes);
  const { work } = gathered;
  if (work.length === 0) {
    notes.sweep();
    return result;
  }

  let store: Store;
  try {
    store = Store.open(options.storeDir, { lockTimeoutMs: options.lockTimeoutMs ?? 200, home: options.spHome });
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    result.busy = true;
    notes.note(err.where ?? options.storeDir, `${err.message}; ${work.length} changed session${work.length === 1 ? '' : 's'} wait for the next try`);
    return result;
  }
  try {
    for (const item of work) {
      if (options.signal?.aborted) break;
      await ingestChanged(item, store, state, options, result, notes);
    }
  } finally {
    store.close();
  }
  notes.sweep();
  return result;
}

/** Discovers one target's sessions (or reuses the cached discovery) and collects those whose files changed. */
async function scanTarget(target: ScanOptions['targets'][number], state: WatchState, result: ScanResult, notes: Notes, gathered: Gathered): Promise<void> {
  const { adapter, home, optional } = target;
  let homeReal: string;
  try {
    homeReal = realpathSync(home);
  } catch (err) {
    if (optional) return;
    notes.note(home, `cannot read the ${adapter.displayName} home (${errorCode(err)}); looked for again at the next scan`);
    result.errors += 1;
    return;
  }
  gathered.homes.push(home);
  const counts = (result.agents[adapter.id] ??= { sessions: 0, changed: 0, added: 0, skipped: 0 });
  const targetKey = sessionKey(adapter.id, home);
  const cached = state.discovery?.[targetKey];
  let refs: SessionRef[];
  const fresh = !cached || !discoveryHolds(cached, state, adapter.id);
  const discoveredAt = Date.now();
  if (!fresh) {
    refs = cached.refs;
  } else {
    refs = [];
    try {
      for await (const ref of adapter.discover({ home, onDiagnostic: (where, what) => notes.note(where, what) })) refs.push(ref);
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      notes.note(err.where ?? home, err.message);
      result.errors += 1;
      return;
    }
  }
  const targetPaths: string[] = [];
  const folders = new Set<string>();
  for (const ref of refs) {
    const key = sessionKey(adapter.id, ref.path);
    gathered.found.add(key);
    result.sessions += 1;
    counts.sessions += 1;
    let paths: string[];
    try {
      paths = adapter.watchPaths ? await adapter.watchPaths(ref) : [ref.path];
    } catch (err) {
      notes.note(ref.path, `cannot list its files: ${err instanceof UserError ? err.message : errorCode(err)}`);
      result.errors += 1;
      continue;
    }
    gathered.watchedFiles.push(...paths);
    targetPaths.push(ref.path, ...paths);
    for (const p of paths) folders.add(p.slice(0, Math.max(1, p.lastIndexOf(sep))));
    const sig: Record<string, string> = {};
    for (const p of paths) sig[p] = signatureOf(p);
    const entry = state.sessions[key];
    if (entry && sameSig(entry.sig, sig)) continue;
    const bad = paths.map((p) => [p, hostile(p, homeReal)] as const).find(([, why]) => why !== undefined);
    if (bad) {
      notes.note(bad[0], bad[1]!);
      state.sessions[key] = { ...(entry ?? { agent: adapter.id, native_id: ref.native_id, path: ref.path, heads: {} }), sig, skipped: bad[1] };
      result.dirty = true;
      continue;
    }
    gathered.work.push({ ref, adapter, key, paths, sig });
  }
  if (fresh) {
    const dirs = folderSignatures(targetPaths, home, discoveredAt);
    state.discovery ??= {};
    if (dirs) state.discovery[targetKey] = { dirs, refs };
    else delete state.discovery[targetKey];
    result.dirty = true;
  }
  // Links and FIFOs that discovery passes over without a word: one line each.
  for (const dir of folders) {
    for (const path of strangeEntries(dir)) {
      const why = hostile(path, homeReal);
      if (why) notes.note(path, why);
    }
  }
}

/** Sessions whose files are all gone: their stored events stay; the state forgets them. */
function forgetGone(state: WatchState, options: ScanOptions, found: Set<string>, result: ScanResult): void {
  for (const [key, entry] of Object.entries(state.sessions)) {
    if (found.has(key) || !options.targets.some((t) => t.adapter.id === entry.agent)) continue;
    if (Object.keys(entry.sig).every((p) => signatureOf(p) === 'absent')) {
      dropSession(state, key);
      result.removed += 1;
      result.dirty = true;
    }
  }
}

/** Captures one changed session from its cursor (or from the start when the file was rewritten) into the store. */
async function ingestChanged(item: Work, store: Store, state: WatchState, options: ScanOptions, result: ScanResult, notes: Notes): Promise<void> {
  const { ref, adapter, key } = item;
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE;
  const redaction: RedactionRecord = options.redactor
    ? { state: 'redacted', ruleset: options.redactor.ruleset, key_id: options.redactor.keyId, profile: options.redactor.profile }
    : { state: 'unredacted' };
  const counts = result.agents[adapter.id];
  const entry = state.sessions[key];
  const skip = (why: string) => {
    state.sessions[key] = { ...(entry ?? { agent: adapter.id, native_id: ref.native_id, path: ref.path, heads: {} }), sig: item.sig, skipped: why };
    result.dirty = true;
    result.errors += 1;
  };
  let cursor = entry?.skipped ? undefined : cursorOf(state, key);
  const why = entry && cursor ? rewritten(entry, cursor) : undefined;
  if (why) {
    notes.note(ref.path, `${why}: read again from the start (events stored already are kept once)`);
    cursor = undefined;
  }
  const long = longLine(item.paths, cursor, maxLine);
  if (long) {
    notes.note(ref.path, long);
    return skip(long);
  }
  const captureFrom = async (from: Cursor | undefined) => {
    let next: Cursor | undefined;
    const events = adapter.capture(ref, {
      cursor: from ?? emptyCursor(adapter.id, ref.native_id),
      onCursor: (c) => (next = c),
      onDiagnostic: (where, what) => notes.note(where, what),
    });
    const r = await store.ingest(redacted(events, options.redactor), { redaction });
    return { r, next };
  };
  let outcome: Awaited<ReturnType<typeof captureFrom>>;
  try {
    try {
      outcome = await captureFrom(cursor);
    } catch (err) {
      // The cursor no longer fits (rewritten under it since the checks above): once more from the start.
      if (!(err instanceof UserError) || cursor === undefined) throw err;
      notes.note(err.where ?? ref.path, `${err.message.split(';')[0]}: read again from the start`);
      outcome = await captureFrom(undefined);
    }
  } catch (err) {
    const message = err instanceof UserError ? err.message : errorCode(err);
    notes.note(err instanceof UserError && err.where ? err.where : ref.path, `${message}; this session is tried again when it changes`);
    return skip(message);
  }
  const { r, next } = outcome;
  result.changed += 1;
  counts.changed += 1;
  result.added += r.added;
  result.skipped += r.skipped;
  counts.added += r.added;
  counts.skipped += r.skipped;
  const cursorNow = next ?? cursor;
  setSession(state, key, {
    agent: adapter.id,
    native_id: ref.native_id,
    path: ref.path,
    sig: item.sig,
    heads: cursorNow ? headsOf(cursorNow) : {},
    ...(cursorNow ? { position: cursorNow } : {}),
  });
  result.dirty = true;
}
