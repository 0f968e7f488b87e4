// Crush databases built in test code from the source (charmbracelet/crush at 37f36e93, its goose
// migrations and internal/message): no client runs here (docs/formats/crush.md §1), so these are
// shapes, not recordings (the one public recording is read in public.test.ts). Times are seconds, as the
// client's `strftime('%s', 'now')` writes them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The schema after every migration up to 20260127 (triggers left out: the reader never writes). */
export const SCHEMA = `
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0,
  prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
  updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT, todos TEXT);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, UNIQUE(path, session_id, version));
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL default '[]', model TEXT,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT, is_summary_message INTEGER DEFAULT 0 NOT NULL);
CREATE TABLE read_files (session_id TEXT NOT NULL, path TEXT NOT NULL, read_at INTEGER NOT NULL, PRIMARY KEY (path, session_id));
`;

export const MAIN = '3f2a9c1e-5b7d-4e0a-9c1f-2d3e4f5a6b7c';
export const CHILD = '8e7d6c5b-4a39-4281-9f0e-1d2c3b4a5f6e';
export const OLDER = '1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d';
const T = 1796200000;

const part = (type: string, data: object) => ({ type, data });

/** The messages of the main session: every item type the client writes. */
export function mainMessages(): Array<[string, string, object[], string | null, string | null, number]> {
  return [
    ['m1', 'user', [part('text', { text: 'Fix the failing test in src/sum.go' }), part('binary', { Path: '/home/ada/shop/shot.png', MIMEType: 'image/png', Data: 'iVBORw0KGgo=' })], null, null, T + 1],
    ['m2', 'assistant', [part('reasoning', { thinking: 'Look at the test first.', signature: 'sig-1', thought_signature: '', tool_id: '', responses_data: null }), part('text', { text: 'Reading the test.' }), part('tool_call', { id: 'toolu_01', name: 'view', input: '{"file_path":"/home/ada/shop/src/sum_test.go"}', provider_executed: false, finished: true }), part('finish', { reason: 'tool_use', time: T + 2 })], 'claude-sonnet-4-5', 'anthropic', T + 2],
    ['m3', 'tool', [part('tool_result', { tool_call_id: 'toolu_01', name: 'view', content: 'package sum\n', data: '', mime_type: '', metadata: '{"file_path":"/home/ada/shop/src/sum_test.go"}', is_error: false })], null, null, T + 3],
    ['m4', 'assistant', [part('tool_call', { id: 'toolu_02', name: 'bash', input: '{"command":"go test ./..."}', provider_executed: false, finished: true }), part('finish', { reason: 'tool_use', time: T + 4 })], 'claude-sonnet-4-5', 'anthropic', T + 4],
    ['m5', 'tool', [part('tool_result', { tool_call_id: 'toolu_02', name: 'bash', content: 'FAIL sum 0.01s', data: '', mime_type: '', metadata: '', is_error: true })], null, null, T + 5],
    ['m6', 'user', [part('shell_command', { command: 'git status', output: 'On branch main', exit_code: 0 })], null, null, T + 6],
    ['m7', 'assistant', [part('text', { text: '修好了: the sum test passes now.' }), part('hologram', { beam: 1 }), part('finish', { reason: 'end_turn', time: T + 7 })], 'claude-sonnet-4-5', 'anthropic', T + 7],
    ['m8', 'system', [part('text', { text: 'Summary requested' })], null, null, T + 8],
  ];
}

function insertSession(db: Database.Database, id: string, title: string, created: number, updated: number, parent: string | null, todos: string | null): void {
  db.prepare('INSERT INTO sessions (id, parent_session_id, title, message_count, prompt_tokens, completion_tokens, cost, updated_at, created_at, todos) VALUES (?, ?, ?, 0, 1200, 340, 0.012, ?, ?, ?)').run(id, parent, title, updated, created, todos);
}

/** A project data dir `<project>/.crush/crush.db` with three sessions (one a child of the main one). */
export function buildProject(project: string): string {
  const dataDir = join(project, '.crush');
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'crush.db');
  const db = new Database(path);
  try {
    db.exec(SCHEMA);
    insertSession(db, MAIN, 'Fix the sum test', T, T + 8, null, JSON.stringify([{ content: 'Run go test', status: 'completed', active_form: 'Running go test' }]));
    insertSession(db, CHILD, 'Sub-agent: find callers', T + 3, T + 4, MAIN, null);
    insertSession(db, OLDER, 'Older session', T - 1000, T - 900, null, null);
    const insert = db.prepare('INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    for (const [id, role, parts, model, provider, at] of mainMessages()) insert.run(id, MAIN, role, JSON.stringify(parts), model, provider, at, at);
    insert.run('c1', CHILD, 'user', JSON.stringify([part('text', { text: 'Find callers of Sum' })]), null, null, T + 3, T + 3);
    insert.run('c2', CHILD, 'assistant', JSON.stringify([part('text', { text: 'Two callers.' }), part('finish', { reason: 'end_turn', time: T + 4 })]), 'claude-haiku-4-5', 'anthropic', T + 4, T + 4);
    insert.run('o1', OLDER, 'user', JSON.stringify([part('text', { text: 'hello' })]), null, null, T - 999, T - 999);
    db.prepare('INSERT INTO files (id, session_id, path, content, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run('f1', MAIN, '/home/ada/shop/src/sum.go', 'package sum\n', 0, T + 5, T + 5);
  } finally {
    db.close();
  }
  return path;
}

/** A global data dir whose projects.json lists `project` (and entries a hostile file might hold). */
export function buildHome(home: string, project: string, extra: object[] = []): void {
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'projects.json'), JSON.stringify({ projects: [{ path: project, data_dir: join(project, '.crush'), last_accessed: '2026-12-01T10:00:00Z' }, ...extra] }));
}
