// Content-addressed artifacts: large blobs (images, logs) stored once under their SHA-256 and
// referenced from events as `sha256:<hex>`.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomic } from './atomic.js';

export function artifactRef(bytes: Buffer): string {
  return 'sha256:' + createHash('sha256').update(bytes).digest('hex');
}

/** Stores `bytes` in `dir` (idempotent) and returns its reference. */
export function storeArtifact(dir: string, bytes: Buffer): string {
  const ref = artifactRef(bytes);
  const path = join(dir, ref.slice('sha256:'.length));
  if (!existsSync(path)) {
    try {
      createFileAtomic(path, [bytes], 0o644);
    } catch (err) {
      if (!existsSync(path)) throw err; // lost a race to an identical writer: fine
    }
  }
  return ref;
}

export function artifactPath(dir: string, ref: string): string {
  return join(dir, ref.replace(/^sha256:/, ''));
}
