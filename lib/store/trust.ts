// The signers this SP_HOME trusts: one PEM public key per signer in $SP_HOME/keys/trusted/<name>.pub,
// with <name>.json beside it ({name, key_id, added_at}) for `sp-sync trust list`. trustedKeys() in
// identity.ts reads the same .pub files, so a key copied in by hand is trusted too (its added date
// is then the file's mtime). Pull and clone adopt a remote machine's events only when its manifest
// is signed by one of these keys (or the own key).
import { createPublicKey } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createFileAtomic } from '../fs/atomic.js';
import { UserError } from '../cli/diagnostics.js';
import { parseJsonObject } from '../core/json.js';
import { keyIdOf, keysDir, loadKeys } from './identity.js';

export interface TrustedSigner {
  name: string;
  key_id: string;
  /** The raw 32-byte public key, base64 (what a signature block carries). */
  public_key: string;
  /** When it was trusted (seconds since the epoch). */
  added_at: number;
}

export const SIGNER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function trustedDir(home: string): string {
  return join(keysDir(home), 'trusted');
}

function rawFromKeyObject(pem: string | Buffer): Buffer {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`a ${String(key.asymmetricKeyType)} key, not ed25519`);
  return Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url');
}

function pemOf(raw: Buffer): string {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' }).export({ format: 'pem', type: 'spki' }) as string;
}

/**
 * The raw public key a `trust add` argument names: a PEM file (an id_ed25519.pub), or the base64
 * raw key that signature blocks and pull's first-contact message show.
 */
export function parsePublicKey(arg: string): Buffer {
  if (existsSync(arg)) {
    const st = statSync(arg);
    if (!st.isFile() || st.size > 64 << 10) throw new UserError('not a public key file', arg);
    try {
      return rawFromKeyObject(readFileSync(arg));
    } catch (err) {
      throw new UserError(`not an Ed25519 public key (${(err as Error).message.split('\n')[0]})`, arg);
    }
  }
  if (/^[A-Za-z0-9+/]{43}=$/.test(arg)) {
    const raw = Buffer.from(arg, 'base64');
    if (raw.length === 32) return raw;
  }
  throw new UserError(`${JSON.stringify(arg.slice(0, 80))} is neither a public key file nor a base64 Ed25519 public key`);
}

/** Every trusted signer (not the own key), by name. */
export function listTrusted(home: string): TrustedSigner[] {
  const dir = trustedDir(home);
  if (!existsSync(dir)) return [];
  const out: TrustedSigner[] = [];
  for (const file of readdirSync(dir).sort()) {
    const m = /^(.+)\.(pub|pem)$/.exec(file);
    if (!m) continue;
    const path = join(dir, file);
    if (!lstatSync(path).isFile()) continue;
    let raw: Buffer;
    try {
      raw = rawFromKeyObject(readFileSync(path));
    } catch {
      continue; // not a key: identity.ts ignores it as well
    }
    const meta = existsSync(join(dir, `${m[1]}.json`)) ? parseJsonObject(readFileSync(join(dir, `${m[1]}.json`), 'utf8')).value : undefined;
    const added = typeof meta?.added_at === 'number' ? meta.added_at : statSync(path).mtimeMs / 1000;
    out.push({ name: m[1], key_id: keyIdOf(raw), public_key: raw.toString('base64'), added_at: added });
  }
  return out;
}

/** Trusts a public key under a name; refuses a taken name, and a key already trusted (under its name). */
export function addTrusted(home: string, raw: Buffer, name: string): TrustedSigner {
  if (!SIGNER_NAME.test(name)) throw new UserError(`not a signer name: ${JSON.stringify(name)} (letters, digits, _ . -)`);
  const keyId = keyIdOf(raw);
  const own = loadKeys(home);
  if (own && own.keyId === keyId) throw new UserError(`${keyId} is this SP_HOME's own key (always trusted)`);
  const existing = listTrusted(home);
  const same = existing.find((s) => s.key_id === keyId);
  if (same) throw new UserError(`${keyId} is trusted already as ${same.name}`);
  const dir = trustedDir(home);
  if (existing.some((s) => s.name === name) || existsSync(join(dir, `${name}.pub`)) || existsSync(join(dir, `${name}.pem`))) {
    throw new UserError(`a trusted signer named ${name} exists already`, dir);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const signer: TrustedSigner = { name, key_id: keyId, public_key: raw.toString('base64'), added_at: Math.floor(Date.now() / 1000) };
  createFileAtomic(join(dir, `${name}.json`), [JSON.stringify({ name, key_id: keyId, added_at: signer.added_at }) + '\n'], 0o600);
  createFileAtomic(join(dir, `${name}.pub`), [pemOf(raw)], 0o600);
  return signer;
}

/** Stops trusting a signer given by name or key id; returns what was removed. */
export function removeTrusted(home: string, ref: string): TrustedSigner {
  const found = listTrusted(home).find((s) => s.name === ref || s.key_id === ref);
  if (!found) throw new UserError(`no trusted signer named or with key id ${JSON.stringify(ref)} (see sp-sync trust list)`);
  const dir = trustedDir(home);
  for (const ext of ['pub', 'pem', 'json']) {
    const path = join(dir, `${found.name}.${ext}`);
    if (existsSync(path)) unlinkSync(path);
  }
  return found;
}

/** A display name for every key id this SP_HOME trusts: trusted names, and `own` for the own key. */
export function signerNames(home: string): Map<string, string> {
  const names = new Map<string, string>();
  const own = loadKeys(home);
  if (own) names.set(own.keyId, 'own');
  for (const s of listTrusted(home)) names.set(s.key_id, s.name);
  return names;
}
