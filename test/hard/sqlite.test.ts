// Adapters that keep sessions in SQLite (Hermes state.db, OpenCode opencode.db …), found by their
// fixtures: capture from a database that another connection holds locked, that is corrupt, cut
// short, of a later schema or missing a table; and the writers of such adapters adding a session to
// one. Each ends with exit 0 or a one-line exit 2; the database is not changed by a reader, nor by
// a writer that failed.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { adapters } from '../../adapters/index.js';
import { rng } from './support/cases.js';
import { IS_ROOT, NOBODY, expectWellBehaved, filesUnder, outcomeOf, record, removeTempDirs, runBin, tempDir, treeHash } from './support/harness.js';
import { KNOWN } from './support/known.js';
import { canonicalSeed, nativeSeeds } from './support/seeds.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
const seeds = await nativeSeeds();
const withDb = seeds.filter((s) => s.db);
const events = await canonicalSeed(seeds);
afterAll(removeTempDirs);

/** Ordinary tables (not FTS shadow tables or views). */
function tables(db: BetterSqlite3.Database): string[] {
  return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'`).all() as Array<{ name: string }>)
    .map((r) => r.name)
    .filter((name, _, all) => !all.some((other) => other !== name && name.startsWith(`${other}_`) && /_(data|idx|content|docsize|config)$/.test(name)));
}

interface DbCase {
  name: string;
  what: string;
  mustReport: boolean;
  /** Changes the database copy at `path`; may return a connection that holds a lock while the binary runs. */
  make(path: string, rnd: () => number): BetterSqlite3.Database | void;
}

const overwrite = (path: string, from: number, to: number, rnd: () => number) => {
  const bytes = readFileSync(path);
  for (let i = Math.floor(bytes.length * from); i < Math.floor(bytes.length * to); i += 1) bytes[i] = Math.floor(rnd() * 256);
  writeFileSync(path, bytes);
};

const dbCases: DbCase[] = [
  {
    name: 'locked-exclusive',
    what: 'another connection holds an EXCLUSIVE lock (locking_mode=EXCLUSIVE, a write transaction open)',
    mustReport: false,
    make: (path) => {
      const db = new Database(path);
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
      return db;
    },
  },
  {
    name: 'write-transaction',
    what: 'another connection is in the middle of a write transaction (rows inserted, not committed)',
    mustReport: false,
    make: (path) => {
      const db = new Database(path);
      db.exec('BEGIN IMMEDIATE');
      db.exec('CREATE TABLE sp_hard_pending (x); INSERT INTO sp_hard_pending VALUES (1)');
      return db;
    },
  },
  {
    name: 'rollback-journal-locked',
    what: 'a rollback-journal database (not WAL) another connection holds EXCLUSIVE',
    mustReport: false,
    make: (path) => {
      const convert = new Database(path);
      convert.pragma('journal_mode = DELETE');
      convert.close();
      const db = new Database(path);
      db.exec('BEGIN EXCLUSIVE');
      return db;
    },
  },
  { name: 'corrupt-pages', what: 'bytes 30–60 % of the file overwritten with noise (header intact)', mustReport: true, make: (path, rnd) => overwrite(path, 0.3, 0.6, rnd) },
  { name: 'corrupt-header', what: 'the first 100 bytes overwritten with noise', mustReport: true, make: (path, rnd) => overwrite(path, 0, 100 / readFileSync(path).length, rnd) },
  { name: 'truncated', what: 'the file cut to half its size', mustReport: true, make: (path) => writeFileSync(path, readFileSync(path).subarray(0, Math.floor(readFileSync(path).length / 2))) },
  {
    name: 'future-schema',
    what: 'a later schema: an unknown column in every table, an unknown table, schema_version + 100',
    mustReport: false,
    make: (path) => {
      const db = new Database(path);
      for (const table of tables(db)) {
        try {
          db.exec(`ALTER TABLE "${table}" ADD COLUMN sp_hard_future TEXT DEFAULT 'from a later version'`);
        } catch {
          // some tables (e.g. without rowid, or virtual) take no new column
        }
      }
      db.exec('CREATE TABLE sp_hard_future_table (id INTEGER PRIMARY KEY, data TEXT)');
      if (tables(db).includes('schema_version')) db.exec('UPDATE schema_version SET version = version + 100');
      db.close();
    },
  },
  {
    name: 'missing-table',
    what: 'the table with the most rows moved away (its records missing)',
    mustReport: true,
    make: (path) => {
      const db = new Database(path);
      // OpenCode's event/event_sequence tables are a log kept beside the rows, with nothing the rows lack
      // (formats/opencode.md: not read on resume, not read by capture): losing them loses no record.
      // The schema's migration log holds no session record either (Kilo's small recorded session has fewer
      // parts than Kilo has migrations).
      const bookkeeping = new Set(['event', 'event_sequence', 'migration', '__drizzle_migrations']);
      const counts = tables(db)
        .filter((t) => !bookkeeping.has(t))
        .map((t) => ({ t, n: (db.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n }));
      const biggest = counts.sort((a, b) => b.n - a.n)[0].t;
      // Copied aside and dropped rather than renamed: a rename re-checks the table's indexes, and an
      // index over a JSON expression (Kilo's part table) can fail that check.
      db.pragma('foreign_keys = OFF');
      db.exec(`CREATE TABLE "sp_hard_renamed_${biggest}" AS SELECT * FROM "${biggest}"; DROP TABLE "${biggest}";`);
      db.close();
    },
  },
  { name: 'empty', what: 'a database file of 0 bytes', mustReport: true, make: (path) => writeFileSync(path, '') },
  { name: 'not-a-database', what: 'a text file where the database should be', mustReport: true, make: (path) => writeFileSync(path, 'this is not a database\n') },
  {
    name: 'directory',
    what: 'a directory where the database should be',
    mustReport: true,
    make: (path) => {
      rmSync(path);
      mkdirSync(path);
    },
  },
  {
    name: 'unreadable',
    what: 'a database file of mode 000 (run as nobody)',
    mustReport: true,
    make: (path) => chmodSync(path, 0o000),
  },
];

function prepareDb(seedDb: string, c: DbCase, agent: string): { dir: string; db: string; holder?: BetterSqlite3.Database } {
  const dir = tempDir();
  chmodSync(dir, 0o777);
  const db = join(dir, basename(seedDb));
  copyFileSync(seedDb, db);
  chmodSync(db, 0o666);
  const holder = c.make(db, rng(c.name, agent)) ?? undefined;
  return { dir, db, holder };
}

for (const seed of withDb) {
  const seedDb = seed.db!;
  describe.concurrent(`sp-capture ${seed.agent} (database)`, () => {
    for (const c of dbCases) {
      const known = KNOWN[`sp-capture ${seed.agent} db/${c.name}`];
      (known ? test.fails : test)(`${c.name}${known ? ` (known: ${known})` : ''}`, { timeout: 300_000 }, async () => {
        const { dir, db, holder } = prepareDb(seedDb, c, seed.agent);
        try {
          const before = treeHash(dir);
          const run = await runBin('sp-capture', [seed.agent, '--path', db], { asUid: c.name === 'unreadable' && IS_ROOT ? NOBODY : undefined, timeoutMs: 60_000 });
          record({ bin: 'sp-capture', target: `${seed.agent} db`, case: c.name, outcome: outcomeOf(run), code: run.code, ms: Math.round(run.ms), note: run.stderr.split('\n')[0] });
          expect(treeHash(dir), 'the database folder changed').toBe(before);
          expectWellBehaved('sp-capture', run, { codes: c.name === 'unreadable' || c.name === 'directory' ? [2] : [0, 2], mustReport: c.mustReport });
        } finally {
          holder?.close();
        }
      });
    }
  });

  // Writers that add to the agent's database; Cursor's makes a new store.db in a new folder, never opening one.
  if (!adapters[seed.agent].materialize || seed.agent === 'cursor') continue;
  describe.concurrent(`sp-materialize ${seed.agent} into a damaged database`, () => {
    for (const c of dbCases.filter((x) => x.name !== 'unreadable')) {
      const known = KNOWN[`sp-materialize ${seed.agent} db/${c.name}`];
      (known ? test.fails : test)(`${c.name}${known ? ` (known: ${known})` : ''}`, { timeout: 300_000 }, async () => {
        const { dir, db, holder } = prepareDb(seedDb, c, seed.agent);
        const input = join(tempDir(), 'events.ndjson');
        writeFileSync(input, events);
        try {
          const before = treeHash(db);
          const listed = filesUnder(dir);
          // A writer waits for a busy database (a running client) before it gives up: not a minute here.
          const run = await runBin('sp-materialize', [seed.agent, input, '--home', dir, '--cwd', dir], { timeoutMs: 120_000, env: { SP_HERMES_BUSY_MS: '3000' } });
          record({ bin: `sp-materialize ${seed.agent}`, target: 'db', case: c.name, outcome: outcomeOf(run), code: run.code, ms: Math.round(run.ms), note: run.stderr.split('\n')[0] });
          expectWellBehaved('sp-materialize', run, { codes: [0, 2], mustReport: c.mustReport });
          if (run.code !== 0) {
            expect(treeHash(db), 'a failed write changed the database').toBe(before);
            expect(filesUnder(dir).filter((f) => !listed.includes(f) && !/\.(bak|backup)|backup/i.test(f) && !/-(wal|shm|journal)$/.test(f)), 'a failed write left files').toEqual([]);
          } else if (!holder) {
            const check = new Database(db, { readonly: true });
            try {
              expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
            } finally {
              check.close();
            }
          }
        } finally {
          holder?.close();
        }
      });
    }
  });
}

test.runIf(withDb.length === 0)('no adapter keeps sessions in SQLite', () => {
  record({ bin: 'sp-capture', case: 'sqlite', outcome: 'skip', note: 'no SQLite fixture' });
});
