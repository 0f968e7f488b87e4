// Cursor CLI `store.db` (docs/formats/cursor.md §7), read-only: `meta['0']` (hex-encoded JSON) names the
// head, `latestRootBlobId`; the conversation is the root-linked order of content-addressed blobs
// (protobuf index nodes: field 1 = a message leaf, field 2 = a subtree, recursed in place). Only
// what the head reaches is read, one blob at a time by id (abandoned branches are never mixed in).
// `meta.blobEncryptionKey` is a secret: never copied into events.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import { toEpochSeconds, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import { openForRead, type Db } from '../../lib/capture/sqlite.js';
import { leafEvents } from './messages.js';
import { AGENT, readMetaJson } from './paths.js';
import { pbFields } from './protobuf.js';

/** meta['0'] decoded, without the secret (`hasBlobEncryptionKey` says it was there). */
export function readStoreMeta(db: Db, path: string): Json {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('blobs', 'meta')").all() as Array<{ name: string }>;
  if (tables.length < 2) throw new UserError('not a Cursor CLI store.db (no blobs/meta tables)', path);
  const row = db.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value?: unknown } | undefined;
  if (!row || typeof row.value !== 'string') return {};
  let text = row.value;
  if (/^[0-9a-f]+$/i.test(text) && text.length % 2 === 0) text = Buffer.from(text, 'hex').toString('utf8');
  try {
    const value = JSON.parse(text) as unknown;
    if (!isObject(value)) return {};
    const { blobEncryptionKey: secret, ...rest } = value;
    if (secret !== undefined) rest.hasBlobEncryptionKey = true;
    return rest;
  } catch {
    return {};
  }
}

export async function withStore<T>(path: string, fn: (db: Db) => T): Promise<T> {
  const handle = await openForRead(path);
  try {
    return fn(handle.db);
  } finally {
    handle.close();
  }
}

export async function* captureStore(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const path = ref.path;
  const events = await withStore(path, (db) => {
    const out: SpEvent[] = [];
    const meta = readStoreMeta(db, path);
    const side = readMetaJson(path);
    const nativeId = str(meta.agentId) ?? ref.native_id;
    const emitter = new SessionEmitter(AGENT, nativeId);
    const ts = toEpochSeconds(meta.createdAt) ?? toEpochSeconds(side?.createdAtMs) ?? ref.mtime ?? 0;
    const start: Json = { native_id: nativeId, source: 'cli-store' };
    if (str(meta.name)) start.title = meta.name;
    if (str(meta.lastUsedModel)) start.model = meta.lastUsedModel;
    if (str(meta.mode)) start.mode = meta.mode;
    const cwd = str(side?.cwd) ?? ref.cwd;
    if (cwd) start.cwd = cwd;
    if (meta.hasBlobEncryptionKey === true) start.encrypted = true;
    out.push(emitter.emit('session.start', start, ts, { actor: 'system', origin: { path } }));
    const root = str(meta.latestRootBlobId);
    if (!root) {
      options.onDiagnostic?.(path, 'meta has no latestRootBlobId: no conversation to read');
      return out;
    }
    const blob = db.prepare('SELECT data FROM blobs WHERE id = ?').pluck();
    const seen = new Set<string>();
    let leafNo = 0;
    const walk = (id: string, depth: number): void => {
      if (seen.has(id) || depth > 64) return;
      seen.add(id);
      const data = blob.get(id) as Buffer | string | undefined;
      if (data === undefined) {
        options.onDiagnostic?.(`${path}#${id}`, `blob ${id} is missing (the head points at a blob the store does not hold)`);
        return;
      }
      const buf = Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (buf[0] === 0x7b) {
        leafNo += 1;
        let leaf: unknown;
        try {
          leaf = JSON.parse(buf.toString('utf8'));
        } catch (err) {
          options.onDiagnostic?.(`${path}#${id}`, `leaf is not JSON: ${(err as Error).message}`);
          out.push(emitter.emit('meta', { key: 'cursor.bad-leaf', raw: buf.toString('utf8').slice(0, 4096) }, ts, { actor: 'system', origin: { path, native_uuid: id } }));
          return;
        }
        if (isObject(leaf)) for (const event of leafEvents(leaf, { emitter, ts, model: str(meta.lastUsedModel), origin: { path, native_seq: leafNo, native_uuid: id } })) out.push(event);
        return;
      }
      let fields;
      try {
        fields = pbFields(buf);
      } catch {
        return; // a protobuf leaf of the metadata subtree (title, preview): not conversation
      }
      for (const f of fields) {
        if (f.wire !== 2 || !f.bytes) continue;
        if ((f.field === 1 || f.field === 2) && f.bytes.length === 32) walk(f.bytes.toString('hex'), depth + 1);
      }
    };
    walk(root, 0);
    return out;
  });
  yield* events;
}
