// The append-only session store (docs/design.md §5, seed §5.1/§8):
//
//   <store>/sessions/<id>/events.jsonl       canonical events, seq 0.., hash-chained: the truth
//   <store>/sessions/<id>/events.jsonl.ckpt  an anchor (seq, offset, checksum) every 512 events
//   <store>/sessions/<id>/manifest.json      signed summary: head, counts, URI, owner, lineage
//   <store>/artifacts/<sha256 hex>           content-addressed blobs (images) events refer to as sha256:<hex>;
//                                            written by `ingest --artifacts DIR` and pull, once, never changed
//   <store>/receipts/<id>.json               signed handoff receipts
//   <store>/index.sqlite                     rebuildable index + sync cursors
//   <store>/lock, <store>/journal            one writer at a time; sessions a writer touched
//
// A write goes: journal the append (session, byte range, hash; signed, fsynced; see journal.ts) →
// append the lines and fsync → index (one SQLite transaction) → manifest (temp file + rename). A
// process killed at any point leaves bytes past the signed end that the journal covers; the next
// writer completes exactly that range when it hashes and chains onto the signed head, or cuts the
// log back to the signed end. Bytes past the signed end that no journal entry covers were not
// written here: the session is damaged, never adopted, and refused by writers until repaired (other
// sessions go on). Readers read the log only up to the manifest's byte count. Everything is private
// (folders 0700, files 0600).
import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, readSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { Chainer } from '../core/chain.js';
import type { SpEvent } from '../core/event.js';
import { fileLines } from '../core/lines.js';
import { isObject, parseJsonObject } from '../core/json.js';
import { replaceFileAtomic } from '../fs/atomic.js';
import { UserError, warn } from '../cli/diagnostics.js';
import { makePrivateDir, PRIVATE_FILE, removeStaleTemps } from '../fs/private.js';
import type { EventValidator } from '../core/schema.js';
import { IndexWriter, openDb, rowToSummary, type Db } from './db.js';
import { catchUpSearchIndex, fillSearchIndex, unsearchedEvents } from './search-index.js';
import { applyEvent, emptySummary, eventKey, TOMBSTONE_KEY, type SessionSummary } from './derive.js';
import { ensureKeys, keysDir, signDocument, type KeyPair, type Signature } from './identity.js';
import { StoreLock } from './lock.js';
import { journalAppend, journalPath, pendingAppend, readJournal, type JournalEntry } from './journal.js';
import { ANCHOR_EVERY, ANCHOR_FILE, LOG_FILE, MANIFEST_FILE, anchorLines, fileLinesSync, appendDurably, readAnchors, scanLog, startPointFor, type Anchor, type ChainPoint } from './log.js';
import { machineId, SESSION_ID_PATTERN, spHome } from './paths.js';
import { compiledContextEntry, mergeCompiledContext, type CompiledContextEntry } from './compiled.js';

// 1.1.0: compiled_context is written (a list of the session's handoffs); 1.0.0 manifests still verify.
export const MANIFEST_VERSION = '1.1.0';

export interface Manifest {
  schema_version: string;
  session_id: string;
  session_uri: string;
  project: { org: string; name: string; cwd_hash?: string };
  created_by: { agent: string | null; session_id: string | null; machine: string };
  title: string | null;
  current_owner: { agent: string | null; granted_at?: number; receipt?: string };
  owner_history: Array<{ agent: string; granted_at?: number; receipt?: string }>;
  parent_session: string | null;
  lineage: { root: string; fork_of: string | null; fork_seq: number | null; reason: string | null; merged_into: null };
  deleted: boolean;
  event_count: number;
  first_seq: number;
  last_seq: number;
  head: string | null;
  /** The log's length in bytes that this manifest covers (readers stop there). */
  bytes: number;
  updated_at: number;
  /** Whether the stored events went through redaction (absent: stored before stages redacted by default). */
  redaction?: RedactionRecord;
  /** The handoffs compiled from this session (lib/store/compiled.ts). */
  compiled_context?: CompiledContextEntry[];
  signature?: Signature;
  [extra: string]: unknown;
}

/** How a session's events were stored: redacted (with which rules and key), or kept as they came. */
export interface RedactionRecord {
  state: 'redacted' | 'unredacted';
  ruleset?: string;
  key_id?: string;
  profile?: string;
}

/** A manifest's redaction state; a session stored before stages redacted by default counts as unredacted. */
export function redactionState(m: Pick<Manifest, 'redaction'> | undefined): 'redacted' | 'unredacted' {
  return m?.redaction?.state === 'redacted' ? 'redacted' : 'unredacted';
}

/**
 * The state after adding events stored as `incoming`: redacted only while every event was; events
 * already stored unredacted (or before the state was recorded) keep the session unredacted.
 */
function mergeRedaction(previous: Manifest | undefined, incoming: RedactionRecord): RedactionRecord {
  if (incoming.state === 'unredacted' || !previous || previous.event_count === 0) return incoming;
  return redactionState(previous) === 'redacted' ? incoming : (previous.redaction ?? { state: 'unredacted' });
}

export interface SearchHit {
  session: string;
  seq: number;
  type: string;
  ts: number | null;
  title: string | null;
  snippet: string;
}

export interface OpenOptions {
  readonly?: boolean;
  /** How long a writer waits for another writer's lock (default 10 s). */
  lockTimeoutMs?: number;
  /** SP_HOME for keys and the machine id (default $SP_HOME or ~/.sp). */
  home?: string;
}

export interface IngestItem {
  event: Record<string, unknown>;
  /** `source:line`, for diagnostics. */
  where?: string;
}

export interface IngestResult {
  added: number;
  skipped: number;
  rejected: number;
  sessions: Array<{ session: string; added: number; skipped: number; last_seq: number }>;
}

export interface AppendResult {
  added: number;
  skipped: number;
  /** Stored seqs of the appended events, in order. */
  seqs: number[];
}

interface Live {
  id: string;
  dir: string;
  summary: SessionSummary;
  manifest?: Manifest;
  lastAnchor: number;
  /** This run's incoming seq → stored seq, where they differ (to renumber parent_seq/derived_from). */
  seqMap: Map<number, number>;
  /** Whose seqs seqMap holds (the ingest stream, or one machine's log on a remote). */
  seqSource?: string;
  /** The redaction state the next manifest records (else the previous manifest's). */
  redaction?: RedactionRecord;
}

/** What `append` takes besides the events: a new session's URI, whose seqs they are, how they were redacted. */
export interface AppendInit {
  uri?: string;
  source?: string;
  redaction?: RedactionRecord;
}

/** One session's part of a group append, chained and indexed, before any file is written. */
interface PreparedAppend {
  live: Live;
  summary: SessionSummary;
  anchors: Anchor[];
  seqs: number[];
  compiled: CompiledContextEntry[];
  skipped: number;
  /** The lines to append (absent: every event was stored already). */
  data?: Buffer;
}

/**
 * Events of one session per durable commit (journal fsync + index transaction + log fsync +
 * manifest); ingest commits every pending session together once 4×BATCH are pending.
 * SP_INGEST_BATCH overrides it.
 */
const BATCH = Math.max(1, Number(process.env.SP_INGEST_BATCH) || 1000);

export class Store {
  private db?: Db;
  private writer?: IndexWriter;
  private lock?: StoreLock;
  private keys?: KeyPair;
  private readonly live = new Map<string, Live>();
  /** Sessions with a journaled append whose manifest is not written yet (the journal stays while any is). */
  private readonly inFlight = new Set<string>();
  private journalWritten = false;
  /** Sessions found damaged: writers refuse them with this error; the others go on. */
  private readonly damaged = new Map<string, UserError>();
  private validator?: EventValidator;
  readonly home: string;
  readonly machine: string;

  private constructor(
    readonly dir: string,
    readonly readonly: boolean,
    home: string,
  ) {
    this.home = home;
    this.machine = readonly ? '' : machineId(home);
  }

  /** Opens a store. A writer takes the lock, repairs what a killed writer left and keeps the index current. */
  static open(dir: string, options: OpenOptions = {}): Store {
    const store = new Store(dir, options.readonly === true, options.home ?? spHome());
    if (store.readonly) {
      if (existsSync(join(dir, 'index.sqlite'))) store.db = openDb(join(dir, 'index.sqlite'), true);
      return store;
    }
    makePrivateDir(join(dir, 'sessions'));
    store.lock = StoreLock.acquire(dir, options.lockTimeoutMs);
    try {
      const fresh = !existsSync(join(dir, 'index.sqlite'));
      // SQLite creates the database (and its -wal/-shm, which copy its mode) 0644: create it 0600 first.
      if (fresh) closeSync(openSync(join(dir, 'index.sqlite'), 'a', PRIVATE_FILE));
      store.db = openDb(join(dir, 'index.sqlite'), false);
      store.writer = new IndexWriter(store.db);
      store.keys = ensureKeys(store.home);
      store.removeStaleTemps();
      if (fresh) store.reindexAll(false);
      else store.recover();
    } catch (err) {
      store.close();
      throw err;
    }
    return store;
  }

  close(): void {
    // An append that failed half-way (a full disk) keeps its journal entry for the next writer.
    if (this.journalWritten && this.inFlight.size === 0 && !this.readonly) {
      try {
        unlinkSync(journalPath(this.dir));
      } catch {
        // never written
      }
      this.journalWritten = false;
    }
    this.db?.close();
    this.db = undefined;
    this.lock?.release();
  }

  sessionDir(id: string): string {
    if (!SESSION_ID_PATTERN.test(id)) throw new UserError(`not a session id: ${JSON.stringify(id)}`);
    return join(this.dir, 'sessions', id);
  }

  /** Stored sessions (tombstoned ones only with `all`), newest first. */
  sessions(options: { all?: boolean } = {}): SessionSummary[] {
    if (!this.db) return this.sessionsFromManifests(options.all === true);
    const rows = this.db.prepare(`SELECT * FROM sessions ${options.all ? '' : 'WHERE deleted = 0'} ORDER BY last_ts DESC, id`).all() as Record<string, unknown>[];
    return rows.map(rowToSummary);
  }

  private sessionsFromManifests(all: boolean): SessionSummary[] {
    const root = join(this.dir, 'sessions');
    if (!existsSync(root)) return [];
    const out: SessionSummary[] = [];
    for (const id of readdirSync(root)) {
      const m = this.manifest(id);
      if (!m || (m.deleted && !all)) continue;
      out.push({ ...emptySummary(id), agent: m.created_by.agent, native_id: m.created_by.session_id, title: m.title, events: m.event_count, owner: m.current_owner.agent, uri: m.session_uri, parent: m.parent_session, deleted: m.deleted, head: m.head, bytes: m.bytes });
    }
    return out;
  }

  /** One session's summary (tombstoned included), or undefined. */
  session(id: string): SessionSummary | undefined {
    if (this.db) {
      const row = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown> | undefined;
      return row ? rowToSummary(row) : undefined;
    }
    return this.sessionsFromManifests(true).find((s) => s.id === id);
  }

  /** Resolves a session id or a unique prefix of one (or of its native id). */
  resolveSession(ref: string): string {
    const all = this.sessions({ all: true });
    const exact = all.find((s) => s.id === ref);
    if (exact) return exact.id;
    const native = all.filter((s) => s.native_id === ref);
    if (native.length === 1) return native[0].id;
    const matches = all.filter((s) => s.id.startsWith(ref) || (s.native_id !== null && s.native_id.startsWith(ref)));
    if (matches.length === 1) return matches[0].id;
    if (matches.length === 0) throw new UserError(`no stored session matches ${JSON.stringify(ref)}`, this.dir);
    throw new UserError(`${matches.length} stored sessions match ${JSON.stringify(ref)}; give more of the id`, this.dir);
  }

  manifest(id: string): Manifest | undefined {
    const path = join(this.sessionDir(id), MANIFEST_FILE);
    if (!existsSync(path)) return undefined;
    const value = parseJsonObject(readFileSync(path, 'utf8')).value;
    if (!value) throw new UserError('manifest is not a JSON object', path);
    return value as Manifest;
  }

  /**
   * Full-text search over message text, tool input/output, commands and diffs. Three characters or
   * more use the trigram index (substring match, any script); shorter queries scan with LIKE.
   */
  search(text: string, options: { limit?: number; session?: string } = {}): SearchHit[] {
    if (!this.db || text === '') return [];
    // The text of what writers appended since the last search goes in first (search-index.ts).
    if (this.writer) fillSearchIndex(this.db, this.dir);
    else catchUpSearchIndex(this.dir, this.db);
    const limit = options.limit ?? 20;
    const long = [...text].length >= 3;
    const where = long ? 'fts MATCH @q' : "fts.text LIKE @q ESCAPE '\\'";
    const q = long ? `"${text.replace(/"/g, '""')}"` : `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = this.db
      .prepare(
        `SELECT fts.session AS session, fts.seq AS seq, fts.text AS text, e.type AS type, e.ts AS ts, s.title AS title
         FROM fts JOIN sessions s ON s.id = fts.session LEFT JOIN events e ON e.session = fts.session AND e.seq = fts.seq
         WHERE ${where} AND s.deleted = 0 ${options.session ? 'AND fts.session = @session' : ''}
         ORDER BY ${long ? 'rank' : 's.last_ts DESC, fts.seq'} LIMIT @limit`,
      )
      .all({ q, limit, session: options.session }) as Array<{ session: string; seq: number; text: string; type: string; ts: number | null; title: string | null }>;
    return rows.map((r) => ({ session: r.session, seq: r.seq, type: r.type, ts: r.ts, title: r.title, snippet: snippet(r.text, text) }));
  }

  /** A stored session's events in order (from `since` on), as far as its manifest acknowledges them. */
  async *events(sessionId: string, options: { since?: number } = {}): AsyncGenerator<SpEvent> {
    const dir = this.sessionDir(sessionId);
    const limit = this.live.get(sessionId)?.summary.bytes ?? this.manifest(sessionId)?.bytes;
    if (limit === undefined) throw new UserError(`no stored session ${sessionId}`, this.dir);
    const since = options.since ?? 0;
    const start = startPointFor(readAnchors(dir).filter((a) => a.offset <= limit), since);
    if (start.offset >= limit) return;
    for await (const line of fileLines(join(dir, LOG_FILE), { start: start.offset })) {
      if (line.start >= limit) break;
      const event = JSON.parse(line.text) as SpEvent;
      if (event.seq >= since) yield event;
    }
  }

  /** The stored log's lines from `since` on, as raw text (for pushing them unchanged). */
  *rawLines(sessionId: string, since = 0): Generator<{ seq: number; text: string }> {
    const dir = this.sessionDir(sessionId);
    const limit = this.live.get(sessionId)?.summary.bytes ?? this.manifest(sessionId)?.bytes ?? 0;
    const start = startPointFor(readAnchors(dir).filter((a) => a.offset <= limit), since);
    if (start.offset >= limit) return;
    let seq = start.seq;
    for (const line of fileLinesSync(join(dir, LOG_FILE), start.offset)) {
      if (line.start >= limit) break;
      if (seq >= since) yield { seq, text: line.text };
      seq += 1;
    }
  }

  /** The stored event at `seq` of a session, or undefined. */
  eventAt(sessionId: string, seq: number): SpEvent | undefined {
    const line = this.rawLines(sessionId, seq).next().value;
    return line && line.seq === seq ? (JSON.parse(line.text) as SpEvent) : undefined;
  }

  /** The stored seq of the event with this event key in a session, or undefined. */
  storedSeq(sessionId: string, key: string): number | undefined {
    return this.requireWriter().seqOfKey(sessionId, key);
  }

  /** How many stored events the search index does not hold the text of yet (the next search adds it). */
  unsearched(): number {
    return this.db ? unsearchedEvents(this.db) : 0;
  }

  /** Sync cursors: how far a remote's log of one machine's session was read (pull) or written (push, machine = own). */
  cursor(remote: string, machine: string, session: string): { seq: number; head: string | null } | undefined {
    if (!this.db) return undefined;
    return this.db.prepare('SELECT seq, head FROM cursors WHERE remote = ? AND machine = ? AND session = ?').get(remote, machine, session) as { seq: number; head: string | null } | undefined;
  }

  setCursor(remote: string, machine: string, session: string, seq: number, head: string | null): void {
    this.requireWriter();
    this.db!.prepare('INSERT INTO cursors(remote, machine, session, seq, head) VALUES (?, ?, ?, ?, ?) ON CONFLICT(remote, machine, session) DO UPDATE SET seq = excluded.seq, head = excluded.head').run(remote, machine, session, seq, head);
  }

  cursors(remote?: string): Array<{ remote: string; machine: string; session: string; seq: number; head: string | null }> {
    if (!this.db) return [];
    const sql = `SELECT remote, machine, session, seq, head FROM cursors ${remote ? 'WHERE remote = ?' : ''} ORDER BY remote, machine, session`;
    return (remote ? this.db.prepare(sql).all(remote) : this.db.prepare(sql).all()) as Array<{ remote: string; machine: string; session: string; seq: number; head: string | null }>;
  }

  // ---- writing ---------------------------------------------------------------------------------

  private requireWriter(): IndexWriter {
    if (!this.writer) throw new UserError('the store was opened read-only', this.dir);
    return this.writer;
  }

  /**
   * Ingests canonical events: per session, events already stored (same key) are skipped, new ones
   * are appended after the stored tail with the next seq and chained onto it.
   */
  async ingest(
    items: AsyncIterable<IngestItem> | Iterable<IngestItem>,
    options: { onBatch?: (added: number, session: string) => void; redaction?: RedactionRecord } = {},
  ): Promise<IngestResult> {
    this.requireWriter();
    const result: IngestResult = { added: 0, skipped: 0, rejected: 0, sessions: [] };
    const perSession = new Map<string, { session: string; added: number; skipped: number; last_seq: number }>();
    const pending = new Map<string, SpEvent[]>();
    // Sessions a writer refuses (damaged): one line each, their events counted as rejected, the rest go on.
    const refused = new Set<string>();
    const validator = await this.schema();
    let buffered = 0;
    // Every pending session goes in one durable commit (appendGroup): one journal fsync and one
    // index transaction for the lot, so a home of many small sessions is not a commit per session.
    const flush = (only?: string) => {
      const groups = [...pending].filter(([id]) => only === undefined || id === only).map(([id, events]) => ({ id, events }));
      for (const { id, events } of groups) {
        pending.delete(id);
        buffered -= events.length;
      }
      if (groups.length === 0) return;
      const outcomes = this.appendGroup(groups, { source: 'ingest', redaction: options.redaction });
      for (const [i, r] of outcomes.entries()) {
        const { id, events } = groups[i];
        if ('error' in r) {
          refused.add(id);
          warn(r.error.where, `${r.error.message}; ${id}: ${events.length} event${events.length === 1 ? '' : 's'} not stored, nor any after`);
          result.rejected += events.length;
          continue;
        }
        const entry = perSession.get(id) ?? { session: id, added: 0, skipped: 0, last_seq: -1 };
        entry.added += r.added;
        entry.skipped += r.skipped;
        entry.last_seq = this.live.get(id)!.summary.events - 1;
        perSession.set(id, entry);
        result.added += r.added;
        result.skipped += r.skipped;
        options.onBatch?.(r.added + r.skipped, id);
      }
    };
    for await (const { event, where } of items) {
      const problem = invalidEvent(event);
      if (problem) {
        warn(where, `not stored: ${problem}`);
        result.rejected += 1;
        continue;
      }
      const issues = validator.validate(event);
      if (issues.length > 0) {
        warn(where, `schema: ${issues[0].path} ${issues[0].message}; not stored`);
        result.rejected += 1;
        continue;
      }
      const e = event as unknown as SpEvent;
      if (refused.has(e.session)) {
        result.rejected += 1;
        continue;
      }
      let list = pending.get(e.session);
      if (!list) pending.set(e.session, (list = []));
      list.push(e);
      buffered += 1;
      // Where a commit ends shows in the manifest (an owner's granted_at is the last_ts of the commit
      // that first records it): the boundaries stay those of one session's BATCH events or 4×BATCH pending.
      if (list.length >= BATCH) flush(e.session);
      else if (buffered >= 4 * BATCH) flush();
    }
    flush();
    result.sessions = [...perSession.values()];
    return result;
  }

  /** The schema validator (ajv, loaded on first use); every writer path checks events with it before they are stored. */
  async schema(): Promise<EventValidator> {
    if (!this.validator) {
      const { createValidator } = await import('../core/schema.js');
      this.validator = await createValidator();
    }
    return this.validator;
  }

  /**
   * Appends events to one session (created when new). Events whose key is stored already are
   * skipped. `init` fills a new session's manifest fields (fork lineage, a pulled URI).
   */
  append(id: string, events: SpEvent[], init: AppendInit = {}): AppendResult {
    const outcome = this.appendGroup([{ id, events }], init)[0];
    if ('error' in outcome) throw outcome.error;
    return outcome;
  }

  /**
   * Appends to several sessions in one durable commit: every session's chained lines are indexed in
   * one SQLite transaction, the journal entries of all of them are written with one fsync, then each
   * log is appended (and fsynced), the transaction commits and each manifest is signed. A session
   * refused on its own (damaged, an event failing the schema) rolls back only its part (a savepoint)
   * and comes back as `{ error }`; the others are stored. A crash anywhere leaves what recovery
   * settles per session exactly as after a one-session append (journal.ts).
   */
  private appendGroup(groups: Array<{ id: string; events: SpEvent[] }>, init: AppendInit): Array<AppendResult | { error: UserError }> {
    this.requireWriter();
    const outcomes: Array<{ error: UserError } | PreparedAppend> = [];
    const written: PreparedAppend[] = [];
    // Opening a session may catch its index up from the log (its own commits): done before the group's transaction.
    const lives = groups.map(({ id }) => {
      try {
        return this.liveSession(id);
      } catch (err) {
        if (!(err instanceof UserError)) throw err;
        return err;
      }
    });
    const run = this.db!.transaction(() => {
      for (const [i, { events }] of groups.entries()) {
        const live = lives[i];
        if (live instanceof UserError) {
          outcomes.push({ error: live });
          continue;
        }
        try {
          // A savepoint: a session that fails half-way leaves no index rows behind.
          const prepared = this.db!.transaction(() => this.prepareAppend(live, events, init))();
          outcomes.push(prepared);
          if (prepared.data) written.push(prepared);
        } catch (err) {
          if (!(err instanceof UserError)) throw err;
          outcomes.push({ error: err });
        }
      }
      if (written.length === 0) return;
      // One fsync journals every session's append before any log grows.
      const entries = written.map((w) => ({ session: w.live.id, start: w.live.summary.bytes, end: w.live.summary.bytes + w.data!.length, sha256: sha256(w.data!) }));
      this.journal(entries);
      for (const w of written) {
        appendDurably(join(w.live.dir, LOG_FILE), w.data!);
        if (w.anchors.length > 0) appendDurably(join(w.live.dir, ANCHOR_FILE), anchorLines(w.anchors));
      }
    });
    run();
    return outcomes.map((o) => {
      if ('error' in o) return o;
      if (o.data) {
        const { live } = o;
        if (o.anchors.length > 0) live.lastAnchor = o.anchors[o.anchors.length - 1].seq;
        live.summary = o.summary;
        if (init.redaction) live.redaction = mergeRedaction(live.manifest, init.redaction);
        this.writeManifest(live, o.compiled);
        this.inFlight.delete(live.id);
      }
      return { added: o.seqs.length, skipped: o.skipped, seqs: o.seqs };
    });
  }

  /** Chains and indexes one session's new events (inside the caller's transaction); writes no file. */
  private prepareAppend(live: Live, events: SpEvent[], init: AppendInit): PreparedAppend {
    const writer = this.writer!;
    const id = live.id;
    const source = init.source ?? 'local';
    if (live.seqSource !== source) {
      live.seqMap.clear();
      live.seqSource = source;
    }
    const summary: SessionSummary = { ...live.summary };
    const chainer = new Chainer();
    if (summary.head) chainer.seed(id, summary.head);
    const lines: string[] = [];
    const anchors: Anchor[] = [];
    let bytes = summary.bytes;
    const seqs: number[] = [];
    const compiled: CompiledContextEntry[] = [];
    const now = Date.now() / 1000;
    let skipped = 0;
    for (const incoming of events) {
      const key = eventKey(incoming);
      const existing = writer.seqOfKey(id, key);
      if (existing !== undefined) {
        if (existing !== incoming.seq) live.seqMap.set(incoming.seq, existing);
        else live.seqMap.delete(incoming.seq);
        skipped += 1;
        continue;
      }
      const seq = summary.events;
      if (seq !== incoming.seq) live.seqMap.set(incoming.seq, seq);
      else live.seqMap.delete(incoming.seq);
      const stored: SpEvent = { ...incoming, session: id, seq };
      if (typeof stored.parent_seq === 'number') stored.parent_seq = live.seqMap.get(stored.parent_seq) ?? stored.parent_seq;
      if (typeof stored.derived_from === 'number') stored.derived_from = live.seqMap.get(stored.derived_from) ?? stored.derived_from;
      const { event: chained, line: text } = chainer.chainWithLine(stored);
      // Whatever path an event comes by (ingest, pull, fork), what fails the schema is never stored.
      // ingest() checked this event already: only its seq, lineage seqs and checksum changed since.
      const issues = source === 'ingest' ? [] : (this.validator?.validate(chained) ?? []);
      if (issues.length > 0) throw new UserError(`seq ${incoming.seq}: schema: ${issues[0].path} ${issues[0].message}; not stored`, id);
      const line = text + '\n';
      lines.push(line);
      bytes += Buffer.byteLength(line);
      writer.addEvent(chained, key);
      applyEvent(summary, chained);
      summary.bytes = bytes;
      seqs.push(seq);
      const handoff = compiledContextEntry(chained, now);
      if (handoff) compiled.push(handoff);
      if ((seq + 1) % ANCHOR_EVERY === 0) anchors.push({ seq, offset: bytes, head: chained.checksum! });
    }
    if (lines.length === 0) return { live, summary, anchors, seqs, compiled, skipped };
    makePrivateDir(live.dir);
    summary.uri ??= init.uri ?? this.deriveUri(summary);
    writer.putSession(summary);
    return { live, summary, anchors, seqs, compiled, skipped, data: Buffer.from(lines.join('')) };
  }

  /** Appends a tombstone: the session disappears from `ls` and search; nothing is removed. */
  remove(id: string, reason?: string): AppendResult {
    const live = this.liveSession(id);
    if (live.summary.events === 0) throw new UserError(`no stored session ${id}`, this.dir);
    if (live.summary.deleted) return { added: 0, skipped: 1, seqs: [] };
    return this.append(id, [
      {
        session: id,
        seq: live.summary.events,
        ts: Date.now() / 1000,
        agent: live.summary.agent ?? 'sp',
        actor: 'system',
        type: 'meta',
        payload: { key: TOMBSTONE_KEY, deleted: true, machine: this.machine, ...(reason ? { reason } : {}) },
      },
    ]);
  }

  /**
   * Forks a session at `atSeq`: a new session holding the parent's events 0..atSeq, then a
   * `session.fork` event (parent_seq = atSeq) that names the parent; lineage goes in the manifest.
   */
  async fork(parentId: string, atSeq: number, reason: string): Promise<{ session: string; events: number }> {
    const parent = this.liveSession(parentId);
    if (parent.summary.events === 0) throw new UserError(`no stored session ${parentId}`, this.dir);
    if (!Number.isInteger(atSeq) || atSeq < 0 || atSeq >= parent.summary.events) {
      throw new UserError(`--at ${atSeq} is outside the session (seq 0–${parent.summary.events - 1})`);
    }
    const child = 'sess_' + createHash('sha256').update(`sp-fork\0${parentId}\0${atSeq}\0${reason}\0${this.machine}\0${Date.now()}\0${Math.random()}`).digest('hex').slice(0, 32);
    const uri = (parent.summary.uri ?? this.deriveUri(parent.summary)).replace(/\/[^/]+$/, `/${child}`);
    let batch: SpEvent[] = [];
    let last: SpEvent | undefined;
    for await (const event of this.events(parentId)) {
      if (event.seq > atSeq) break;
      const { checksum: _c, ...rest } = event;
      last = { ...rest, session: child } as SpEvent;
      batch.push(last);
      if (batch.length >= BATCH) {
        this.append(child, batch, { uri, redaction: parent.manifest?.redaction });
        batch = [];
      }
    }
    batch.push({
      session: child,
      seq: atSeq + 1,
      ts: Date.now() / 1000,
      agent: last?.agent ?? parent.summary.agent ?? 'sp',
      actor: 'system',
      type: 'session.fork',
      parent_seq: atSeq,
      payload: { from_session: parentId, from_seq: atSeq, to_session: child, reason, machine: this.machine },
    });
    this.append(child, batch, { uri, redaction: parent.manifest?.redaction });
    return { session: child, events: this.liveSession(child).summary.events };
  }

  /** Rebuilds index.sqlite's derived tables from the logs (the sync cursors are kept). */
  reindex(): void {
    this.requireWriter();
    this.reindexAll(true);
    for (const err of this.damaged.values()) warn(err.where, `${err.message}; not indexed`);
    fillSearchIndex(this.db!, this.dir);
  }

  private reindexAll(drop: boolean): void {
    const db = this.db!;
    if (drop) db.exec('DELETE FROM sessions; DELETE FROM events; DELETE FROM fts; DELETE FROM fts_mark;');
    this.live.clear();
    const root = join(this.dir, 'sessions');
    const journal = this.ownJournal();
    for (const id of readdirSync(root).sort()) {
      if (!SESSION_ID_PATTERN.test(id) || !statSync(join(root, id)).isDirectory()) continue;
      this.catchUpOrMarkDamaged(id, journal);
    }
  }

  /** Repairs the sessions a killed writer was appending to (the journal's signed entries). */
  private recover(): void {
    const path = journalPath(this.dir);
    if (!existsSync(path)) return;
    const journal = this.ownJournal();
    for (const id of new Set(journal.map((e) => e.session))) if (existsSync(join(this.dir, 'sessions', id))) this.catchUpOrMarkDamaged(id, journal);
    unlinkSync(path);
  }

  /** One damaged session is remembered and refused later, never a reason to refuse the store. */
  private catchUpOrMarkDamaged(id: string, journal: JournalEntry[]): void {
    try {
      this.catchUp(id, journal);
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      this.damaged.set(id, err);
    }
  }

  /** The journal's entries signed by this SP_HOME's own key (nobody else's count here). */
  private ownJournal(): JournalEntry[] {
    return readJournal(this.dir, new Map([[this.keys!.keyId, this.keys!.publicRaw]]));
  }

  private journal(entries: JournalEntry[]): void {
    journalAppend(this.dir, entries, this.keys!);
    this.journalWritten = true;
    for (const entry of entries) this.inFlight.add(entry.session);
  }

  /** Temp files and moved-aside locks of dead processes in the store's and SP_HOME's folders. */
  private removeStaleTemps(): void {
    const dirs = [this.home, keysDir(this.home), join(keysDir(this.home), 'trusted'), this.dir, join(this.dir, 'remotes'), join(this.dir, 'receipts'), join(this.dir, 'artifacts')];
    for (const e of this.ownJournal()) dirs.push(join(this.dir, 'sessions', e.session));
    removeStaleTemps(dirs);
  }

  private liveSession(id: string): Live {
    const damage = this.damaged.get(id);
    if (damage) throw damage;
    let live = this.live.get(id);
    if (live) return live;
    const dir = this.sessionDir(id);
    const summary = this.writer!.session(id) ?? emptySummary(id);
    const m = this.manifest(id);
    live = { id, dir, summary, manifest: m, lastAnchor: lastAnchorSeq(dir), seqMap: new Map() };
    // The index and manifest agree with each other on a store that was closed cleanly; anything
    // else (a crash between the steps, a log appended to by hand) is caught up from the log.
    if (existsSync(dir) && (!m || m.bytes !== summary.bytes || fileSize(join(dir, LOG_FILE)) !== summary.bytes)) {
      try {
        return this.catchUp(id);
      } catch (err) {
        if (err instanceof UserError) this.damaged.set(id, err);
        throw err;
      }
    }
    this.live.set(id, live);
    return live;
  }

  /**
   * Settles what lies past the signed end (the manifest's byte count; 0 without a manifest): an
   * append this store journaled is completed when its bytes are exactly the journaled ones and
   * chain onto the signed head, else cut back to the signed end. Anything else is damage, left
   * as it is for the user to look at (sp doctor says how to repair it).
   */
  private settleUnsigned(id: string, m: Manifest | undefined, journal: JournalEntry[]): void {
    const dir = this.sessionDir(id);
    const logPath = join(dir, LOG_FILE);
    const signedEnd = m?.bytes ?? 0;
    const size = fileSize(logPath);
    if (size <= signedEnd) return;
    const entry = pendingAppend(journal, id, signedEnd);
    if (!entry || size > entry.end) {
      const what = m ? 'past the end its signed manifest acknowledges' : 'in a log without a manifest';
      throw new UserError(`damaged at offset ${signedEnd}: ${size - signedEnd} bytes ${what}, which no journaled append of this store covers; not adopted (sp doctor shows the repair)`, logPath);
    }
    if (size === entry.end && sha256(readRange(logPath, signedEnd, size)) === entry.sha256) {
      const scan = scanLog(logPath, { offset: signedEnd, seq: m?.event_count ?? 0, head: m?.head ?? '' });
      if (!scan.damage && scan.end.offset === size) return; // the journaled append, complete: the caller signs it
    }
    // An interrupted append (torn, or not the bytes journaled): back to the last signed state.
    const fd = openSync(logPath, 'r+');
    try {
      ftruncateSync(fd, signedEnd);
    } finally {
      closeSync(fd);
    }
    trimAnchors(dir, signedEnd);
    warn(logPath, `repaired: an interrupted append cut back to the signed end (${signedEnd} bytes)`);
  }

  /**
   * Brings the index and the manifest up to the log's signed (or journaled and complete) end,
   * scanning only what the index does not hold yet. Damage is refused, never healed over.
   */
  private catchUp(id: string, journal: JournalEntry[] = this.ownJournal()): Live {
    const writer = this.writer!;
    const dir = this.sessionDir(id);
    const logPath = join(dir, LOG_FILE);
    const acknowledged = existsSync(join(dir, MANIFEST_FILE)) ? this.manifest(id) : undefined;
    if (acknowledged && fileSize(logPath) < acknowledged.bytes) {
      // Writers only ever append: a log shorter than its signed manifest lost events. Not healed over.
      throw new UserError(`the log is shorter (${fileSize(logPath)} bytes) than its manifest acknowledges (${acknowledged.bytes}): events were removed; see sp-verify`, logPath);
    }
    repairAnchorFile(dir);
    this.settleUnsigned(id, acknowledged, journal);
    let summary = writer.session(id) ?? emptySummary(id);
    if (writer.indexedCount(id) !== summary.events || (summary.bytes > 0 && fileSize(logPath) < summary.bytes)) {
      this.db!.transaction(() => writer.dropSession(id))();
      summary = emptySummary(id);
    }
    const m = acknowledged;
    const from: ChainPoint = { offset: summary.bytes, seq: summary.events, head: summary.head ?? '' };
    const anchors: Anchor[] = [];
    let lastAnchor = lastAnchorSeq(dir);
    const folded = { ...summary };
    // Index rows go in in transactions of a few thousand, so a long catch-up keeps memory flat.
    const pendingRows: Array<[SpEvent, string]> = [];
    const flushRows = () => {
      if (pendingRows.length === 0) return;
      this.db!.transaction(() => {
        for (const [event, key] of pendingRows) writer.addEvent(event, key);
        folded.uri ??= m?.session_uri ?? this.deriveUri(folded);
        writer.putSession(folded);
      })();
      pendingRows.length = 0;
    };
    const scan = scanLog(logPath, from, (event, end) => {
      pendingRows.push([event, eventKey(event)]);
      applyEvent(folded, event);
      folded.bytes = end;
      if ((event.seq + 1) % ANCHOR_EVERY === 0 && event.seq > lastAnchor) {
        anchors.push({ seq: event.seq, offset: end, head: event.checksum! });
        lastAnchor = event.seq;
      }
      if (pendingRows.length >= 4 * BATCH) flushRows();
    });
    flushRows();
    // Everything up to here is signed or a verified journaled append: a bad line in it was changed.
    if (scan.damage) throw new UserError(`log damaged at seq ${scan.damage.seq}, offset ${scan.damage.offset} (${scan.damage.reason}); not repairing — run sp-verify`, logPath);
    if (m && (folded.bytes < m.bytes || (folded.bytes === m.bytes && folded.head !== m.head))) {
      throw new UserError(`the log does not match its signed manifest (head ${String(m.head)} at ${m.bytes} bytes); not repairing — run sp-verify`, logPath);
    }
    if (anchors.length > 0) appendDurably(join(dir, ANCHOR_FILE), anchorLines(anchors));
    folded.uri = folded.uri ?? m?.session_uri ?? this.deriveUri(folded);
    if (folded.events > 0) this.db!.transaction(() => writer.putSession(folded))();
    const live: Live = { id, dir, summary: folded, manifest: m, lastAnchor, seqMap: new Map() };
    this.live.set(id, live);
    if (folded.events > 0 && (!m || m.bytes !== folded.bytes || m.head !== folded.head)) this.writeManifest(live);
    return live;
  }

  private writeManifest(live: Live, compiled: CompiledContextEntry[] = []): void {
    const s = live.summary;
    const previous = live.manifest;
    const uri = s.uri ?? this.deriveUri(s);
    const [, org = 'local', project = 'default'] = /^session:\/\/([^/]+)\/([^/]+)\//.exec(uri) ?? [];
    const history = [...(previous?.owner_history ?? [])];
    if (s.owner && history[history.length - 1]?.agent !== s.owner) history.push({ agent: s.owner, granted_at: s.last_ts ?? undefined });
    const manifest: Manifest = {
      schema_version: MANIFEST_VERSION,
      session_id: s.id,
      session_uri: uri,
      project: { org, name: project, ...(s.cwd ? { cwd_hash: 'sha256:' + createHash('sha256').update(s.cwd).digest('hex') } : {}) },
      created_by: previous?.created_by ?? { agent: s.agent, session_id: s.native_id, machine: this.machine },
      title: s.title,
      current_owner: { agent: s.owner, ...(history.length ? { granted_at: history[history.length - 1].granted_at } : {}) },
      owner_history: history,
      parent_session: s.parent,
      lineage: { root: previous?.lineage?.root ?? (s.parent ? this.rootOf(s.parent) : s.id), fork_of: s.parent, fork_seq: s.fork_seq, reason: s.fork_reason, merged_into: null },
      deleted: s.deleted,
      event_count: s.events,
      first_seq: 0,
      last_seq: s.events - 1,
      head: s.head,
      bytes: s.bytes,
      updated_at: Date.now() / 1000,
    };
    // Which stored seqs came from which origin machine (recorded by pull; see lib/store/origins.ts).
    if (previous?.origins) manifest.origins = previous.origins;
    // A session other machines wrote to takes its owner from the merged view (lib/store/converge.ts),
    // which sync and handoff sign in; the local log's order does not decide it.
    if (previous?.converged) {
      manifest.converged = previous.converged;
      manifest.current_owner = previous.current_owner;
      manifest.owner_history = previous.owner_history;
    }
    const redaction = live.redaction ?? previous?.redaction;
    if (redaction) manifest.redaction = redaction;
    if (previous?.compiled_context !== undefined || compiled.length > 0) manifest.compiled_context = mergeCompiledContext(previous?.compiled_context, compiled);
    const receipt = previous?.current_owner?.receipt;
    if (receipt && previous?.current_owner.agent === s.owner) manifest.current_owner.receipt = receipt;
    const signed = signDocument(manifest, this.keys!);
    replaceFileAtomic(join(live.dir, MANIFEST_FILE), JSON.stringify(signed, null, 2) + '\n', PRIVATE_FILE);
    live.manifest = signed;
  }

  /** Sets fields of a session's manifest (e.g. the receipt of its last handoff) and re-signs it. */
  updateManifest(id: string, change: (m: Manifest) => void): Manifest {
    const live = this.liveSession(id);
    if (!live.manifest) throw new UserError(`no stored session ${id}`, this.dir);
    const next = { ...live.manifest };
    change(next);
    const signed = signDocument(next, this.keys!);
    replaceFileAtomic(join(live.dir, MANIFEST_FILE), JSON.stringify(signed, null, 2) + '\n', PRIVATE_FILE);
    live.manifest = signed;
    return signed;
  }

  signer(): KeyPair {
    this.requireWriter();
    return this.keys!;
  }

  private rootOf(id: string): string {
    const m = existsSync(join(this.dir, 'sessions', id, MANIFEST_FILE)) ? this.manifest(id) : undefined;
    return m?.lineage?.root ?? id;
  }

  /**
   * session://<org>/<project>/<task>/<id>: org and project from the git remote of the session's
   * cwd (github.com/acme/api → acme/api) when it is a repository here, else `local` and the cwd's
   * last folder; task from the title (first prompt), slugged.
   */
  deriveUri(s: SessionSummary): string {
    let org = 'local';
    let project = s.cwd ? slug(basename(s.cwd)) || 'default' : 'default';
    if (s.cwd && existsSync(s.cwd)) {
      try {
        const url = execFileSync('git', ['-C', s.cwd, 'remote', 'get-url', 'origin'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim();
        const m = /[:/]([^/:]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url);
        if (m) {
          org = slug(m[1]) || org;
          project = slug(m[2]) || project;
        }
      } catch {
        // not a git repository, or no origin
      }
    }
    const task = slug(s.title ?? '').slice(0, 48).replace(/-+$/, '') || 'session';
    return `session://${org}/${project}/${task}/${s.id}`;
  }
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function sha256(bytes: Buffer): string {
  return 'sha256:' + createHash('sha256').update(bytes).digest('hex');
}

function readRange(path: string, start: number, end: number): Buffer {
  const out = Buffer.alloc(end - start);
  const fd = openSync(path, 'r');
  try {
    let got = 0;
    while (got < out.length) {
      const n = readSync(fd, out, got, out.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return out.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** Drops the anchors past `end` (anchors of an append that was cut back). */
function trimAnchors(dir: string, end: number): void {
  const anchors = readAnchors(dir);
  if (anchors.every((a) => a.offset <= end)) return;
  replaceFileAtomic(join(dir, ANCHOR_FILE), anchorLines(anchors.filter((a) => a.offset <= end)).toString(), PRIVATE_FILE);
}

function lastAnchorSeq(dir: string): number {
  const anchors = readAnchors(dir);
  return anchors.length ? anchors[anchors.length - 1].seq : -1;
}

/** Cuts a torn last line off the anchor file (an anchor append that was killed). */
function repairAnchorFile(dir: string): void {
  const path = join(dir, ANCHOR_FILE);
  if (!existsSync(path)) return;
  const bytes = readFileSync(path);
  const keep = bytes.lastIndexOf(0x0a) + 1;
  if (keep === bytes.length) return;
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, keep);
  } finally {
    closeSync(fd);
  }
}

function snippet(text: string, query: string, around = 60): string {
  const at = text.toLowerCase().indexOf(query.toLowerCase());
  const start = Math.max(0, at - around);
  const end = at < 0 ? around * 2 : at + query.length + around;
  return (start > 0 ? '…' : '') + text.slice(start, end).replace(/\s+/g, ' ') + (end < text.length ? '…' : '');
}

/** Why an input object cannot be stored, or undefined when it can. */
export function invalidEvent(e: Record<string, unknown>): string | undefined {
  if (typeof e.session !== 'string' || !SESSION_ID_PATTERN.test(e.session)) return 'no usable "session" (an id of letters, digits, _ . : -)';
  if (!Number.isInteger(e.seq) || (e.seq as number) < 0) return 'no usable "seq"';
  if (typeof e.type !== 'string' || e.type === '') return 'no "type"';
  if (typeof e.agent !== 'string') return 'no "agent"';
  if (typeof e.ts !== 'number' || !Number.isFinite(e.ts)) return 'no numeric "ts"';
  if (!isObject(e.payload)) return '"payload" is not an object';
  return undefined;
}
