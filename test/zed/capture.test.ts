// Golden tests of the Zed capture on a threads database built from the source (support.ts: shapes,
// not recordings): a current zstd thread with every content kind, a legacy agent-1 JSON thread, a
// subagent thread; broken input (a threads.db that is not SQLite, a zstd frame that is corrupt, JSON
// cut off, an unknown data_type) and hostile input (a thread id that climbs, a symlinked database).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { zed } from '../../adapters/zed/index.js';
import { closeReadConnections } from '../../lib/capture/sqlite.js';
import type { SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { CHILD, CURRENT, LEGACY, buildDataDir } from './support.js';

type Json = Record<string, any>;
const p = (e: SpEvent): Json => e.payload as Json;
const kinds = (events: SpEvent[]) => events.map((e) => (e.type === 'meta' ? `meta:${p(e).key}` : e.type));
let work: string;
let home: string;
let db: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-zed-capture-'));
  home = join(work, 'zed');
  db = buildDataDir(home);
});
afterAll(() => {
  closeReadConnections();
  rmSync(work, { recursive: true, force: true });
});

async function list(options: Json): Promise<SessionRef[]> {
  const out: SessionRef[] = [];
  for await (const ref of zed.discover(options)) out.push(ref);
  return out;
}

/** A copy of the database whose thread `id` has the given data_type and data. */
function withData(name: string, id: string, dataType: string, data: Buffer): string {
  const to = join(work, name, 'threads.db');
  mkdirSync(join(work, name), { recursive: true });
  copyFileSync(db, to);
  const handle = new Database(to);
  handle.prepare('UPDATE threads SET data_type = ?, data = ? WHERE id = ?').run(dataType, data, id);
  handle.close();
  return `${to}#${id}`;
}

describe('zed capture', () => {
  it('lists threads newest first with the first folder (in the user\'s order) as cwd, and filters by cwd', async () => {
    expect((await list({ home })).map((r) => [r.native_id, r.cwd, r.parent_native_id])).toEqual([
      [CURRENT, '/home/lin/shared', undefined],
      [CHILD, '/home/lin/shared', CURRENT],
      [LEGACY, '/home/lin/old', undefined],
    ]);
    expect((await list({ home, cwd: '/home/lin/old' })).map((r) => r.native_id)).toEqual([LEGACY]);
  });

  it('reads a zstd thread: every content kind mapped, unknown ones kept', async () => {
    const { events, diagnostics } = await captureAll(zed, `${db}#${CURRENT}`);
    expect(diagnostics).toEqual([]);
    expect(kinds(events)).toEqual([
      'session.start', 'message.user', 'message.thinking', 'message.assistant', 'tool.call', 'tool.result',
      'tool.call', 'message.thinking', 'tool.result', 'meta:zed.resume', 'message.assistant', 'meta:zed.agent.part',
    ]);
    expect(p(events[0])).toMatchObject({ native_id: CURRENT, title: 'Add a health check', version: '0.3.0', model: 'claude-sonnet-4-5', provider: 'anthropic', cwd: '/home/lin/shared' });
    expect(p(events[0]).extra).toMatchObject({ profile: 'write', thinking_enabled: true });
    expect(p(events[1]).content).toEqual([
      { type: 'text', text: 'Add a /health route to the server' },
      { type: 'text', text: 'fn main() {}\n', mention: { File: { abs_path: '/home/lin/api/src/server.rs' } } },
      { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' },
    ]);
    expect(p(events[2])).toEqual({ text: 'Read the server first.', signature: 'sig-z1' });
    expect(p(events[4])).toEqual({ call_id: 'toolu_z1', name: 'read_file', input: { path: 'api/src/server.rs' } });
    expect(p(events[5])).toMatchObject({ call_id: 'toolu_z1', content: 'fn main() {}\n', name: 'read_file' });
    expect(p(events[7])).toEqual({ text: '', visibility: 'redacted', opaque: 'b3BhcXVl' });
    expect(p(events[8])).toMatchObject({ call_id: 'toolu_z2', is_error: true, content: 'error: could not compile' });
    expect(p(events[10]).content[0].text).toContain('加好了');
    expect(events.map((e) => e.origin?.native_seq)).toEqual([0, 1, 2, 2, 2, 2, 3, 3, 3, 4, 5, 5]);
  });

  it('reads a legacy agent-1 thread stored as JSON, and a subagent thread as a child', async () => {
    const legacy = (await captureAll(zed, `${db}#${LEGACY}`)).events;
    expect(kinds(legacy)).toEqual(['session.start', 'message.user', 'message.thinking', 'message.assistant', 'tool.call', 'tool.result', 'message.assistant']);
    expect(p(legacy[0])).toMatchObject({ title: 'Old agent-1 thread', version: '0.2.0', cwd: '/home/lin/old' });
    const child = (await captureAll(zed, `${db}#${CHILD}`)).events;
    expect(p(child[0])).toMatchObject({ parent_native_id: CURRENT });
  });
});

describe('zed capture: broken and hostile input', () => {
  it('a threads.db that is not SQLite is a clear error', async () => {
    const dir = join(work, 'corrupt');
    mkdirSync(join(dir, 'threads'), { recursive: true });
    writeFileSync(join(dir, 'threads', 'threads.db'), 'not sqlite '.repeat(300));
    await expect(list({ home: dir })).rejects.toMatchObject({ message: 'not a SQLite database', exitCode: 2 });
  });

  it('a corrupt zstd frame, JSON cut off and an unknown data_type: the thread is one meta and one diagnostic', async () => {
    for (const [name, type, data, reason] of [
      ['bad-zstd', 'zstd', Buffer.from('28b52ffd00000000garbage'), /cannot decompress/],
      ['cut-json', 'json', Buffer.from('{"title":"x","messages":[{"User":'), /invalid JSON/],
      ['odd-type', 'brotli', Buffer.from('{}'), /unknown data_type "brotli"/],
    ] as const) {
      const path = withData(name, CURRENT, type, data);
      const { events, diagnostics } = await captureAll(zed, path);
      expect(kinds(events)).toEqual(['session.start', 'meta:unparseable']);
      expect(diagnostics.length).toBe(1);
      expect(diagnostics[0].where).toBe(`${path}:1`);
      expect(diagnostics[0].what).toMatch(reason);
    }
  });

  it('a thread id that climbs names no thread; a symlinked threads.db is read in place, never written', async () => {
    await expect(zed.open(`${db}#../../etc/passwd`)).rejects.toThrow(/no thread \.\.\/\.\.\/etc\/passwd in this database/);
    const linked = join(work, 'linked');
    mkdirSync(join(linked, 'threads'), { recursive: true });
    symlinkSync(db, join(linked, 'threads', 'threads.db'));
    expect((await list({ home: linked })).length).toBe(3);
    expect(zed.materialize).toBeUndefined();
  });
});
