// sp doctor: what is wrong with this machine's sp state, one finding per line, each with the
// command that fixes it. Checks: permissions under $SP_HOME (nothing for group or others, owned by
// the user), the key pair, the trusted signers, the remotes, the store's integrity (the store verifier),
// stale locks and temp files of dead processes, and the agent clients on PATH. `--fix` applies the
// safe fixes only (chmod, removing stale locks and temp files); anything that would change or drop
// data (a damaged log) is left to the user, with the command that does it and keeps a backup.
import { spawn } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { accessSync, chmodSync, closeSync, constants, existsSync, fchmodSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, realpathSync, statSync, unlinkSync, type Stats } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { registeredAdapters } from '../adapter/registry.js';
import { parseJsonObject } from '../core/json.js';
import { pidAlive, tempOwner } from '../fs/private.js';
import type { EventValidator } from '../core/schema.js';
import { keysDir, loadKeys, PRIVATE_KEY_FILE, PUBLIC_KEY_FILE, keyIdOf, trustedKeys } from '../store/identity.js';
import { lockHolder } from '../store/lock.js';
import { LOG_FILE, MANIFEST_FILE } from '../store/log.js';
import { verifyArtifacts, verifyStore } from '../store/verify.js';

export type FindingStatus = 'ok' | 'info' | 'problem' | 'fixed';

export interface Finding {
  check: 'permissions' | 'keys' | 'trusted' | 'remotes' | 'store' | 'locks' | 'temp' | 'agents';
  status: FindingStatus;
  /** What it is about: a path, a remote, an agent. */
  subject: string;
  message: string;
  /** The shell command that fixes it. */
  fix?: string;
  /** Whether `--fix` may apply it (it changes no data). */
  safe?: boolean;
  /** How --fix applies it. */
  apply?: () => void;
}

export interface DoctorOptions {
  home: string;
  store: string;
  /** Look for agent clients on PATH (default true). */
  agents?: boolean;
  validator?: EventValidator;
  /** Per client `--version` (default 5 s). */
  versionTimeoutMs?: number;
}

/** Quotes a path for a shell command line a user may paste. */
function sh(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function octal(mode: number): string {
  return '0' + (mode & 0o777).toString(8);
}

/**
 * chmod of exactly the file or folder that was checked. Between the check and --fix the path may
 * have been swapped for a symlink to something outside SP_HOME, and chmod follows links: so the
 * path is opened without following one, the opened node must be the checked one, and its mode is
 * set through the descriptor.
 */
function chmodChecked(path: string, checked: Stats, mode: number): void {
  const changed = () => new Error('changed since it was checked (now a link or another file): left alone');
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw changed();
    // Not openable (an owner-unreadable file, a socket): the narrower check of an lstat just before.
    const now = lstatSync(path);
    if (now.isSymbolicLink() || now.ino !== checked.ino || now.dev !== checked.dev) throw changed();
    chmodSync(path, mode);
    return;
  }
  try {
    const opened = fstatSync(fd);
    if (opened.ino !== checked.ino || opened.dev !== checked.dev) throw changed();
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

/** Permissions and ownership of $SP_HOME and everything under it; stale temp files on the way. */
function checkTree(home: string, out: Finding[]): void {
  if (!existsSync(home)) {
    out.push({ check: 'permissions', status: 'info', subject: home, message: 'no SP_HOME yet (made 0700 on first use)' });
    return;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  let checked = 0;
  let wrong = 0;
  const visit = (path: string, isRoot: boolean) => {
    let st;
    try {
      st = isRoot ? statSync(path) : lstatSync(path);
    } catch {
      return; // removed meanwhile
    }
    checked += 1;
    if (st.isSymbolicLink()) {
      wrong += 1;
      out.push({ check: 'permissions', status: 'problem', subject: path, message: 'a symbolic link inside SP_HOME (sp never makes one; it may point anywhere)', fix: `ls -l ${sh(path)}  # then remove it if you did not put it there` });
      return;
    }
    const name = path.slice(path.lastIndexOf('/') + 1);
    const owner = tempOwner(name);
    if (!isRoot && owner !== undefined && st.isFile() && owner !== process.pid && !pidAlive(owner)) {
      out.push({ check: 'temp', status: 'problem', subject: path, message: `a temp file left by a process that died (pid ${owner})`, fix: `rm ${sh(path)}`, safe: true, apply: () => unlinkSync(path) });
      return; // removed by the fix, whatever its mode
    }
    if (uid !== undefined && st.uid !== uid) {
      wrong += 1;
      out.push({ check: 'permissions', status: 'problem', subject: path, message: `owned by uid ${st.uid}, not by you (uid ${uid})`, fix: `chown ${uid} ${sh(path)}` });
    }
    // sp makes folders 0700 and files 0600; git's clone of a remote keeps its own owner-only modes
    // (read-only objects 0400, hook samples 0700). What matters: nothing for group or others.
    const want = st.mode & 0o700 & ~0o077;
    if ((st.mode & 0o077) !== 0) {
      wrong += 1;
      out.push({
        check: 'permissions',
        status: 'problem',
        subject: path,
        message: `mode ${octal(st.mode)}, should be ${octal(want)}${st.mode & 0o077 ? ' (other local users can ' + (st.isDirectory() ? 'list it' : 'read it') + ')' : ''}`,
        fix: `chmod ${want.toString(8)} ${sh(path)}`,
        safe: true,
        // SP_HOME itself may be a link the user made: its target is what was checked.
        apply: () => chmodChecked(isRoot ? realpathSync(path) : path, st, want),
      });
    }
    if (st.isDirectory()) {
      let names: string[] = [];
      try {
        names = readdirSync(path).sort();
      } catch {
        out.push({ check: 'permissions', status: 'problem', subject: path, message: 'cannot list this folder', fix: `chmod 700 ${sh(path)}` });
      }
      for (const n of names) visit(join(path, n), false);
    }
  };
  visit(home, true);
  if (wrong === 0) out.push({ check: 'permissions', status: 'ok', subject: home, message: `${checked} files and folders private (owner only: folders 0700, files 0600)` });
}

function checkKeys(home: string, out: Finding[]): void {
  const dir = keysDir(home);
  const privatePath = join(dir, PRIVATE_KEY_FILE);
  const publicPath = join(dir, PUBLIC_KEY_FILE);
  if (!existsSync(privatePath)) {
    out.push({ check: 'keys', status: 'info', subject: privatePath, message: 'no key pair yet (made on the first ingest)', fix: 'sp-sync keygen' });
    return;
  }
  let keys;
  try {
    keys = loadKeys(home)!;
  } catch (err) {
    out.push({ check: 'keys', status: 'problem', subject: privatePath, message: `not a readable private key (${(err as Error).message.split('\n')[0]})`, fix: `mv ${sh(dir)} ${sh(dir + '.broken')} && sp-sync keygen  # a new identity: others must trust the new public key` });
    return;
  }
  if (!existsSync(publicPath)) {
    out.push({ check: 'keys', status: 'problem', subject: publicPath, message: 'the public key is missing', fix: `node -e "process.stdout.write(require('crypto').createPublicKey(require('fs').readFileSync('${privatePath.replace(/'/g, '')}')).export({format:'pem',type:'spki'}))" > ${sh(publicPath)} && chmod 600 ${sh(publicPath)}` });
    return;
  }
  let publicId: string | undefined;
  try {
    publicId = keyIdOf(Buffer.from(createPublicKey(readFileSync(publicPath)).export({ format: 'jwk' }).x as string, 'base64url'));
  } catch {
    publicId = undefined;
  }
  if (publicId !== keys.keyId) {
    out.push({ check: 'keys', status: 'problem', subject: publicPath, message: `the public key ${publicId ? `(${publicId}) ` : ''}does not match the private key (${keys.keyId}); verification trusts the wrong key`, fix: `rm ${sh(publicPath)}  # then sp doctor prints the command that writes it again` });
    return;
  }
  out.push({ check: 'keys', status: 'ok', subject: privatePath, message: `key pair ${keys.keyId}, the public key matches` });
}

function checkTrusted(home: string, out: Finding[]): void {
  const dir = join(keysDir(home), 'trusted');
  if (!existsSync(dir)) return;
  const good: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (tempOwner(name) !== undefined) continue; // the temp check reports these
    if (!/\.(pub|pem)$/.test(name)) {
      out.push({ check: 'trusted', status: 'problem', subject: path, message: 'not a .pub or .pem file: verification ignores it', fix: `rm ${sh(path)}` });
      continue;
    }
    try {
      const raw = Buffer.from(createPublicKey(readFileSync(path)).export({ format: 'jwk' }).x as string, 'base64url');
      if (raw.length !== 32) throw new Error('not an Ed25519 key');
      good.push(`${name.replace(/\.(pub|pem)$/, '')} (${keyIdOf(raw)})`);
    } catch {
      out.push({ check: 'trusted', status: 'problem', subject: path, message: 'does not parse as an Ed25519 public key: verification ignores it, so that signer is not trusted', fix: `rm ${sh(path)}  # and ask its owner for their keys/id_ed25519.pub` });
    }
  }
  out.push({ check: 'trusted', status: good.length ? 'ok' : 'info', subject: dir, message: good.length ? `trusted signers: ${good.join(', ')}` : 'no other signers trusted' });
}

function checkRemotes(store: string, out: Finding[]): void {
  const path = join(store, 'remotes.json');
  if (!existsSync(path)) {
    out.push({ check: 'remotes', status: 'info', subject: path, message: 'no remotes configured', fix: 'sp-sync remote add origin URL' });
    return;
  }
  const value = parseJsonObject(readFileSync(path, 'utf8')).value;
  if (!value) {
    out.push({ check: 'remotes', status: 'problem', subject: path, message: 'not a JSON object: no remote can be used', fix: `$EDITOR ${sh(path)}` });
    return;
  }
  for (const [name, r] of Object.entries(value)) {
    const remote = r as { kind?: unknown; url?: unknown };
    const url = typeof remote.url === 'string' ? remote.url : '';
    const local = remote.kind === 'dir' ? url : url.startsWith('file://') ? url.slice('file://'.length) : isAbsolute(url) ? url : undefined;
    if (local === undefined) {
      out.push({ check: 'remotes', status: 'info', subject: name, message: `${String(remote.kind)} ${url} (not checked: reaching it needs the network)` });
      continue;
    }
    let reachable = false;
    try {
      reachable = statSync(local).isDirectory();
      accessSync(local, constants.R_OK | constants.W_OK | constants.X_OK);
    } catch {
      reachable = false;
    }
    if (reachable) out.push({ check: 'remotes', status: 'ok', subject: name, message: `${String(remote.kind)} ${url} reachable` });
    else out.push({ check: 'remotes', status: 'problem', subject: name, message: `${String(remote.kind)} ${url} is not a folder this user can read and write`, fix: remote.kind === 'git' ? `git init --bare ${sh(local)}` : `mkdir -p ${sh(local)}` });
  }
}

async function checkStore(home: string, store: string, validator: EventValidator | undefined, out: Finding[]): Promise<void> {
  if (!existsSync(join(store, 'sessions'))) {
    out.push({ check: 'store', status: 'info', subject: store, message: 'no store yet' });
  } else {
    const reports = await verifyStore(store, trustedKeys(home), validator);
    let bad = 0;
    for (const r of reports) {
      if (r.ok) continue;
      bad += 1;
      out.push({ check: 'store', status: 'problem', subject: join(store, 'sessions', r.session), message: r.problems.join('; '), fix: repairCommand(home, store, r.session) });
    }
    const artifacts = verifyArtifacts(store);
    for (const p of artifacts.problems) out.push({ check: 'store', status: 'problem', subject: join(store, 'artifacts'), message: p, fix: 'sp-sync pull  # fetches the blob again from a remote that has it' });
    if (bad === 0) out.push({ check: 'store', status: 'ok', subject: store, message: `${reports.length} sessions verify (chain, anchors, signed manifests)${artifacts.blobs ? `, ${artifacts.blobs} artifacts` : ''}` });
  }
  const holder = lockHolder(store);
  if (holder?.stale) {
    const lock = join(store, 'lock');
    out.push({ check: 'locks', status: 'problem', subject: lock, message: `a lock left by pid ${holder.pid}, which is not running`, fix: `rm ${sh(lock)}`, safe: true, apply: () => removeIfStale(store) });
  } else if (holder) out.push({ check: 'locks', status: 'info', subject: join(store, 'lock'), message: `held by pid ${holder.pid} on ${holder.host} (a writer is running)` });
}

/** Removes the lock only if it is still the same stale one. */
function removeIfStale(store: string): void {
  if (lockHolder(store)?.stale) unlinkSync(join(store, 'lock'));
}

/**
 * The repair for a damaged session: keep a copy, then cut the log back to the signed state (the
 * manifest's byte count), or, without a manifest, move the session aside and rebuild the index.
 */
function repairCommand(home: string, store: string, session: string): string {
  const dir = join(store, 'sessions', session);
  const log = join(dir, LOG_FILE);
  const backup = join(home, 'damaged');
  const manifest = existsSync(join(dir, MANIFEST_FILE)) ? parseJsonObject(readFileSync(join(dir, MANIFEST_FILE), 'utf8')).value : undefined;
  const size = existsSync(log) ? statSync(log).size : 0;
  if (manifest && typeof manifest.bytes === 'number' && size > manifest.bytes) {
    return `mkdir -p -m 700 ${sh(backup)} && cp -p ${sh(log)} ${sh(join(backup, `${session}.events.jsonl`))} && truncate -s ${manifest.bytes} ${sh(log)}`;
  }
  if (!manifest) return `mkdir -p -m 700 ${sh(backup)} && mv ${sh(dir)} ${sh(join(backup, session))} && sp-sync reindex`;
  return `sp-verify ${sh(dir)}  # the signed part changed: restore the session from a remote (sp-sync pull) or a backup`;
}

/** The commands of the agent clients sp reads and writes sessions of, as their adapters name them. */
export function agentCommands(): string[] {
  const commands = Object.values(registeredAdapters()).map((a) => a.client?.bin ?? a.command);
  return [...new Set(commands.filter((c): c is string => c !== undefined))];
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, command);
    try {
      if (statSync(path).isFile()) {
        accessSync(path, constants.X_OK);
        return path;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The first line a client prints for --version; undefined when it fails or takes too long. */
function version(path: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    // Its own process group, so a client that starts children of its own is ended whole.
    const child = spawn(path, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let done = false;
    const finish = (value: string | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // ended meanwhile
      }
      finish(undefined);
    }, timeoutMs);
    child.stdout.on('data', (c: Buffer) => {
      if (stdout.length < 1 << 16) stdout += c.toString('utf8');
    });
    child.on('error', () => finish(undefined));
    child.on('close', (code) => finish(code === 0 ? stdout.split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 120) : undefined));
  });
}

async function checkAgents(timeoutMs: number, out: Finding[]): Promise<void> {
  const found = agentCommands().map((c) => ({ command: c, path: onPath(c) }));
  const versions = await Promise.all(found.map((f) => (f.path ? version(f.path, timeoutMs) : Promise.resolve(undefined))));
  const missing: string[] = [];
  found.forEach((f, i) => {
    if (!f.path) missing.push(f.command);
    else if (versions[i]) out.push({ check: 'agents', status: 'ok', subject: f.command, message: `${versions[i]} (${f.path})` });
    else out.push({ check: 'agents', status: 'info', subject: f.command, message: `${f.path} does not answer --version within ${timeoutMs / 1000} s` });
  });
  if (missing.length) out.push({ check: 'agents', status: 'info', subject: 'PATH', message: `not installed: ${missing.join(', ')}` });
}

/** Runs every check. */
export async function diagnose(options: DoctorOptions): Promise<Finding[]> {
  const out: Finding[] = [];
  checkTree(options.home, out);
  checkKeys(options.home, out);
  checkTrusted(options.home, out);
  checkRemotes(options.store, out);
  await checkStore(options.home, options.store, options.validator, out);
  if (options.agents !== false) await checkAgents(options.versionTimeoutMs ?? 5000, out);
  return out;
}

/** Applies the safe fixes; a fix that fails stays a problem, with why. */
export function applySafeFixes(findings: Finding[]): void {
  for (const f of findings) {
    if (f.status !== 'problem' || !f.safe || !f.apply) continue;
    try {
      f.apply();
      f.status = 'fixed';
    } catch (err) {
      f.message += ` (--fix failed: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
    }
  }
}

export function formatFinding(f: Finding): string {
  const label = { ok: 'ok', info: 'info', problem: 'PROBLEM', fixed: 'fixed' }[f.status].padEnd(8);
  const fix = f.status === 'problem' && f.fix ? ` — fix: ${f.fix}${f.safe ? ' (or sp doctor --fix)' : ''}` : f.status === 'fixed' && f.fix ? ` — done: ${f.fix}` : '';
  return `${label}${f.check}: ${f.subject}: ${f.message}${fix}`.replace(/[\r\n]+/g, ' ');
}

export function findingJson(f: Finding): string {
  const { apply: _apply, ...rest } = f;
  return JSON.stringify(rest);
}
