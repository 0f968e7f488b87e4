// The shared adapter contract suite on Crush databases built from the source's schema
// (test/crush/support.ts): each session as `<crush.db>#<id>`, the global data dir listing the
// project. The hooks add a message row to a copy (an item type the client never wrote; parts that
// are not JSON). Capture reads a session whole, so the grow-by-record test does not apply.
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { crush } from '../../adapters/crush/index.js';
import { parseLocator } from '../../adapters/crush/paths.js';
import { testAdapter, type Injected } from '../contract/testAdapter.js';
import { CHILD, MAIN, OLDER, buildHome, buildProject } from './support.js';

const base = mkdtempSync(join(tmpdir(), 'sp-crush-contract-'));
const project = join(base, 'shop');
const DB = buildProject(project);
const HOME = join(base, 'global');
buildHome(HOME, project);
const at = (id: string): string => `${DB}#${id}`;

function copy(fixture: string, dir: string): string {
  const { db, session } = parseLocator(fixture);
  mkdirSync(dir, { recursive: true });
  const to = join(dir, 'crush.db');
  copyFileSync(db, to);
  return `${to}#${session}`;
}

/** Appends a message row (newest) to the fixture's session in a copy; its record number is the last. */
function injectMessage(fixture: string, dir: string, parts: string, marker: string): Injected {
  const path = copy(fixture, dir);
  const { db, session } = parseLocator(path);
  const handle = new Database(db);
  try {
    handle.prepare("INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES ('zz-injected', ?, 'assistant', ?, 1900000000, 1900000000)").run(session, parts);
    const count = (handle.prepare('SELECT count(*) AS n FROM messages WHERE session_id = ?').get(session) as { n: number }).n;
    return { path, marker, line: count };
  } finally {
    handle.close();
  }
}

testAdapter(crush, {
  // Derived events are captured at level 0 though the table (and docs/design.md §3) says 1: left so
  // stored sessions keep their events' store keys (the level is part of one: a recapture would be stored twice).
  capturedLevels: { 'command.run': 0 },
  fixtures: [at(MAIN), at(CHILD), at(OLDER)],
  home: HOME,
  copy,
  injectUnknown: (fixture, dir) => {
    const marker = `sp-contract-marker-${process.pid}`;
    return injectMessage(fixture, dir, JSON.stringify([{ type: 'sp-contract-future-part', data: { marker, nested: { kept: [1, 2, 3] } } }]), marker);
  },
  injectBroken: (fixture, dir) => injectMessage(fixture, dir, '[{"type":"text","data":{"text":"cut off', 'cut off'),
  incremental: false,
});
