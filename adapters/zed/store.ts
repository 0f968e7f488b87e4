// Reading Zed's threads database (docs/formats/zed.md §2): one `threads` row per thread with its
// metadata columns and `data`, the thread as JSON, stored as is (`data_type` "json") or
// zstd-compressed ("zstd", current versions). Decompression is fzstd (pure JavaScript; Node 20 has
// no zstd), bounded so a hostile row cannot inflate without limit.
import { Decompress } from 'fzstd';
import { UserError } from '../../lib/cli/diagnostics.js';
import { openForRead, type Db } from '../../lib/capture/sqlite.js';
import { isObject, type Json } from '../../lib/core/json.js';

/** The most a thread may inflate to: far above any real thread, far below what would exhaust memory. */
const MAX_THREAD_BYTES = 256 * 1024 * 1024;

class TooLarge extends Error {}

/** A zstd frame inflated chunk by chunk, stopping as soon as it passes MAX_THREAD_BYTES. */
function inflate(bytes: Buffer): Buffer {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const stream = new Decompress((chunk) => {
    total += chunk.byteLength;
    if (total > MAX_THREAD_BYTES) throw new TooLarge(`decompressed thread larger than ${MAX_THREAD_BYTES} bytes`);
    chunks.push(chunk.slice());
  });
  stream.push(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), true);
  return Buffer.concat(chunks);
}

export interface ThreadRow {
  id: string;
  parent_id?: string | null;
  folder_paths?: string | null;
  folder_paths_order?: string | null;
  summary?: string;
  updated_at?: string;
  created_at?: string | null;
}

export async function withDb<T>(path: string, fn: (db: Db) => T): Promise<T> {
  const handle = await openForRead(path);
  try {
    const table = handle.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'threads'").get();
    if (!table) throw new UserError('not a Zed threads database (no threads table)', path);
    return fn(handle.db);
  } finally {
    handle.close();
  }
}

function columns(db: Db): Set<string> {
  return new Set((db.prepare('PRAGMA table_info(threads)').all() as Array<{ name: string }>).map((c) => c.name));
}

/** Every thread's metadata, newest first as the client lists them (older databases lack some columns). */
export function listThreads(db: Db): ThreadRow[] {
  const have = columns(db);
  const pick = ['id', 'summary', 'updated_at', ...['parent_id', 'folder_paths', 'folder_paths_order', 'created_at'].filter((c) => have.has(c))];
  return db.prepare(`SELECT ${pick.join(', ')} FROM threads ORDER BY updated_at DESC${have.has('created_at') ? ', created_at DESC' : ''}, id`).all() as ThreadRow[];
}

/** The thread's JSON, or why it cannot be read (an unknown data type, a corrupt frame, not JSON). */
export function readThread(db: Db, id: string): { value?: Json; reason?: string; text?: string } {
  const row = db.prepare('SELECT data_type, data FROM threads WHERE id = ? LIMIT 1').get(id) as { data_type: string; data: Buffer | string } | undefined;
  if (!row) return { reason: 'no such thread' };
  let text: string;
  try {
    const bytes = typeof row.data === 'string' ? Buffer.from(row.data) : row.data;
    if (row.data_type === 'zstd') {
      text = inflate(bytes).toString('utf8');
    } else if (row.data_type === 'json') text = bytes.toString('utf8');
    else return { reason: `unknown data_type ${JSON.stringify(row.data_type)}` };
  } catch (err) {
    return { reason: err instanceof TooLarge ? err.message : `cannot decompress (${(err as Error).message})` };
  }
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) ? { value } : { reason: 'not a JSON object', text };
  } catch (err) {
    return { reason: `invalid JSON (${(err as Error).message})`, text };
  }
}

/** The folder the thread was started in: the first of its folder paths in the user's order. */
export function firstFolder(row: ThreadRow): string | undefined {
  if (!row.folder_paths) return undefined;
  const paths = row.folder_paths.split('\n').filter((p) => p !== '');
  const order = (row.folder_paths_order ?? '').split(',').map(Number);
  if (order.length !== paths.length || order.some((n) => !Number.isInteger(n))) return paths[0];
  return paths[order.indexOf(0)] ?? paths[0];
}
