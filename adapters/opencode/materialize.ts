// `sp-materialize opencode`: canonical events → a NEW OpenCode session in `<data dir>/opencode.db`
// (docs/formats/opencode.md §5). What the client needs, and what this writer does:
//   * a database the client made and migrated (its `migration` rows): this writer adds rows, it never
//     creates the schema (run the client once, e.g. `opencode session list`, to make one);
//   * a `project` row for the session's project: the repo's first root commit for a git cwd (as the
//     client computes it, cached in `.git/opencode`), else `global`; added when missing;
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
import { basename, dirname, join, resolve } from 'node:path';
import type { MaterializeOptions } from '../../lib/adapter/interface.js';
import { createCopyWithModeOf } from '../../lib/fs/atomic.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { PROVIDER_TOOL_ID, ToolIds } from '../../lib/write/plan.js';
import { activeBranch, buildTurns, callsOf, type AssistantTurn, type Report } from '../../lib/write/turns.js';
import { LossLedger, payloadOf, resumeFields, sameNativeId, selectSession, type WriterResult } from '../../lib/write/writer.js';
import { errorText, openForWrite, patience, retryBusy, type Db } from '../../lib/capture/sqlite.js';
import { AGENT } from './capture.js';
import { IdMaker } from './ids.js';
import { dbOfHome, DEFAULT_MODEL, defaultHome, HOME_ENV, expandTilde, formatLocator, NATIVE_ID } from './paths.js';

/** The client version the session row names (the one the writer was verified with). */
export const OPENCODE_VERSION = '1.18.33';

export interface OpenCodeMaterializeResult extends WriterResult {
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

/** The project id the client gives `cwd`: the cached `.git/opencode`, else the first root commit, else `global`. */
export function projectOf(cwd: string): { id: string; worktree: string; vcs?: string } {
  let top: string;
  let gitDir: string;
  try {
    const out = execFileSync('git', ['rev-parse', '--show-toplevel', '--absolute-git-dir'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n');
    [top, gitDir] = out;
  } catch {
    return { id: 'global', worktree: '/' };
  }
  try {
    const cached = readFileSync(join(gitDir, 'opencode'), 'utf8').trim();
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

function backupName(db: string): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  let name = `${db}.sp-backup-${stamp}`;
  for (let n = 2; existsSync(name); n += 1) name = `${db}.sp-backup-${stamp}-${n}`;
  return name;
}

function checkDatabase(db: Db, path: string): void {
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name));
  for (const table of ['project', 'session', 'message', 'part', 'migration']) {
    if (!tables.has(table)) throw new UserError(`not a database of an OpenCode 1.18-style client (no ${table} table); run the client once to create or migrate it`, path);
  }
  const migrations = (db.prepare('SELECT count(*) AS n FROM migration').get() as { n: number }).n;
  if (migrations === 0) throw new UserError('the database has no migration rows (the client would re-run its migrations on it); run the client once to create it', path);
}

export async function materializeOpenCode(events: AsyncIterable<SpEvent>, options: MaterializeOptions = {}): Promise<OpenCodeMaterializeResult> {
  const selected = await selectSession(events, options.session);
  const start = selected.start;
  const sp = start ? payloadOf(start) : {};
  const ledger = new LossLedger(options.onLoss);
  const report: Report = (action, code, reason, event) => ledger.report(action, code, reason, event);
  for (const [id, other] of selected.others) report('dropped', 'child-session', `session ${id}${other.nativeId ? ` (native ${other.nativeId})` : ''}, ${other.count} event(s), is a separate session: not written`);
  const sameAgent = start?.agent === AGENT;

  const home = resolve(expandTilde(options.home ?? defaultHome()));
  const dbPath = dbOfHome(home, options.home === undefined);
  let cwd = str(options.cwd) ?? str(sp.cwd);
  if (!cwd) {
    cwd = process.cwd();
    report('transformed', 'cwd', `the session names no cwd: ${cwd} is recorded (pass --cwd)`);
  }
  cwd = resolve(expandTilde(cwd));
  if (!existsSync(cwd) && options.mkcwd && !options.dryRun) mkdirSync(cwd, { recursive: true });

  const chosen = options.branch === 'active' ? activeBranch(selected.events, report) : selected.events;
  const turns = buildTurns(chosen, report, { safety: options.safety !== false });
  if (!turns.some((t) => t.role === 'user')) throw new UserError('nothing to write: the session has no user message');

  // The model of the new prompt: --model, else (same agent) the source's; none: the client's default.
  const userModel = options.model ? providerModel(options.model) ?? { providerID: 'opencode', modelID: options.model } : sameAgent && str(sp.model) ? { providerID: str(sp.provider) ?? providerModel(str(sp.model))?.providerID ?? 'opencode', modelID: str(sp.model)! } : undefined;
  const fallback = providerModel(DEFAULT_MODEL)!;

  // Times: the source's, made strictly ascending and ending before now (the client orders by them).
  const now = Date.now();
  const items = turns.filter((t) => t.role !== 'other');
  const times: number[] = [];
  for (const t of items) {
    const ts = t.role === 'user' ? t.event.ts : (t as AssistantTurn).ts;
    const ms = typeof ts === 'number' && Number.isFinite(ts) ? Math.floor(ts * 1000) : now;
    times.push(Math.max(ms, (times[times.length - 1] ?? -Infinity) + 1));
  }
  const overshoot = (times[times.length - 1] ?? 0) - (now - 1000);
  if (overshoot > 0) for (let i = 0; i < times.length; i += 1) times[i] -= overshoot;

  const ids = new IdMaker();
  const rows: Row[] = [];
  // Ids the provider APIs accept, unique in the file (results are matched by them): lib/write/plan.ts.
  const toolIds = new ToolIds(PROVIDER_TOOL_ID, report);
  const callId = (id: string, event: SpEvent): string => toolIds.id(id, event);
  let title = str(sp.title);
  let lastUser: string | undefined;
  let index = 0;
  for (const turn of turns) {
    if (turn.role === 'other') {
      const p = payloadOf(turn.event);
      if (turn.event.type === 'checkpoint' && p.kind === 'compaction') report('dropped', 'compaction', `a ${turn.event.agent} compaction: not written, the whole history is written instead`, turn.event);
      else if (turn.event.type === 'meta') report('dropped', 'meta', `meta ${String(p.key ?? '')} from ${turn.event.agent}: not written (the writer makes its own step and bookkeeping parts)`, turn.event);
      else report('dropped', turn.event.type, `${turn.event.type} from ${turn.event.agent}: no OpenCode row carries it`, turn.event);
      continue;
    }
    const t = times[index++];
    const messageId = ids.next('msg', t);
    if (turn.role === 'user') {
      lastUser = messageId;
      const data: Json = { role: 'user', time: { created: t }, agent: 'build' };
      if (userModel) data.model = userModel;
      rows.push({ table: 'message', id: messageId, time: t, data });
      const blocks = Array.isArray(payloadOf(turn.event).content) ? (payloadOf(turn.event).content as Json[]) : [];
      const synthetic = sameAgent && turn.event.agent === AGENT;
      let wrote = false;
      if (synthetic) {
        // OpenCode's own parts: text parts one by one (synthetic ones marked), file parts as they were.
        for (const b of blocks) {
          if (b.type === 'text' && typeof b.text === 'string') rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: { type: 'text', text: b.text, ...(b.synthetic === true ? { synthetic: true } : {}) } });
          else if (b.type === 'file' && typeof b.url === 'string') rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: { type: 'file', mime: b.mime ?? 'application/octet-stream', filename: b.filename ?? 'file', url: b.url, ...(b.source !== undefined ? { source: b.source } : {}) } });
          else continue;
          wrote = true;
        }
      }
      if (!wrote && turn.text !== '') rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: { type: 'text', text: turn.text } });
      if (!wrote) {
        for (const b of turn.files) {
          if (typeof b.url === 'string') rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: { type: 'file', mime: b.mime ?? 'application/octet-stream', filename: b.filename ?? 'file', url: b.url } });
        }
      }
      for (const image of turn.images) {
        if (typeof image.data === 'string') {
          rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: { type: 'file', mime: image.media_type, filename: 'image', url: `data:${image.media_type};base64,${image.data}` } });
        } else {
          rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: { type: 'text', text: `[image: ${image.media_type} (not carried over)]` } });
          report('rendered', 'image', 'an image stored elsewhere (artifact/url) written as a text marker', turn.event);
        }
      }
      title ??= turn.text.split('\n')[0].slice(0, 80);
      continue;
    }
    // An assistant turn: one message (one model call), its parts in order.
    if (!lastUser) {
      // The client pairs assistant messages with the user message before them.
      const placeholder = ids.next('msg', t);
      report('stubbed', 'leading-user', 'the session starts with an assistant turn: an empty-looking user message "(continued)" is written before it', turn.events[0]);
      rows.push({ table: 'message', id: placeholder, time: t, data: { role: 'user', time: { created: t }, agent: 'build' } });
      rows.push({ table: 'part', id: ids.next('prt', t), message_id: placeholder, time: t, data: { type: 'text', text: '(continued)' } });
      lastUser = placeholder;
    }
    const providerId = sameAgent ? turn.events.map((e) => str(payloadOf(e).provider_id)).find((v) => v !== undefined) : undefined;
    const pm = (providerId && turn.model ? { providerID: providerId, modelID: turn.model } : providerModel(turn.model)) ?? fallback;
    if (!turn.model) report('transformed', 'model', `an assistant turn names no model: written as ${pm.providerID}/${pm.modelID}`, turn.events[0]);
    const calls = callsOf(turn);
    const end = t + 1;
    const data: Json = { role: 'assistant', parentID: lastUser, mode: 'build', agent: 'build', path: { cwd, root: cwd }, cost: 0, tokens: { total: 0, input: 0, output: 0, reasoning: 0, cache: { write: 0, read: 0 } }, modelID: pm.modelID, providerID: pm.providerID, time: { created: t, completed: end }, finish: calls.length > 0 ? 'tool-calls' : 'stop' };
    // The message row goes first (its id is older than the first part id made after it).
    const message: Row = { table: 'message', id: messageId, time: t, data };
    rows.push(message);
    rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: { type: 'step-start' } });
    for (const part of turn.parts) {
      if (part.kind === 'text') {
        rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: { type: 'text', text: part.text, time: { start: t, end } } });
      } else if (part.kind === 'thinking') {
        const d: Json = { type: 'reasoning', text: part.text, time: { start: t, end } };
        if (part.signature && (part.provider === 'anthropic' || pm.providerID === 'anthropic')) d.metadata = { anthropic: { signature: part.signature } };
        else if (part.signature) report('transformed', 'reasoning-signature', 'reasoning written as text; its signature stays behind (not an Anthropic one)', part.event);
        rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: d });
      } else {
        const c = part.call;
        const input = isObject(c.input) ? c.input : { input: c.input };
        if (!isObject(c.input)) report('transformed', 'tool-input', `tool call ${c.call_id} input is not an object: written as {input: …}`, c.event);
        const state: Json = c.is_error
          ? { status: 'error', input, error: c.content, time: { start: t, end } }
          : { status: 'completed', input, output: c.content, title: '', metadata: {}, time: { start: t, end } };
        if (sameAgent && c.result && c.result.agent === AGENT) {
          const structured = payloadOf(c.result).structured;
          if (isObject(structured)) {
            if (isObject(structured.metadata)) state.metadata = structured.metadata;
            if (typeof structured.title === 'string' && !c.is_error) state.title = structured.title;
          }
        }
        rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: { type: 'tool', tool: c.name, callID: callId(c.call_id, c.event), state } });
      }
    }
    rows.push({ table: 'part', id: ids.next('prt', t), message_id: messageId, time: t, data: { type: 'step-finish', reason: data.finish, tokens: data.tokens, cost: 0 } });
  }

  const messages = rows.filter((r) => r.table === 'message').length;
  const parts = rows.length - messages;
  const project = projectOf(existsSync(cwd) ? cwd : '/');
  if (!existsSync(cwd)) report('transformed', 'project', `the cwd ${cwd} does not exist here: the session joins the global project (the client must be run from the cwd to resume it; --mkcwd creates it)`);
  const created = Math.min(times[0] ?? now, now - 1000);
  const sessionIds = new IdMaker();
  if (options.sameId && !sameAgent) throw new UserError(`--same-id keeps an OpenCode session's own id; this session comes from ${start?.agent ?? 'an unknown agent'} (drop --same-id)`);
  // A kept id goes into the resume command: it must have OpenCode's own shape.
  let sessionId = options.sameId ? sameNativeId(NATIVE_ID, sp.native_id) : sessionIds.next('ses', now);
  title = (title ?? 'Imported session').replace(/\s+/g, ' ').trim().slice(0, 100) || 'Imported session';
  const session: Json = { id: sessionId, project_id: project.id, slug: slug(), directory: cwd, title, version: OPENCODE_VERSION, time_created: created, time_updated: now - 1 };
  if (userModel) session.model = JSON.stringify({ id: userModel.modelID, providerID: userModel.providerID });

  if (options.onLine) {
    options.onLine(JSON.stringify({ table: 'session', row: session }));
    for (const r of rows) options.onLine(JSON.stringify({ table: r.table, row: { id: r.id, ...(r.message_id ? { message_id: r.message_id } : {}), session_id: sessionId, time_created: r.time, data: r.data } }));
  }

  let backup: string | undefined;
  if (!options.dryRun) {
    if (!existsSync(dbPath)) throw new UserError(`no ${dbPath.endsWith('.db') ? 'opencode.db' : 'database'} here: run the client once (e.g. \`opencode session list\`) so it creates and migrates its database, then write into it`, dbPath);
    const db = await openForWrite(dbPath, false);
    try {
      checkDatabase(db, dbPath);
      if (options.backup !== false) {
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
      const write = (): void => {
        db.exec('BEGIN IMMEDIATE');
        try {
          if (db.prepare('SELECT 1 FROM session WHERE id = ?').get(session.id)) {
            if (options.sameId) throw new UserError(`session ${String(session.id)} exists already: --same-id never overwrites a session`, dbPath);
            session.id = sessionId = sessionIds.next('ses', Date.now());
          }
          if (!db.prepare('SELECT 1 FROM project WHERE id = ?').get(project.id)) {
            db.prepare('INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, ?, ?)').run(project.id, project.worktree, project.vcs ?? null, now, now, '[]');
          }
          const columns = Object.keys(session);
          db.prepare(`INSERT INTO session (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(...columns.map((c) => session[c] as string | number));
          const insertMessage = db.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)');
          const insertPart = db.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)');
          for (const r of rows) {
            if (r.table === 'message') insertMessage.run(r.id, sessionId, r.time, r.time, JSON.stringify(r.data));
            else insertPart.run(r.id, r.message_id, sessionId, r.time, r.time, JSON.stringify(r.data));
          }
          db.exec('COMMIT');
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      };
      try {
        await retryBusy(write, dbPath, 'nothing was written', patience(60_000));
      } catch (err) {
        if (err instanceof UserError) throw err;
        throw new UserError(`cannot write the session (nothing was written): ${errorText(err)}`, dbPath);
      }
    } finally {
      db.close();
    }
  }

  const result: OpenCodeMaterializeResult = {
    agent: AGENT,
    session_id: sessionId!,
    path: formatLocator(dbPath, sessionId!),
    cwd,
    // XDG_DATA_HOME names the folder that holds `opencode/`: a home of another name cannot be pointed at.
    ...resumeFields(cwd, ['opencode', '--session', sessionId], basename(home) === 'opencode' ? { variable: HOME_ENV, value: dirname(home), builtIn: join(homedir(), '.local', 'share') } : undefined),
    records: rows.length + 1,
    messages,
    parts,
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
}
