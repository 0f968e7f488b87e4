// The read-only guarantee: a capture (and a --list) leaves state.db, its -wal and its -shm byte for
// byte as they were, creates no file next to them, and still sees what only the -wal holds. Every
// case runs on a copy in a writable folder, where a careless open would create or change files.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hermes } from '../../adapters/hermes/index.js';
import { captureAll } from '../contract/testAdapter.js';
import { runBin } from '../support/streams.js';
import { CORPUS_DB, Database, ROOT, SESSIONS, WAL_BASE_DB, WAL_ONLY, copyDb, folderState, locator, makeWalTrio } from './support.js';

async function listIds(db: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const ref of hermes.discover({ home: dirname(db), details: true })) ids.push(ref.native_id);
  return ids.sort();
}

/** Lists and captures every session of `db`; the folder must be exactly as before. */
async function captureEverything(db: string): Promise<{ ids: string[]; events: number }> {
  const dir = dirname(db);
  const before = folderState(dir);
  const ids = await listIds(db);
  let events = 0;
  for (const id of ids) events += (await captureAll(hermes, locator(db, id), { raw: true })).events.length;
  events += (await captureAll(hermes, db)).events.length;
  expect(folderState(dir), 'the folder after the captures').toEqual(before);
  return { ids, events };
}

describe('capture never changes the database', () => {
  it('a checkpointed WAL database alone: no -wal or -shm appears (immutable open)', async () => {
    const { ids } = await captureEverything(copyDb(CORPUS_DB));
    expect(ids).toEqual([...SESSIONS].sort());
  });

  it('db + -wal + -shm: the sessions only the -wal holds come out, and no byte of the three changes', async () => {
    const db = makeWalTrio();
    const before = folderState(dirname(db));
    expect(Object.keys(before)).toEqual(['state.db', 'state.db-shm', 'state.db-wal']);
    const { ids, events } = await captureEverything(db);
    expect(ids).toEqual([...SESSIONS].sort());
    expect(events).toBeGreaterThan(200);
    // The two sessions really are only in the -wal: without it they are gone.
    const alone = copyDb(db);
    expect(await listIds(alone)).toEqual(SESSIONS.filter((s) => !WAL_ONLY.includes(s)).sort());
  });

  it('the same trio captured through sp-capture (--all, --list, --session) leaves it unchanged', () => {
    const db = makeWalTrio();
    const home = dirname(db);
    const before = folderState(home);
    const all = runBin('sp-capture', ['hermes', '--all', '--home', home]);
    expect(all.code, all.stderr).toBe(0);
    const starts = all.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'session.start');
    expect(starts.map((e) => e.payload.native_id).sort()).toEqual([...SESSIONS].sort());
    expect(runBin('sp-capture', ['hermes', '--list', '--home', home]).code).toBe(0);
    expect(runBin('sp-capture', ['hermes', '--session', `${WAL_ONLY[1]}+`, '--home', home]).code).toBe(0);
    expect(folderState(home)).toEqual(before);
  });

  it('db + -wal without a -shm (nobody has it open): read from a private copy, nothing created', async () => {
    const trio = makeWalTrio();
    rmSync(`${trio}-shm`);
    const { ids } = await captureEverything(trio);
    expect(ids).toEqual([...SESSIONS].sort());
  });

  it('a rollback-journal database (what Hermes creates on hosts whose SQLite has the WAL-reset bug)', async () => {
    const db = copyDb(CORPUS_DB);
    const handle = new Database(db);
    handle.pragma('journal_mode = DELETE');
    handle.close();
    expect(Object.keys(folderState(dirname(db)))).toEqual(['state.db']);
    const { ids } = await captureEverything(db);
    expect(ids).toEqual([...SESSIONS].sort());
  });

  it('the wal/ database of the corpus without its -wal has only the three older sessions', async () => {
    const db = copyDb(WAL_BASE_DB);
    const { ids } = await captureEverything(db);
    expect(ids).toEqual(SESSIONS.filter((s) => !WAL_ONLY.includes(s)).sort());
  });
});

describe('the open mode, in a process whose environment does not ask for URI filenames', () => {
  it('checkpointed → immutable, live trio → readonly_shm, -wal without -shm → copy, rollback → read-only', () => {
    const trio = makeWalTrio();
    const duo = makeWalTrio();
    rmSync(`${duo}-shm`);
    const rollback = copyDb(CORPUS_DB);
    const h = new Database(rollback);
    h.pragma('journal_mode = DELETE');
    h.close();
    const script = `const { openForRead } = await import(${JSON.stringify(join(ROOT, 'dist', 'lib', 'capture', 'sqlite.js'))});
      for (const path of process.argv.slice(1)) { const h = await openForRead(path); console.log(h.mode); h.close(); }`;
    const env = { ...process.env };
    delete env.SQLITE_USE_URI;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, copyDb(CORPUS_DB), trio, duo, rollback], { env, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(['immutable', 'wal-readonly-shm', 'wal-copy', 'rollback']);
  });
});
