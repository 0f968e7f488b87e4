// Encrypted remotes: how a remote's files are read and written when the remote is configured with
// age recipients (`sp-sync remote add NAME URL --encrypt-to FILE`). remote.ts keeps the control flow
// (what to push, cursors, chain checks); it goes through a RemoteTree for every remote file, and this
// module is the tree that seals each file with age (binary format, not armored) to every recipient.
//
// Layout on an encrypted remote (names stay plaintext so machines keep writing disjoint paths):
//   machines/<machine>/sessions/<session>/<first seq, 12 digits>.jsonl.age   an immutable chunk
//   machines/<machine>/sessions/<session>/manifest.json.age                  the signed manifest
//   artifacts/<sha256 hex of the ciphertext>.age                             a blob
// age ciphertext cannot be appended to, so each push writes new chunk files (at most 512 events,
// never across a 512 boundary), named by the seq of their first event; a chunk is never rewritten,
// so git history only grows and a changed chunk is a rewrite. Decrypted, the chunks of a session
// concatenate to exactly the segment lines a plain remote holds, and the manifest decrypts to the
// same JSON, so pull verifies them with the same signed-folder rules as a plain remote (a trusted
// signer, the chain ending at the signed head and count): readFolder decrypts the chunks of each
// 512-event segment, checks they are contiguous, and hands the joined segments and the decrypted
// manifest to lib/store/origins.ts verifySignedFolder. What is adopted is mirrored as that plaintext.
// Every remote file is lstat-checked before it is read: a symlink or special file is refused.
//
// Artifacts are named by the hash of their ciphertext, not of the blob: the blob's own hash would
// tell anyone who can list the remote that it holds a file they know. age encryption is randomized,
// so two machines pushing the same blob write two files (space, not secrecy). Which blob a
// ciphertext holds is learned by decrypting it once; the answer is cached per remote in
// $store/remotes/<name>.sealed.json (0600). The sealed blob starts with a line naming the
// plaintext's sha256, checked after decryption.
//
// This machine's age identity is $SP_HOME/keys/age.key (0600, age-keygen format), made on first
// need; `sp-sync keygen --age` prints its public recipient for the team's recipients file.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createFileAtomic, replaceFileAtomic } from '../fs/atomic.js';
import { UserError, warn } from '../cli/diagnostics.js';
import { listArtifacts, storeArtifact } from '../core/artifacts.js';
import { parseJsonObject, type Json } from '../core/json.js';
import { makePrivateDir, PRIVATE_FILE } from '../fs/private.js';
import { readOrCreate } from '../redact/keys.js';
import type { Store } from '../store/index.js';
import { nodeKind, notPlainDir, notPlainFile, plainFolderEntries, SEGMENT, segmentName, verifySignedFolder, type FolderRead, type ReadFolderOptions } from '../store/origins.js';
import type { Refusal } from './remote.js';

type Age = typeof import('age-encryption');
let agePromise: Promise<Age> | undefined;
// Loaded only for an encrypted remote: plain sync never pays for it.
const age = () => (agePromise ??= import('age-encryption'));

/** A segment file of a session on a remote: its first seq, and the first seq of the file after it. */
export interface TreeSegment {
  start: number;
  path: string;
  next?: number;
}

/** Every access remote.ts makes to the files of a remote tree (a dir remote or a git working tree). */
export interface RemoteTree {
  /** This machine's own segment files of a session folder (push). */
  segments(dir: string): TreeSegment[];
  /** The complete lines of this machine's last segment (a plain tree cuts off a torn last line). */
  ownLines(segment: TreeSegment): Promise<string[]>;
  /** Writes events `start`… (text: lines, each ending in \n, never across a 512 boundary) to the session folder `dir`. */
  writeChunk(dir: string, start: number, text: string): Promise<void>;
  writeManifest(dir: string, text: string): Promise<void>;
  /** A session folder's manifest as JSON, unverified (undefined: none); push and clone --trust-all look at it. */
  readManifest(dir: string): Promise<Json | undefined>;
  /** Another machine's session folder, verified as a signed folder (lib/store/origins.ts). */
  readFolder(dir: string, machine: string, id: string, trusted: Map<string, Buffer>, options: ReadFolderOptions): Promise<FolderRead>;
  /** Why a machine folder cannot be taken (or pushed to) as this tree reads it; undefined: it can. */
  machineProblem(machineDir: string): Promise<string | undefined>;
  pushArtifacts(store: Store, root: string): Promise<number>;
  /** Copies the blobs the store lacks; what it does not take goes to `refused`. */
  pullArtifacts(root: string, store: Store, refused: Refusal[]): Promise<number>;
}

// ---- identity and recipients --------------------------------------------------------------------

export const NOT_A_RECIPIENT = "encrypted to recipients this machine's age key is not among";
const AGE_KEY_FILE = 'age.key';

export function ageIdentityPath(home: string): string {
  return join(home, 'keys', AGE_KEY_FILE);
}

/** This machine's age identity (AGE-SECRET-KEY-1…), created 0600 on first need. */
export async function loadAgeIdentity(home: string): Promise<string> {
  const path = ageIdentityPath(home);
  const text = await readOrCreate(path, async () => {
    const { generateX25519Identity, identityToRecipient } = await age();
    const identity = await generateX25519Identity();
    return `# created: ${new Date().toISOString()} by sp-sync (age identity for encrypted remotes)\n# public key: ${await identityToRecipient(identity)}\n${identity}\n`;
  });
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.startsWith('AGE-SECRET-KEY-'));
  if (!line) throw new UserError('not an age identity file (no AGE-SECRET-KEY- line)', path);
  try {
    await (await age()).identityToRecipient(line);
  } catch {
    throw new UserError('not a valid age identity (its AGE-SECRET-KEY- line does not decode)', path);
  }
  return line;
}

/** This machine's public age recipient (age1…): the line a teammate adds to the recipients file. */
export async function ageRecipient(home: string): Promise<string> {
  const { identityToRecipient } = await age();
  return identityToRecipient(await loadAgeIdentity(home));
}

/**
 * The recipients of an age recipients file: one `age1…` public key per line, `#` comments and blank
 * lines allowed. Each key is checked by age itself; a bad line is named (file:line).
 */
export async function readRecipientsFile(path: string): Promise<string[]> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read the recipients file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, path);
  }
  const { Encrypter } = await age();
  const recipients: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    let valid = /^age1[0-9a-z]{20,}$/.test(line);
    if (valid) {
      try {
        new Encrypter().addRecipient(line);
      } catch {
        valid = false;
      }
    }
    if (!valid) throw new UserError(`not an age recipient (one age1… public key per line): ${JSON.stringify(line.slice(0, 80))}`, `${path}:${i + 1}`);
    if (!recipients.includes(line)) recipients.push(line);
  }
  if (recipients.length === 0) throw new UserError('no age recipient in the file (one age1… public key per line)', path);
  return recipients;
}

// ---- the sealed tree ------------------------------------------------------------------------------

const CHUNK = /^(\d{12})\.jsonl\.age$/;
const SEALED_MANIFEST = 'manifest.json.age';
const SEALED_BLOB = /^([0-9a-f]{64})\.age$/;
const PLAIN_SEGMENT = /^\d{12}\.jsonl$/;
const BLOB_HEADER = /^sp-sealed-artifact sha256:([0-9a-f]{64})\n/;

class NotRecipient extends Error {}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function chunkName(start: number): string {
  return `${String(start).padStart(12, '0')}.jsonl.age`;
}

interface ArtifactCache {
  /** Ciphertext name (hex) → the sha256 hex of the blob it holds. */
  artifacts: Record<string, string>;
}

export interface SealedOptions {
  recipients: readonly string[];
  /** push: this machine must be able to read back its own files. */
  forPush: boolean;
}

/** The tree of an encrypted remote, for one push or pull by `store`. */
export async function openSealedTree(store: Store, remote: { name: string }, options: SealedOptions): Promise<RemoteTree> {
  const lib = await age();
  const identity = await loadAgeIdentity(store.home);
  const own = await lib.identityToRecipient(identity);
  if (options.forPush && !options.recipients.includes(own)) {
    throw new UserError(
      `this machine's age key (${own}) is not among the recipients of remote ${remote.name}, so it could not read back what it pushes; ` +
        'add it to the recipients file (`sp-sync keygen --age` prints it) and add the remote again',
      ageIdentityPath(store.home),
    );
  }
  const encrypter = new lib.Encrypter();
  for (const r of options.recipients) {
    try {
      if (typeof r !== 'string') throw new Error('not a string');
      encrypter.addRecipient(r);
    } catch {
      throw new UserError(`remote ${remote.name}: not an age recipient in its configuration: ${JSON.stringify(r).slice(0, 80)}; add the remote again`, join(store.dir, 'remotes.json'));
    }
  }
  const decrypter = new lib.Decrypter();
  decrypter.addIdentity(identity);
  return new SealedTree(store, remote.name, encrypter, decrypter);
}

/** A sealed file's size limit before it is read: a manifest is a few KB, a chunk at most 512 events. */
const MAX_SEALED_MANIFEST = 1 << 20;

class SealedTree implements RemoteTree {

  constructor(
    private readonly store: Store,
    private readonly remoteName: string,
    private readonly encrypter: InstanceType<Age['Encrypter']>,
    private readonly decrypter: InstanceType<Age['Decrypter']>,
  ) {}

  /** Decrypts a remote file; NotRecipient when it is not for this machine, a UserError when damaged or not a plain file. */
  private async open(path: string, bytes?: Uint8Array): Promise<Uint8Array> {
    if (bytes === undefined) {
      const irregular = notPlainFile(path, false);
      if (irregular) throw new UserError(`${irregular}; refusing it`, path);
      bytes = readFileSync(path);
    }
    try {
      return await this.decrypter.decrypt(bytes);
    } catch (err) {
      const message = (err as Error).message;
      if (/no identity matched/.test(message)) throw new NotRecipient(message);
      throw new UserError(`does not decrypt (damaged or tampered: ${message}); refusing it`, path);
    }
  }

  segments(dir: string): TreeSegment[] {
    if (nodeKind(dir) !== 'dir') return [];
    const found = readdirSync(dir)
      .map((n) => CHUNK.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ start: Number(m[1]), path: join(dir, m[0]) }))
      .sort((a, b) => a.start - b.start);
    return found.map((s, i) => ({ ...s, next: found[i + 1]?.start }));
  }

  /** A chunk's lines: it is written whole, so anything but complete lines means it was changed. */
  private async chunkLines(path: string): Promise<string[]> {
    let plain: Uint8Array;
    try {
      plain = await this.open(path);
    } catch (err) {
      if (err instanceof NotRecipient) throw new UserError(`${NOT_A_RECIPIENT}; refusing it`, path);
      throw err;
    }
    const text = Buffer.from(plain).toString('utf8');
    if (text === '' || !text.endsWith('\n')) throw new UserError('a sealed chunk that does not hold complete lines; refusing it', path);
    return text.slice(0, -1).split('\n');
  }

  ownLines(segment: TreeSegment): Promise<string[]> {
    return this.chunkLines(segment.path);
  }

  async readFolder(dir: string, machine: string, id: string, trusted: Map<string, Buffer>, options: ReadFolderOptions): Promise<FolderRead> {
    const refuse = (reason: string): FolderRead => ({ ok: false, reason });
    const listed = plainFolderEntries(dir);
    if ('reason' in listed) return refuse(listed.reason);
    const names = listed.names;
    const plain = names.find((n) => PLAIN_SEGMENT.test(n) || n === 'manifest.json' || (n.endsWith('.jsonl') && !CHUNK.test(n)));
    if (plain) return refuse(`${plain}: unencrypted on a remote configured for encryption`);
    if (!names.includes(SEALED_MANIFEST)) return refuse(`no ${SEALED_MANIFEST}: unsigned events are not taken`);
    const manifestPath = join(dir, SEALED_MANIFEST);
    if (lstatSync(manifestPath).size > MAX_SEALED_MANIFEST) return refuse(`${SEALED_MANIFEST} is too large to be a manifest`);
    let manifestBytes: Buffer;
    try {
      manifestBytes = Buffer.from(await this.open(manifestPath));
    } catch (err) {
      if (err instanceof NotRecipient) return refuse(NOT_A_RECIPIENT);
      if (err instanceof UserError) return refuse(`${SEALED_MANIFEST}: ${err.message.replace(/; refusing it$/, '')}`);
      throw err;
    }
    const stray = names.find((n) => n.endsWith('.age') && n !== SEALED_MANIFEST && !CHUNK.test(n));
    if (stray) return refuse(`${stray} is not a chunk name`);
    const chunks = names.filter((n) => CHUNK.test(n)).map((n) => ({ name: n, start: Number(n.slice(0, 12)) }));
    // Chunks never cross a 512 boundary, so each segment of the signed folder starts with a chunk.
    const blocks = chunks.length === 0 ? 0 : Math.floor(chunks[chunks.length - 1].start / SEGMENT) + 1;
    for (let b = 0; b < blocks; b++) {
      if (!chunks.some((c) => c.start === b * SEGMENT)) return refuse(`no chunk ${chunkName(b * SEGMENT)}, where a segment starts (missing or re-ordered chunks)`);
    }
    // Decrypt the segments verifySignedFolder reads (those reaching the event before the cursor),
    // each the concatenation of its chunks, which must follow one another without gap or overlap.
    const from = options.from?.seq ?? 0;
    const segments = new Map<string, Buffer>();
    for (let i = 0; i < chunks.length; i++) {
      const { name, start } = chunks[i];
      const block = start - (start % SEGMENT);
      if (block + SEGMENT < from) continue;
      let lines: string[];
      try {
        lines = await this.chunkLines(join(dir, name));
      } catch (err) {
        if (err instanceof UserError) return refuse(`${name}: ${err.message.replace(/; refusing it$/, '')}`);
        throw err;
      }
      const next = chunks[i + 1]?.start;
      if (next !== undefined && start + lines.length !== next) {
        return refuse(`${name}: holds events ${start}–${start + lines.length - 1} but the next chunk starts at ${next}: chunks are missing or overlap`);
      }
      if (start + lines.length > block + SEGMENT) return refuse(`${name}: holds events ${start}–${start + lines.length - 1}, across the segment boundary at ${block + SEGMENT}`);
      const segment = segmentName(block);
      segments.set(segment, Buffer.concat([segments.get(segment) ?? Buffer.alloc(0), Buffer.from(lines.join('\n') + '\n')]));
    }
    const files = {
      names: Array.from({ length: blocks }, (_, b) => segmentName(b * SEGMENT)),
      manifestBytes,
      segment: (name: string) => {
        const bytes = segments.get(name);
        if (!bytes) throw new Error(`segment ${name} was not decrypted`);
        return bytes;
      },
    };
    return verifySignedFolder(files, machine, id, trusted, options);
  }

  async writeChunk(dir: string, start: number, text: string): Promise<void> {
    // Never replaced: an existing chunk of that start means another writer with this machine id.
    createFileAtomic(join(dir, chunkName(start)), [Buffer.from(await this.encrypter.encrypt(text))], PRIVATE_FILE);
  }

  async writeManifest(dir: string, text: string): Promise<void> {
    replaceFileAtomic(join(dir, SEALED_MANIFEST), Buffer.from(await this.encrypter.encrypt(text)), PRIVATE_FILE);
  }

  async readManifest(dir: string): Promise<Json | undefined> {
    const path = join(dir, SEALED_MANIFEST);
    if (nodeKind(dir) !== 'dir' || nodeKind(path) === 'missing') return undefined;
    let plain: Uint8Array;
    try {
      plain = await this.open(path);
    } catch (err) {
      if (err instanceof NotRecipient) throw new UserError(`${NOT_A_RECIPIENT}; refusing it`, path);
      throw err;
    }
    const parsed = parseJsonObject(Buffer.from(plain).toString('utf8'));
    if (!parsed.value) throw new UserError(`decrypts, but not to a manifest (${parsed.reason}); refusing it`, path);
    return parsed.value;
  }

  async machineProblem(machineDir: string): Promise<string | undefined> {
    const sessionsDir = join(machineDir, 'sessions');
    if (nodeKind(sessionsDir) !== 'dir') return undefined;
    let probe: string | undefined;
    for (const id of readdirSync(sessionsDir).sort()) {
      const dir = join(sessionsDir, id);
      const names = nodeKind(dir) === 'dir' ? readdirSync(dir) : [];
      if (names.some((n) => PLAIN_SEGMENT.test(n) || n === 'manifest.json')) {
        return 'holds unencrypted files on a remote configured for encryption';
      }
      const sealed = names.find((n) => n === SEALED_MANIFEST) ?? names.find((n) => CHUNK.test(n));
      if (sealed && nodeKind(join(dir, sealed)) === 'file') probe ??= join(dir, sealed);
    }
    if (!probe) return undefined;
    try {
      await this.open(probe);
    } catch (err) {
      if (err instanceof NotRecipient) return NOT_A_RECIPIENT;
      // A damaged file is refused with its session folder, by readFolder.
      if (err instanceof UserError) return undefined;
      throw err;
    }
    return undefined;
  }

  // ---- artifacts ----

  private cachePath(): string {
    return join(this.store.dir, 'remotes', `${this.remoteName}.sealed.json`);
  }

  private readCache(): ArtifactCache {
    const path = this.cachePath();
    const value = existsSync(path) ? parseJsonObject(readFileSync(path, 'utf8')).value : undefined;
    const artifacts: Record<string, string> = {};
    if (value && typeof value.artifacts === 'object' && value.artifacts !== null) {
      for (const [name, hex] of Object.entries(value.artifacts as Record<string, unknown>)) {
        if (/^[0-9a-f]{64}$/.test(name) && typeof hex === 'string' && /^[0-9a-f]{64}$/.test(hex)) artifacts[name] = hex;
      }
    }
    return { artifacts };
  }

  private writeCache(cache: ArtifactCache): void {
    makePrivateDir(dirname(this.cachePath()));
    replaceFileAtomic(this.cachePath(), JSON.stringify(cache) + '\n', PRIVATE_FILE);
  }

  /**
   * The blob a sealed artifact holds, checked: the file hashes to its name, decrypts, and the
   * decrypted bytes hash to the sha256 its header names. 'not-recipient', or a reason it is refused.
   */
  private async unseal(path: string, name: string): Promise<{ hex: string; bytes: Buffer } | 'not-recipient' | string> {
    const irregular = notPlainFile(path, false);
    if (irregular) return irregular;
    const sealed = readFileSync(path);
    if (sha256(sealed) !== name) return 'does not hash to its name';
    let plain: Buffer;
    try {
      plain = Buffer.from(await this.open(path, sealed));
    } catch (err) {
      if (err instanceof NotRecipient) return 'not-recipient';
      if (err instanceof UserError) return err.message;
      throw err;
    }
    const header = BLOB_HEADER.exec(plain.subarray(0, 100).toString('latin1'));
    if (!header) return 'decrypts, but not to an artifact';
    const bytes = plain.subarray(header[0].length);
    if (sha256(bytes) !== header[1]) return `decrypts to bytes that do not hash to the sha256 it names (${header[1].slice(0, 12)}…)`;
    return { hex: header[1], bytes };
  }

  private remoteBlobs(root: string): string[] {
    const dir = join(root, 'artifacts');
    if (nodeKind(dir) !== 'dir') return [];
    return readdirSync(dir)
      .map((n) => SEALED_BLOB.exec(n)?.[1])
      .filter((n): n is string => n !== undefined)
      .sort();
  }

  async pushArtifacts(store: Store, root: string): Promise<number> {
    const cache = this.readCache();
    const present = new Set<string>();
    // Only what the remote holds now counts (a cached name from a push that lost a git race does not).
    for (const name of this.remoteBlobs(root)) {
      let hex = cache.artifacts[name];
      if (!hex) {
        const blob = await this.unseal(join(root, 'artifacts', `${name}.age`), name);
        if (typeof blob !== 'object') continue;
        hex = cache.artifacts[name] = blob.hex;
      }
      present.add(hex);
    }
    let written = 0;
    const local = join(store.dir, 'artifacts');
    for (const hex of listArtifacts(local)) {
      if (present.has(hex)) continue;
      const bytes = readFileSync(join(local, hex));
      if (sha256(bytes) !== hex) {
        warn(join(local, hex), 'does not hash to its name; not pushed');
        continue;
      }
      const sealed = await this.encrypter.encrypt(Buffer.concat([Buffer.from(`sp-sealed-artifact sha256:${hex}\n`, 'latin1'), bytes]));
      const name = sha256(sealed);
      createFileAtomic(join(root, 'artifacts', `${name}.age`), [Buffer.from(sealed)], PRIVATE_FILE);
      cache.artifacts[name] = hex;
      present.add(hex);
      written += 1;
    }
    this.writeCache(cache);
    return written;
  }

  async pullArtifacts(root: string, store: Store, refused: Refusal[]): Promise<number> {
    const dir = join(root, 'artifacts');
    const bad = notPlainDir(dir, true);
    if (bad) {
      refused.push({ where: 'artifacts', reason: bad });
      return 0;
    }
    const plain = listArtifacts(dir);
    if (plain.length > 0) refused.push({ where: 'artifacts', reason: `${plain.length} unencrypted on a remote configured for encryption` });
    const cache = this.readCache();
    const local = join(store.dir, 'artifacts');
    let stored = 0;
    let unreadable = 0;
    for (const name of this.remoteBlobs(root)) {
      const known = cache.artifacts[name];
      if (known && existsSync(join(local, known))) continue;
      const path = join(dir, `${name}.age`);
      const blob = await this.unseal(path, name);
      if (blob === 'not-recipient') unreadable += 1;
      else if (typeof blob === 'string') warn(path, `${blob}; not taken`);
      else {
        if (!existsSync(join(local, blob.hex))) {
          storeArtifact(local, blob.bytes);
          stored += 1;
        }
        cache.artifacts[name] = blob.hex;
      }
    }
    if (unreadable > 0) refused.push({ where: 'artifacts', reason: `${unreadable} ${NOT_A_RECIPIENT}` });
    this.writeCache(cache);
    return stored;
  }
}
