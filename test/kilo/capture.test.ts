// Golden tests of the Kilo Code CLI capture on the session the real client (7.7.7, offline against the
// mock model) recorded: its database and its own export give the same history; every row is
// accounted for; Kilo's ids and meta keys are Kilo's. Broken and hostile inputs: a database that is
// not SQLite, a locator whose session id climbs out, a storage folder whose session file names a
// folder outside it, a kilo.db symlinked out of the home.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { kilo } from '../../adapters/kilo/index.js';
import { closeReadConnections } from '../../lib/capture/sqlite.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll, captureRef, conversationView } from '../contract/testAdapter.js';
import { DB, DATA, EXPORT, SESSION, copyDb, locator } from './support.js';

type Json = Record<string, any>;
const ofType = (events: SpEvent[], type: string) => events.filter((e) => e.type === type);
const p = (e: SpEvent): Json => e.payload as Json;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-kilo-capture-'));
});
afterAll(() => {
  closeReadConnections();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function capture(path: string): Promise<SpEvent[]> {
  return (await captureAll(kilo, path)).events;
}

describe('kilo capture: the recorded session', () => {
  it('discovers it under the data dir with its cwd, and filters by cwd', async () => {
    const refs = [];
    for await (const ref of kilo.discover({ home: DATA, details: true })) refs.push(ref);
    expect(refs.map((r) => [r.agent, r.native_id, r.cwd, r.messages, r.tool_calls])).toEqual([['kilo', SESSION, '/home/kim/web-app', 10, 7]]);
    expect(refs[0].first_prompt).toMatch(/^Add a farewell\(\) function/);
    const elsewhere = [];
    for await (const ref of kilo.discover({ home: DATA, cwd: '/home/kim/other' })) elsewhere.push(ref);
    expect(elsewhere).toEqual([]);
  });

  it('maps every row: user prompts, reasoning, texts, tool calls with results, derived events, step parts as kilo meta', async () => {
    const events = await capture(locator(DB, SESSION));
    expect(events.every((e) => e.agent === 'kilo')).toBe(true);
    const start = p(events[0]);
    expect(start).toMatchObject({ native_id: SESSION, cwd: '/home/kim/web-app', version: '7.7.7', model: 'mock-model', provider: 'mock' });
    expect(ofType(events, 'message.user').map((e) => p(e).content[0].text)).toEqual([
      'Add a farewell() function next to greet() and a test for both. Run the tests.',
      'Now run a command that fails: ls missing-dir. Then say 完成.',
    ]);
    expect(ofType(events, 'message.thinking').map((e) => p(e).text)).toEqual(['Plan the work, then read the source file.']);
    expect(ofType(events, 'tool.call').map((e) => p(e).name)).toEqual(['todowrite', 'read', 'edit', 'write', 'bash', 'bash', 'read']);
    const results = ofType(events, 'tool.result');
    expect(results.map((e) => p(e).call_id)).toEqual(ofType(events, 'tool.call').map((e) => p(e).call_id));
    expect(results.map((e) => p(e).is_error === true)).toEqual([false, false, false, false, false, false, true]);
    expect(String(p(results[6]).content)).toContain('File not found: /home/kim/web-app/nope.txt');
    expect(ofType(events, 'command.run').map((e) => [p(e).cmd, p(e).exit_code])).toEqual([['npm test', 0], ['ls missing-dir', 2]]);
    expect(ofType(events, 'file.edit').length).toBe(2);
    expect(JSON.stringify(ofType(events, 'message.assistant').at(-1)!.payload)).toContain('完成');
    const metaKeys = new Set(ofType(events, 'meta').map((e) => p(e).key));
    expect([...metaKeys].sort()).toEqual(['kilo.part.patch', 'kilo.part.step-finish', 'kilo.part.step-start', 'kilo.todos']);
  });

  it('accounts for every message and part row of the database', async () => {
    const handle = new Database(copyDb(join(work, 'rows')), { readonly: true });
    const rows = handle.prepare('SELECT id FROM part WHERE session_id = ? UNION ALL SELECT id FROM message WHERE session_id = ?').all(SESSION, SESSION) as Json[];
    handle.close();
    const events = await capture(locator(DB, SESSION));
    const seen = new Set<string>();
    for (const e of events) {
      if (e.origin?.native_uuid) seen.add(String(e.origin.native_uuid));
      for (const part of (p(e).parts as Json[] | undefined) ?? []) seen.add(String(part.id));
    }
    // Every part is an event (or inside its user message's); records are numbered 1..messages+parts.
    expect(rows.filter((r) => String(r.id).startsWith('prt_') && !seen.has(r.id))).toEqual([]);
    const rowEvents = events.filter((e) => !(e.type === 'meta' && p(e).key === 'kilo.todos'));
    expect(Math.max(...rowEvents.map((e) => e.origin?.native_seq ?? 0))).toBe(rows.length);
  });

  it('gives the same conversation from the database and from the client\'s export', async () => {
    expect(conversationView(await capture(EXPORT))).toEqual(conversationView(await capture(locator(DB, SESSION))));
  });
});

describe('kilo capture: broken and hostile input', () => {
  it('a kilo.db that is not SQLite is a clear error, not a stack trace', async () => {
    const dir = join(work, 'corrupt');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'kilo.db'), 'this is not a database\n'.repeat(100));
    const drain = async () => {
      for await (const _ of kilo.discover({ home: dir })) void _;
    };
    await expect(drain()).rejects.toMatchObject({ message: 'not a SQLite database', exitCode: 2 });
  });

  it('a truncated export is refused with its path', async () => {
    const file = join(work, 'cut.json');
    writeFileSync(file, '{"info": {"id": "ses_x"}, "messages": [{"info": ');
    await expect(kilo.open(file)).rejects.toThrow(/cut\.json|export/);
  });

  it('a session id that climbs out of the store names no session', async () => {
    await expect(kilo.open(locator(DB, '../../../etc/passwd'))).rejects.toThrow(/no session/);
    await expect(kilo.find!('../etc', { home: DATA })).rejects.toThrow(/no Kilo Code CLI session/);
  });

  it('a storage folder whose session file claims a path as its id is refused, nothing outside is read', async () => {
    const storage = join(work, 'hostile', 'storage');
    const outside = join(work, 'outside-secret');
    mkdirSync(join(outside, 'x'), { recursive: true });
    writeFileSync(join(outside, 'x', 'msg.json'), JSON.stringify({ id: 'msg_secret', role: 'user', time: { created: 1 } }));
    mkdirSync(join(storage, 'session', 'proj'), { recursive: true });
    mkdirSync(join(storage, 'message'), { recursive: true });
    writeFileSync(join(storage, 'session', 'proj', 'evil.json'), JSON.stringify({ id: '../../outside-secret/x/..', title: 't', time: { created: 1, updated: 2 } }));
    const ref = await kilo.open(storage);
    await expect(captureRef(kilo, ref)).rejects.toThrow(/not a session id/);
  });

  it('a kilo.db symlinked out of the home is read as the client would', async () => {
    const home = join(work, 'linked-home');
    mkdirSync(home, { recursive: true });
    const real = copyDb(join(work, 'elsewhere'));
    symlinkSync(real, join(home, 'kilo.db'));
    const refs = [];
    for await (const ref of kilo.discover({ home })) refs.push(ref);
    expect(refs.map((r) => r.native_id)).toEqual([SESSION]);
  });
});
