// Cursor IDE `state.vscdb` (docs/formats/cursor.md §2–§5), read-only and by key only: `composerData:<cid>`
// rows (found by a key-prefix range, never a scan of the whole table: ItemTable holds auth tokens)
// and the `bubbleId:<cid>:<bid>` rows their `fullConversationHeadersOnly` lists, in that order
// (orphan bubbles of edits are not read). Legacy composers carry `conversation[]` inline.
// Listings by version: the `composerHeaders` table (≥3.12), ItemTable `composer.composerHeaders`
// (3.0+), and before 3.0 each workspace DB's `composer.composerData.allComposers`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CaptureOptions } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { SessionEmitter } from '../../lib/core/emitter.js';
import { toEpochSeconds, type SpEvent } from '../../lib/core/event.js';
import { isObject, str, type Json } from '../../lib/core/json.js';
import type { Db } from '../../lib/capture/sqlite.js';
import { withStore } from './store-db.js';
import { AGENT, unwrapQuery } from './paths.js';

export interface ComposerHead {
  composerId: string;
  name?: string;
  createdAt?: number;
  lastUpdatedAt?: number;
  cwd?: string;
  /** Which listing named it: table (≥3.12), global-key (3.0+), workspace (≤2.6), data (only a composerData row). */
  listing: 'table' | 'global-key' | 'workspace' | 'data';
}

function json(value: unknown): Json | undefined {
  if (value === undefined || value === null) return undefined;
  const text = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  try {
    const parsed = JSON.parse(text) as unknown;
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function hasTable(db: Db, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

function fsPathOf(head: Json): string | undefined {
  const ws = isObject(head.workspaceIdentifier) ? head.workspaceIdentifier : undefined;
  const uri = ws && isObject(ws.uri) ? ws.uri : undefined;
  return str(uri?.fsPath) ?? str(uri?.path);
}

function headOf(value: Json, listing: ComposerHead['listing']): ComposerHead | undefined {
  const id = str(value.composerId);
  if (!id) return undefined;
  const head: ComposerHead = { composerId: id, listing };
  if (str(value.name)) head.name = value.name as string;
  if (typeof value.createdAt === 'number') head.createdAt = value.createdAt;
  if (typeof value.lastUpdatedAt === 'number') head.lastUpdatedAt = value.lastUpdatedAt;
  const cwd = fsPathOf(value);
  if (cwd) head.cwd = cwd;
  return head;
}

/** Composer heads of a global DB (every listing layout), plus composers that only have a composerData row. */
export function listComposers(db: Db, path: string, workspaceHeads: ComposerHead[] = []): ComposerHead[] {
  if (!hasTable(db, 'cursorDiskKV')) throw new UserError('not a Cursor state.vscdb (no cursorDiskKV table)', path);
  const heads = new Map<string, ComposerHead>();
  const add = (head: ComposerHead | undefined): void => {
    if (head && !heads.has(head.composerId)) heads.set(head.composerId, head);
  };
  if (hasTable(db, 'composerHeaders')) {
    for (const row of db.prepare('SELECT composerId, value FROM composerHeaders').all() as Array<{ composerId: string; value: unknown }>) {
      add(headOf({ composerId: row.composerId, ...(json(row.value) ?? {}) }, 'table'));
    }
  }
  if (hasTable(db, 'ItemTable')) {
    const row = db.prepare("SELECT value FROM ItemTable WHERE key = 'composer.composerHeaders'").get() as { value: unknown } | undefined;
    const index = json(row?.value);
    if (index && Array.isArray(index.allComposers)) for (const h of index.allComposers.filter(isObject)) add(headOf(h, 'global-key'));
  }
  for (const h of workspaceHeads) add(h);
  const data = db.prepare("SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;'").all() as Array<{ key: string; value: unknown }>;
  for (const row of data) {
    const value = json(row.value) ?? {};
    const head = headOf({ ...value, composerId: row.key.slice('composerData:'.length) }, 'data');
    const known = head && heads.get(head.composerId);
    if (known && head) {
      known.name ??= head.name;
      known.createdAt ??= head.createdAt;
    } else add(head);
  }
  return [...heads.values()];
}

/**
 * ≤2.6 listing: each `workspaceStorage/<id>/state.vscdb` names its composers in ItemTable
 * `composer.composerData.allComposers` (one exact key); `workspace.json` beside it maps the id to a folder.
 */
export async function readWorkspaceListings(workspaceDir: string): Promise<ComposerHead[]> {
  const out: ComposerHead[] = [];
  if (!existsSync(workspaceDir)) return out;
  for (const entry of readdirSync(workspaceDir, { withFileTypes: true })) {
    const db = join(workspaceDir, entry.name, 'state.vscdb');
    if (!entry.isDirectory() || !existsSync(db)) continue;
    let folder: string | undefined;
    try {
      folder = str((JSON.parse(readFileSync(join(workspaceDir, entry.name, 'workspace.json'), 'utf8')) as Json).folder);
    } catch {
      folder = undefined;
    }
    const cwd = folder?.startsWith('file://') ? decodeURIComponent(folder.slice('file://'.length)) : undefined;
    try {
      const heads = await withStore(db, (wdb) => {
        if (!hasTable(wdb, 'ItemTable')) return [];
        const row = wdb.prepare("SELECT value FROM ItemTable WHERE key = 'composer.composerData'").get() as { value: unknown } | undefined;
        const value = json(row?.value);
        return value && Array.isArray(value.allComposers) ? value.allComposers.filter(isObject).map((h) => headOf(h, 'workspace')).filter((h): h is ComposerHead => h !== undefined) : [];
      });
      for (const head of heads) out.push(cwd && !head.cwd ? { ...head, cwd } : head);
    } catch {
      continue;
    }
  }
  return out;
}

function bubbleEvents(bubble: Json, emitter: SessionEmitter, fallbackTs: number, model: string | undefined, origin: Record<string, unknown>): SpEvent[] {
  const out: SpEvent[] = [];
  const ts = toEpochSeconds(bubble.createdAt) ?? fallbackTs;
  const text = str(bubble.text) ?? str(bubble.rawText) ?? '';
  const type = bubble.type === 1 || bubble.type === 'user' ? 'user' : bubble.type === 2 || bubble.type === 'ai' ? 'assistant' : undefined;
  if (type === 'user') {
    out.push(emitter.emit('message.user', { content: [{ type: 'text', text: unwrapQuery(text) }] }, ts, { actor: 'user', level: 0, origin }));
    return out;
  }
  if (type !== 'assistant') {
    out.push(emitter.emit('meta', { key: 'cursor.bubble', raw: bubble }, ts, { actor: 'system', origin }));
    return out;
  }
  const bubbleModel = (isObject(bubble.modelInfo) ? str(bubble.modelInfo.modelName) : undefined) ?? model;
  const thinking = isObject(bubble.thinking) ? bubble.thinking : undefined;
  if (thinking && typeof thinking.text === 'string' && thinking.text !== '') {
    const payload: Json = { text: thinking.text, visibility: 'visible' };
    if (str(thinking.signature)) payload.signature = thinking.signature;
    out.push(emitter.emit('message.thinking', payload, ts, { actor: `agent:${AGENT}`, level: 1, origin }));
  }
  const tool = isObject(bubble.toolFormerData) ? bubble.toolFormerData : undefined;
  const content: Json[] = text !== '' ? [{ type: 'text', text }] : [];
  const callId = tool ? str(tool.toolCallId) ?? `${str(bubble.bubbleId) ?? 'bubble'}:tool` : undefined;
  if (tool && callId) content.push({ type: 'tool_use', call_id: callId, name: str(tool.name) ?? 'unknown' });
  if (content.length > 0) {
    const payload: Json = { content };
    if (bubbleModel) payload.model = bubbleModel;
    out.push(emitter.emit('message.assistant', payload, ts, { actor: `agent:${AGENT}`, level: 0, origin }));
  }
  if (tool && callId) {
    const args = str(tool.rawArgs) ?? str(tool.params);
    let input: unknown = {};
    if (args) {
      try {
        input = JSON.parse(args) as unknown;
      } catch {
        input = args;
      }
    }
    out.push(emitter.emit('tool.call', { call_id: callId, name: str(tool.name) ?? 'unknown', input, status: tool.status }, ts, { actor: `agent:${AGENT}`, level: 0, origin }));
    if (tool.result !== undefined || tool.status === 'error' || tool.status === 'cancelled') {
      const payload: Json = { call_id: callId, content: typeof tool.result === 'string' ? tool.result : JSON.stringify(tool.result ?? null) };
      if (tool.status === 'error' || tool.status === 'cancelled') payload.is_error = true;
      out.push(emitter.emit('tool.result', payload, ts, { actor: 'tool', level: 0, origin }));
    }
  }
  return out;
}

/** One composer's events: composerData, then the bubbles its header list references, in order. */
export function composerEvents(db: Db, path: string, head: ComposerHead, options: CaptureOptions): SpEvent[] {
  const key = `composerData:${head.composerId}`;
  const row = db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(key) as { value: unknown } | undefined;
  const data = json(row?.value);
  const emitter = new SessionEmitter(AGENT, head.composerId);
  const ts = toEpochSeconds(data?.createdAt) ?? toEpochSeconds(head.createdAt) ?? 0;
  const start: Json = { native_id: head.composerId, source: 'ide', listing: head.listing };
  const name = str(data?.name) ?? head.name;
  if (name) start.title = name;
  const model = data && isObject(data.modelConfig) ? str(data.modelConfig.modelName) : undefined;
  if (model) start.model = model;
  const cwd = (data && fsPathOf(data)) ?? head.cwd;
  if (cwd) start.cwd = cwd;
  if (data && data._v !== undefined) start.version = `composer _v ${String(data._v)}`;
  if (data && str(data.unifiedMode)) start.mode = data.unifiedMode;
  const out: SpEvent[] = [emitter.emit('session.start', start, ts, { actor: 'system', origin: { path: `${path}#${head.composerId}` } })];
  if (!data) {
    options.onDiagnostic?.(`${path}#${key}`, 'the listing names a composer whose composerData row is missing');
    return out;
  }
  const bubble = db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?');
  let n = 0;
  if (Array.isArray(data.fullConversationHeadersOnly)) {
    for (const header of data.fullConversationHeadersOnly.filter(isObject)) {
      n += 1;
      const bid = str(header.bubbleId);
      if (!bid) continue;
      const bkey = `bubbleId:${head.composerId}:${bid}`;
      const value = json((bubble.get(bkey) as { value: unknown } | undefined)?.value);
      if (!value) {
        options.onDiagnostic?.(`${path}#${bkey}`, 'a header names a bubble that is missing or not JSON');
        continue;
      }
      out.push(...bubbleEvents(value, emitter, ts, model, { path, native_seq: n, native_uuid: bid }));
    }
  } else {
    const inline = Array.isArray(data.conversation) ? data.conversation : isObject(data.conversationMap) ? Object.values(data.conversationMap) : [];
    for (const value of inline.filter(isObject)) {
      n += 1;
      out.push(...bubbleEvents(value, emitter, ts, model, { path, native_seq: n, native_uuid: str(value.bubbleId) }));
    }
  }
  return out;
}

export async function* captureIde(path: string, composer: string | undefined, options: CaptureOptions): AsyncGenerator<SpEvent> {
  const workspaceHeads = await readWorkspaceListings(join(dirname(dirname(path)), 'workspaceStorage'));
  const all = await withStore(path, (db) => {
    const heads = listComposers(db, path, workspaceHeads).filter((h) => composer === undefined || h.composerId === composer);
    if (composer !== undefined && heads.length === 0) throw new UserError(`no composer ${composer} in this state.vscdb`, path);
    heads.sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0) || a.composerId.localeCompare(b.composerId));
    return heads.flatMap((h) => composerEvents(db, path, h, options));
  });
  yield* all;
}
