// The writer of OpenCode's session store (docs/formats/opencode.md §5), shared by the clients that keep
// it: OpenCode and its fork Kilo Code CLI (docs/formats/kilo.md §5). Each client's adapter names what
// differs in a `StoreWriter` (database name, session version, its default agent, model column shape,
// resume command); the rows are the same. What the client needs, and what this writer does:
//   * a database the client made and migrated (its `migration` rows): this writer adds rows, it never
//     creates the schema (run the client once, e.g. `opencode session list`, to make one);
//   * a `project` row for the session's project: the repo's first root commit for a git cwd (as the
//     client computes it, cached in `.git/<client>`), else `global`; added when missing;
//   * a `session` row (`ses_…` id, directory = the cwd the client must be run from, title, version);
//   * `message` rows with `time_created` strictly ascending in conversation order and never in the
//     future (the client orders by that column), ids made from those times (ascending);
//   * `part` rows: user text (and images as file parts), assistant step-start, reasoning (signature
//     in metadata.anthropic for Anthropic), text, tool parts with a COMPLETE state (input object,
//     output or error, time {start, end}; the client crashes on a tool without state.time), step-finish;
//     a stub result for a call without one (the provider APIs refuse an unanswered call);
//   * everything in ONE `BEGIN IMMEDIATE` transaction, after a backup of the database (`--no-backup`
//     skips it); an existing session is never touched.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { MaterializeOptions } from '../../adapter/interface.js';
import { createCopyWithModeOf } from '../../fs/atomic.js';
import { UserError } from '../../cli/diagnostics.js';
import type { SpEvent } from '../../core/event.js';
import { isObject, str, type Json } from '../../core/json.js';
import { PROVIDER_TOOL_ID, ToolIds } from '../../write/plan.js';
import { activeBranchView } from '../../write/branches.js';
import { SpooledLines, SpooledSession } from '../../write/spool.js';
import { callsOf, turnsOf, turnsOutline, type AssistantTurn, type Report, type ToolCall, type UserTurn } from '../../write/turns.js';
import { LossLedger, ensureUnder, payloadOf, resumeFields, sameNativeId, type NativeIdFormat, type WriterResult } from '../../write/writer.js';
import { errorText, openForWrite, patience, retryBusy, type Db } from '../../capture/sqlite.js';
import { expandTilde } from '../../fs/paths.js';
import { IdMaker } from './ids.js';
import { formatLocator, type DataDirOwner } from './locator.js';
import { backupName } from '../../fs/backup.js';

/** What one client of the format writes differently (its adapter's materialize.ts spells it). */
export interface StoreWriter {
  owner: DataDirOwner;
  /** The client version the session row names (the one the writer was verified with). */
  version: string;
  /** The client's command, for the resume line and error messages. */
  bin: string;
  /** The client's default agent, named by every message (`agent`, and `mode` on assistant messages). */
  mode: string;
  /** The provider given a `--model` without one (`model` rather than `provider/model`). */
  fallbackProvider: string;
  /** The model assistant turns that name none are written with. */
  defaultModel: string;
  nativeId: NativeIdFormat;
  /** The folder under $XDG_DATA_HOME the client's data dir is (the home the resume line can point at). */
  dataDirName: string;
  homeEnv: string;
  /** The file in a repo's git dir where the client caches the project id. */
  projectCache: string;
  /** The database of a data dir (`isDefault`: no --home was given, so the client's own override applies). */
  dbOfHome(home: string, isDefault: boolean): string;
  /** Session columns beyond the shared ones, given the model of the new prompt (none: the client's default). */
  sessionColumns(model: { providerID: string; modelID: string } | undefined): Json;
  /** The busy-retry setting the user gave (ms, as text), if any: how long a locked database is waited for. */
  busySetting(): string | undefined;
}

export interface StoreMaterializeResult extends WriterResult {
  title?: string;
  project_id: string;
  backup?: string;
  messages: number;
  parts: number;
}

/** `provider/model` for assistant rows, from another agent's model name. */
export function providerModel(model: string | undefined): { providerID: string; modelID: string } | undefined {
  if (!model || model === '<synthetic>') return undefined;
  const slash = model.indexOf('/');
  if (slash > 0) return { providerID: model.slice(0, slash), modelID: model.slice(slash + 1) };
  if (/^claude-/.test(model)) return { providerID: 'anthropic', modelID: model };
  if (/^(gpt-|o\d|codex-|chatgpt-)/.test(model)) return { providerID: 'openai', modelID: model };
  if (/^gemini-/.test(model)) return { providerID: 'google', modelID: model };
  if (/^deepseek-/.test(model)) return { providerID: 'deepseek', modelID: model };
  if (/^(qwen|qwq)/i.test(model)) return { providerID: 'alibaba', modelID: model };
  return undefined;
}

/** The project id the client gives `cwd`: the cached `.git/<cacheFile>`, else the first root commit, else `global`. */
export function projectOf(cwd: string, cacheFile: string): { id: string; worktree: string; vcs?: string } {
  let top: string;
  let gitDir: string;
  try {
    const out = execFileSync('git', ['rev-parse', '--show-toplevel', '--absolute-git-dir'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n');
    [top, gitDir] = out;
  } catch {
    return { id: 'global', worktree: '/' };
  }
  try {
    const cached = readFileSync(join(gitDir, cacheFile), 'utf8').trim();
    if (cached) return { id: cached, worktree: top, vcs: 'git' };
  } catch {
    // not cached: computed below
  }
  try {
    const roots = execFileSync('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').filter(Boolean).sort();
    if (roots[0]) return { id: roots[0], worktree: top, vcs: 'git' };
  } catch {
    // a repo without commits
  }
  return { id: 'global', worktree: '/' };
}

const SLUG_WORDS = ['amber', 'brisk', 'calm', 'deft', 'eager', 'fair', 'gentle', 'hardy', 'keen', 'lively', 'mellow', 'nimble', 'plucky', 'quiet', 'steady', 'tidy'];
const SLUG_NOUNS = ['badger', 'cedar', 'comet', 'falcon', 'harbor', 'island', 'lantern', 'meadow', 'otter', 'pine', 'river', 'summit', 'thistle', 'valley', 'willow', 'wren'];

function slug(): string {
  const r = Math.floor(Math.random() * 256);
  return `${SLUG_WORDS[r & 15]}-${SLUG_NOUNS[r >> 4]}`;
}

interface Row {
  table: 'message' | 'part';
  id: string;
  message_id?: string;
  time: number;
  data: Json;
}

function checkDatabase(db: Db, path: string): void {
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name));
  for (const table of ['project', 'session', 'message', 'part', 'migration']) {
    if (!tables.has(table)) throw new UserError(`not a database of an OpenCode 1.18-style client (no ${table} table); run the client once to create or migrate it`, path);
  }
  const migrations = (db.prepare('SELECT count(*) AS n FROM migration').get() as { n: number }).n;
  if (migrations === 0) throw new UserError('the database has no migration rows (the client would re-run its migrations on it); run the client once to create it', path);
}

/** What the rows of one turn are made with. */
interface RowContext {
  writer: StoreWriter;
  rows: RowSpool;
  ids: IdMaker;
  report: Report;
  sameAgent: boolean;
  cwd: string;
  userModel?: { providerID: string; modelID: string };
  /** The tool id written for a call (and its result). */
  callId: (id: string, event: SpEvent) => string;
  /** The last user message written (assistant messages name it as their parent). */
  lastUser?: string;
}

/**
 * The message and part rows as they are made, spooled to disk (a large session's rows are never
 * held): one line per row, `[table, id, message_id, time, data as JSON text]`, inserted in order.
 */
class RowSpool {
  readonly lines = new SpooledLines();
  messages = 0;
  parts = 0;

  push(row: Row): void {
    if (row.table === 'message') this.messages += 1;
    else this.parts += 1;
    this.lines.push(JSON.stringify([row.table, row.id, row.message_id ?? null, row.time, JSON.stringify(row.data)]));
  }

  *rows(): Generator<{ table: Row['table']; id: string; message_id: string | null; time: number; data: string }> {
    for (const line of this.lines.lines()) {
      const [table, id, message_id, time, data] = JSON.parse(line) as [Row['table'], string, string | null, number, string];
      yield { table, id, message_id, time, data };
    }
  }
}

/** Times (ms) for the user and assistant turns: the source's, made strictly ascending and ending before now. */
function turnTimes(seconds: readonly number[], now: number): number[] {
  const times: number[] = [];
  for (const ts of seconds) {
    const ms = typeof ts === 'number' && Number.isFinite(ts) ? Math.floor(ts * 1000) : now;
    times.push(Math.max(ms, (times[times.length - 1] ?? -Infinity) + 1));
  }
  const overshoot = (times[times.length - 1] ?? 0) - (now - 1000);
  if (overshoot > 0) for (let i = 0; i < times.length; i += 1) times[i] -= overshoot;
  return times;
}

/** Writes the selected session of `events` as a new session of `writer`'s client. */
export async function materializeStore(writer: StoreWriter, events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<StoreMaterializeResult> {
  const selected = await SpooledSession.create(events, options.session);
  try {
    return await writeStore(writer, selected, options);
  } finally {
    selected.remove();
  }
}

/**
 * The database, checked as every writer checks its target: one named inside the home (its own, or a
 * name the client's variable gives) must stay inside it once symlinks are resolved, so a link placed
 * in a home cannot make sp write a database elsewhere. The home itself may be a link (a moved data
 * dir), and so may the database if it names a file of the home. A path the variable names outside
 * the home is the user's own choice, as it is the client's.
 */
function databaseIn(home: string, dbPath: string): string {
  const rel = relative(home, dbPath);
  const named = rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  return named ? ensureUnder(home, dbPath, 'the home') : dbPath;
}

async function writeStore(writer: StoreWriter, selected: SpooledSession, options: MaterializeOptions): Promise<StoreMaterializeResult> {
  const { owner } = writer;
  const start = selected.start;
  const sp = start ? payloadOf(start) : {};
  const ledger = new LossLedger(options.onLoss);
  const report: Report = (action, code, reason, event) => ledger.report(action, code, reason, event);
  for (const [id, other] of selected.others) report('dropped', 'child-session', `session ${id}${other.nativeId ? ` (native ${other.nativeId})` : ''}, ${other.count} event(s), is a separate session: not written`);
  const sameAgent = start?.agent === owner.agent;

  const home = resolve(expandTilde(options.home ?? owner.defaultHome()));
  const dbPath = databaseIn(home, writer.dbOfHome(home, options.home === undefined));
  let cwd = str(options.cwd) ?? str(sp.cwd);
  if (!cwd) {
    cwd = process.cwd();
    report('transformed', 'cwd', `the session names no cwd: ${cwd} is recorded (pass --cwd)`);
  }
  cwd = resolve(expandTilde(cwd));
  if (!existsSync(cwd) && options.mkcwd && !options.dryRun) mkdirSync(cwd, { recursive: true });

  // The session is read twice by position: once for the turns' times (the first row's needs the last's), once to write.
  const safety = options.safety !== false;
  const chosen = options.branch === 'active' ? activeBranchView(selected.events, report) : selected.events;
  const outline = turnsOutline(chosen, { safety });
  if (!outline.hasUser) throw new UserError('nothing to write: the session has no user message');

  // The model of the new prompt: --model, else (same agent) the source's; none: the client's default.
  const userModel = options.model ? providerModel(options.model) ?? { providerID: writer.fallbackProvider, modelID: options.model } : sameAgent && str(sp.model) ? { providerID: str(sp.provider) ?? providerModel(str(sp.model))?.providerID ?? writer.fallbackProvider, modelID: str(sp.model)! } : undefined;
  const now = Date.now();
  const times = turnTimes(outline.times, now);

  // Ids the provider APIs accept, unique in the file (results are matched by them): lib/write/plan.ts.
  const toolIds = new ToolIds(PROVIDER_TOOL_ID, report);
  const rows = new RowSpool();
  try {
    const ctx: RowContext = { writer, rows, ids: new IdMaker(), report, sameAgent, cwd, userModel, callId: (id, event) => toolIds.id(id, event) };
    let title = str(sp.title);
    let index = 0;
    for (const turn of turnsOf(chosen, report, { safety })) {
      if (turn.role === 'other') reportOther(turn.event, report, owner.label);
      else if (turn.role === 'user') {
        const firstLine = userRows(turn, times[index++], ctx);
        title ??= firstLine;
      } else assistantRows(turn, times[index++], ctx);
    }

    const project = projectOf(existsSync(cwd) ? cwd : '/', writer.projectCache);
    if (!existsSync(cwd)) report('transformed', 'project', `the cwd ${cwd} does not exist here: the session joins the global project (the client must be run from the cwd to resume it; --mkcwd creates it)`);
    const created = Math.min(times[0] ?? now, now - 1000);
    const sessionIds = new IdMaker();
    if (options.sameId && !sameAgent) throw new UserError(`--same-id keeps ${/^[AEIOU]/.test(owner.label) ? 'an' : 'a'} ${owner.label} session's own id; this session comes from ${start?.agent ?? 'an unknown agent'} (drop --same-id)`);
    // A kept id goes into the resume command: it must have the client's own shape.
    const sessionId = options.sameId ? sameNativeId(writer.nativeId, sp.native_id) : sessionIds.next('ses', now);
    title = (title ?? 'Imported session').replace(/\s+/g, ' ').trim().slice(0, 100) || 'Imported session';
    const session: Json = { id: sessionId, project_id: project.id, slug: slug(), directory: cwd, title, version: writer.version, time_created: created, time_updated: now - 1, ...writer.sessionColumns(userModel) };

    if (options.onLine) {
      options.onLine(JSON.stringify({ table: 'session', row: session }));
      for (const r of rows.rows()) options.onLine(JSON.stringify({ table: r.table, row: { id: r.id, ...(r.message_id ? { message_id: r.message_id } : {}), session_id: sessionId, time_created: r.time, data: JSON.parse(r.data) as Json } }));
    }
    const backup = options.dryRun ? undefined : await insertSession(writer, dbPath, { session, project, rows, now, sameId: Boolean(options.sameId), backup: options.backup !== false, newId: () => sessionIds.next('ses', Date.now()) });
    const written = String(session.id);

    const result: StoreMaterializeResult = {
      agent: owner.agent,
      session_id: written,
      path: formatLocator(dbPath, written),
      cwd,
      // XDG_DATA_HOME names the folder that holds the data dir: a home of another name cannot be pointed at.
      ...resumeFields(cwd, [writer.bin, '--session', written], basename(home) === writer.dataDirName ? { variable: writer.homeEnv, value: dirname(home), builtIn: join(homedir(), '.local', 'share') } : undefined),
      records: rows.messages + rows.parts + 1,
      messages: rows.messages,
      parts: rows.parts,
      project_id: project.id,
      source_session: selected.session,
      changes: ledger.counts,
      written_as: 'rebuilt',
      title,
    };
    if (userModel) result.model = `${userModel.providerID}/${userModel.modelID}`;
    if (backup) result.backup = backup;
    if (options.dryRun) result.dry_run = true;
    return result;
  } finally {
    rows.lines.remove();
  }
}

/** What no row of the format carries: reported. */
function reportOther(event: SpEvent, report: Report, label: string): void {
  const p = payloadOf(event);
  if (event.type === 'checkpoint' && p.kind === 'compaction') report('dropped', 'compaction', `a ${event.agent} compaction: not written, the whole history is written instead`, event);
  else if (event.type === 'meta') report('dropped', 'meta', `meta ${String(p.key ?? '')} from ${event.agent}: not written (the writer makes its own step and bookkeeping parts)`, event);
  else report('dropped', event.type, `${event.type} from ${event.agent}: no ${label} row carries it`, event);
}

/** A user turn: its message row and its parts; returns the title it would give (its first line). */
function userRows(turn: UserTurn, t: number, ctx: RowContext): string {
  const { writer, rows, ids, report, sameAgent, userModel } = ctx;
  const messageId = ids.next('msg', t);
  ctx.lastUser = messageId;
  const data: Json = { role: 'user', time: { created: t }, agent: writer.mode };
  if (userModel) data.model = userModel;
  rows.push({ table: 'message', id: messageId, time: t, data });
  const part = (partData: Json): void => rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: partData });
  const blocks = Array.isArray(payloadOf(turn.event).content) ? (payloadOf(turn.event).content as Json[]) : [];
  const synthetic = sameAgent && turn.event.agent === writer.owner.agent;
  let wrote = false;
  if (synthetic) {
    // The client's own parts: text parts one by one (synthetic ones marked), file parts as they were.
    for (const b of blocks) {
      if (b.type === 'text' && typeof b.text === 'string') part({ type: 'text', text: b.text, ...(b.synthetic === true ? { synthetic: true } : {}) });
      else if (b.type === 'file' && typeof b.url === 'string') part({ type: 'file', mime: b.mime ?? 'application/octet-stream', filename: b.filename ?? 'file', url: b.url, ...(b.source !== undefined ? { source: b.source } : {}) });
      else continue;
      wrote = true;
    }
  }
  if (!wrote && turn.text !== '') part({ type: 'text', text: turn.text });
  if (!wrote) {
    for (const b of turn.files) {
      if (typeof b.url === 'string') part({ type: 'file', mime: b.mime ?? 'application/octet-stream', filename: b.filename ?? 'file', url: b.url });
    }
  }
  for (const image of turn.images) {
    if (typeof image.data === 'string') {
      part({ type: 'file', mime: image.media_type, filename: 'image', url: `data:${image.media_type};base64,${image.data}` });
    } else {
      part({ type: 'text', text: `[image: ${image.media_type} (not carried over)]` });
      report('rendered', 'image', 'an image stored elsewhere (artifact/url) written as a text marker', turn.event);
    }
  }
  return turn.text.split('\n')[0].slice(0, 80);
}

/** An assistant turn: one message (one model call), its parts in order between step-start and step-finish. */
function assistantRows(turn: AssistantTurn, t: number, ctx: RowContext): void {
  const { writer, rows, ids, report, sameAgent, cwd } = ctx;
  const messageId = ids.next('msg', t);
  if (!ctx.lastUser) {
    // The client pairs assistant messages with the user message before them.
    const placeholder = ids.next('msg', t);
    report('stubbed', 'leading-user', 'the session starts with an assistant turn: an empty-looking user message "(continued)" is written before it', turn.events[0]);
    rows.push({ table: 'message', id: placeholder, time: t, data: { role: 'user', time: { created: t }, agent: writer.mode } });
    rows.push({ table: 'part', id: ids.next('prt', t), message_id: placeholder, time: t, data: { type: 'text', text: '(continued)' } });
    ctx.lastUser = placeholder;
  }
  const providerId = sameAgent ? turn.events.map((e) => str(payloadOf(e).provider_id)).find((v) => v !== undefined) : undefined;
  const pm = (providerId && turn.model ? { providerID: providerId, modelID: turn.model } : providerModel(turn.model)) ?? providerModel(writer.defaultModel)!;
  if (!turn.model) report('transformed', 'model', `an assistant turn names no model: written as ${pm.providerID}/${pm.modelID}`, turn.events[0]);
  const calls = callsOf(turn);
  const end = t + 1;
  const data: Json = { role: 'assistant', parentID: ctx.lastUser, mode: writer.mode, agent: writer.mode, path: { cwd, root: cwd }, cost: 0, tokens: { total: 0, input: 0, output: 0, reasoning: 0, cache: { write: 0, read: 0 } }, modelID: pm.modelID, providerID: pm.providerID, time: { created: t, completed: end }, finish: calls.length > 0 ? 'tool-calls' : 'stop' };
  // The message row goes first (its id is older than the first part id made after it).
  rows.push({ table: 'message', id: messageId, time: t, data });
  const part = (partData: Json): void => rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: partData });
  part({ type: 'step-start' });
  for (const p of turn.parts) {
    if (p.kind === 'text') {
      part({ type: 'text', text: p.text, time: { start: t, end } });
    } else if (p.kind === 'thinking') {
      const d: Json = { type: 'reasoning', text: p.text, time: { start: t, end } };
      if (p.signature && (p.provider === 'anthropic' || pm.providerID === 'anthropic')) d.metadata = { anthropic: { signature: p.signature } };
      else if (p.signature) report('transformed', 'reasoning-signature', 'reasoning written as text; its signature stays behind (not an Anthropic one)', p.event);
      part(d);
    } else part(toolPart(p.call, t, ctx));
  }
  part({ type: 'step-finish', reason: data.finish, tokens: data.tokens, cost: 0 });
}

/** A call as a tool part with a complete state (the client crashes on a tool without state.time). */
function toolPart(c: ToolCall, t: number, { writer, report, sameAgent, callId }: RowContext): Json {
  const end = t + 1;
  const input = isObject(c.input) ? c.input : { input: c.input };
  if (!isObject(c.input)) report('transformed', 'tool-input', `tool call ${c.call_id} input is not an object: written as {input: …}`, c.event);
  const state: Json = c.is_error
    ? { status: 'error', input, error: c.content, time: { start: t, end } }
    : { status: 'completed', input, output: c.content, title: '', metadata: {}, time: { start: t, end } };
  if (sameAgent && c.result && c.result.agent === writer.owner.agent) {
    const structured = payloadOf(c.result).structured;
    if (isObject(structured)) {
      if (isObject(structured.metadata)) state.metadata = structured.metadata;
      if (typeof structured.title === 'string' && !c.is_error) state.title = structured.title;
    }
  }
  return { type: 'tool', tool: c.name, callID: callId(c.call_id, c.event), state };
}

interface Insert {
  /** The session row (its id changes when another session took it meanwhile). */
  session: Json;
  project: { id: string; worktree: string; vcs?: string };
  rows: RowSpool;
  now: number;
  sameId: boolean;
  backup: boolean;
  newId: () => string;
}

/**
 * Adds the session to the client's database: after a backup (unless --no-backup), every row in ONE
 * `BEGIN IMMEDIATE` transaction read from the spool, committed at the end (an interrupted write
 * leaves nothing). Returns the backup's path.
 */
async function insertSession(writer: StoreWriter, dbPath: string, write: Insert): Promise<string | undefined> {
  const { session, project, rows, now } = write;
  if (!existsSync(dbPath)) throw new UserError(`no ${dbPath.endsWith('.db') ? writer.owner.dbName : 'database'} here: run the client once (e.g. \`${writer.bin} session list\`) so it creates and migrates its database, then write into it`, dbPath);
  const db = await openForWrite(dbPath, false);
  let backup: string | undefined;
  try {
    checkDatabase(db, dbPath);
    if (write.backup) {
      backup = backupName(dbPath);
      try {
        // Built in a temp file with the database's own mode (0600 stays 0600), then linked into place.
        await createCopyWithModeOf(dbPath, backup, async (temp) => {
          await db.backup(temp);
        });
      } catch (err) {
        throw new UserError(`cannot back the database up before writing (nothing was written; --no-backup skips the backup): ${errorText(err)}`, dbPath);
      }
    }
    const insert = (): void => {
      db.exec('BEGIN IMMEDIATE');
      try {
        if (db.prepare('SELECT 1 FROM session WHERE id = ?').get(session.id)) {
          if (write.sameId) throw new UserError(`session ${String(session.id)} exists already: --same-id never overwrites a session`, dbPath);
          session.id = write.newId();
        }
        if (!db.prepare('SELECT 1 FROM project WHERE id = ?').get(project.id)) {
          db.prepare('INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, ?, ?)').run(project.id, project.worktree, project.vcs ?? null, now, now, '[]');
        }
        const columns = Object.keys(session);
        db.prepare(`INSERT INTO session (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(...columns.map((c) => session[c] as string | number));
        const sessionId = String(session.id);
        const insertMessage = db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)');
        const insertPart = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)');
        for (const r of rows.rows()) {
          if (r.table === 'message') insertMessage.run(r.id, sessionId, r.time, r.time, r.data);
          else insertPart.run(r.id, r.message_id, sessionId, r.time, r.time, r.data);
        }
        db.exec('COMMIT');
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    };
    try {
      await retryBusy(insert, dbPath, 'nothing was written', patience(60_000, writer.busySetting()));
    } catch (err) {
      if (err instanceof UserError) throw err;
      throw new UserError(`cannot write the session (nothing was written): ${errorText(err)}`, dbPath);
    }
  } finally {
    db.close();
  }
  return backup;
}
