// Signed machine folders and the per-origin mirror.
//
// A machine publishes a session as a signed folder: <first seq, 12 digits>.jsonl segments of 512
// events (seq 0.. without gaps, hash-chained from '') and a manifest.json signed with the machine's
// key that names the machine, the session, the event count and the head (last checksum). The same
// folder shape is read from a remote (machines/<machine>/sessions/<id>/) and kept in the store as
// the origin mirror (<store>/origins/<machine>/sessions/<id>/), verbatim, so the events pulled from
// a machine stay verifiable with that machine's key and are never vouched for by the puller's.
//
// Everything in such a folder is hostile: it is walked with lstat (a symlink, FIFO or device, or a
// file where a folder belongs, is refused before anything is read), and its events are adopted only
// when the manifest's signature verifies with a trusted key and the chain ends exactly at the
// manifest's head and count.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFileAtomic } from '../fs/atomic.js';
import { computeChecksum } from '../core/chain.js';
import type { SpEvent } from '../core/event.js';
import { parseJsonObject } from '../core/json.js';
import { checkSignature, type Signature } from './identity.js';
import { SESSION_ID_PATTERN } from './paths.js';
import { mergeSortedSpans } from '../core/ranges.js';

export const SEGMENT = 512;
export const ORIGINS_DIR = 'origins';
export const MACHINE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A manifest is a few KB; a bigger one is not read. */
const MAX_MANIFEST_BYTES = 1 << 20;

export function segmentName(seq: number): string {
  return `${String(seq).padStart(12, '0')}.jsonl`;
}

/** What stands at `path`: 'missing', 'dir', 'file', or a reason it is refused (a symlink, a FIFO …). */
export function nodeKind(path: string): 'missing' | 'dir' | 'file' | 'symlink' | 'special' {
  let st;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return 'special';
}

/** Why `path` is not a plain folder (undefined: it is one, or it is missing and `missingOk`). */
export function notPlainDir(path: string, missingOk: boolean): string | undefined {
  const kind = nodeKind(path);
  if (kind === 'dir' || (kind === 'missing' && missingOk)) return undefined;
  return kind === 'missing' ? 'is missing' : kind === 'file' ? 'is a file where a folder belongs' : kind === 'symlink' ? 'is a symlink (refused)' : 'is not a plain folder (a FIFO, socket or device)';
}

/** Why `path` is not a plain file (undefined: it is one, or missing and `missingOk`). */
export function notPlainFile(path: string, missingOk: boolean): string | undefined {
  const kind = nodeKind(path);
  if (kind === 'file' || (kind === 'missing' && missingOk)) return undefined;
  return kind === 'missing' ? 'is missing' : kind === 'dir' ? 'is a folder where a file belongs' : kind === 'symlink' ? 'is a symlink (refused)' : 'is not a plain file (a FIFO, socket or device)';
}

/**
 * Checks that everything below `dir` is a plain folder or a plain file (lstat, nothing followed);
 * returns the first offender and why, or undefined.
 */
export function firstIrregular(dir: string): { path: string; reason: string } | undefined {
  const own = notPlainDir(dir, true);
  if (own) return { path: dir, reason: own };
  if (nodeKind(dir) === 'missing') return undefined;
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const kind = nodeKind(path);
    if (kind === 'dir') {
      const inner = firstIrregular(path);
      if (inner) return inner;
    } else if (kind !== 'file') return { path, reason: kind === 'symlink' ? 'is a symlink (refused)' : 'is not a plain file or folder (a FIFO, socket or device)' };
  }
  return undefined;
}

export interface FolderManifest {
  session_id: string;
  machine: string;
  event_count: number;
  head: string | null;
  session_uri?: string;
  signature?: Signature;
  [extra: string]: unknown;
}

export interface ReadFolderOptions {
  /** Where the caller's knowledge ends: the seq read next and the checksum of the event before it. */
  from?: { seq: number; head: string | null };
  /** Keep the events from `from.seq` on (status); a verification alone, or a pull (which reads them back from the mirror), leaves it off. */
  collect?: boolean;
}

/** A verified segment: read again on demand (a session's segments are never all held at once). */
export interface VerifiedSegment {
  name: string;
  /** The SHA-256 (hex) of the bytes that were verified. */
  sha256: string;
  /** Its bytes read again; undefined when they are no longer the bytes that were verified. */
  bytes(): Buffer | undefined;
}

export type FolderRead =
  | {
      ok: true;
      manifest: FolderManifest;
      /** The manifest file's bytes (mirrored verbatim) and their SHA-256. */
      manifestBytes: Buffer;
      manifestHash: string;
      keyId: string;
      /** The events from `from.seq` on, when `collect`. */
      events: SpEvent[];
      /** The segments that hold the events from `from.seq` on (and the one before). */
      segments: VerifiedSegment[];
    }
  | { ok: false; reason: string; unknownSigner?: { keyId: string; publicKey: string } };

/** The SHA-256 of a manifest file's bytes, as `sha256:<hex>`. */
export function manifestHash(bytes: Buffer): string {
  return 'sha256:' + createHash('sha256').update(bytes).digest('hex');
}

/** The names in a remote session folder, sorted, when it is a plain folder of plain files only; else why not (nothing followed). */
export function plainFolderEntries(dir: string): { names: string[] } | { reason: string } {
  const bad = notPlainDir(dir, false);
  if (bad) return { reason: `the session folder ${bad}` };
  const names = readdirSync(dir).sort();
  for (const name of names) {
    const problem = notPlainFile(join(dir, name), false);
    if (problem) return { reason: `${name} ${problem}` };
  }
  return { names };
}

/**
 * Reads and verifies a signed machine folder for session `id` published by `machine`. Refuses (ok:
 * false, one reason) anything short of: plain files only, a manifest signed by a trusted key that
 * names this machine and session, segments 0, 512, … with no gap, every one but the last full, the
 * chain intact from '' (or from `from`) and ending exactly at the manifest's count and head.
 */
export function readSignedFolder(dir: string, machine: string, id: string, trusted: Map<string, Buffer>, options: ReadFolderOptions = {}): FolderRead {
  const refuse = (reason: string): FolderRead => ({ ok: false, reason });
  const listed = plainFolderEntries(dir);
  if ('reason' in listed) return refuse(listed.reason);
  const names = listed.names;
  if (!names.includes('manifest.json')) return refuse('no manifest.json: unsigned events are not taken');
  const manifestPath = join(dir, 'manifest.json');
  if (lstatSync(manifestPath).size > MAX_MANIFEST_BYTES) return refuse('manifest.json is too large to be a manifest');
  return verifySignedFolder({ names, manifestBytes: readFileSync(manifestPath), segment: (name) => readFileSync(join(dir, name)) }, machine, id, trusted, options);
}

/** A signed folder's content as verifySignedFolder reads it, wherever it came from (a plain folder, or decrypted). */
export interface FolderFiles {
  /** The names in the folder (segments named by their first seq; other names are ignored unless they end in .jsonl). */
  names: string[];
  manifestBytes: Buffer;
  /** A segment's bytes; asked only for the segments at or after the event before `from.seq`. */
  segment(name: string): Buffer;
}

/** The checks of readSignedFolder after the folder was listed and its manifest read (see there). */
export function verifySignedFolder(files: FolderFiles, machine: string, id: string, trusted: Map<string, Buffer>, options: ReadFolderOptions = {}): FolderRead {
  const refuse = (reason: string): FolderRead => ({ ok: false, reason });
  const { names, manifestBytes } = files;
  if (manifestBytes.length > MAX_MANIFEST_BYTES) return refuse('the manifest is too large to be a manifest');
  const manifest = parseJsonObject(manifestBytes.toString('utf8')).value as FolderManifest | undefined;
  if (!manifest) return refuse('manifest.json is not a JSON object');
  const signature = checkSignature(manifest, trusted);
  if (signature.status === 'unknown-signer') {
    const s = manifest.signature!;
    return { ok: false, reason: `signed by ${s.key_id}, a key this store does not trust`, unknownSigner: { keyId: s.key_id, publicKey: s.public_key } };
  }
  if (signature.status !== 'trusted') return refuse(`manifest.json: ${signature.message}`);
  if (manifest.machine !== machine) return refuse(`the signed manifest is machine ${JSON.stringify(manifest.machine)}'s, not this folder's`);
  if (manifest.session_id !== id) return refuse(`the signed manifest is for session ${JSON.stringify(manifest.session_id)}, not this folder's`);
  const count = manifest.event_count;
  if (!Number.isInteger(count) || count < 0) return refuse('the signed manifest has no usable event_count');

  const segments = names.filter((n) => /^\d{12}\.jsonl$/.test(n));
  const stray = names.filter((n) => n.endsWith('.jsonl') && !segments.includes(n));
  if (stray.length > 0) return refuse(`${stray[0]} is not a segment name`);
  const expected = Math.ceil(count / SEGMENT);
  for (let i = 0; i < segments.length; i++) {
    if (segments[i] !== segmentName(i * SEGMENT)) return refuse(`segment ${segments[i]} where ${segmentName(i * SEGMENT)} belongs (missing or re-ordered segments)`);
  }
  if (segments.length !== expected) return refuse(`${segments.length} segment(s) where the signed manifest's ${count} events need ${expected}`);

  const from = options.from ?? { seq: 0, head: null };
  if (from.seq > count) return refuse(`the signed manifest holds ${count} events, fewer than the ${from.seq} already pulled: the log was rewritten or is shorter`);
  const out: SpEvent[] = [];
  const kept: VerifiedSegment[] = [];
  let head = '';
  let seq = 0;
  for (const name of segments) {
    const start = Number(name.slice(0, 12));
    const last = start + SEGMENT >= count;
    // Segments wholly before the last known event are skipped; its own checksum pins them.
    if (start + SEGMENT < from.seq) {
      seq = start + SEGMENT;
      continue;
    }
    const bytes = files.segment(name);
    if (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) return refuse(`${name} ends in a torn line past the signed manifest`);
    const lines = bytes.length === 0 ? [] : bytes.toString('utf8', 0, bytes.length - 1).split('\n');
    const want = last ? count - start : SEGMENT;
    if (lines.length !== want) {
      return refuse(lines.length > want ? `${name} holds ${lines.length - want} event(s) past the signed manifest's ${count}` : `${name} holds ${lines.length} events where the signed manifest needs ${want} (missing or cut events: shorter than signed)`);
    }
    for (let i = 0; i < lines.length; i++) {
      seq = start + i;
      if (seq < from.seq - 1) continue;
      const event = parseJsonObject(lines[i]).value as SpEvent | undefined;
      if (seq === from.seq - 1) {
        if (!event || event.checksum !== from.head) return refuse(`seq ${seq} changed since it was pulled last: the log was rewritten`);
        head = event.checksum;
        continue;
      }
      if (!event) return refuse(`${name}: seq ${seq} is not JSON`);
      if (event.seq !== seq || event.session !== id) return refuse(`${name}: seq ${seq} is numbered ${String(event.seq)} of session ${JSON.stringify(event.session)}`);
      if (typeof event.checksum !== 'string' || computeChecksum(head, event) !== event.checksum) return refuse(`${name}: seq ${seq} does not link to the event before it (changed or inserted)`);
      head = event.checksum;
      if (options.collect) out.push(event);
    }
    seq = start + lines.length;
    kept.push(verifiedSegment(name, bytes, files));
  }
  if ((count === 0 ? null : head) !== manifest.head) return refuse(`the chain ends at ${head || 'nothing'}, not at the signed manifest's head ${String(manifest.head)}`);
  return { ok: true, manifest, manifestBytes, manifestHash: manifestHash(manifestBytes), keyId: signature.key_id!, events: out, segments: kept };
}

function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A segment whose bytes are let go once verified: only their hash is kept, to check a re-read against. */
function verifiedSegment(name: string, verified: Buffer, files: FolderFiles): VerifiedSegment {
  const sha256 = sha256Hex(verified);
  return {
    name,
    sha256,
    bytes: () => {
      const bytes = files.segment(name);
      return sha256Hex(bytes) === sha256 ? bytes : undefined;
    },
  };
}

/** The mirror folder of one origin machine's session in a store. */
export function mirrorDir(storeDir: string, machine: string, id: string): string {
  if (!MACHINE_PATTERN.test(machine) || !SESSION_ID_PATTERN.test(id)) throw new Error(`not a machine/session name: ${machine}/${id}`);
  return join(storeDir, ORIGINS_DIR, machine, 'sessions', id);
}

function writeDurably(path: string, bytes: Buffer): void {
  const temp = `${path}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/**
 * Writes what a verified read returned into the origin mirror: the segments it read (verbatim, a
 * later segment replacing its shorter earlier copy), then the manifest. Segments first, so a mirror
 * never has a manifest ahead of its events. Each segment is read again, one at a time; one that
 * changed since it was verified stops the write before the manifest (returned: why).
 */
export function writeMirror(storeDir: string, machine: string, id: string, read: Extract<FolderRead, { ok: true }>): string | undefined {
  const dir = mirrorDir(storeDir, machine, id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const s of read.segments) {
    const bytes = s.bytes();
    if (!bytes) return `${s.name} changed while it was read (after it was verified)`;
    writeDurably(join(dir, s.name), bytes);
  }
  replaceFileAtomic(join(dir, 'manifest.json'), read.manifestBytes.toString('utf8'), 0o600);
  return undefined;
}

/**
 * The events from seq `from` on of the segments a verified read just wrote into the mirror, read
 * back one segment at a time (a pull never holds a session's events at once). A segment whose bytes
 * are not the verified ones any more throws.
 */
export function* mirrorEventsFrom(storeDir: string, machine: string, id: string, segments: VerifiedSegment[], from: number): Generator<SpEvent> {
  const dir = mirrorDir(storeDir, machine, id);
  for (const s of segments) {
    const bytes = readFileSync(join(dir, s.name));
    if (sha256Hex(bytes) !== s.sha256) throw new Error(`${join(dir, s.name)} is not the segment that was verified`);
    const start = Number(s.name.slice(0, 12));
    const lines = bytes.length === 0 ? [] : bytes.toString('utf8', 0, bytes.length - 1).split('\n');
    for (let i = Math.max(0, from - start); i < lines.length; i += 1) yield JSON.parse(lines[i]) as SpEvent;
  }
}

/** The origin machines a store mirrors for session `id`. */
export function mirroredOrigins(storeDir: string, id: string): string[] {
  const root = join(storeDir, ORIGINS_DIR);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((m) => MACHINE_PATTERN.test(m) && existsSync(join(root, m, 'sessions', id, 'manifest.json')))
    .sort();
}

/**
 * Which key signed for which machine, from the signed manifests already mirrored. A key is bound to
 * the one machine id it first signed for and a machine id to its one key, so one trusted signer
 * cannot pass its events off as another machine's (or squat a machine id not seen yet). Only keys
 * still trusted bind: after `sp-sync trust rm` of a machine's old key, its new key is taken.
 */
export class SignerBindings {
  private readonly keysOf = new Map<string, Set<string>>();
  private readonly machinesOf = new Map<string, Set<string>>();

  constructor(storeDir: string, trusted: Map<string, Buffer>) {
    const root = join(storeDir, ORIGINS_DIR);
    if (!existsSync(root)) return;
    for (const machine of readdirSync(root)) {
      if (!MACHINE_PATTERN.test(machine) || !existsSync(join(root, machine, 'sessions'))) continue;
      for (const id of readdirSync(join(root, machine, 'sessions'))) {
        const path = join(root, machine, 'sessions', id, 'manifest.json');
        if (!existsSync(path)) continue;
        const keyId = (parseJsonObject(readFileSync(path, 'utf8')).value?.signature as { key_id?: unknown } | undefined)?.key_id;
        if (typeof keyId === 'string' && trusted.has(keyId)) this.bind(machine, keyId);
      }
    }
  }

  bind(machine: string, keyId: string): void {
    if (!this.keysOf.has(machine)) this.keysOf.set(machine, new Set());
    this.keysOf.get(machine)!.add(keyId);
    if (!this.machinesOf.has(keyId)) this.machinesOf.set(keyId, new Set());
    this.machinesOf.get(keyId)!.add(machine);
  }

  /** Why a folder of `machine` signed by `keyId` must not be taken, or undefined when the binding holds. */
  conflict(machine: string, keyId: string): string | undefined {
    const keys = [...(this.keysOf.get(machine) ?? [])].filter((k) => k !== keyId);
    if (keys.length > 0) return `signed by ${keyId}, but machine ${machine} signs with ${keys.sort().join(', ')}: a key signs only for its own machine (if ${machine} has a new key, sp-sync trust rm the old one)`;
    const machines = [...(this.machinesOf.get(keyId) ?? [])].filter((m) => m !== machine);
    if (machines.length > 0) return `signed by ${keyId}, the key of machine ${machines.sort().join(', ')}: a key signs only for its own machine`;
    return undefined;
  }
}

/** Every event of a mirrored origin session, in order (the mirror was verified when written). */
export function* mirroredEvents(storeDir: string, machine: string, id: string): Generator<SpEvent> {
  const dir = mirrorDir(storeDir, machine, id);
  for (const name of readdirSync(dir).filter((n) => /^\d{12}\.jsonl$/.test(n)).sort()) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (line === '') continue;
      yield JSON.parse(line) as SpEvent;
    }
  }
}

/** What a local session manifest records about one origin: whose events, and which local seqs they are. */
export interface OriginRecord {
  machine: string;
  key_id: string;
  /** SHA-256 of the origin's signed manifest file that covers these events (kept in the mirror). */
  manifest_sha256: string;
  /** Local seq ranges [first, last] (inclusive) holding this origin's events. */
  seqs: Array<[number, number]>;
}

/**
 * Adds seqs to inclusive ranges, merging neighbours. Merged as spans, not seq by seq: a pull adds a
 * batch at a time, and expanding every range it already holds made a pull quadratic in its events.
 */
export function addToRanges(ranges: Array<[number, number]>, seqs: Iterable<number>): Array<[number, number]> {
  const points = [...seqs];
  // Anything but whole numbers (a hand-edited manifest) takes the seq-by-seq way, whose answer is the definition.
  if (!ranges.every(([a, b]) => Number.isSafeInteger(a) && Number.isSafeInteger(b)) || !points.every((s) => Number.isSafeInteger(s))) return addByPoint(ranges, points);
  const spans: Array<[number, number]> = ranges.filter(([a, b]) => a <= b).map(([a, b]) => [a, b]);
  for (const s of points) spans.push([s, s]);
  return mergeSortedSpans(spans.sort((x, y) => x[0] - y[0] || x[1] - y[1]));
}

function addByPoint(ranges: Array<[number, number]>, seqs: number[]): Array<[number, number]> {
  const all = new Set<number>();
  for (const [a, b] of ranges) for (let s = a; s <= b; s++) all.add(s);
  for (const s of seqs) all.add(s);
  const sorted = [...all].sort((x, y) => x - y);
  const out: Array<[number, number]> = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && last[1] + 1 === s) last[1] = s;
    else out.push([s, s]);
  }
  return out;
}

export function inRanges(ranges: Array<[number, number]>, seq: number): boolean {
  return ranges.some(([a, b]) => seq >= a && seq <= b);
}
