// Zed threads databases built in test code from the source (zed-industries/zed, crates/agent/src/db.rs
// and thread.rs; docs/formats/zed.md): no Zed runs here and no licensed recording was found, so the
// threads in fixtures/zed/built/ are shapes written from the source's types, the zstd frame made with
// `zstd -3` (the level Zed uses).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const BUILT = new URL('../../fixtures/zed/built/', import.meta.url).pathname;
export const CURRENT = 'd2c7a1e4-8f3b-4b6a-9e21-5c0d7f3a9b12';
export const LEGACY = 'legacy-thread-1';
export const CHILD = 'c0ffee00-1111-4222-8333-444455556666';
export const currentJson = (): Buffer => readFileSync(join(BUILT, 'thread-0.3.0.json'));

/** A Zed data dir with `threads/threads.db` holding a current (zstd), a legacy (json) and a subagent thread. */
export function buildDataDir(dir: string): string {
  const path = join(dir, 'threads', 'threads.db');
  mkdirSync(join(dir, 'threads'), { recursive: true });
  const db = new Database(path);
  try {
    db.exec(`CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL,
      parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT)`);
    const insert = db.prepare('INSERT INTO threads (id, summary, updated_at, data_type, data, parent_id, folder_paths, folder_paths_order, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run(CURRENT, 'Add a health check', '2026-11-30T10:05:00+00:00', 'zstd', readFileSync(join(BUILT, 'thread-0.3.0.json.zst')), null, '/home/lin/api\n/home/lin/shared', '1,0', '2026-11-30T10:00:00+00:00');
    insert.run(LEGACY, 'Old agent-1 thread', '2025-06-01T08:00:00+00:00', 'json', readFileSync(join(BUILT, 'thread-legacy.json')), null, '/home/lin/old', '0', '2025-06-01T08:00:00+00:00');
    insert.run(CHILD, 'Subagent', '2026-11-30T10:03:00+00:00', 'json', Buffer.from(JSON.stringify({ title: 'Subagent', messages: [{ User: { id: 'u', content: [{ Text: 'Find callers' }] } }], updated_at: '2026-11-30T10:03:00Z', version: '0.3.0' })), CURRENT, '/home/lin/api\n/home/lin/shared', '1,0', '2026-11-30T10:02:00+00:00');
  } finally {
    db.close();
  }
  return path;
}
