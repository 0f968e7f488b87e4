// The shared adapter contract suite (test/contract/testAdapter.ts) on the Hermes corpus database.
// A fixture is a locator `<db>#<session>`; the hooks copy databases, inject rows and grow a copy
// row by row, since a session is rows of a database rather than lines of a file.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { hermes } from '../../adapters/hermes/index.js';
import { parseLocator } from '../../adapters/hermes/paths.js';
import { testAdapter, type Grower, type Injected } from '../contract/testAdapter.js';
import { CORPUS_DB, Database, HERMES, SESSIONS, copyDb, locator } from './support.js';

const fixtures = SESSIONS.map((id) => locator(CORPUS_DB, id));

function copy(fixture: string, dir: string): string {
  const { db, session } = parseLocator(fixture);
  return locator(copyDb(db, dir), session!);
}

/** Adds one message row to a copy's session, after its last row and newer than anything else. */
function inject(fixture: string, dir: string, row: Record<string, unknown>, marker: string, bare: boolean): Injected {
  const { db: source, session } = parseLocator(fixture);
  const db = copyDb(source, dir);
  const handle = new Database(db);
  let id: number;
  try {
    const last = handle.prepare('SELECT max(id) AS id, max(timestamp) AS ts FROM messages').get() as { id: number; ts: number };
    id = last.id + 1;
    handle.prepare('INSERT INTO messages (id, session_id, role, content, tool_calls, timestamp) VALUES (?, ?, ?, ?, ?, ?)').run(id, session, row.role, row.content ?? '', row.tool_calls ?? null, last.ts + 1000);
  } finally {
    handle.close();
  }
  return { path: bare ? db : locator(db, session!), marker, line: id };
}

/** A copy whose session has lost its rows (and its end), given back one row per `add`. */
function grow(fixture: string, dir: string): Grower {
  const { db: source, session } = parseLocator(fixture);
  mkdirSync(dir, { recursive: true });
  const db = copyDb(source, join(dir, 'db'));
  const open = () => {
    const handle = new Database(db);
    handle.exec(`ATTACH 'file:${source}?immutable=1' AS src`);
    return handle;
  };
  const setup = open();
  const ids = (setup.prepare('SELECT id FROM src.messages WHERE session_id = ? ORDER BY id').all(session) as Array<{ id: number }>).map((r) => r.id);
  setup.prepare('DELETE FROM messages WHERE session_id = ?').run(session);
  // The session ends when its last row is there, as Hermes ends it (cli_close / compression).
  setup.prepare('UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?').run(session);
  // Children appear with their first row, which comes after every row of the parent.
  const children = (setup.prepare('SELECT id FROM sessions WHERE parent_session_id = ?').all(session) as Array<{ id: string }>).map((r) => r.id);
  for (const child of children) setup.prepare('UPDATE sessions SET parent_session_id = NULL WHERE id = ?').run(child);
  setup.close();
  let added = -1;
  return {
    path: locator(db, session!),
    count: ids.length,
    add(i) {
      const handle = open();
      try {
        handle.prepare('INSERT INTO messages SELECT * FROM src.messages WHERE id = ?').run(ids[i]);
        if (i === ids.length - 1) {
          handle.prepare('UPDATE sessions SET ended_at = (SELECT ended_at FROM src.sessions WHERE id = ?), end_reason = (SELECT end_reason FROM src.sessions WHERE id = ?) WHERE id = ?').run(session, session, session);
          for (const child of children) handle.prepare('UPDATE sessions SET parent_session_id = ? WHERE id = ?').run(session, child);
        }
      } finally {
        handle.close();
      }
      added = ids[i];
      return { from: ids[i], to: ids[i] };
    },
    truncate() {
      const handle = open();
      handle.prepare('DELETE FROM messages WHERE id = ?').run(added);
      handle.close();
    },
    rewrite() {
      const handle = open();
      handle.prepare('INSERT INTO messages SELECT * FROM src.messages WHERE id = ?').run(added);
      handle.prepare(`UPDATE messages SET content = coalesce(content, '') || ' (changed)' WHERE id = ?`).run(added);
      handle.close();
    },
  };
}

testAdapter(hermes, {
  fixtures,
  home: `${HERMES}corpus`,
  copy,
  injectUnknown: (fixture, dir) => {
    const marker = `sp-contract-marker-${process.pid}`;
    return inject(fixture, dir, { role: 'sp-contract-future-role', content: `a row of a role Hermes may add one day ${marker}` }, marker, false);
  },
  // A row whose tool_calls is cut off: Hermes reads it as having no calls; capture keeps it as meta
  // and names the database and row. The bare database path opens its newest session: this one.
  injectBroken: (fixture, dir) => inject(fixture, dir, { role: 'assistant', content: '', tool_calls: '[{"id": "cut off' }, 'cut off', true),
  incremental: { grow },
  // The recorded cwd (/home/dave/…) does not exist here; Hermes records it as it is.
  roundTrip: { options: (home) => ({ home }) },
});
