// The shared adapter contract suite on every OpenCode store: the corpus database (a locator
// `<db>#<session>` per session), the export files, the 1.1.58 JSON store and the public storage_v2
// fixtures. The hooks add rows to a copy of the database (a part of a type the client never wrote, a
// part whose JSON is cut off), since a session is rows, not lines. The grow test gives a copy's
// session back one message (with its parts) at a time; the round trip writes into a copy of the
// corpus database (the writer adds rows to a database the client made, it never creates one).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { opencode } from '../../adapters/opencode/index.js';
import { parseLocator } from '../../adapters/opencode/paths.js';
import { testAdapter, type Grower, type Injected } from '../contract/testAdapter.js';
import { ATTACHMENT, DATA, DB, FAILING, LEGACY, LEGACY_EXPORT, LEGACY_SESSION, PUBLIC_STORAGE, SESSIONS, copyDb, exportOf, locator } from './support.js';

const fixtures = [
  ...SESSIONS.map((id) => locator(DB, id)),
  ...SESSIONS.map(exportOf),
  locator(`${LEGACY}/storage`, LEGACY_SESSION),
  LEGACY_EXPORT,
  locator(PUBLIC_STORAGE, 's_stage0_small'),
  locator(PUBLIC_STORAGE, 's_stage0_large'),
];

function copy(fixture: string, dir: string): string {
  const { store, session } = parseLocator(fixture);
  return locator(copyDb(dir, store), session!);
}

/** Appends a part to the last message of the fixture's session in a copy; its record number is the last. */
function injectPart(fixture: string, dir: string, data: string, marker: string): Injected {
  const { store, session } = parseLocator(fixture);
  const db = copyDb(dir, store);
  const handle = new Database(db);
  let line: number;
  try {
    const last = handle.prepare('SELECT id, time_created FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT 1').get(session) as { id: string; time_created: number };
    handle.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run('prt_ffffffffffffzzzzzzzzzzzzzz', last.id, session, last.time_created, last.time_created, data);
    const messages = (handle.prepare('SELECT count(*) AS n FROM message WHERE session_id = ?').get(session) as { n: number }).n;
    const parts = (handle.prepare('SELECT count(*) AS n FROM part WHERE session_id = ?').get(session) as { n: number }).n;
    line = messages + parts;
  } finally {
    handle.close();
  }
  return { path: locator(db, session!), marker, line };
}

/** A copy whose session lost its messages, parts and todo rows, given back one message at a time. */
function grow(fixture: string, dir: string): Grower {
  const { store, session } = parseLocator(fixture);
  const db = copyDb(join(dir, 'db'), store);
  const open = () => {
    const handle = new Database(db);
    handle.exec(`ATTACH '${store.replace(/'/g, "''")}' AS src`);
    return handle;
  };
  const setup = open();
  const ids = (setup.prepare('SELECT id FROM src.message WHERE session_id = ? ORDER BY time_created, id').all(session) as Array<{ id: string }>).map((r) => r.id);
  const partCount = new Map(ids.map((id) => [id, (setup.prepare('SELECT count(*) AS n FROM src.part WHERE message_id = ?').get(id) as { n: number }).n]));
  setup.prepare('DELETE FROM part WHERE session_id = ?').run(session);
  setup.prepare('DELETE FROM message WHERE session_id = ?').run(session);
  setup.prepare('DELETE FROM todo WHERE session_id = ?').run(session);
  setup.close();
  let records = 0;
  let added = '';
  return {
    path: locator(db, session!),
    count: ids.length,
    add(i) {
      const handle = open();
      try {
        handle.prepare('INSERT INTO message SELECT * FROM src.message WHERE id = ?').run(ids[i]);
        handle.prepare('INSERT INTO part SELECT * FROM src.part WHERE message_id = ?').run(ids[i]);
      } finally {
        handle.close();
      }
      added = ids[i];
      const from = records + 1;
      records += 1 + partCount.get(ids[i])!;
      return { from, to: records };
    },
    truncate() {
      const handle = open();
      handle.prepare('DELETE FROM part WHERE message_id = ?').run(added);
      handle.prepare('DELETE FROM message WHERE id = ?').run(added);
      handle.close();
    },
    rewrite() {
      const handle = open();
      handle.prepare('INSERT INTO message SELECT * FROM src.message WHERE id = ?').run(added);
      handle.prepare('INSERT INTO part SELECT * FROM src.part WHERE message_id = ?').run(added);
      handle.prepare(`UPDATE part SET data = json_set(data, '$.text', coalesce(json_extract(data, '$.text'), '') || ' (changed)') WHERE message_id = ? AND json_extract(data, '$.type') = 'text'`).run(added);
      handle.close();
    },
  };
}

testAdapter(opencode, {
  fixtures,
  home: DATA,
  copy,
  injectUnknown: (fixture, dir) => {
    const marker = `sp-contract-marker-${process.pid}`;
    return injectPart(fixture, dir, JSON.stringify({ type: 'sp-contract-future-part', marker, nested: { kept: [1, 2, 3] } }), marker);
  },
  injectBroken: (fixture, dir) => injectPart(fixture, dir, '{"type":"text","text":"cut off', 'cut off'),
  // Not the feature session: its todo rows are session state that only full captures emit.
  incremental: { fixtures: [FAILING, ATTACHMENT].map((id) => locator(DB, id)), grow },
  roundTrip: {
    fixtures: [...SESSIONS.map((id) => locator(DB, id)), LEGACY_EXPORT, locator(PUBLIC_STORAGE, 's_stage0_large')],
    options: (home) => {
      copyDb(home);
      return { home, cwd: join(home, 'project') };
    },
  },
});
