// Reading Crush's per-project database (docs/formats/crush.md §2): `sessions` (one row per session,
// child sessions of agent tools name their parent), `messages` (role, a JSON `parts` column of
// `{type, data}` items, model, provider, created_at in the order the client lists them) and `files`
// (file versions the client kept). Opened read-only through lib/capture/sqlite.ts.
import { UserError } from '../../lib/cli/diagnostics.js';
import { openForRead, type Db } from '../../lib/capture/sqlite.js';

export interface SessionRow {
  id: string;
  parent_session_id?: string | null;
  title?: string;
  message_count?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  cost?: number;
  summary_message_id?: string | null;
  todos?: string | null;
  created_at?: number;
  updated_at?: number;
}

export interface MessageRow {
  id: string;
  session_id: string;
  role: string;
  parts: string;
  model?: string | null;
  provider?: string | null;
  is_summary_message?: number;
  created_at?: number;
  updated_at?: number;
  finished_at?: number | null;
}

export interface FileRow {
  id: string;
  path: string;
  version: number;
  created_at?: number;
}

/** Crush writes `strftime('%s')` seconds; a value past 1e11 is milliseconds (the schema's comments say so). */
export function seconds(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return undefined;
  return value > 1e11 ? value / 1000 : value;
}

export async function withDb<T>(path: string, fn: (db: Db) => T): Promise<T> {
  const handle = await openForRead(path);
  try {
    const tables = handle.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'messages')").all() as Array<{ name: string }>;
    if (tables.length < 2) throw new UserError('not a Crush database (no sessions/messages tables)', path);
    return fn(handle.db);
  } finally {
    handle.close();
  }
}

export function listSessions(db: Db): SessionRow[] {
  return db.prepare('SELECT * FROM sessions ORDER BY updated_at DESC, created_at DESC, id').all() as SessionRow[];
}

/** The session's messages as the client lists them: by created_at, then insertion order. */
export function listMessages(db: Db, session: string): MessageRow[] {
  return db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY created_at ASC, rowid ASC').all(session) as MessageRow[];
}

export function listFiles(db: Db, session: string): FileRow[] {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'files'").get();
  if (!has) return [];
  return db.prepare('SELECT id, path, version, created_at FROM files WHERE session_id = ? ORDER BY created_at, version, id').all(session) as FileRow[];
}
