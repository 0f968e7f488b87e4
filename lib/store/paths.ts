// Where sp keeps its state: $SP_HOME (default ~/.sp) holds the store, the keys and the machine id.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createFileAtomic } from '../fs/atomic.js';
import { makePrivateDir, PRIVATE_FILE } from '../fs/private.js';

export function spHome(): string {
  return resolve(process.env.SP_HOME || join(homedir(), '.sp'));
}

/** The store directory: `--store DIR` when given, else $SP_HOME/store. */
export function resolveStoreDir(option?: string): string {
  return resolve(option ?? join(spHome(), 'store'));
}

/**
 * This machine's id, generated once into $SP_HOME/machine-id. Remotes keep one folder per machine
 * id, so each machine only ever appends to its own files there.
 */
export function machineId(home = spHome()): string {
  const path = join(home, 'machine-id');
  const read = () => readFileSync(path, 'utf8').trim();
  try {
    return read();
  } catch {
    makePrivateDir(home);
    try {
      createFileAtomic(path, [`m_${randomBytes(8).toString('hex')}\n`], PRIVATE_FILE);
    } catch {
      // another process created it first: use theirs
    }
    return read();
  }
}

/** Session ids become directory names: no separators, no dot names. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
