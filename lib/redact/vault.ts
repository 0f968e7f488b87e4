// The owner's vault: placeholder → secret, encrypted at rest with age to an X25519 identity kept in
// $SP_HOME/keys (an age-keygen compatible file, so `age -d -i <identity> VAULT` opens it too).
// Entries accumulate across runs: redacting several sessions into one vault keeps them all.
import { existsSync, readFileSync, renameSync, writeFileSync, unlinkSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../cli/diagnostics.js';
import { DEFAULT_VAULT_IDENTITY, readOrCreate } from './keys.js';
import { detach } from './values.js';
import type { VaultEntry } from './walker.js';

const FORMAT = 'sp-redact-vault/1';

interface VaultFile {
  format: string;
  entries: Record<string, VaultEntry>;
}

type Age = typeof import('age-encryption');
let agePromise: Promise<Age> | undefined;
// Loaded only when a vault is used: redaction alone never pays for it.
const age = () => (agePromise ??= import('age-encryption'));

/** The secret line of an age identity file (comments and blank lines around it are allowed). */
function identityLine(text: string, path: string): string {
  const line = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l.startsWith('AGE-SECRET-KEY-'));
  if (!line) throw new UserError('not an age identity file (no AGE-SECRET-KEY- line)', path);
  return line;
}

/**
 * The owner's age identity. It is created only for a new vault: an existing vault without its
 * identity cannot be opened by a fresh one, and saying so beats a failed decryption.
 */
export async function loadIdentity(path = DEFAULT_VAULT_IDENTITY(), create = true): Promise<string> {
  if (!create && !existsSync(path)) throw new UserError('no vault identity here: the vault can only be opened with the identity it was made for (--identity FILE)', path);
  const text = await readOrCreate(path, async () => {
    const { generateX25519Identity, identityToRecipient } = await age();
    const identity = await generateX25519Identity();
    return `# created: ${new Date().toISOString()} by sp-redact (vault identity)\n# public key: ${await identityToRecipient(identity)}\n${identity}\n`;
  });
  return identityLine(text, path);
}

export class Vault {
  readonly entries = new Map<string, VaultEntry>();
  /** Placeholders that two different secrets mapped to (8 hex digits can collide). */
  readonly collisions: string[] = [];
  private added = 0;

  private constructor(
    readonly path: string,
    private readonly identity: string,
  ) {}

  /** Opens `path` (empty when it does not exist yet) with the owner's identity. */
  static async open(path: string, identityPath?: string): Promise<Vault> {
    const identity = await loadIdentity(identityPath, !existsSync(path));
    const vault = new Vault(path, identity);
    for (const [placeholder, entry] of await vault.read(identityPath)) vault.entries.set(placeholder, entry);
    return vault;
  }

  /** The entries stored in the file now (none when it does not exist). */
  private async read(identityPath?: string): Promise<Array<[string, VaultEntry]>> {
    if (!existsSync(this.path)) return [];
    let data: Uint8Array;
    try {
      data = readFileSync(this.path);
    } catch (err) {
      throw new UserError(`cannot read vault: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, this.path);
    }
    const { Decrypter } = await age();
    const d = new Decrypter();
    d.addIdentity(this.identity);
    let text: string;
    try {
      text = await d.decrypt(data, 'text');
    } catch (err) {
      throw new UserError(`cannot decrypt the vault with ${identityPath ?? DEFAULT_VAULT_IDENTITY()}: ${(err as Error).message}`, this.path);
    }
    let parsed: VaultFile;
    try {
      parsed = JSON.parse(text) as VaultFile;
    } catch {
      throw new UserError('the vault decrypts, but not to a vault', this.path);
    }
    if (parsed.format !== FORMAT || typeof parsed.entries !== 'object' || parsed.entries === null) {
      throw new UserError(`unknown vault format ${JSON.stringify(parsed.format)}`, this.path);
    }
    return Object.entries(parsed.entries);
  }

  get size(): number {
    return this.entries.size;
  }

  get changed(): boolean {
    return this.added > 0;
  }

  /**
   * Records a secret under its placeholder. `spelling` is how it was written at `depth` JSON-string
   * levels down; kept only when it differs from the standard escaping, so restore writes it back.
   */
  add(placeholder: string, secret: string, depth: number, spelling: string, standard: string): void {
    let entry = this.entries.get(placeholder);
    placeholder = detach(placeholder);
    if (!entry) {
      entry = { secret: detach(secret) };
      this.entries.set(placeholder, entry);
      this.added++;
    } else if (entry.secret !== secret) {
      if (!this.collisions.includes(placeholder)) this.collisions.push(placeholder);
      return;
    }
    if (spelling !== standard && entry.spellings?.[String(depth)] === undefined) {
      entry.spellings = { ...entry.spellings, [String(depth)]: detach(spelling) };
      this.added++;
    }
  }

  lookup = (placeholder: string): VaultEntry | undefined => this.entries.get(placeholder);

  /**
   * Encrypts and replaces the vault file atomically (temp file, fsync, rename). Entries another run
   * stored since this one opened the file are merged in first.
   */
  async save(): Promise<void> {
    for (const [placeholder, entry] of await this.read()) if (!this.entries.has(placeholder)) this.entries.set(placeholder, entry);
    const { Encrypter, identityToRecipient } = await age();
    const e = new Encrypter();
    e.addRecipient(await identityToRecipient(this.identity));
    const body: VaultFile = { format: FORMAT, entries: Object.fromEntries(this.entries) };
    const data = await e.encrypt(JSON.stringify(body));
    const temp = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      writeFileSync(temp, data, { mode: 0o600, flag: 'wx' });
      const fd = openSync(temp, 'r');
      fsyncSync(fd);
      closeSync(fd);
      renameSync(temp, this.path);
    } catch (err) {
      try {
        unlinkSync(temp);
      } catch {
        // already gone
      }
      throw new UserError(`cannot write vault: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, this.path);
    }
  }
}
