// The PostgreSQL team remote (`sp-sync remote add team postgres://…`): a remote tree kept in tables
// (schema/pg/*.sql) instead of files, so many machines push at once (one transaction each, keys
// that store an event once) and the team searches everyone's sessions with the server's indexes.
//
// The server is storage, never trusted. A push or pull works on a private working folder,
// $store/remotes/<name>/, shaped exactly like a folder remote (machines/<m>/sessions/<id>/…,
// artifacts/…), as git's working clone is:
// - push: checkoutOwn() brings the folder's own machine part up to what the server holds (normally
//   nothing to do: the folder keeps what was pushed), remote.ts pushTree writes the new segments,
//   manifests and any other files into it as for any folder remote (sealed with age on an
//   encrypted remote), and upload() sends what the server lacks in one transaction: event lines
//   (plain) as rows keyed (machine, session, seq), every other file of machines/<own>/ as a row
//   keyed by its path, blobs by name. Inserts never overwrite an event or a blob.
// - pull: checkoutOthers() rebuilds the other machines' folders from the rows this role may read
//   (row-level security), and remote.ts pullTree verifies each one as a signed folder (trusted
//   signer, chain, count, head, machine binding) before adopting anything: a row edited or inserted
//   on the server, a manifest swapped, a key not trusted, all end as a refused folder.
// Everything read from the server is data: machine ids, session ids, file paths and blob names are
// checked against the same patterns as on a folder remote before they name a path.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Client as PgClient } from 'pg';
import { replaceFileAtomic } from '../fs/atomic.js';
import { UserError } from '../cli/diagnostics.js';
import { packageRoot } from '../fs/paths.js';
import { makePrivateDir, PRIVATE_FILE } from '../fs/private.js';
import type { SpEvent } from '../core/event.js';
import type { Store } from '../store/index.js';
import { searchText } from '../store/derive.js';
import { SESSION_ID_PATTERN } from '../store/paths.js';
import { MACHINE_PATTERN, nodeKind, SEGMENT, segmentName } from '../store/origins.js';

/** Whether a remote URL is a PostgreSQL connection string. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The URL with any password replaced, for messages and listings. */
export function maskUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

const SEGMENT_FILE = /^(\d{12})\.jsonl$/;
const PATH_PART = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/;
const BLOB_NAME = /^[0-9a-f]{64}(\.age)?$/;
const BATCH = 2000;

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A path below machines/<m>/ as the server may name it: plain parts only, at most 6 deep. */
function safeRelative(path: string): boolean {
  const parts = path.split('/');
  return parts.length <= 6 && parts.every((p) => PATH_PART.test(p));
}

/** The project a session belongs to for access control: its working folder's last component. */
export function projectOf(cwd: string | null | undefined): string {
  if (!cwd) return '';
  const trimmed = cwd.replace(/[\\/]+$/, '');
  return basename(trimmed.replace(/\\/g, '/')) || '';
}

// ---- connection, migrations, grants ---------------------------------------------------------------

export async function connect(url: string): Promise<PgClient> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, application_name: 'sp-sync', connectionTimeoutMillis: 15_000 });
  // A server-side error after connecting (the server shut down) must not crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    throw new UserError(`cannot connect: ${describePgError(err)}`, maskUrl(url));
  }
  return client;
}

export function describePgError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return (e.message ?? String(err)).split('\n')[0] + (e.code && !/^[A-Z]/.test(e.code) ? '' : e.code ? ` (${e.code})` : '');
}

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migrations shipped with sp: schema/pg/NNN_name.sql, in order. */
export function migrations(): Migration[] {
  const dir = new URL('schema/pg/', packageRoot()).pathname;
  return readdirSync(dir)
    .map((n) => /^(\d{3})_([a-z0-9_]+)\.sql$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2], sql: readFileSync(join(dir, m[0]), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/** The newest migration this sp knows. */
export function knownVersion(): number {
  const all = migrations();
  return all.length ? all[all.length - 1].version : 0;
}

/**
 * Applies the migrations the database lacks, all in one transaction (under an advisory lock, so two
 * inits at once apply each migration once). Returns the version before and after.
 */
export async function initSchema(client: PgClient): Promise<{ from: number; to: number; applied: string[] }> {
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('sp-sync schema'))");
    await client.query('CREATE SCHEMA IF NOT EXISTS sp');
    await client.query('CREATE TABLE IF NOT EXISTS sp.schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const from = Number((await client.query('SELECT coalesce(max(version), 0) AS v FROM sp.schema_version')).rows[0].v);
    const applied: string[] = [];
    for (const m of migrations()) {
      if (m.version <= from) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO sp.schema_version (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(`${String(m.version).padStart(3, '0')}_${m.name}`);
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, knownVersion()), applied };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    if (err instanceof UserError) throw err;
    throw new UserError(`init failed, nothing changed: ${describePgError(err)}`);
  }
}

/** Refuses a database without the schema, or with a newer one than this sp knows. */
async function checkSchema(client: PgClient, where: string): Promise<void> {
  const found = await client.query("SELECT to_regclass('sp.schema_version') AS t");
  if (!found.rows[0].t) throw new UserError('not an sp team remote yet (no sp.schema_version): run `sp-sync remote init NAME` once', where);
  const version = Number((await client.query('SELECT coalesce(max(version), 0) AS v FROM sp.schema_version')).rows[0].v);
  if (version < knownVersion()) throw new UserError(`the remote's schema is at version ${version}, this sp needs ${knownVersion()}: run \`sp-sync remote init NAME\` to upgrade it`, where);
  if (version > knownVersion()) throw new UserError(`the remote's schema is at version ${version}, newer than this sp knows (${knownVersion()}): upgrade sp`, where);
}

const ROLE_NAME = /^[A-Za-z_][A-Za-z0-9_$-]{0,62}$/;

/** Lets `role` read the sessions of `project` (and makes it a member of sp_team, which holds the privileges). */
export async function grantProject(client: PgClient, role: string, project: string, where: string): Promise<void> {
  if (!ROLE_NAME.test(role)) throw new UserError(`not a role name: ${JSON.stringify(role)}`);
  if (project === '' || project.length > 200) throw new UserError('a project name is required (a session\'s project is its working folder\'s last component)');
  await checkSchema(client, where);
  const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (exists.rowCount === 0) throw new UserError(`no role ${role} on the server (CREATE ROLE ${role} LOGIN first)`, where);
  await client.query('BEGIN');
  try {
    // Identifiers cannot be bound as parameters: the name is checked above and quoted here.
    await client.query(`GRANT sp_team TO "${role.replace(/"/g, '""')}"`);
    await client.query('INSERT INTO sp.grants (role, project) VALUES ($1, $2) ON CONFLICT DO NOTHING', [role, project]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw new UserError(`grant failed: ${describePgError(err)}`, where);
  }
}

// ---- the working folder -------------------------------------------------------------------------------

interface FolderSession {
  count: number;
  lastChecksum: string | undefined;
}

/** A plain session folder's segments as they are on disk: how many complete lines, and the checksum of the last. */
function folderSession(dir: string): FolderSession {
  if (nodeKind(dir) !== 'dir') return { count: 0, lastChecksum: undefined };
  const segments = readdirSync(dir)
    .map((n) => SEGMENT_FILE.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  if (segments.length === 0) return { count: 0, lastChecksum: undefined };
  const last = segments[segments.length - 1];
  const text = readFileSync(join(dir, segmentName(last)), 'utf8');
  const lines = text.split('\n').slice(0, -1);
  let lastChecksum: string | undefined;
  if (lines.length > 0) {
    try {
      lastChecksum = (JSON.parse(lines[lines.length - 1]) as { checksum?: string }).checksum;
    } catch {
      lastChecksum = undefined;
    }
  }
  return { count: last + lines.length, lastChecksum };
}

/** Every plain file below `dir`, as paths relative to it (symlinks and special files are reported). */
function filesBelow(dir: string, prefix = ''): { files: string[]; irregular: string[] } {
  const out = { files: [] as string[], irregular: [] as string[] };
  if (nodeKind(dir) !== 'dir') return out;
  for (const name of readdirSync(dir).sort()) {
    const rel = prefix ? `${prefix}/${name}` : name;
    const kind = nodeKind(join(dir, name));
    if (kind === 'dir') {
      const sub = filesBelow(join(dir, name), rel);
      out.files.push(...sub.files);
      out.irregular.push(...sub.irregular);
    } else if (kind === 'file') out.files.push(rel);
    else out.irregular.push(rel);
  }
  return out;
}

function isSegmentPath(rel: string): boolean {
  const parts = rel.split('/');
  return parts.length === 3 && parts[0] === 'sessions' && SEGMENT_FILE.test(parts[2]);
}

export interface UploadReport {
  events: number;
  files: number;
  artifacts: number;
  /** Other machines' folders forwarded (lib/sync/forward.ts) and the event rows they added. */
  forwardedFolders: number;
  forwardedEvents: number;
}

/** One push or pull's connection and working folder. */
export class PgWork {
  private constructor(
    readonly dir: string,
    private readonly client: PgClient,
    private readonly machine: string,
    private readonly where: string,
  ) {}

  static async open(store: Store, remote: { name: string; url: string }): Promise<PgWork> {
    const where = maskUrl(remote.url);
    const client = await connect(remote.url);
    try {
      await checkSchema(client, where);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    const dir = join(store.dir, 'remotes', remote.name);
    makePrivateDir(join(store.dir, 'remotes'));
    makePrivateDir(dir);
    return new PgWork(dir, client, store.machine, where);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }

  private async query<T extends Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<T[]> {
    try {
      return (await this.client.query(sql, values)).rows as T[];
    } catch (err) {
      throw new UserError(describePgError(err), this.where);
    }
  }

  /** Brings this machine's part of the folder up to the server (what a lost folder or another run pushed); never removes. */
  async checkoutOwn(): Promise<void> {
    await this.checkout(true);
  }

  /** Makes the other machines' part of the folder exactly what the server holds and this role may read. */
  async checkoutOthers(): Promise<void> {
    await this.checkout(false);
  }

  private async checkout(own: boolean): Promise<void> {
    const me = this.machine;
    const filter = own ? 'machine = $1' : 'machine <> $1';
    const sessions = await this.query<{ machine: string; session_id: string }>(`SELECT machine, session_id FROM sp.sessions WHERE ${filter} AND NOT sealed ORDER BY machine, session_id`, [me]);
    const files = await this.query<{ machine: string; path: string; sha256: string }>(`SELECT machine, path, sha256 FROM sp.files WHERE ${filter} ORDER BY machine, path`, [me]);
    const machinesDir = join(this.dir, 'machines');
    makePrivateDir(machinesDir);
    const seen = new Set<string>();
    const wanted = new Map<string, Set<string>>();
    for (const s of sessions) {
      if (!MACHINE_PATTERN.test(s.machine) || !SESSION_ID_PATTERN.test(s.session_id)) continue; // the CHECK constraints were dropped: not a path
      seen.add(s.machine);
      await this.checkoutSession(s.machine, s.session_id, own);
    }
    for (const f of files) {
      if (!MACHINE_PATTERN.test(f.machine) || !safeRelative(f.path) || isSegmentPath(f.path)) continue;
      seen.add(f.machine);
      if (!wanted.has(f.machine)) wanted.set(f.machine, new Set());
      wanted.get(f.machine)!.add(f.path);
      const path = join(machinesDir, f.machine, f.path);
      if (nodeKind(path) === 'file' && sha256(readFileSync(path)) === f.sha256) continue;
      if (own && nodeKind(path) === 'file') continue; // the folder's own file is newer (a push not uploaded yet)
      const row = await this.query<{ bytes: Buffer }>('SELECT bytes FROM sp.files WHERE machine = $1 AND path = $2', [f.machine, f.path]);
      if (row.length === 0) continue;
      mkdirPrivate(join(machinesDir, f.machine), f.path);
      rmSync(path, { recursive: true, force: true });
      replaceFileAtomic(path, row[0].bytes, PRIVATE_FILE);
    }
    if (own) return;
    // Other machines' folders hold exactly what the server shows: files it no longer lists go.
    for (const machine of nodeKind(machinesDir) === 'dir' ? readdirSync(machinesDir) : []) {
      if (machine === me) continue;
      if (!seen.has(machine)) {
        rmSync(join(machinesDir, machine), { recursive: true, force: true });
        continue;
      }
      const keep = wanted.get(machine) ?? new Set<string>();
      const liveSessions = new Set(sessions.filter((s) => s.machine === machine).map((s) => s.session_id));
      for (const rel of filesBelow(join(machinesDir, machine)).files.concat(filesBelow(join(machinesDir, machine)).irregular)) {
        const parts = rel.split('/');
        if (isSegmentPath(rel) && liveSessions.has(parts[1])) continue;
        if (!keep.has(rel)) rmSync(join(machinesDir, machine, rel), { recursive: true, force: true });
      }
    }
  }

  /** Appends to a session folder the event rows after what it holds (rewriting it when the server's rows no longer continue it). */
  private async checkoutSession(machine: string, id: string, own: boolean): Promise<void> {
    const dir = join(this.dir, 'machines', machine, 'sessions', id);
    let have = folderSession(dir);
    if (have.count > 0) {
      const at = await this.query<{ checksum: string | null }>('SELECT checksum FROM sp.events WHERE machine = $1 AND session_id = $2 AND seq = $3', [machine, id, have.count - 1]);
      const continues = at.length === 1 && (at[0].checksum ?? undefined) === have.lastChecksum;
      if (!continues) {
        if (own) return; // the own folder is ahead of the server (a push not uploaded yet): upload sends it
        for (const n of readdirSync(dir)) if (SEGMENT_FILE.test(n)) rmSync(join(dir, n), { force: true });
        have = { count: 0, lastChecksum: undefined };
      }
    }
    mkdirPrivate(join(this.dir, 'machines', machine), `sessions/${id}/x`);
    let next = have.count;
    for (;;) {
      const rows = await this.query<{ seq: number; line: string }>(
        'SELECT seq, line FROM sp.events WHERE machine = $1 AND session_id = $2 AND seq >= $3 ORDER BY seq LIMIT $4',
        [machine, id, next, BATCH * 5],
      );
      if (rows.length === 0) break;
      // Lines go to the segment of their position; a gap in the server's seqs stays a gap in
      // numbering only (verification then finds the chain or the count wrong and refuses).
      let chunkStart = next;
      let chunk = '';
      const flush = () => {
        if (chunk) appendFileSync(join(dir, segmentName(chunkStart - (chunkStart % SEGMENT))), chunk, { mode: PRIVATE_FILE });
        chunk = '';
      };
      for (const row of rows) {
        if (next % SEGMENT === 0) {
          flush();
          chunkStart = next;
        }
        chunk += row.line.replace(/[\r\n]/g, ' ') + '\n';
        next += 1;
      }
      flush();
      if (rows.length < BATCH * 5) break;
      next = Math.max(next, Number(rows[rows.length - 1].seq) + 1);
    }
  }

  /** Fetches the blobs the server holds that neither the folder nor the store has (pull). */
  async checkoutArtifacts(store: Store): Promise<void> {
    const names = await this.query<{ name: string }>('SELECT name FROM sp.artifacts ORDER BY name');
    const dir = join(this.dir, 'artifacts');
    for (const { name } of names) {
      if (!BLOB_NAME.test(name)) continue;
      if (existsSync(join(dir, name)) || (!name.endsWith('.age') && existsSync(join(store.dir, 'artifacts', name)))) continue;
      const row = await this.query<{ bytes: Buffer }>('SELECT bytes FROM sp.artifacts WHERE name = $1', [name]);
      if (row.length === 0) continue;
      makePrivateDir(dir);
      replaceFileAtomic(join(dir, name), row[0].bytes, PRIVATE_FILE);
    }
  }

  /**
   * Sends what this machine's part of the folder holds and the server lacks, in one transaction:
   * event lines after the server's last seq, changed files, new blobs. Routing fields come from
   * the store's session summaries (plaintext on an encrypted remote too).
   */
  async upload(store: Store, forwarded: ReadonlyArray<{ machine: string; session: string }> = []): Promise<UploadReport> {
    const me = this.machine;
    const ownDir = join(this.dir, 'machines', me);
    const listed = filesBelow(ownDir);
    if (listed.irregular.length > 0) throw new UserError(`machines/${me}/${listed.irregular[0]}: not a plain file; nothing pushed`, this.dir);
    const report: UploadReport = { events: 0, files: 0, artifacts: 0, forwardedFolders: 0, forwardedEvents: 0 };
    await this.query('BEGIN');
    try {
      const signer = store.signer();
      await this.query('INSERT INTO sp.machines (machine, key_id, public_key) VALUES ($1, $2, $3) ON CONFLICT (machine) DO NOTHING', [me, signer.keyId, signer.publicRaw.toString('base64')]);
      // First seen through a forwarder (unclaimed): the machine's own first push claims it.
      await this.query("UPDATE sp.machines SET owner = current_user, key_id = $2, public_key = $3 WHERE machine = $1 AND owner = 'sp_forward'", [me, signer.keyId, signer.publicRaw.toString('base64')]);
      const claim = await this.query<{ owner: string; me: string }>('SELECT owner, current_user AS me FROM sp.machines WHERE machine = $1', [me]);
      if (claim.length === 0 || claim[0].owner !== claim[0].me) {
        throw new UserError(`machine id ${me} is pushed by another role (${claim[0]?.owner ?? 'unknown'}) on this server; nothing pushed`, this.where);
      }
      const serverCounts = new Map(
        (await this.query<{ session_id: string; n: number }>('SELECT session_id, (SELECT coalesce(max(seq) + 1, 0) FROM sp.events e WHERE e.machine = s.machine AND e.session_id = s.session_id) AS n FROM sp.sessions s WHERE machine = $1', [me])).map((r) => [r.session_id, Number(r.n)]),
      );
      const serverFiles = new Map((await this.query<{ path: string; sha256: string }>('SELECT path, sha256 FROM sp.files WHERE machine = $1', [me])).map((r) => [r.path, r.sha256]));
      const sessionIds = new Set<string>();
      for (const rel of listed.files) {
        const parts = rel.split('/');
        if (parts[0] === 'sessions' && parts.length >= 3 && SESSION_ID_PATTERN.test(parts[1])) sessionIds.add(parts[1]);
      }
      for (const id of [...sessionIds].sort()) {
        const summary = store.session(id);
        const project = projectOf(summary?.cwd);
        const dir = join(ownDir, 'sessions', id);
        const sealed = !readdirSync(dir).some((n) => SEGMENT_FILE.test(n)) && readdirSync(dir).some((n) => n.endsWith('.age'));
        const local = sealed ? { count: 0, lastChecksum: undefined } : folderSession(dir);
        await this.query(
          `INSERT INTO sp.sessions (machine, session_id, project, agent, first_ts, last_ts, event_count, deleted, sealed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (machine, session_id) DO UPDATE SET project = EXCLUDED.project, agent = EXCLUDED.agent, first_ts = EXCLUDED.first_ts, last_ts = EXCLUDED.last_ts,
             event_count = greatest(sp.sessions.event_count, EXCLUDED.event_count), deleted = EXCLUDED.deleted, sealed = EXCLUDED.sealed, pushed_by = current_user, updated_at = now()`,
          [me, id, project, summary?.agent ?? null, summary?.first_ts ?? null, summary?.last_ts ?? null, local.count, summary?.deleted ?? false, sealed],
        );
        if (!sealed) report.events += await this.uploadEvents(dir, me, id, project, serverCounts.get(id) ?? 0, local.count);
      }
      for (const rel of listed.files) {
        if (isSegmentPath(rel)) continue;
        if (!safeRelative(rel)) throw new UserError(`machines/${me}/${rel}: not a name a remote path may have; nothing pushed`, this.dir);
        const bytes = readFileSync(join(ownDir, rel));
        const hash = sha256(bytes);
        if (serverFiles.get(rel) === hash) continue;
        const parts = rel.split('/');
        const id = parts[0] === 'sessions' && parts.length >= 3 ? parts[1] : '';
        const project = id ? projectOf(store.session(id)?.cwd) : '';
        await this.query(
          `INSERT INTO sp.files (machine, path, session_id, project, bytes, sha256) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (machine, path) DO UPDATE SET bytes = EXCLUDED.bytes, sha256 = EXCLUDED.sha256, project = EXCLUDED.project, pushed_by = current_user, updated_at = now()`,
          [me, rel, id, project, bytes, hash],
        );
        report.files += 1;
      }
      for (const f of forwarded) {
        const added = await this.uploadForwarded(store, f.machine, f.session);
        if (added === undefined) continue;
        report.forwardedFolders += 1;
        report.forwardedEvents += added;
      }
      report.artifacts = await this.uploadArtifacts();
      await this.query('COMMIT');
      return report;
    } catch (err) {
      await this.client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }

  /**
   * Sends one forwarded folder (another machine's signed folder, unchanged) inside upload's
   * transaction: its event rows the server lacks (stored once by key), a session row only when
   * none exists (a forwarder never edits another machine's routing fields), and its manifest and
   * sealed files, unless the server already holds more events of it (never rewound). A role not
   * allowed to forward (not in sp_forward) or any other refusal leaves that folder out (undefined)
   * and the rest of the push goes on.
   */
  private async uploadForwarded(store: Store, machine: string, id: string): Promise<number | undefined> {
    if (!MACHINE_PATTERN.test(machine) || !SESSION_ID_PATTERN.test(id) || machine === this.machine) return undefined;
    const dir = join(this.dir, 'machines', machine, 'sessions', id);
    const listed = filesBelow(dir);
    if (listed.irregular.length > 0) return undefined;
    await this.client.query('SAVEPOINT sp_forward');
    try {
      await this.query("INSERT INTO sp.machines (machine, owner) VALUES ($1, 'sp_forward') ON CONFLICT (machine) DO NOTHING", [machine]);
      const summary = store.session(id);
      const existing = await this.query<{ project: string }>('SELECT project FROM sp.sessions WHERE machine = $1 AND session_id = $2', [machine, id]);
      const project = existing[0]?.project ?? projectOf(summary?.cwd);
      const names = listed.files;
      const sealed = !names.some((n) => SEGMENT_FILE.test(n)) && names.some((n) => n.endsWith('.age'));
      const local = sealed ? { count: 0, lastChecksum: undefined } : folderSession(dir);
      await this.query(
        `INSERT INTO sp.sessions (machine, session_id, project, agent, first_ts, last_ts, event_count, deleted, sealed) VALUES ($1, $2, $3, $4, $5, $6, $7, false, $8)
         ON CONFLICT (machine, session_id) DO NOTHING`,
        [machine, id, project, summary?.agent ?? null, summary?.first_ts ?? null, summary?.last_ts ?? null, local.count, sealed],
      );
      const before = Number((await this.query<{ n: number }>('SELECT coalesce(max(seq) + 1, 0) AS n FROM sp.events WHERE machine = $1 AND session_id = $2', [machine, id]))[0].n);
      if (!sealed && before > local.count) throw new UserError('the server holds more events of it (never rewound)', this.where);
      const added = sealed ? 0 : await this.uploadEvents(dir, machine, id, project, before, local.count);
      for (const name of names) {
        if (SEGMENT_FILE.test(name)) continue;
        const rel = `sessions/${id}/${name}`;
        if (!safeRelative(rel)) continue;
        const bytes = readFileSync(join(dir, name));
        const hash = sha256(bytes);
        const have = await this.query<{ sha256: string }>('SELECT sha256 FROM sp.files WHERE machine = $1 AND path = $2', [machine, rel]);
        if (have[0]?.sha256 === hash) continue;
        await this.query(
          `INSERT INTO sp.files (machine, path, session_id, project, bytes, sha256) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (machine, path) DO UPDATE SET bytes = EXCLUDED.bytes, sha256 = EXCLUDED.sha256, pushed_by = current_user, updated_at = now()`,
          [machine, rel, id, project, bytes, hash],
        );
      }
      await this.client.query('RELEASE SAVEPOINT sp_forward');
      return added;
    } catch {
      await this.client.query('ROLLBACK TO SAVEPOINT sp_forward');
      await this.client.query('RELEASE SAVEPOINT sp_forward');
      return undefined;
    }
  }

  /** Inserts the lines `from`… of a plain session folder (a re-sent line is stored once: the key is (machine, session, seq)). */
  private async uploadEvents(dir: string, machine: string, id: string, project: string, from: number, to: number): Promise<number> {
    let added = 0;
    const rows: { seq: number[]; line: string[]; checksum: (string | null)[]; ts: (number | null)[]; type: (string | null)[]; body: string[] } = { seq: [], line: [], checksum: [], ts: [], type: [], body: [] };
    const flush = async () => {
      if (rows.seq.length === 0) return;
      const r = await this.client
        .query(
          `INSERT INTO sp.events (machine, session_id, project, seq, line, checksum, ts, type, body)
           SELECT $1, $2, $3, * FROM unnest($4::int[], $5::text[], $6::text[], $7::float8[], $8::text[], $9::text[]) ON CONFLICT DO NOTHING`,
          [machine, id, project, rows.seq, rows.line, rows.checksum, rows.ts, rows.type, rows.body],
        )
        .catch((err: unknown) => {
          throw new UserError(describePgError(err), this.where);
        });
      added += r.rowCount ?? 0;
      for (const k of Object.keys(rows) as Array<keyof typeof rows>) rows[k].length = 0;
    };
    for (let start = from - (from % SEGMENT); start < to; start += SEGMENT) {
      const path = join(dir, segmentName(start));
      if (!existsSync(path)) throw new UserError(`${segmentName(start)} of ${id} is missing from the working folder; nothing pushed`, this.dir);
      const lines = readFileSync(path, 'utf8').split('\n').slice(0, -1);
      for (let i = 0; i < lines.length; i++) {
        const seq = start + i;
        if (seq < from || seq >= to) continue;
        let event: Partial<SpEvent> = {};
        try {
          event = JSON.parse(lines[i]) as SpEvent;
        } catch {
          throw new UserError(`${segmentName(start)}:${i + 1} of ${id}: not JSON; nothing pushed`, this.dir);
        }
        rows.seq.push(seq);
        rows.line.push(lines[i]);
        rows.checksum.push(typeof event.checksum === 'string' ? event.checksum : null);
        rows.ts.push(typeof event.ts === 'number' && Number.isFinite(event.ts) ? event.ts : null);
        rows.type.push(typeof event.type === 'string' ? event.type : null);
        // NUL cannot be stored in a text column; search never needs it.
        rows.body.push(searchText(event as SpEvent).replace(/\u0000/g, ''));
        if (rows.seq.length >= BATCH) await flush();
      }
    }
    await flush();
    return added;
  }

  private async uploadArtifacts(): Promise<number> {
    const dir = join(this.dir, 'artifacts');
    if (nodeKind(dir) !== 'dir') return 0;
    const local = readdirSync(dir).filter((n) => BLOB_NAME.test(n) && nodeKind(join(dir, n)) === 'file');
    if (local.length === 0) return 0;
    const present = new Set((await this.query<{ name: string }>('SELECT name FROM sp.artifacts WHERE name = ANY($1::text[])', [local])).map((r) => r.name));
    let added = 0;
    for (const name of local) {
      if (present.has(name)) continue;
      const r = await this.query('INSERT INTO sp.artifacts (name, bytes) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING name', [name, readFileSync(join(dir, name))]);
      added += r.length;
    }
    return added;
  }
}

/** Makes the private folders for `rel` (a file path below `base`) without following anything. */
function mkdirPrivate(base: string, rel: string): void {
  makePrivateDir(base);
  const parts = rel.split('/').slice(0, -1);
  let at = base;
  for (const p of parts) {
    at = join(at, p);
    if (nodeKind(at) !== 'dir') {
      rmSync(at, { force: true });
      mkdirSync(at, { mode: 0o700 });
    }
  }
}

// ---- search ---------------------------------------------------------------------------------------

export interface TeamSearchFilters {
  agent?: string;
  project?: string;
  machine?: string;
  /** Event time bounds, seconds since the epoch (since inclusive, until exclusive). */
  since?: number;
  until?: number;
  limit: number;
}

export interface TeamHit {
  machine: string;
  session: string;
  seq: number;
  type: string | null;
  ts: number | null;
  agent: string | null;
  project: string;
  snippet: string;
}

/**
 * Searches every session this role may read (row-level security decides which): words through
 * the full-text index (tsvector, 'simple' configuration: no stemming, any language), and any
 * substring (CJK, code fragments such as `foo.bar(`) through the pg_trgm index. Newest first.
 */
export async function searchTeam(client: PgClient, text: string, filters: TeamSearchFilters, where: string): Promise<TeamHit[]> {
  await checkSchema(client, where);
  const like = '%' + text.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
  const sql = `
    SELECT e.machine, e.session_id, e.seq, e.type, e.ts, s.agent, s.project,
      CASE WHEN e.tsv @@ q.q THEN ts_headline('simple', e.body, q.q, 'MaxWords=24, MinWords=8, MaxFragments=1, StartSel=[, StopSel=]')
           ELSE substr(e.body, greatest(1, strpos(lower(e.body), lower($1)) - 60), 160) END AS snippet
    FROM sp.events e
    JOIN sp.sessions s ON s.machine = e.machine AND s.session_id = e.session_id,
    (SELECT plainto_tsquery('simple', $1) AS q) q
    WHERE (e.tsv @@ q.q OR e.body ILIKE $2)
      AND NOT s.deleted
      AND ($3::text IS NULL OR s.agent = $3)
      AND ($4::text IS NULL OR s.project = $4)
      AND ($5::text IS NULL OR e.machine = $5)
      AND ($6::float8 IS NULL OR e.ts >= $6)
      AND ($7::float8 IS NULL OR e.ts < $7)
    ORDER BY e.ts DESC NULLS LAST, e.machine, e.session_id, e.seq
    LIMIT $8`;
  try {
    const rows = (
      await client.query(sql, [text, like, filters.agent ?? null, filters.project ?? null, filters.machine ?? null, filters.since ?? null, filters.until ?? null, Math.max(1, Math.min(filters.limit, 10_000))])
    ).rows as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      machine: String(r.machine),
      session: String(r.session_id),
      seq: Number(r.seq),
      type: (r.type as string | null) ?? null,
      ts: r.ts === null ? null : Number(r.ts),
      agent: (r.agent as string | null) ?? null,
      project: String(r.project ?? ''),
      snippet: String(r.snippet ?? '').replace(/\s+/g, ' ').trim(),
    }));
  } catch (err) {
    throw new UserError(`search failed: ${describePgError(err)}`, where);
  }
}
