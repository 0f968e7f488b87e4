// Goose fixtures, built here from the facts of Goose's source (docs/formats/goose.md): no Goose
// client runs on this machine (it is Rust, crates.io is not reachable) and its repository holds no
// recorded session we could copy. `buildHome` writes a data directory with `sessions/sessions.db`
// in the schema of Goose's SessionStorage (the CREATE TABLEs plus migrations 2–13) and a legacy
// `.jsonl` session beside it; the rows carry every content type the source defines.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

process.env.SQLITE_USE_URI = '1';
export const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

export const S1 = '20261201_1';
export const S2 = '20261201_2';
export const LEGACY = '20250110_093000';
export const CWD_A = '/work/project-a';
export const CWD_B = '/work/project-b';

const SCHEMA = `
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
  session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER,
  output_tokens INTEGER, accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
  goose_mode TEXT NOT NULL DEFAULT 'auto', thread_id TEXT, archived_at TIMESTAMP, project_id TEXT, accumulated_cost REAL
);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
  content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  tokens INTEGER, metadata_json TEXT, message_id TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
`;

const BOTH = { userVisible: true, agentVisible: true };
const USER_ONLY = { userVisible: true, agentVisible: false };
const AGENT_ONLY = { userVisible: false, agentVisible: true };
const text = (t: string) => ({ type: 'text', text: t });
const ok = (content: unknown[]) => ({ status: 'success', value: { content, isError: false } });

export interface Message {
  role: string;
  created: number;
  content: unknown[];
  metadata?: unknown;
  id?: string;
}

/** S1: a shell call, an edit (the older result list), an unreadable call, a failed call, thinking. */
export const S1_MESSAGES: Message[] = [
  { role: 'user', created: 1764579600, content: [text('List the files and fix the typo in README.md')], metadata: BOTH },
  { role: 'assistant', created: 1764579605, content: [text('Listing first.'), { type: 'toolRequest', id: 'toolu_01', toolCall: { status: 'success', value: { name: 'developer__shell', arguments: { command: 'ls' } } } }], metadata: BOTH },
  { role: 'user', created: 1764579606, content: [{ type: 'toolResponse', id: 'toolu_01', toolResult: ok([{ type: 'text', text: 'README.md\nsrc\n' }]) }], metadata: BOTH },
  {
    role: 'assistant',
    created: 1764579610,
    content: [
      { type: 'thinking', thinking: 'The typo is "teh".', signature: 'sig-abc' },
      text('Fixing it.'),
      { type: 'toolRequest', id: 'toolu_02', toolCall: { status: 'success', value: { name: 'developer__text_editor', arguments: { command: 'str_replace', path: '/work/project-a/README.md', old_str: 'teh', new_str: 'the' } } } },
    ],
    metadata: BOTH,
  },
  { role: 'user', created: 1764579611, content: [{ type: 'toolResponse', id: 'toolu_02', toolResult: { status: 'success', value: [{ type: 'text', text: 'The file /work/project-a/README.md has been edited.' }] } }], metadata: BOTH },
  { role: 'assistant', created: 1764579615, content: [{ type: 'toolRequest', id: 'toolu_03', toolCall: { status: 'error', error: 'Could not interpret tool use parameters' } }], metadata: BOTH },
  { role: 'assistant', created: 1764579616, content: [{ type: 'toolRequest', id: 'toolu_04', toolCall: { status: 'success', value: { name: 'developer__shell', arguments: { command: 'cat missing.txt' } } } }], metadata: BOTH },
  { role: 'user', created: 1764579617, content: [{ type: 'toolResponse', id: 'toolu_04', toolResult: { status: 'error', error: 'Execution failed: cat: missing.txt: No such file or directory' } }], metadata: BOTH },
  { role: 'assistant', created: 1764579620, content: [text('Done: the typo is fixed.')], metadata: BOTH },
];

/** S2: an image, a confirmation, a redacted thought, a compaction (hidden history, marker, summary). */
export const S2_MESSAGES: Message[] = [
  { role: 'user', created: 1764583200, content: [text('What does this screenshot show?'), { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }], metadata: USER_ONLY },
  { role: 'assistant', created: 1764583205, content: [{ type: 'redactedThinking', data: 'EuYBCkQYAiJA' }, text('A login form.')], metadata: USER_ONLY },
  { role: 'assistant', created: 1764583206, content: [{ type: 'toolConfirmationRequest', id: 'toolu_09', toolName: 'developer__shell', arguments: { command: 'rm -rf build' }, prompt: 'Allow?' }], metadata: USER_ONLY },
  { role: 'assistant', created: 1764583210, content: [{ type: 'conversationCompacted', msg: 'Conversation compacted and summarized' }], metadata: USER_ONLY },
  { role: 'user', created: 1764583210, content: [text('Summary: the user asked about a login form screenshot.')], metadata: AGENT_ONLY },
  { role: 'assistant', created: 1764583211, content: [{ type: 'systemNotification', notificationType: 'inlineMessage', msg: 'Context compacted' }], metadata: BOTH },
  { role: 'user', created: 1764583220, content: [text('Now describe the colours.')], metadata: BOTH },
  { role: 'assistant', created: 1764583225, content: [text('Blue and white.')], metadata: BOTH },
];

/** The legacy file: a metadata line, then messages as Goose wrote them before the database. */
export const LEGACY_LINES: unknown[] = [
  { working_dir: CWD_B, description: 'Old session', schedule_id: null, message_count: 3, total_tokens: 120, input_tokens: 100, output_tokens: 20, extension_data: {} },
  { role: 'user', created: 1736501400, content: [text('hello from an old release')] },
  { role: 'assistant', created: 1736501402, content: [{ type: 'toolRequest', id: 'call_1', toolCall: { status: 'success', value: { name: 'developer__shell', arguments: { command: 'pwd' } } } }] },
  { role: 'user', created: 1736501403, content: [{ type: 'toolResponse', id: 'call_1', toolResult: { status: 'success', value: [{ type: 'text', text: '/work/project-b' }] } }] },
];

export function tempDir(prefix = 'sp-goose-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

function insertMessages(db: BetterSqlite3.Database, session: string, messages: Message[]): void {
  const insert = db.prepare('INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json, message_id) VALUES (?, ?, ?, ?, ?, ?)');
  messages.forEach((m, i) => insert.run(session, m.role, JSON.stringify(m.content), m.created, m.metadata === undefined ? null : JSON.stringify(m.metadata), m.id ?? `msg_${session}_${i + 1}`));
}

/** A Goose data directory: `<dir>/sessions/sessions.db` with S1 and S2, and the legacy file. */
export function buildHome(dir = tempDir()): string {
  const sessions = join(dir, 'sessions');
  mkdirSync(sessions, { recursive: true });
  const db = new Database(join(sessions, 'sessions.db'));
  try {
    db.exec(SCHEMA);
    for (let v = 1; v <= 13; v += 1) db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(v);
    const add = db.prepare(`INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at, extension_data, total_tokens, input_tokens, output_tokens,
      accumulated_total_tokens, provider_name, model_config_json, goose_mode) VALUES (?, ?, 'user', ?, ?, ?, ?, ?, ?, ?, ?, 'anthropic', ?, 'auto')`);
    const config = JSON.stringify({ model_name: 'claude-sonnet-4-5', context_limit: 200000, temperature: null });
    add.run(S1, 'Fix README typo', CWD_A, '2026-12-01 09:00:00', '2026-12-01 09:00:20', JSON.stringify({ 'todo.v0': { content: '- [x] fix typo' } }), 5200, 5000, 200, 9100, config);
    add.run(S2, 'Screenshot question', CWD_B, '2026-12-01 10:00:00', '2026-12-01 10:00:25', '{}', 800, 700, 100, 800, config);
    insertMessages(db, S1, S1_MESSAGES);
    insertMessages(db, S2, S2_MESSAGES);
  } finally {
    db.close();
  }
  writeFileSync(join(sessions, `${LEGACY}.jsonl`), LEGACY_LINES.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return dir;
}

export function dbOf(home: string): string {
  return join(home, 'sessions', 'sessions.db');
}

/** Runs `fn` on a writable connection to a test database. */
export function withDb<T>(path: string, fn: (db: BetterSqlite3.Database) => T): T {
  const db = new Database(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
