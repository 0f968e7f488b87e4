// Registration in the client's thread index `<home>/state_<N>.sqlite` (docs/formats/codex.md §1, §5):
// `codex resume --last` and the picker list only threads in its `threads` table, and the table is
// back-filled from sessions/ only once, so a rollout dropped into a used home is invisible to them.
// The row is built from the table's own columns (PRAGMA table_info): what we know is filled in,
// a NOT NULL column without a default is copied from the newest existing row, and anything else
// unknown stops the run before a file is written (fail closed). The db is backed up first and the
// row goes in with one transaction.
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createCopyWithModeOf } from '../../lib/fs/atomic.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { stateDbs } from './paths.js';

type Value = string | number | null;

interface Column {
  name: string;
  notnull: number;
  dflt_value: unknown;
  pk: number;
}

export interface ThreadRow {
  id: string;
  rollout_path: string;
  /** Epoch ms. */
  created_ms: number;
  updated_ms: number;
  source: string;
  model_provider: string;
  cwd: string;
  title: string;
  first_user_message: string;
  has_user_event: boolean;
  cli_version: string;
  originator?: string;
  model?: string;
  git_sha?: string;
  git_branch?: string;
  git_origin_url?: string;
}

export interface Registration {
  db: string;
  columns: string[];
  values: Value[];
  /** Columns whose values came from an existing row. */
  copied: string[];
}

/** Columns that must be there for the row to mean what the client expects. */
const REQUIRED = ['id', 'rollout_path', 'created_at', 'updated_at', 'cwd', 'source'];

function known(row: ThreadRow): Record<string, Value> {
  const created = Math.floor(row.created_ms / 1000);
  const updated = Math.floor(row.updated_ms / 1000);
  return {
    id: row.id,
    rollout_path: row.rollout_path,
    created_at: created,
    updated_at: updated,
    created_at_ms: Math.floor(row.created_ms),
    updated_at_ms: Math.floor(row.updated_ms),
    recency_at: updated,
    recency_at_ms: Math.floor(row.updated_ms),
    source: row.source,
    model_provider: row.model_provider,
    cwd: row.cwd,
    title: row.title,
    first_user_message: row.first_user_message,
    preview: row.first_user_message,
    has_user_event: row.has_user_event ? 1 : 0,
    tokens_used: 0,
    archived: 0,
    archived_at: null,
    cli_version: row.cli_version,
    originator: row.originator ?? null,
    model: row.model ?? null,
    git_sha: row.git_sha ?? null,
    git_branch: row.git_branch ?? null,
    git_origin_url: row.git_origin_url ?? null,
    history_mode: 'legacy',
    thread_source: 'user',
    is_pinned: 0,
  };
}

/** better-sqlite3 is loaded only when a home has a state db: capture never pays for the native addon. */
async function open(path: string, readonly: boolean): Promise<Database.Database> {
  const { default: Sqlite } = await import('better-sqlite3');
  try {
    return new Sqlite(path, { readonly, fileMustExist: true, timeout: 5000 });
  } catch (err) {
    throw new UserError(`cannot open the Codex state db: ${(err as Error).message}`, path);
  }
}

/**
 * The row to add to the newest `state_<N>.sqlite` of `home`, checked against its schema; undefined
 * when the home has no state db (then the rollout alone is found by id). Reads only.
 */
export async function planRegistration(home: string, row: ThreadRow): Promise<Registration | undefined> {
  const path = stateDbs(home)[0];
  if (path === undefined) return undefined;
  const db = await open(path, true);
  try {
    const columns = db.prepare('PRAGMA table_info(threads)').all() as Column[];
    const names = new Set(columns.map((c) => c.name));
    const missing = REQUIRED.filter((c) => !names.has(c));
    if (columns.length === 0 || missing.length > 0) {
      throw new UserError(
        `unknown schema: ${columns.length === 0 ? 'no threads table' : `the threads table has no ${missing.join(', ')}`}; nothing was written (the session would not be listed correctly)`,
        path,
      );
    }
    if (db.prepare('SELECT 1 FROM threads WHERE id = ?').get(row.id)) {
      throw new UserError(`thread ${row.id} is already registered; nothing was written`, path);
    }
    const values = known(row);
    const template = db.prepare('SELECT * FROM threads ORDER BY updated_at DESC LIMIT 1').get() as Record<string, Value> | undefined;
    const out: { columns: string[]; values: Value[]; copied: string[] } = { columns: [], values: [], copied: [] };
    const unfilled: string[] = [];
    for (const column of columns) {
      if (column.name in values) {
        out.columns.push(column.name);
        out.values.push(values[column.name]);
      } else if (column.notnull && column.dflt_value === null) {
        // A column this writer does not know, that the client requires: the newest row's value.
        if (template && template[column.name] !== undefined && template[column.name] !== null) {
          out.columns.push(column.name);
          out.values.push(template[column.name]);
          out.copied.push(column.name);
        } else {
          unfilled.push(column.name);
        }
      }
    }
    if (unfilled.length > 0) {
      throw new UserError(
        `unknown schema: threads.${unfilled.join(', threads.')} must be set and no existing row shows a value to copy; nothing was written`,
        path,
      );
    }
    return { db: path, ...out };
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read the Codex state db: ${(err as Error).message}`, path);
  } finally {
    db.close();
  }
}

/** Backs the db up next to itself, then inserts the row in one transaction. Returns the backup's path. */
export async function commitRegistration(plan: Registration): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  let backup = `${plan.db}.sp-backup-${stamp}`;
  for (let n = 2; existsSync(backup); n += 1) backup = `${plan.db}.sp-backup-${stamp}-${n}`;
  const db = await open(plan.db, false);
  try {
    // Built in a temp file with the database's own mode (0600 stays 0600), then linked into place.
    await createCopyWithModeOf(plan.db, backup, async (temp) => {
      await db.backup(temp);
    });
    const placeholders = plan.columns.map(() => '?').join(', ');
    const insert = db.prepare(`INSERT INTO threads (${plan.columns.map((c) => `"${c}"`).join(', ')}) VALUES (${placeholders})`);
    db.transaction(() => insert.run(...plan.values))();
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot register the thread: ${(err as Error).message}`, plan.db);
  } finally {
    db.close();
  }
  return backup;
}
