// Cursor databases built in test code from the documented layout (docs/formats/cursor.md §2–§7): no public
// real store.db or state.vscdb with blobs exists. Each builder writes a fresh file and closes it.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pbNode } from '../../adapters/cursor/protobuf.js';

export const SECRET = 'sp-test-secret-token-7f3c9a1e-do-not-leak';
const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/**
 * A CLI store.db: a system leaf, a `<user_info>` leaf, then the turns; a metadata subtree with
 * protobuf leaves (title, preview); an abandoned branch blob that the head does not reach; the
 * secret `blobEncryptionKey` in meta.
 */
export function buildStore(path: string, options: { cwd?: string; abandoned?: boolean } = {}): { agentId: string; rootId: string } {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.exec('CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);');
  const put = db.prepare('INSERT OR REPLACE INTO blobs (id, data) VALUES (?, ?)');
  const blob = (data: Buffer): string => {
    const id = sha(data);
    put.run(id, data);
    return id;
  };
  const leaf = (value: unknown): string => blob(Buffer.from(JSON.stringify(value)));
  const turns = [
    leaf({ role: 'system', content: 'You are a coding agent. SYSTEM-PROMPT-TEXT' }),
    leaf({ role: 'user', content: [{ type: 'text', text: '<user_info>\nOS: linux\nWorkspace: /home/u/proj\n</user_info>' }] }),
    leaf({ role: 'user', content: [{ type: 'text', text: '<user_query>\nlist the files\n</user_query>' }] }),
    leaf({ id: '1', role: 'assistant', content: [{ type: 'reasoning', text: 'I should run ls.', signature: 'sig-1' }, { type: 'text', text: 'Listing.' }, { type: 'tool-call', toolCallId: 'toolu_01', toolName: 'Shell', args: { command: 'ls' } }] }),
    leaf({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_01', toolName: 'Shell', result: 'a.txt\nb.txt' }] }),
    leaf({ id: '2', role: 'assistant', content: [{ type: 'text', text: 'Two files: a.txt and b.txt.' }] }),
  ];
  const second = [
    leaf({ role: 'user', content: '<user_query>\nread a.txt\n</user_query>' }),
    leaf({ role: 'assistant', content: null, tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'Read', arguments: '{"path":"a.txt"}' } }] }),
    leaf({ role: 'tool', tool_call_id: 'call_2', content: 'hello' }),
    leaf({ id: '3', role: 'assistant', content: [{ type: 'text', text: 'It says hello.' }] }),
  ];
  const title = blob(Buffer.concat([Buffer.from([0x0a, 5]), Buffer.from('Files'), Buffer.from([0x12, 4]), Buffer.from('abcd')]));
  const empty = blob(Buffer.from([0x1a, 0]));
  const metadata = blob(pbNode([[1, title], [2, empty]]));
  const subtree = blob(pbNode(second.map((id) => [1, id] as [1, string])));
  const root = blob(pbNode([...turns.map((id) => [1, id] as [1, string]), [2, subtree], [2, metadata]]));
  if (options.abandoned !== false) leaf({ role: 'user', content: 'ABANDONED-BRANCH-PROMPT' });
  const agentId = 'c0ffee00-0000-4000-8000-000000000001';
  const meta = { agentId, latestRootBlobId: root, name: 'List files', mode: 'default', createdAt: 1767000000000, lastUsedModel: 'claude-4.5-sonnet', blobEncryptionKey: SECRET };
  db.prepare("INSERT INTO meta (key, value) VALUES ('0', ?)").run(Buffer.from(JSON.stringify(meta)).toString('hex'));
  db.close();
  if (options.cwd) writeFileSync(join(dirname(path), 'meta.json'), JSON.stringify({ schemaVersion: 1, createdAtMs: 1767000000000, hasConversation: true, updatedAtMs: 1767000100000, cwd: options.cwd }));
  return { agentId, rootId: root };
}

export type IdeEra = 'workspace' | 'global-key' | 'table';

/**
 * An IDE global state.vscdb: two split-era composers (headers + bubbles, one orphan bubble each),
 * one legacy composer with inline `conversation[]`, an auth token row in ItemTable, and the listing
 * of the given era (≤2.6: a workspace DB's allComposers; 3.0+: ItemTable composer.composerHeaders;
 * ≥3.12: the composerHeaders table).
 */
export function buildIde(userDir: string, era: IdeEra): { globalDb: string; composers: string[] } {
  const globalDb = join(userDir, 'globalStorage', 'state.vscdb');
  mkdirSync(dirname(globalDb), { recursive: true });
  const db = new Database(globalDb);
  db.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB); CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);');
  const kv = db.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)');
  const item = db.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)');
  item.run('cursorAuth/accessToken', SECRET);
  item.run('cursorAuth/refreshToken', `refresh-${SECRET}`);
  const ws = { id: 'ws1', uri: { fsPath: '/home/u/proj', path: '/home/u/proj', scheme: 'file' } };
  const a = '7f3c0000-0000-4000-8000-00000000000a';
  const b = '7f3c0000-0000-4000-8000-00000000000b';
  const legacy = '7f3c0000-0000-4000-8000-00000000000c';
  kv.run(`composerData:${a}`, JSON.stringify({
    _v: 13, composerId: a, name: 'Add retry', createdAt: 1767000000000, lastUpdatedAt: 1767000042000, status: 'completed', unifiedMode: 'agent',
    modelConfig: { modelName: 'claude-4.5-sonnet' }, workspaceIdentifier: ws,
    fullConversationHeadersOnly: [{ bubbleId: 'b1', type: 1 }, { bubbleId: 'b2', type: 2 }, { bubbleId: 'b3', type: 2 }],
  }));
  kv.run(`bubbleId:${a}:b1`, JSON.stringify({ _v: 3, type: 1, bubbleId: 'b1', text: 'add a retry to fetch()', createdAt: '2026-01-01T10:00:00Z' }));
  kv.run(`bubbleId:${a}:b2`, JSON.stringify({ _v: 3, type: 2, bubbleId: 'b2', capabilityType: 15, text: '', createdAt: '2026-01-01T10:00:05Z', thinking: { text: 'Read net.ts first.' },
    toolFormerData: { tool: 5, name: 'read_file', toolCallId: 'toolu_01', status: 'completed', rawArgs: '{"target_file":"src/net.ts"}', result: '{"contents":"export function fetch() {}"}' } }));
  kv.run(`bubbleId:${a}:b3`, JSON.stringify({ _v: 3, type: 2, bubbleId: 'b3', text: 'Done – fetch() now retries 3×.', modelInfo: { modelName: 'claude-4.5-sonnet' }, createdAt: '2026-01-01T10:00:09Z' }));
  kv.run(`bubbleId:${a}:orphan`, JSON.stringify({ _v: 3, type: 1, bubbleId: 'orphan', text: 'ORPHAN-EDITED-AWAY' }));
  kv.run(`composerData:${b}`, JSON.stringify({ _v: 17, composerId: b, name: 'Fix tests', createdAt: 1767100000000, lastUpdatedAt: 1767100060000, workspaceIdentifier: ws,
    fullConversationHeadersOnly: [{ bubbleId: 'c1', type: 1 }, { bubbleId: 'c2', type: 2 }] }));
  kv.run(`bubbleId:${b}:c1`, JSON.stringify({ _v: 3, type: 1, bubbleId: 'c1', text: 'run the tests' }));
  kv.run(`bubbleId:${b}:c2`, JSON.stringify({ _v: 3, type: 2, bubbleId: 'c2', capabilityType: 15, text: '', toolFormerData: { name: 'run_terminal_cmd', toolCallId: 'toolu_02', status: 'error', rawArgs: '{"command":"npm test"}', result: '{"output":"1 failing"}' } }));
  kv.run(`composerData:${legacy}`, JSON.stringify({ _v: 2, composerId: legacy, name: 'Old chat', createdAt: 1730000000000,
    conversation: [{ type: 1, bubbleId: 'l1', text: 'hello from 0.41' }, { type: 2, bubbleId: 'l2', text: 'hi from 0.41' }] }));
  kv.run(`checkpointId:${a}:cp1`, JSON.stringify({ files: [] }));
  const heads = [a, b, legacy].map((id, i) => ({ type: 'head', composerId: id, name: ['Add retry', 'Fix tests', 'Old chat'][i], createdAt: [1767000000000, 1767100000000, 1730000000000][i], lastUpdatedAt: [1767000042000, 1767100060000, 1730000000000][i], workspaceIdentifier: ws }));
  if (era === 'global-key') item.run('composer.composerHeaders', JSON.stringify({ allComposers: heads }));
  if (era === 'table') {
    db.exec('CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, createdAt INTEGER, lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, recency INTEGER, checkpointAt INTEGER, value TEXT)');
    const row = db.prepare('INSERT INTO composerHeaders VALUES (?, ?, ?, ?, 0, 0, 0, 0, ?)');
    for (const h of heads) row.run(h.composerId, 'ws1', h.createdAt, h.lastUpdatedAt, JSON.stringify(h));
    item.run('composer.composerHeaders.tableGateEnabled', 'true');
  }
  db.close();
  if (era === 'workspace') {
    const wdir = join(userDir, 'workspaceStorage', 'abc123');
    mkdirSync(wdir, { recursive: true });
    writeFileSync(join(wdir, 'workspace.json'), JSON.stringify({ folder: 'file:///home/u/proj' }));
    const wdb = new Database(join(wdir, 'state.vscdb'));
    wdb.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB); CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);');
    wdb.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)').run('composer.composerData', JSON.stringify({ allComposers: heads.map(({ workspaceIdentifier: _w, ...h }) => h), selectedComposerIds: [a] }));
    wdb.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)').run('cursorAuth/accessToken', SECRET);
    wdb.close();
  }
  return { globalDb, composers: [a, b, legacy] };
}
