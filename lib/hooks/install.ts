// Install, uninstall and status of sp's hook in an agent's own settings file, the same for every
// agent: the agent's module (adapters/<agent>/hooks.ts) only says which file and how sp's entry is
// added to, found in and removed from its text. Here: the file is refused when it is not a plain,
// small, parseable file (a symlink to elsewhere, a folder, huge, not JSON/TOML) with nothing
// written; the original bytes are backed up under $SP_HOME/hooks (private) with a record of what
// install wrote; uninstall puts the original bytes back when the file is still what install left,
// and otherwise removes only sp's own entry.
import { existsSync, lstatSync, readFileSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../cli/diagnostics.js';
import { createFileAtomic, replaceFileAtomic } from '../fs/atomic.js';
import { makePrivateDir, PRIVATE_FILE } from '../fs/private.js';
import { shellQuote } from '../write/writer.js';

/** Settings files bigger than this are not settings: refused rather than read into memory. */
export const MAX_SETTINGS_BYTES = 1 << 20;

/** What an installed hook runs: `node <sp-hook.js> AGENT --home HOME --sp-home SP_HOME`. */
export interface HookCommand {
  argv: string[];
  /** The same, as one POSIX shell command line (every word quoted). */
  shell: string;
}

/** The file name every installed entry carries: how sp finds its own entries again. */
export const HOOK_SCRIPT = 'sp-hook.js';

/** One agent's extension point, as lib/hooks drives it. */
export interface HookInstaller {
  agent: string;
  displayName: string;
  /** The client version the mechanism was verified with. */
  verifiedWith: string;
  /** What is used, in a few words (status and the README say it). */
  mechanism: string;
  /** What the user must still know after install (printed with the outcome), when anything. */
  installNote?: string;
  /** The settings file for this agent home. */
  file(home: string): string;
  /** The text with sp's entry added (the same text when it is all there); `text` undefined when the file does not exist. Throws UserError to refuse. */
  add(text: string | undefined, command: HookCommand, file: string): string;
  /** The text without sp's entries (structurally: nothing else changes). */
  remove(text: string, file: string): string;
  /** Whether the text holds any of sp's entries. Throws UserError when the text cannot be read as settings. */
  has(text: string, file: string): boolean;
}

export function hookCommand(agent: string, home: string, spHome: string): HookCommand {
  const script = join(dirname(fileURLToPath(import.meta.url)), HOOK_SCRIPT);
  const argv = [process.execPath, script, agent, '--home', resolve(home), '--sp-home', resolve(spHome)];
  return { argv, shell: argv.map(shellQuote).join(' ') };
}

/** Whether a hook command (a string or an argv array) is sp's. */
export function isSpCommand(command: unknown): boolean {
  if (typeof command === 'string') return command.includes(HOOK_SCRIPT);
  return Array.isArray(command) && command.some((word) => typeof word === 'string' && word.endsWith(HOOK_SCRIPT));
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

interface InstallRecord {
  agent: string;
  file: string;
  /** Whether the file existed before install (uninstall removes a file install created). */
  existed: boolean;
  backup?: string;
  before_sha256?: string;
  after_sha256: string;
  mode?: number;
  installed_at: string;
}

function recordsDir(spHome: string): string {
  return join(spHome, 'hooks', 'installed');
}

function recordPath(spHome: string, agent: string, file: string): string {
  return join(recordsDir(spHome), `${agent}-${sha256(file).slice(0, 16)}.json`);
}

/** The settings file's bytes, or undefined when it does not exist; refuses what is not a plain small file. */
export function readSettings(file: string): Buffer | undefined {
  let st;
  try {
    st = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UserError(`cannot read: ${(err as NodeJS.ErrnoException).code}`, file);
  }
  if (st.isSymbolicLink()) throw new UserError('is a symlink: sp edits only a plain file (edit the file it points to with --home, or replace the link)', file);
  if (!st.isFile()) throw new UserError('is not a regular file', file);
  if (st.size > MAX_SETTINGS_BYTES) throw new UserError(`is ${st.size} bytes, over ${MAX_SETTINGS_BYTES}: not a settings file sp will edit`, file);
  return readFileSync(file);
}

function decode(bytes: Buffer, file: string): string {
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) throw new UserError('is not UTF-8 text', file);
  return text;
}

export interface Outcome {
  agent: string;
  file: string;
  /** installed | already installed | restored | removed | not installed */
  action: string;
  note?: string;
}

export function install(installer: HookInstaller, home: string, spHome: string): Outcome {
  const file = resolve(installer.file(home));
  const bytes = readSettings(file);
  const text = bytes === undefined ? undefined : decode(bytes, file);
  const next = installer.add(text, hookCommand(installer.agent, home, spHome), file);
  if (next === text) return { agent: installer.agent, file, action: 'already installed' };
  // The new text must read back as holding sp's entry (and nothing is written when it does not).
  if (!installer.has(next, file)) throw new UserError(`sp's entry could not be added`, file);

  const record: InstallRecord = { agent: installer.agent, file, existed: bytes !== undefined, after_sha256: sha256(next), installed_at: new Date().toISOString() };
  makePrivateDir(recordsDir(spHome));
  if (bytes !== undefined) {
    const backups = join(spHome, 'hooks', 'backups');
    makePrivateDir(backups);
    record.backup = join(backups, `${installer.agent}-${sha256(file).slice(0, 16)}-${Date.now()}.bak`);
    record.before_sha256 = sha256(bytes);
    record.mode = lstatSync(file).mode & 0o7777;
    createFileAtomic(record.backup, [bytes], PRIVATE_FILE);
  }
  const recordFile = recordPath(spHome, installer.agent, file);
  replaceFileAtomic(recordFile, JSON.stringify(record, null, 2) + '\n', PRIVATE_FILE);
  if (bytes === undefined) {
    makePrivateDir(dirname(file));
    createFileAtomic(file, [next], PRIVATE_FILE);
  } else {
    replaceFileAtomic(file, next, record.mode);
  }
  return { agent: installer.agent, file, action: 'installed', ...(installer.installNote ? { note: installer.installNote } : {}) };
}

export function uninstall(installer: HookInstaller, home: string, spHome: string): Outcome {
  const file = resolve(installer.file(home));
  const recordFile = recordPath(spHome, installer.agent, file);
  const record = existsSync(recordFile) ? (JSON.parse(readFileSync(recordFile, 'utf8')) as InstallRecord) : undefined;
  const bytes = readSettings(file);
  const done = (action: string, note?: string): Outcome => {
    if (record?.backup) rmSync(record.backup, { force: true });
    rmSync(recordFile, { force: true });
    return { agent: installer.agent, file, action, note };
  };
  if (record && bytes !== undefined && sha256(bytes) === record.after_sha256) {
    // Untouched since install: the exact bytes from before (or no file, when install created it).
    if (!record.existed) unlinkSync(file);
    else {
      const original = readFileSync(record.backup!);
      if (sha256(original) !== record.before_sha256) throw new UserError(`the backup does not match the file as it was before install; nothing changed`, record.backup!);
      replaceFileAtomic(file, original, record.mode ?? PRIVATE_FILE);
    }
    return done('restored');
  }
  const text = bytes === undefined ? undefined : decode(bytes, file);
  if (text === undefined || !installer.has(text, file)) return done('not installed');
  const next = installer.remove(text, file);
  if (installer.has(next, file)) throw new UserError(`sp's entry could not be removed; nothing changed`, file);
  replaceFileAtomic(file, next, lstatSync(file).mode & 0o7777);
  return done('removed', record ? 'the file changed since install: only sp\'s entry was removed' : undefined);
}

export interface Status {
  agent: string;
  file: string;
  installed: boolean;
  mechanism: string;
  /** Why the file could not be read, when it could not. */
  problem?: string;
}

/** Whether sp's hook is in `file` (an agent's settings file). */
export function status(installer: HookInstaller, settingsFile: string): Status {
  const file = resolve(settingsFile);
  const base = { agent: installer.agent, file, mechanism: installer.mechanism };
  try {
    const bytes = readSettings(file);
    return { ...base, installed: bytes !== undefined && installer.has(decode(bytes, file), file) };
  } catch (err) {
    return { ...base, installed: false, problem: (err as Error).message };
  }
}

/** Every settings file sp installed into, by the records under $SP_HOME (whatever --home was used). */
export function installedFiles(spHome: string): Array<{ agent: string; file: string }> {
  const dir = recordsDir(spHome);
  if (!existsSync(dir)) return [];
  const out: Array<{ agent: string; file: string }> = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    try {
      const r = JSON.parse(readFileSync(join(dir, name), 'utf8')) as InstallRecord;
      out.push({ agent: r.agent, file: r.file });
    } catch {
      // a damaged record: status shows the agent's default file anyway
    }
  }
  return out;
}
