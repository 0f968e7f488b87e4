import { afterAll, beforeAll } from 'vitest';
// A real PostgreSQL for the team-remote tests: SP_TEST_PG_URL (an existing server where this role
// may create databases), else a throwaway cluster from scripts/db.mjs (loopback only, removed
// after). Each test file gets its own database. Without PostgreSQL binaries the tests are skipped
// locally with the reason printed, and fail under CI=true (CI must run them).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { findPgBin, startCluster, stopCluster, type ClusterState } from '../../scripts/db.mjs';

export const pgMissing: string | undefined =
  process.env.SP_TEST_PG_URL || findPgBin() ? undefined : 'no PostgreSQL binaries (apt-get install postgresql-15, or set SP_TEST_PG_URL)';

if (pgMissing) {
  if (process.env.CI === 'true' || process.env.CI === '1') throw new Error(`PostgreSQL tests cannot run: ${pgMissing}`);
  process.stderr.write(`skipping the PostgreSQL tests: ${pgMissing}\n`);
}

export interface TestPostgres {
  /** A URL to a fresh database of its own. */
  url: string;
  /** The same server and database as another login role (trust auth on the throwaway cluster). */
  urlAs(role: string): string;
  /** Runs SQL as the superuser on the test database. */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** A URL to another fresh, empty database on the same server. */
  another(): Promise<string>;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<TestPostgres> {
  let cluster: ClusterState | undefined;
  let base = process.env.SP_TEST_PG_URL;
  if (!base) {
    cluster = await startCluster();
    base = cluster.url;
  }
  const made: string[] = [];
  const create = async (): Promise<string> => {
    const name = `sp_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    made.push(name);
    const u = new URL(base!);
    u.pathname = `/${name}`;
    return u.toString();
  };
  const url = new URL(await create());
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return {
    url: url.toString(),
    urlAs(role: string) {
      const u = new URL(url.toString());
      u.username = role;
      u.password = '';
      return u.toString();
    },
    sql: (text, values) => client.query(text, values),
    another: create,
    async stop() {
      await client.end().catch(() => {});
      if (cluster) stopCluster(cluster);
      else {
        const drop = new pg.Client({ connectionString: base });
        await drop.connect();
        for (const name of made) await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
        await drop.end();
      }
    },
  };
}

/** One throwaway server for the test file: started before its tests (unless PostgreSQL is missing), stopped after. */
export function usePostgres(started: (db: TestPostgres) => void): void {
  let db: TestPostgres | undefined;
  beforeAll(async () => {
    if (pgMissing) return;
    db = await startPostgres();
    started(db);
  }, 120_000);
  afterAll(async () => {
    await db?.stop();
  });
}
