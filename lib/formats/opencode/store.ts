// Reading one OpenCode session from any of its stores into one shape, `{session, messages: [{info,
// parts}], todos}`, the shape `opencode export` prints: the SQLite database of 1.2+ (rows whose
// `data` JSON lacks the ids, put back from the columns), the JSON files of ≤ 1.1 (`storage/`), and
// export files. Order is the client's (docs/formats/opencode.md §3): messages by (time_created, id),
// parts by id. A row or file that is not JSON is returned as `bad` (capture keeps it as meta).
import { isUtf8 } from 'node:buffer';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UserError, errorCode, warn } from '../../cli/diagnostics.js';
import { isObject, str, type Json } from '../../core/json.js';
import { openForRead, prepared, type Db } from '../../capture/sqlite.js';

export interface StoredPart {
  id: string;
  data?: Json;
  /** The row or file text when it is not a JSON object. */
  bad?: { text: string; reason: string };
  time_created?: number;
}

export interface StoredMessage {
  id: string;
  info?: Json;
  bad?: { text: string; reason: string };
  time_created?: number;
  parts: StoredPart[];
}

export interface StoredSession {
  info: Json;
  messages: StoredMessage[];
  todos?: Json[];
  /** Where diagnostics point: the locator or file. */
  where: string;
}

export interface SessionRow {
  id: string;
  title?: string;
  directory?: string;
  parent_id?: string;
  time_created?: number;
  time_updated?: number;
  project_id?: string;
}

function parse(text: string): { value?: Json; reason?: string } {
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) ? { value } : { reason: 'not a JSON object' };
  } catch (err) {
    return { reason: `invalid JSON (${(err as Error).message})` };
  }
}

/** A stored JSON column back to an object (`permission`, `model`, `summary_diffs` …); the text when it is not JSON. */
function column(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const t = value.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

// ---- SQLite ------------------------------------------------------------------------------------

/** The session table's row as the export's `info` (the columns the client maps back). */
function sessionInfo(row: Json): Json {
  const info: Json = {};
  for (const [key, value] of Object.entries(row)) if (value !== null && value !== undefined) info[key] = column(value);
  return info;
}

export async function withDb<T>(path: string, fn: (db: Db) => T): Promise<T> {
  const handle = await openForRead(path);
  try {
    const tables = handle.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')").all() as Array<{ name: string }>;
    if (tables.length < 3) throw new UserError('not an OpenCode database (no session/message/part tables)', path);
    return fn(handle.db);
  } finally {
    handle.close();
  }
}

export function listDbSessions(db: Db): SessionRow[] {
  return prepared(db, 'SELECT id, title, directory, parent_id, project_id, time_created, time_updated FROM session ORDER BY time_updated DESC, id').all() as SessionRow[];
}

export function readDbSession(db: Db, id: string, where: string): StoredSession {
  const row = prepared(db, 'SELECT * FROM session WHERE id = ?').get(id) as Json | undefined;
  if (!row) throw new UserError(`no session ${id} in this database`, where);
  const messages: StoredMessage[] = [];
  const byId = new Map<string, StoredMessage>();
  for (const m of prepared(db, 'SELECT id, time_created, time_updated, data FROM message WHERE session_id = ? ORDER BY time_created, id').all(id) as Json[]) {
    const parsed = parse(String(m.data));
    const message: StoredMessage = { id: String(m.id), time_created: Number(m.time_created), parts: [] };
    if (parsed.value) message.info = { id: m.id, sessionID: id, ...parsed.value };
    else message.bad = { text: String(m.data), reason: parsed.reason! };
    messages.push(message);
    byId.set(message.id, message);
  }
  for (const p of prepared(db, 'SELECT id, message_id, time_created, data FROM part WHERE session_id = ? ORDER BY message_id, id').all(id) as Json[]) {
    const message = byId.get(String(p.message_id));
    if (!message) continue; // a part of another session's message: not this session's history
    const parsed = parse(String(p.data));
    const part: StoredPart = { id: String(p.id), time_created: Number(p.time_created) };
    if (parsed.value) part.data = { id: p.id, sessionID: id, messageID: p.message_id, ...parsed.value };
    else part.bad = { text: String(p.data), reason: parsed.reason! };
    message.parts.push(part);
  }
  let todos: Json[] | undefined;
  const hasTodo = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'todo'").get();
  if (hasTodo) {
    const rows = prepared(db, 'SELECT * FROM todo WHERE session_id = ? ORDER BY position').all(id) as Json[];
    if (rows.length > 0) todos = rows;
  }
  return { info: sessionInfo(row), messages, todos, where: `${where}` };
}

// ---- JSON storage (≤ 1.1) -------------------------------------------------------------------------

function readJson(path: string): { value?: Json; text: string; reason?: string } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    return { text: '', reason: `cannot read: ${errorCode(err)}` };
  }
  const text = bytes.toString('utf8');
  // Read on, but say so: the bad bytes become U+FFFD in what is captured.
  if (text.includes('\ufffd') && !isUtf8(bytes)) warn(path, 'not valid UTF-8: the bad bytes are read as U+FFFD');
  return { ...parse(text), text };
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Every session file of a storage dir: `session/<projectID>/<file>.json` (the id is inside). */
export function listStorageSessions(storage: string): Array<SessionRow & { file: string }> {
  const out: Array<SessionRow & { file: string }> = [];
  for (const project of list(join(storage, 'session'))) {
    for (const name of list(join(storage, 'session', project))) {
      if (!name.endsWith('.json')) continue;
      const file = join(storage, 'session', project, name);
      const { value } = readJson(file);
      if (!value) continue;
      const time = isObject(value.time) ? value.time : {};
      out.push({ id: str(value.id) ?? basename(name, '.json'), title: str(value.title), directory: str(value.directory), parent_id: str(value.parentID), project_id: str(value.projectID) ?? project, time_created: typeof time.created === 'number' ? time.created : undefined, time_updated: typeof time.updated === 'number' ? time.updated : undefined, file });
    }
  }
  return out.sort((a, b) => (b.time_updated ?? 0) - (a.time_updated ?? 0) || a.id.localeCompare(b.id));
}

const created = (info: Json | undefined): number => (isObject(info?.time) && typeof info.time.created === 'number' ? info.time.created : 0);

/** An id used as a folder name: one plain segment, so a hostile `id` in a file cannot point outside the store. */
function isPlainSegment(id: string): boolean {
  return id !== '' && id !== '.' && id !== '..' && !/[/\\\0]/.test(id);
}

export function readStorageSession(storage: string, id: string, where: string): StoredSession {
  if (!isPlainSegment(id)) throw new UserError(`not a session id: ${JSON.stringify(id)}`, where);
  const entry = listStorageSessions(storage).find((s) => s.id === id);
  if (!entry) throw new UserError(`no session ${id} in this storage folder`, where);
  const info = readJson(entry.file).value!;
  const messages: StoredMessage[] = [];
  const dir = join(storage, 'message', id);
  for (const name of list(dir)) {
    if (!name.endsWith('.json')) continue;
    const file = readJson(join(dir, name));
    const message: StoredMessage = { id: str(file.value?.id) ?? basename(name, '.json'), parts: [] };
    if (file.value) message.info = { sessionID: id, ...file.value, id: message.id };
    else message.bad = { text: file.text, reason: file.reason! };
    message.time_created = created(message.info);
    // A message whose id is not a plain name keeps its row, but no parts are looked up for it.
    const partDir = isPlainSegment(message.id) ? join(storage, 'part', message.id) : undefined;
    for (const partName of partDir ? list(partDir) : []) {
      if (!partName.endsWith('.json')) continue;
      const pf = readJson(join(partDir!, partName));
      const part: StoredPart = { id: str(pf.value?.id) ?? basename(partName, '.json') };
      if (pf.value) part.data = { sessionID: id, messageID: message.id, ...pf.value, id: part.id };
      else part.bad = { text: pf.text, reason: pf.reason! };
      message.parts.push(part);
    }
    message.parts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    messages.push(message);
  }
  messages.sort((a, b) => (a.time_created ?? 0) - (b.time_created ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const todo = readJson(join(storage, 'todo', `${id}.json`));
  const todos = Array.isArray(todo.value) ? (todo.value as Json[]) : undefined;
  return { info, messages, todos, where };
}

// ---- export JSON --------------------------------------------------------------------------------

export function readExport(path: string): StoredSession {
  try {
    if (statSync(path).isDirectory()) throw new UserError('is a directory, not an OpenCode export', path);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read: ${errorCode(err)}`, path);
  }
  const file = readJson(path);
  if (!file.value || !isObject(file.value.info) || !Array.isArray(file.value.messages)) {
    throw new UserError(`not an OpenCode export ({info, messages: [{info, parts}]})${file.reason ? `: ${file.reason}` : ''}`, path);
  }
  const sessionId = str(file.value.info.id) ?? basename(path, '.json');
  const messages: StoredMessage[] = [];
  for (const m of file.value.messages) {
    const info = isObject(m) && isObject(m.info) ? m.info : undefined;
    const message: StoredMessage = { id: str(info?.id) ?? `#${messages.length + 1}`, parts: [] };
    if (info) message.info = { sessionID: sessionId, ...info };
    else message.bad = { text: JSON.stringify(m), reason: 'a message without info' };
    message.time_created = created(info);
    for (const p of isObject(m) && Array.isArray(m.parts) ? m.parts : []) {
      if (isObject(p)) message.parts.push({ id: str(p.id) ?? '', data: p });
      else message.parts.push({ id: '', bad: { text: JSON.stringify(p), reason: 'not a JSON object' } });
    }
    messages.push(message);
  }
  return { info: file.value.info, messages, where: path };
}
