// The owner's keys under $SP_HOME/keys (default ~/.sp/keys): the HMAC key that makes placeholders
// consistent across runs and sessions on one machine, and the age identity the vault is encrypted
// to. Both are created on first use, readable by the owner only.
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createFileAtomic } from '../fs/atomic.js';
import { UserError } from '../cli/diagnostics.js';
import { detach } from './values.js';

export function spHome(): string {
  const fromEnv = process.env.SP_HOME;
  return fromEnv && fromEnv.trim() !== '' ? resolve(fromEnv) : join(homedir(), '.sp');
}

export function keysDir(): string {
  return join(spHome(), 'keys');
}

export const DEFAULT_REDACT_KEY = () => join(keysDir(), 'redact.key');
export const DEFAULT_VAULT_IDENTITY = () => join(keysDir(), 'redact-vault.key');

/** Reads `path`, creating it first (0600, in a 0700 folder) with `make()` when it does not exist. */
export async function readOrCreate(path: string, make: () => string | Promise<string>): Promise<string> {
  if (!existsSync(path)) {
    const dir = resolve(path, '..');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      createFileAtomic(path, [await make()], 0o600);
    } catch (err) {
      // Another process created it first: use theirs, so both agree on placeholders.
      if (!existsSync(path)) throw err;
    }
    chmodSync(path, 0o600);
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read key: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
  }
}

/** The HMAC key: 32 random bytes kept as hex. A `--key` file may hold hex or any other bytes (≥ 16). */
export async function loadRedactKey(path?: string): Promise<Buffer> {
  if (path) {
    let raw: Buffer;
    try {
      raw = readFileSync(path);
    } catch (err) {
      throw new UserError(`cannot read key: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
    }
    const text = raw.toString('utf8').trim();
    const key = /^[0-9a-f]{32,}$/i.test(text) && text.length % 2 === 0 ? Buffer.from(text, 'hex') : raw;
    if (key.length < 16) throw new UserError('a redaction key needs at least 16 bytes', path);
    return key;
  }
  const text = await readOrCreate(DEFAULT_REDACT_KEY(), () => randomBytes(32).toString('hex') + '\n');
  return Buffer.from(text.trim(), 'hex');
}

export const PLACEHOLDER = /\[REDACTED:([a-z0-9][a-z0-9-]{0,63}):([0-9a-f]{8})\]/g;

/**
 * `[REDACTED:<rule>:<8 hex of HMAC-SHA256(key, secret)>]`: the same secret gets the same
 * placeholder on this machine, and without the key the placeholder tells nothing about it.
 */
export class Placeholders {
  private readonly cache = new Map<string, string>();

  constructor(private readonly key: Buffer) {}

  tag(secret: string): string {
    let tag = this.cache.get(secret);
    if (tag === undefined) {
      tag = createHmac('sha256', this.key).update(secret, 'utf8').digest('hex').slice(0, 8);
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(detach(secret), tag);
    }
    return tag;
  }

  for(rule: string, secret: string): string {
    return `[REDACTED:${rule}:${this.tag(secret)}]`;
  }
}
