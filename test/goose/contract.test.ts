// The shared adapter contract suite on Goose sessions built from the source's schema (support.ts):
// two sessions of a sessions.db (locators `<db>#<id>`) and one legacy `.jsonl`. Rows are injected
// into copies of the database; Goose sessions are read whole, so the grow test does not apply.
import { copyFileSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { goose } from '../../adapters/goose/index.js';
import { formatLocator, parseLocator } from '../../adapters/goose/paths.js';
import { testAdapter, type Injected } from '../contract/testAdapter.js';
import { LEGACY, S1, S2, buildHome, dbOf, withDb } from './support.js';

const home = buildHome();
const db = dbOf(home);
const fixtures = [formatLocator(db, S1), formatLocator(db, S2), join(home, 'sessions', `${LEGACY}.jsonl`)];

function copy(fixture: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const { db: source, session } = parseLocator(fixture);
  const target = join(dir, basename(source));
  copyFileSync(source, target);
  return session === undefined ? target : formatLocator(target, session);
}

/** A copy whose session has one more row, after its last: `role` and `content_json` as given. */
function inject(fixture: string, dir: string, role: string, content: string, marker: string): Injected {
  const path = copy(fixture, dir);
  const { db: target, session } = parseLocator(path);
  const id = withDb(target, (handle) => Number(handle.prepare("INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, 1764579700, '{\"userVisible\":true,\"agentVisible\":true}')").run(session, role, content).lastInsertRowid));
  return { path, marker, line: id };
}

testAdapter(goose, {
  fixtures,
  home,
  copy,
  injectUnknown: (fixture, dir) => {
    const marker = `sp-contract-marker-${process.pid}`;
    return inject(fixture, dir, 'sp-contract-future-role', JSON.stringify([{ type: 'text', text: `a role Goose may add one day ${marker}` }]), marker);
  },
  injectBroken: (fixture, dir) => inject(fixture, dir, 'assistant', '[{"type":"text","text":"cut off', 'cut off'),
  incremental: false,
  roundTrip: false,
});
