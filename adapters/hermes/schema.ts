// What this adapter knows about Hermes's schema (docs/formats/hermes.md §2, §3, §6): it reads by
// introspection (`PRAGMA table_info`, `schema_version`), so newer versions with more columns work,
// and it creates a fresh database only where none exists, with the v25 layout Hermes itself creates
// (tables, indexes, FTS5 indexes and their triggers, `schema_version` 25), so Hermes opens it and
// upgrades it like one of its own. `test/hermes/schema.test.ts` compares this layout with the
// recorded corpus database column by column.
import { prepared, type Db } from '../../lib/capture/sqlite.js';
import { UserError } from '../../lib/cli/diagnostics.js';

export const SCHEMA_VERSION = 25;

export interface Schema {
  /** `schema_version.version`, when the table has a row. */
  version?: number;
  tables: Set<string>;
  sessions: string[];
  messages: string[];
}

/** Columns without which rows cannot be read as sessions and messages. */
const READ_NEEDS = { sessions: ['id', 'started_at'], messages: ['id', 'session_id', 'role', 'content'] };
/** Columns a written session needs (the minimal insert Hermes resumes, §8.5 / §10). */
const WRITE_NEEDS = {
  sessions: ['id', 'source', 'model', 'started_at', 'cwd', 'title', 'message_count', 'tool_call_count'],
  messages: ['id', 'session_id', 'role', 'content', 'tool_call_id', 'tool_calls', 'tool_name', 'timestamp', 'active'],
};

function columns(db: Db, table: string): string[] {
  return (prepared(db, `SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>).map((c) => c.name);
}

const schemas = new WeakMap<Db, Schema>();

/** The schema a connection sees; kept per connection (a changed file gets a new connection). */
export function introspect(db: Db, fresh = false): Schema {
  const known = schemas.get(db);
  if (known && !fresh) return known;
  const tables = new Set((prepared(db, `SELECT name FROM sqlite_master WHERE type IN ('table', 'view')`).all() as Array<{ name: string }>).map((r) => r.name));
  const schema: Schema = { tables, sessions: columns(db, 'sessions'), messages: columns(db, 'messages') };
  if (tables.has('schema_version')) {
    const row = prepared(db, 'SELECT version FROM schema_version LIMIT 1').get() as { version?: unknown } | undefined;
    if (typeof row?.version === 'number') schema.version = row.version;
    else if (typeof row?.version === 'bigint') schema.version = Number(row.version);
  }
  schemas.set(db, schema);
  return schema;
}

function check(schema: Schema, needs: { sessions: string[]; messages: string[] }, where: string, purpose: string): void {
  const missing: string[] = [];
  for (const table of ['sessions', 'messages'] as const) {
    if (schema[table].length === 0) {
      missing.push(`table ${table}`);
      continue;
    }
    for (const column of needs[table]) if (!schema[table].includes(column)) missing.push(`${table}.${column}`);
  }
  if (missing.length === 0) return;
  const version = schema.version !== undefined ? `schema version ${schema.version}` : 'no schema_version';
  throw new UserError(`not a Hermes session database this adapter can ${purpose} (${version}; missing ${missing.join(', ')}; known: version ${SCHEMA_VERSION} and later)`, where);
}

export function checkReadable(schema: Schema, where: string): void {
  check(schema, READ_NEEDS, where, 'read');
}

export function checkWritable(schema: Schema, where: string): void {
  check(schema, WRITE_NEEDS, where, 'write into');
}

// ---- the v25 layout, for a database that does not exist yet ----------------------------------

const SESSION_COLUMNS = `
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  user_id TEXT, session_key TEXT, chat_id TEXT, chat_type TEXT, thread_id TEXT, display_name TEXT, origin_json TEXT,
  expiry_finalized INTEGER DEFAULT 0,
  model TEXT, model_config TEXT, system_prompt TEXT, system_prompt_hash TEXT, parent_session_id TEXT,
  started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
  message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
  input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, cache_read_tokens INTEGER DEFAULT 0,
  cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0,
  cwd TEXT, git_branch TEXT, git_repo_root TEXT,
  billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT,
  estimated_cost_usd REAL, actual_cost_usd REAL, cost_status TEXT, cost_source TEXT, pricing_version TEXT,
  title TEXT,
  last_activity_at REAL, last_activity_description TEXT, last_activity_provenance TEXT,
  api_call_count INTEGER DEFAULT 0,
  handoff_state TEXT, handoff_platform TEXT, handoff_error TEXT,
  compression_failure_cooldown_until REAL, compression_failure_error TEXT,
  compression_fallback_streak INTEGER NOT NULL DEFAULT 0, compression_ineffective_count INTEGER NOT NULL DEFAULT 0,
  profile_name TEXT,
  rewind_count INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0, pinned INTEGER NOT NULL DEFAULT 0,
  last_read_at REAL,
  FOREIGN KEY (parent_session_id) REFERENCES sessions(id),
  FOREIGN KEY (system_prompt_hash) REFERENCES system_prompts(hash)`;

const MESSAGE_COLUMNS = `
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL,
  content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, effect_disposition TEXT,
  timestamp REAL NOT NULL,
  token_count INTEGER, finish_reason TEXT,
  reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT, codex_message_items TEXT,
  platform_message_id TEXT,
  observed INTEGER DEFAULT 0,
  active INTEGER NOT NULL DEFAULT 1,
  compacted INTEGER NOT NULL DEFAULT 0,
  api_content TEXT, display_kind TEXT, display_metadata TEXT`;

/** Indexed only when neither backfill marker excludes the row (both default to -1: always). */
function inWindow(row: 'new' | 'old'): string {
  const marker = (key: string) => `COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta WHERE key = '${key}'), -1)`;
  return `(${row}.id > ${marker('fts_rebuild_high_water')} OR ${row}.id <= ${marker('fts_rebuild_progress')})`;
}

function ftsTriggers(table: string, onlyNonTool: boolean): string {
  const cols = 'content, tool_name, tool_calls';
  const nonTool = (row: string) => (onlyNonTool ? `${row}.role <> 'tool' AND ` : '');
  const changed = `(old.content IS NOT new.content OR old.tool_name IS NOT new.tool_name OR old.tool_calls IS NOT new.tool_calls${onlyNonTool ? ' OR old.role IS NOT new.role' : ''})`;
  const update = onlyNonTool
    ? `INSERT INTO ${table}(${table}, rowid, ${cols}) SELECT 'delete', old.id, old.content, old.tool_name, old.tool_calls WHERE old.role <> 'tool';
       INSERT INTO ${table}(rowid, ${cols}) SELECT new.id, new.content, new.tool_name, new.tool_calls WHERE new.role <> 'tool';`
    : `INSERT INTO ${table}(${table}, rowid, ${cols}) VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
       INSERT INTO ${table}(rowid, ${cols}) VALUES (new.id, new.content, new.tool_name, new.tool_calls);`;
  return `
CREATE TRIGGER ${table}_insert AFTER INSERT ON messages WHEN ${nonTool('new')}${inWindow('new')}
BEGIN INSERT INTO ${table}(rowid, ${cols}) VALUES (new.id, new.content, new.tool_name, new.tool_calls); END;
CREATE TRIGGER ${table}_delete AFTER DELETE ON messages WHEN ${nonTool('old')}${inWindow('old')}
BEGIN INSERT INTO ${table}(${table}, rowid, ${cols}) VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls); END;
CREATE TRIGGER ${table}_update AFTER UPDATE OF ${cols}${onlyNonTool ? ', role' : ''} ON messages WHEN ${changed} AND ${inWindow('old')}
BEGIN ${update} END;`;
}

export const FRESH_SCHEMA = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL);
CREATE TABLE sessions (${SESSION_COLUMNS});
CREATE TABLE messages (${MESSAGE_COLUMNS});
CREATE TABLE session_model_usage (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  billing_provider TEXT NOT NULL DEFAULT '', billing_base_url TEXT NOT NULL DEFAULT '', billing_mode TEXT NOT NULL DEFAULT '',
  task TEXT NOT NULL DEFAULT '',
  api_call_count INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0, reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  estimated_cost_usd REAL NOT NULL DEFAULT 0, actual_cost_usd REAL NOT NULL DEFAULT 0,
  cost_status TEXT, cost_source TEXT, first_seen REAL, last_seen REAL,
  PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
);
CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE gateway_routing (
  scope TEXT NOT NULL DEFAULT '', session_key TEXT NOT NULL, entry_json TEXT NOT NULL, updated_at REAL NOT NULL,
  PRIMARY KEY (scope, session_key)
);
CREATE TABLE compression_locks (session_id TEXT PRIMARY KEY, holder TEXT NOT NULL, acquired_at REAL NOT NULL, expires_at REAL NOT NULL);
CREATE TABLE async_delegations (
  delegation_id TEXT PRIMARY KEY, origin_session TEXT NOT NULL, origin_ui_session_id TEXT NOT NULL DEFAULT '',
  parent_session_id TEXT, state TEXT NOT NULL, dispatched_at REAL NOT NULL, completed_at REAL, updated_at REAL NOT NULL,
  event_json TEXT, result_json TEXT, delivery_state TEXT NOT NULL DEFAULT 'pending', delivery_attempts INTEGER NOT NULL DEFAULT 0,
  delivered_at REAL, owner_pid INTEGER, owner_started_at INTEGER, task_json TEXT, delivery_claim TEXT, delivery_claimed_at REAL,
  origin_session_id TEXT
);
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_sessions_source_id ON sessions(source, id);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX idx_messages_session_id ON messages(session_id, id);
CREATE INDEX idx_messages_assistant_calls_by_session ON messages(session_id) WHERE role = 'assistant' AND tool_calls IS NOT NULL;
CREATE INDEX idx_compression_locks_expires ON compression_locks(expires_at);
CREATE INDEX idx_session_model_usage_session ON session_model_usage(session_id);
CREATE INDEX idx_session_model_usage_model ON session_model_usage(model);
CREATE INDEX idx_async_delegations_delivery ON async_delegations(delivery_state, completed_at);
CREATE INDEX idx_messages_platform_msg_id ON messages(session_id, platform_message_id) WHERE platform_message_id IS NOT NULL;
CREATE INDEX idx_messages_session_active ON messages(session_id, active, timestamp);
CREATE INDEX idx_messages_active_null ON messages(active) WHERE active IS NULL;
CREATE INDEX idx_sessions_session_key ON sessions(session_key, started_at DESC);
CREATE INDEX idx_sessions_gateway_peer ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC);
CREATE INDEX idx_sessions_handoff_state ON sessions(handoff_state, started_at);
CREATE INDEX idx_sessions_system_prompt_hash ON sessions(system_prompt_hash);
CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
CREATE VIRTUAL TABLE messages_fts USING fts5(content, tool_name, tool_calls, content='messages', content_rowid='id');
${ftsTriggers('messages_fts', false)}
CREATE VIEW messages_fts_trigram_src AS SELECT id, role, content, tool_name, tool_calls FROM messages WHERE role <> 'tool';
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tool_name, tool_calls, content='messages_fts_trigram_src', content_rowid='id', tokenize='trigram');
${ftsTriggers('messages_fts_trigram', true)}
INSERT INTO schema_version (version) VALUES (${SCHEMA_VERSION});
`;
