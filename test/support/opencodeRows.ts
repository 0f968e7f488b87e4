// The contract suite's hooks for a database in OpenCode's format (OpenCode's and Kilo Code CLI's
// fixtures): copies of the fixture database (never opened in place: a read-write open would checkpoint
// it), a part added to a session's last message, and a session given back one message at a time.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parseLocator } from '../../lib/formats/opencode/locator.js';
import type { Grower, Injected } from '../contract/testAdapter.js';

const locator = (store: string, id: string): string => `${store}#${id}`;

/** The hooks over `copyDb(dir, source)`, which copies a fixture database into the data dir `dir`. */
export function storeRows(copyDb: (dir: string, source: string) => string) {
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

  return { copy, injectPart, grow };
}
