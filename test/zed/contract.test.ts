// The shared adapter contract suite on a Zed threads database built from the source (support.ts):
// each thread as `<threads.db>#<id>`. A thread is one row whose JSON is rewritten whole, so the hooks
// replace the thread's data in a copy (a message of a shape the client never wrote; JSON cut off), and
// the grow-by-record test does not apply.
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { zed } from '../../adapters/zed/index.js';
import { parseLocator } from '../../adapters/zed/paths.js';
import { testAdapter, type Injected } from '../contract/testAdapter.js';
import { CHILD, CURRENT, LEGACY, buildDataDir, currentJson } from './support.js';

const HOME = join(mkdtempSync(join(tmpdir(), 'sp-zed-contract-')), 'zed');
const DB = buildDataDir(HOME);
const at = (id: string): string => `${DB}#${id}`;

function copy(fixture: string, dir: string): string {
  const { db, thread } = parseLocator(fixture);
  mkdirSync(dir, { recursive: true });
  const to = join(dir, 'threads.db');
  copyFileSync(db, to);
  return `${to}#${thread}`;
}

/** The fixture's thread in a copy, its data replaced by `data` stored as plain JSON. */
function replaceData(fixture: string, dir: string, data: string, marker: string, line: number): Injected {
  const path = copy(fixture, dir);
  const { db, thread } = parseLocator(path);
  const handle = new Database(db);
  handle.prepare("UPDATE threads SET data_type = 'json', data = ? WHERE id = ?").run(Buffer.from(data), thread);
  handle.close();
  return { path, marker, line };
}

testAdapter(zed, {
  fixtures: [at(CURRENT), at(LEGACY), at(CHILD)],
  home: HOME,
  copy,
  injectUnknown: (fixture, dir) => {
    const marker = `sp-contract-marker-${process.pid}`;
    const thread = JSON.parse(currentJson().toString('utf8'));
    thread.messages.push({ SpContractFuture: { marker, nested: { kept: [1, 2, 3] } } });
    return replaceData(at(CURRENT), dir, JSON.stringify(thread), marker, thread.messages.length);
  },
  // One message that is not a message (a known kind holding a string); the thread's JSON cut off is a golden test.
  injectBroken: (fixture, dir) => {
    const thread = JSON.parse(currentJson().toString('utf8'));
    thread.messages.push({ User: 'cut off' });
    return replaceData(at(CURRENT), dir, JSON.stringify(thread), 'cut off', thread.messages.length);
  },
  incremental: false,
});
