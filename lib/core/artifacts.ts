// Content-addressed artifacts: large blobs (images, logs) stored once under their SHA-256 and
// referenced from events as `sha256:<hex>`.
import { createHash } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomic } from '../fs/atomic.js';
import { makePrivateDir, PRIVATE_FILE } from '../fs/private.js';

export function artifactRef(bytes: Buffer): string {
  return 'sha256:' + createHash('sha256').update(bytes).digest('hex');
}

/** Stores `bytes` in `dir` (idempotent) and returns its reference. */
export function storeArtifact(dir: string, bytes: Buffer): string {
  const ref = artifactRef(bytes);
  const path = join(dir, ref.slice('sha256:'.length));
  if (!existsSync(path)) {
    try {
      createFileAtomic(path, [bytes], PRIVATE_FILE);
    } catch (err) {
      if (!existsSync(path)) throw err; // lost a race to an identical writer: fine
    }
  }
  return ref;
}

const ARTIFACT_REF = /^sha256:[0-9a-f]{64}$/;

/** A ref for a note or a diagnostic: as is when valid, else only said to be invalid (its text is the attacker's). */
export function artifactNote(ref: string): string {
  return ARTIFACT_REF.test(ref) ? ref : 'invalid reference';
}

/** A blob read for a writer, or why it was refused (the writer then writes a note instead of the bytes). */
export type ArtifactRead = { ok: true; bytes: Buffer } | { ok: false; reason: string };

/**
 * The bytes of the blob `ref` names, from `<dir>/<hex>` only, for a writer to embed. The ref comes
 * from the input and is refused unless it is exactly `sha256:<64 lowercase hex>` (no path in it);
 * the blob must be a regular file (opened without following a symlink) whose sha256 is its name.
 */
export function readArtifactForWriter(dir: string, ref: string): ArtifactRead {
  if (!ARTIFACT_REF.test(ref)) return { ok: false, reason: 'not a valid artifact reference (sha256:<64 lowercase hex>)' };
  const hex = ref.slice('sha256:'.length);
  const path = join(dir, hex);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, reason: `not found in ${dir}` };
    if (code === 'ELOOP') return { ok: false, reason: 'the blob is a symlink: not read' };
    return { ok: false, reason: `cannot read the blob: ${code ?? (err as Error).message}` };
  }
  try {
    if (!fstatSync(fd).isFile()) return { ok: false, reason: 'the blob is not a regular file: not read' };
    const bytes = readFileSync(fd);
    if (artifactRef(bytes) !== ref) return { ok: false, reason: 'the blob\'s sha256 does not match its reference: not used' };
    return { ok: true, bytes };
  } catch (err) {
    return { ok: false, reason: `cannot read the blob: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  } finally {
    closeSync(fd);
  }
}
const BLOB_NAME = /^[0-9a-f]{64}$/;

/**
 * The artifact refs an event holds: the string values of `artifact` keys and the strings of
 * `artifacts` arrays, at any depth. (Event checksums are `sha256:` strings too, hence by key.)
 */
export function artifactRefsIn(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const v of value) artifactRefsIn(v, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key === 'artifact' && typeof v === 'string' && ARTIFACT_REF.test(v)) into.add(v);
      else if (key === 'artifacts' && Array.isArray(v)) {
        for (const x of v) if (typeof x === 'string' && ARTIFACT_REF.test(x)) into.add(x);
      }
      if (typeof v === 'object') artifactRefsIn(v, into);
    }
  }
  return into;
}

/** The blob names (64 hex) in an artifacts directory; none when it does not exist. */
export function listArtifacts(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((n) => BLOB_NAME.test(n)).sort();
}

/** Whether the bytes at `path` hash to `hex`. */
export function blobMatches(path: string, hex: string): boolean {
  return artifactRef(readFileSync(path)) === 'sha256:' + hex;
}

/**
 * Copies blob `hex` from directory `from` into `to` (idempotent, atomic) after checking that its
 * bytes hash to its name. 'stored' or 'present' (nothing to do), 'missing' or 'mismatch' (not copied).
 */
export function copyArtifact(from: string, to: string, hex: string): 'stored' | 'present' | 'missing' | 'mismatch' {
  if (existsSync(join(to, hex))) return 'present';
  const source = join(from, hex);
  if (!existsSync(source)) return 'missing';
  const bytes = readFileSync(source);
  if (artifactRef(bytes) !== 'sha256:' + hex) return 'mismatch';
  makePrivateDir(to);
  storeArtifact(to, bytes);
  return 'stored';
}
