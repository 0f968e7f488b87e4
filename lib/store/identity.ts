// Identity (seed §9.2): one Ed25519 key pair per SP_HOME in $SP_HOME/keys. Manifests and handoff
// receipts carry a signature over their canonical JSON (RFC 8785) without the `signature` field.
// The signature names the key id and carries the public key, so a verifier can tell a bad
// signature from a good one by a signer it does not trust; trust is the set of public keys in
// $SP_HOME/keys/trusted/ plus the own key.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalize } from '../core/jcs.js';
import { createFileAtomic } from '../fs/atomic.js';
import { makePrivateDir, PRIVATE_FILE } from '../fs/private.js';
import { UserError } from '../cli/diagnostics.js';
import { spHome } from './paths.js';

export interface Signature {
  alg: 'ed25519';
  key_id: string;
  /** The raw 32-byte public key, base64. */
  public_key: string;
  sig: string;
}

export interface KeyPair {
  keyId: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicRaw: Buffer;
}

export const PRIVATE_KEY_FILE = 'id_ed25519';
export const PUBLIC_KEY_FILE = 'id_ed25519.pub';

export function keysDir(home = spHome()): string {
  return join(home, 'keys');
}

function rawPublic(key: KeyObject): Buffer {
  return Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url');
}

/** The key id: a fingerprint of the raw public key. */
export function keyIdOf(publicRaw: Buffer): string {
  return 'ed25519:' + createHash('sha256').update(publicRaw).digest('hex').slice(0, 32);
}

function publicFromRaw(raw: Buffer): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

/** Creates the key pair; a UserError if one exists (keys are never overwritten). */
export function generateKeys(home = spHome()): KeyPair {
  const dir = keysDir(home);
  makePrivateDir(join(dir, 'trusted'));
  if (existsSync(join(dir, PRIVATE_KEY_FILE))) throw new UserError('a key pair exists already; not replacing it', join(dir, PRIVATE_KEY_FILE));
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  createFileAtomic(join(dir, PRIVATE_KEY_FILE), [privateKey.export({ format: 'pem', type: 'pkcs8' }) as string], PRIVATE_FILE);
  createFileAtomic(join(dir, PUBLIC_KEY_FILE), [publicKey.export({ format: 'pem', type: 'spki' }) as string], PRIVATE_FILE);
  const publicRaw = rawPublic(publicKey);
  return { keyId: keyIdOf(publicRaw), privateKey, publicKey, publicRaw };
}

/** The own key pair, or undefined when there is none yet. */
export function loadKeys(home = spHome()): KeyPair | undefined {
  const path = join(keysDir(home), PRIVATE_KEY_FILE);
  if (!existsSync(path)) return undefined;
  const privateKey = createPrivateKey(readFileSync(path));
  const publicKey = createPublicKey(privateKey);
  const publicRaw = rawPublic(publicKey);
  return { keyId: keyIdOf(publicRaw), privateKey, publicKey, publicRaw };
}

/** The own key pair, created on first use (every ingest signs). */
export function ensureKeys(home = spHome()): KeyPair {
  const existing = loadKeys(home);
  if (existing) return existing;
  try {
    return generateKeys(home);
  } catch (err) {
    const raced = loadKeys(home);
    if (raced) return raced;
    throw err;
  }
}

function unsigned(doc: Record<string, unknown>): string {
  const { signature: _omit, ...rest } = doc;
  return canonicalize(rest);
}

export function signDocument<T extends Record<string, unknown>>(doc: T, keys: KeyPair): T & { signature: Signature } {
  const { signature: _omit, ...rest } = doc;
  const sig = sign(null, Buffer.from(canonicalize(rest)), keys.privateKey).toString('base64');
  return { ...(rest as T), signature: { alg: 'ed25519', key_id: keys.keyId, public_key: keys.publicRaw.toString('base64'), sig } };
}

export type SignatureStatus = 'trusted' | 'unknown-signer' | 'bad-signature' | 'unsigned';

export interface SignatureCheck {
  status: SignatureStatus;
  key_id?: string;
  message: string;
}

/** The public keys this SP_HOME trusts, by key id: keys/trusted/*.pub|*.pem and the own key. */
export function trustedKeys(home = spHome()): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const own = join(keysDir(home), PUBLIC_KEY_FILE);
  const files: string[] = existsSync(own) ? [own] : [];
  const trustedDir = join(keysDir(home), 'trusted');
  if (existsSync(trustedDir)) {
    for (const name of readdirSync(trustedDir).sort()) if (/\.(pub|pem)$/.test(name)) files.push(join(trustedDir, name));
  }
  for (const file of files) {
    try {
      const raw = rawPublic(createPublicKey(readFileSync(file)));
      out.set(keyIdOf(raw), raw);
    } catch {
      // not a public key: ignored, verification then reports the signer as unknown
    }
  }
  return out;
}

/** Checks a signed document's signature and whether its signer is trusted. */
export function checkSignature(doc: Record<string, unknown>, trusted: Map<string, Buffer>): SignatureCheck {
  const s = doc.signature as Partial<Signature> | undefined;
  if (!s || typeof s !== 'object') return { status: 'unsigned', message: 'not signed' };
  if (s.alg !== 'ed25519' || typeof s.sig !== 'string' || typeof s.key_id !== 'string' || typeof s.public_key !== 'string') {
    return { status: 'bad-signature', key_id: s.key_id, message: 'malformed signature block' };
  }
  const raw = Buffer.from(s.public_key, 'base64');
  if (raw.length !== 32 || keyIdOf(raw) !== s.key_id) return { status: 'bad-signature', key_id: s.key_id, message: `the public key does not match key id ${s.key_id}` };
  let valid = false;
  try {
    valid = verify(null, Buffer.from(unsigned(doc)), publicFromRaw(raw), Buffer.from(s.sig, 'base64'));
  } catch {
    valid = false;
  }
  if (!valid) return { status: 'bad-signature', key_id: s.key_id, message: `bad signature by ${s.key_id}: the document was changed after it was signed` };
  if (!trusted.has(s.key_id)) return { status: 'unknown-signer', key_id: s.key_id, message: `valid signature by an unknown signer ${s.key_id} (not in keys/trusted/)` };
  return { status: 'trusted', key_id: s.key_id, message: `signed by ${s.key_id}` };
}
