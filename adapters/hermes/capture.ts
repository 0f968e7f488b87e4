// `capture` for Hermes: one session of a state.db (or, for `<id>+`, every session of its lineage
// tree, parents first) → session.start, then every message row in id order (rows.ts), with a
// session.fork in the parent where each child session began, and session.end when the session row
// says it ended. Everything is read inside ONE read transaction, so the session row and its
// messages are one consistent snapshot even while Hermes writes.
//
// Incremental (--cursor): per session the cursor keeps the last message id consumed (`rowid`), a
// hash of that row (a deleted or rewritten session is reported, never mis-read), the number of
// archived rows up to it, and a marker of the session row. The next run emits only rows with a
// larger id (ids are assigned in commit order by Hermes's serialized writers, so a committed row
// never appears below the cursor later), then what changed: rows archived since (in-place
// compaction, /undo) as one meta, new child sessions as forks, and session.end / reopen / counter
// updates when the marker moved. Each of these comes out exactly once.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import type { CaptureOptions, Cursor, SessionRef, SourcePosition } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import { canonicalSessionId, type SpEvent } from '../../lib/core/event.js';
import { emptyCursor } from '../../lib/capture/read-position.js';
import type { Json } from '../../lib/core/json.js';
import { TREE_SUFFIX, openSnapshot, type Snapshot } from './discover.js';
import { captureExport } from './export.js';
import { LineageReader, type Lineage } from './lineage.js';
import { dbOfPath, formatLocator, parseLocator } from './paths.js';
import { AGENT, newRowState, sessionMapper, plainRow, type Row, type RowState } from './rows.js';
import type { Schema } from './schema.js';
import { closeReadConnections, errorText, prepared, rowMaker, type Db } from '../../lib/capture/sqlite.js';
import { mergeSortedSpans } from '../../lib/core/ranges.js';


interface SessionState {
  rows: RowState;
  /** Child sessions that already have their session.fork. */
  forks: string[];
  /** The end last emitted (null: open), to emit each end and reopen once. */
  end: { at: number | null; reason: string | null };
  /** The counters last reported. */
  counters: Json;
}

export interface HermesState {
  sessions: Record<string, SessionState>;
}

/** Session columns whose changes an incremental capture reports (besides the end). */
const COUNTERS = ['title', 'model', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'api_call_count', 'estimated_cost_usd', 'actual_cost_usd', 'cost_status'];
const STATS = ['message_count', 'tool_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'api_call_count'];
const COST = ['billing_provider', 'billing_base_url', 'billing_mode', 'estimated_cost_usd', 'actual_cost_usd', 'cost_status', 'cost_source', 'pricing_version'];
/** Session columns session.start names itself; every other non-null column goes to `extra`. */
const START_KEYS = new Set([
  'id', 'source', 'model', 'model_config', 'system_prompt', 'system_prompt_hash', 'parent_session_id', 'started_at', 'ended_at', 'end_reason',
  'cwd', 'git_branch', 'git_repo_root', 'title', 'profile_name', ...STATS, ...COST,
]);

function num(value: unknown): number | undefined {
  if (typeof value === 'bigint') return Number(value);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function plainValue(value: unknown): unknown {
  return typeof value === 'bigint' ? Number(value) : value;
}

/** The hash of a message row's content (not its `active`/`compacted` flags, which Hermes changes in place). */
function rowHash(row: Row): string {
  const { active: _a, compacted: _c, ...rest } = plainRow(row);
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex');
}

function pick(row: Row, keys: string[]): Json {
  const out: Json = {};
  for (const key of keys) if (row[key] !== undefined && row[key] !== null) out[key] = plainValue(row[key]);
  return out;
}

/** Sorted, merged id ranges: the archived rows an incremental capture already reported. */
function addRanges(ranges: Array<[number, number]>, ids: number[]): Array<[number, number]> {
  const all = [...ranges.map(([a, b]) => [a, b] as [number, number]), ...ids.map((id) => [id, id] as [number, number])].sort((x, y) => x[0] - y[0]);
  return mergeSortedSpans(all);
}

function inRanges(ranges: Array<[number, number]>, id: number): boolean {
  return ranges.some(([a, b]) => id >= a && id <= b);
}

interface Position extends SourcePosition {
  rowid: number;
  row_sha256?: string;
  /** Archived rows (active = 0) with id ≤ rowid, as ranges. */
  inactive?: Array<[number, number]>;
}

interface Context {
  db: Db;
  schema: Schema;
  dbPath: string;
  lineage: LineageReader;
  options: CaptureOptions;
  cursor: Cursor;
  state: HermesState;
  incremental: boolean;
}

/** session.start from a session row; `source` says where it was read (and the system prompt, resolved). */
export function sessionStart(srow: Row, lineage: Lineage, source: { path: string; schemaVersion?: number; systemPrompt?: string }): Json {
  const id = String(srow.id);
  const payload: Json = { native_id: id };
  if (typeof srow.cwd === 'string' && srow.cwd !== '') payload.cwd = srow.cwd;
  if (typeof srow.model === 'string') payload.model = srow.model;
  if (typeof srow.title === 'string') payload.title = srow.title;
  if (typeof srow.source === 'string') payload.source = srow.source;
  if (typeof srow.billing_provider === 'string') payload.provider = srow.billing_provider;
  if (num(srow.started_at) !== undefined) payload.started = num(srow.started_at);
  if (num(srow.ended_at) !== undefined) payload.ended = num(srow.ended_at);
  if (typeof srow.end_reason === 'string') payload.end_reason = srow.end_reason;
  if (typeof srow.git_branch === 'string') payload.git_branch = srow.git_branch;
  if (typeof srow.git_repo_root === 'string') payload.git_repo_root = srow.git_repo_root;
  if (typeof srow.profile_name === 'string') payload.profile_name = srow.profile_name;
  if (lineage.parent !== undefined) payload.parent_session = canonicalSessionId(AGENT, lineage.parent);
  payload.lineage = lineage;
  if (typeof srow.model_config === 'string') {
    try {
      payload.model_config = JSON.parse(srow.model_config);
    } catch {
      payload.model_config = srow.model_config;
    }
  }
  if (typeof srow.system_prompt_hash === 'string') payload.system_prompt_hash = srow.system_prompt_hash;
  const prompt = source.systemPrompt ?? (typeof srow.system_prompt === 'string' ? srow.system_prompt : undefined);
  if (prompt !== undefined) payload.system_prompt = prompt;
  payload.stats = pick(srow, STATS);
  const cost = pick(srow, COST);
  if (Object.keys(cost).length > 0) payload.cost = cost;
  const extra: Json = {};
  for (const [key, value] of Object.entries(srow)) if (!START_KEYS.has(key) && value !== null && value !== undefined) extra[key] = plainValue(value);
  if (Object.keys(extra).length > 0) payload.extra = extra;
  payload.source_path = source.path;
  if (source.schemaVersion !== undefined) payload.schema_version = source.schemaVersion;
  return payload;
}

/** `COALESCE(system_prompts.prompt, sessions.system_prompt)`, as Hermes reads it (v25 moved prompts out). */
function systemPrompt(ctx: Context, srow: Row): string | undefined {
  if (typeof srow.system_prompt_hash === 'string' && ctx.schema.tables.has('system_prompts')) {
    const row = prepared(ctx.db, 'SELECT prompt FROM system_prompts WHERE hash = ?').get(srow.system_prompt_hash) as { prompt?: unknown } | undefined;
    if (typeof row?.prompt === 'string') return row.prompt;
  }
  return typeof srow.system_prompt === 'string' ? srow.system_prompt : undefined;
}

export function endPayload(srow: Row): Json {
  const payload: Json = {};
  if (typeof srow.end_reason === 'string') payload.end_reason = srow.end_reason;
  payload.ended = num(srow.ended_at);
  payload.stats = pick(srow, STATS);
  const cost = pick(srow, COST);
  if (Object.keys(cost).length > 0) payload.cost = cost;
  return payload;
}

/** The events of one session: what is new since its position (everything on the first run). */
function* captureSession(ctx: Context, id: string): Generator<SpEvent> {
  const { db, dbPath, options, cursor, state } = ctx;
  const source = formatLocator(dbPath, id);
  const srow = prepared(db, 'SELECT * FROM sessions WHERE id = ?').get(id) as Row | undefined;
  const position = cursor.sources[source] as Position | undefined;
  if (!srow) {
    if (position) throw new UserError(`session ${id} was deleted since the cursor was stored; not continuing (capture again without the cursor)`, dbPath);
    throw new UserError(`no session "${id}" in this database`, dbPath);
  }
  const session = canonicalSessionId(AGENT, id);
  const emitter = new SessionEmitter(AGENT, id, { nextSeq: cursor.sessions[session]?.next_seq ?? 0 });
  const sstate: SessionState = state.sessions[id] ?? { rows: newRowState(), forks: [], end: { at: null, reason: null }, counters: {} };
  state.sessions[id] = sstate;
  const has = (column: string) => ctx.schema.messages.includes(column);

  if (position && position.rowid >= 0) {
    // The last row consumed must still be there, unchanged: otherwise ids below the cursor moved.
    const last = prepared(db, 'SELECT * FROM messages WHERE id = ?').get(position.rowid) as Row | undefined;
    if (!last || last.session_id !== id || (position.row_sha256 !== undefined && rowHash(last) !== position.row_sha256)) {
      throw new UserError(
        `message row ${position.rowid} of session ${id} is ${last ? 'not the row the cursor consumed' : 'gone'}: the session was rewritten or deleted since the cursor was stored; not continuing, so nothing is mis-read (capture again without the cursor)`,
        dbPath,
      );
    }
  }

  const lineage = ctx.lineage.lineage(id);
  const startTs = num(srow.started_at) ?? 0;
  if (position === undefined && emitter.nextSeq === 0) {
    const start = emitter.emit('session.start', sessionStart(srow, lineage, { path: ctx.dbPath, schemaVersion: ctx.schema.version, systemPrompt: systemPrompt(ctx, srow) }), startTs, { actor: 'system' });
    if (options.raw) start.origin = { ...start.origin!, raw: [JSON.stringify(plainRow(srow))] };
    yield start;
    sstate.counters = pick(srow, COUNTERS);
    sstate.end = { at: null, reason: null };
  }

  // Rows archived since the last run (an in-place compaction or /undo after they were emitted).
  let inactive = position?.inactive ?? [];
  if (position && has('active')) {
    // `+id` and no ORDER BY let SQLite answer from the (session_id, active, …) index alone: ordered
    // by id it walked every row of the session for `active`, past its content (10× slower, --all --cursor).
    const ids = (prepared(db, 'SELECT id FROM messages WHERE session_id = ? AND active = 0 AND +id <= ?').all(id, position.rowid) as Array<{ id: number | bigint }>)
      .map((r) => Number(r.id))
      .sort((a, b) => a - b);
    const fresh = ids.filter((rowId) => !inRanges(inactive, rowId));
    if (fresh.length > 0) {
      const compacted = prepared(db, `SELECT count(*) AS n FROM messages WHERE session_id = ? AND id <= ? AND active = 0 AND ${has('compacted') ? 'compacted = 1' : '0'}`).get(id, position.rowid) as { n: number };
      const ranges = addRanges([], fresh);
      yield emitter.emit('meta', { key: 'hermes.messages.archived', value: { rows: ranges, count: fresh.length, compacted: Number(compacted.n) > 0 }, seen_by_model: false }, Date.now() / 1000, { actor: 'system', origin: { native_seq: fresh[fresh.length - 1] } });
      inactive = addRanges(inactive, fresh);
    }
  }

  // Children not forked yet: each fork goes in before the first row newer than the child's start.
  const children = lineage.children.filter((c) => !sstate.forks.includes(c.id));
  const fork = (child: Lineage['children'][number], ts: number): SpEvent => {
    sstate.forks.push(child.id);
    const payload: Json = { to_session: canonicalSessionId(AGENT, child.id), native_id: child.id, reason: child.kind };
    if (emitter.nextSeq > 0) payload.from_seq = emitter.nextSeq - 1;
    return emitter.emit('session.fork', payload, child.started_at ?? ts, { actor: 'system' });
  };

  const mapper = sessionMapper(srow, { emitter, db: dbPath, state: sstate.rows, raw: options.raw, artifactsDir: options.artifactsDir, onDiagnostic: options.onDiagnostic });
  let lastRow: Row | undefined;
  let count = position?.line ?? 0;
  let lastTs = startTs;
  const statement = prepared(db, 'SELECT * FROM messages WHERE session_id = ? AND id > ? ORDER BY id').raw(true);
  const make = rowMaker(statement);
  for (const values of statement.iterate(id, position?.rowid ?? -1) as IterableIterator<unknown[]>) {
    const row = make(values) as Row;
    const ts = num(row.timestamp);
    while (children.length > 0 && ts !== undefined && (children[0].started_at ?? Infinity) < ts) yield fork(children.shift()!, lastTs);
    yield* mapper.row(row);
    if (ts !== undefined) lastTs = ts;
    if (num(row.active) === 0) inactive = addRanges(inactive, [Number(row.id)]);
    lastRow = row;
    count += 1;
  }
  while (children.length > 0) yield fork(children.shift()!, lastTs);

  // What the session row says now: its end, a reopen (resume clears the end), changed counters.
  const endedAt = num(srow.ended_at) ?? null;
  const reason = typeof srow.end_reason === 'string' ? srow.end_reason : null;
  if (position) {
    const counters = pick(srow, COUNTERS);
    const changed: Json = {};
    for (const key of new Set([...Object.keys(counters), ...Object.keys(sstate.counters)])) {
      if (JSON.stringify(counters[key]) !== JSON.stringify(sstate.counters[key])) changed[key] = counters[key] ?? null;
    }
    if (Object.keys(changed).length > 0) yield emitter.emit('meta', { key: 'hermes.session.update', value: changed, raw: plainRow(srow) }, lastTs, { actor: 'system' });
    sstate.counters = counters;
    if (endedAt === null && sstate.end.at !== null) {
      yield emitter.emit('meta', { key: 'hermes.session.reopened', value: { previous_end: sstate.end } }, lastTs, { actor: 'system' });
      sstate.end = { at: null, reason: null };
    }
  }
  if (endedAt !== null && (endedAt !== sstate.end.at || reason !== sstate.end.reason)) {
    if (ctx.schema.tables.has('session_model_usage')) {
      for (const usage of prepared(db, 'SELECT * FROM session_model_usage WHERE session_id = ? ORDER BY first_seen').all(id) as Row[]) {
        const raw = plainRow(usage);
        yield emitter.emit('meta', { key: 'hermes.model_usage', value: { model: raw.model, task: raw.task }, raw }, endedAt, { actor: 'system' });
      }
    }
    yield emitter.emit('session.end', endPayload(srow), endedAt, { actor: 'system' });
    sstate.end = { at: endedAt, reason };
  }

  const next: Position = position ? { ...position } : { offset: 0, line: 0, rowid: -1 };
  if (lastRow) {
    next.rowid = Number(lastRow.id);
    next.row_sha256 = rowHash(lastRow);
  }
  next.line = count;
  if (inactive.length > 0) next.inactive = inactive;
  cursor.sources[source] = next;
  cursor.sessions[session] = { ...cursor.sessions[session], next_seq: emitter.nextSeq };
}

// `sp-capture hermes --all` captures every session of one database in turn. Opening a snapshot
// (connection, read transaction, schema) per session cost more than reading the rows of a small
// session, so a snapshot a capture is done with is kept until the next timer tick: a capture of the
// same database that starts before then (the next session of --all) takes it over — when the
// database files are as they were when it was opened, so it sees nothing older than a fresh open
// would. Only lock-free snapshots are kept: a rollback-journal read transaction would hold off writers.
interface Kept {
  dbPath: string;
  snapshot: Snapshot;
  stamp: string;
  lineage: LineageReader;
  timer: NodeJS.Timeout;
}
let kept: Kept | undefined;

/** Size, modification time and inode of the database and its -wal/-shm: changes when a writer wrote. */
function filesStamp(dbPath: string): string {
  let stamp = '';
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      const st = statSync(dbPath + suffix, { bigint: true });
      stamp += `${st.ino}:${st.size}:${st.mtimeNs}|`;
    } catch {
      stamp += '-|';
    }
  }
  return stamp;
}

function dropKept(): void {
  if (!kept) return;
  clearTimeout(kept.timer);
  kept.snapshot.close();
  kept = undefined;
}

async function takeSnapshot(dbPath: string): Promise<{ snapshot: Snapshot; stamp: string; lineage?: LineageReader }> {
  if (kept && kept.dbPath === dbPath) {
    const stamp = filesStamp(dbPath);
    if (stamp === kept.stamp) {
      const { snapshot, lineage } = kept;
      clearTimeout(kept.timer);
      kept = undefined;
      return { snapshot, stamp, lineage };
    }
  }
  dropKept();
  const stamp = filesStamp(dbPath);
  return { snapshot: await openSnapshot(dbPath), stamp };
}

function keepSnapshot(dbPath: string, snapshot: Snapshot, stamp: string, lineage: LineageReader): void {
  if (snapshot.handle.mode === 'rollback') {
    snapshot.close();
    return;
  }
  dropKept();
  const entry: Kept = { dbPath, snapshot, stamp, lineage, timer: setTimeout(() => kept === entry && dropKept(), 0) };
  kept = entry;
}

/** The events of one Hermes session (or lineage tree), unchained. */
export async function* captureHermes(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  if (typeof ref.export === 'string') {
    yield* captureExport(ref, options);
    return;
  }
  const located = parseLocator(ref.path);
  const dbPath = typeof ref.db === 'string' ? ref.db : dbOfPath(located.db);
  const tree = ref.tree === true || (located.session?.endsWith(TREE_SUFFIX) ?? false);
  if (options.cursor && options.cursor.native_id !== ref.native_id) throw new UserError(`the cursor belongs to session ${options.cursor.native_id}, not ${ref.native_id}`);
  const known = Object.keys(options.cursor?.sources ?? {}).map((s) => parseLocator(s).db);
  if (known.length > 0 && !known.includes(dbPath)) {
    throw new UserError(`the cursor was stored for ${known[0]}; this session is now read from another database, so continuing could duplicate events`, dbPath);
  }
  for (let attempt = 1; ; attempt += 1) {
    const cursor: Cursor = options.cursor ? structuredClone(options.cursor) : emptyCursor(AGENT, ref.native_id);
    const state: HermesState = (cursor.state as HermesState | undefined) ?? { sessions: {} };
    cursor.state = state;
    // One snapshot for the whole capture; it stays open while the events are consumed (rows are
    // read as they are needed, so memory stays flat however long the session).
    const taken = await takeSnapshot(dbPath);
    const snapshot = taken.snapshot;
    let yielded = false;
    let done = false;
    const lineage = taken.lineage ?? new LineageReader(snapshot.db, snapshot.schema.sessions);
    try {
      const ctx: Context = { db: snapshot.db, schema: snapshot.schema, dbPath, lineage, options, cursor, state, incremental: options.cursor !== undefined };
      const ids = tree ? lineage.tree(ref.native_id) : [ref.native_id];
      for (const id of ids) {
        try {
          for (const event of captureSession(ctx, id)) {
            yielded = true;
            yield event;
          }
        } catch (err) {
          if (err instanceof UserError) throw err;
          // A lock-free read (immutable, a copy) of files a writer changed meanwhile may see a torn
          // page: read again from what is on disk now, unless events already went out.
          if (!yielded && attempt < 3 && snapshot.handle.mode !== 'wal-readonly-shm' && snapshot.handle.mode !== 'rollback') {
            snapshot.close();
            closeReadConnections();
            done = true;
            throw new Retry();
          }
          throw new UserError(`cannot read session ${id}: ${errorText(err)}`, dbPath);
        }
      }
      // Every event went out: the snapshot may serve the next session of this database.
      keepSnapshot(dbPath, snapshot, taken.stamp, lineage);
      done = true;
    } catch (err) {
      if (err instanceof Retry) continue;
      throw err;
    } finally {
      if (!done) snapshot.close();
    }
    options.onCursor?.(cursor);
    return;
  }
}

class Retry extends Error {}
