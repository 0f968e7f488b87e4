// The Hermes Agent adapter (formats/hermes.md): discover, capture, materialize, fidelity. Sessions
// live in one SQLite database, `$HERMES_HOME/state.db`; a session's path is `<db>#<id>`.
import type { Adapter, SessionRef } from '../../lib/adapter.js';
import { captureHermes } from './capture.js';
import { discoverSessions, findSession, openSession } from './discover.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, materializeHermes } from './materialize.js';
import { HOME_ENV, defaultHome, parseLocator } from './paths.js';

/** The files a running Hermes changes: the database and its -wal (where new rows land first). */
function watchPaths(ref: SessionRef): string[] {
  const db = typeof ref.db === 'string' ? ref.db : parseLocator(ref.path).db;
  return [db, `${db}-wal`];
}

export const hermes: Adapter = {
  id: 'hermes',
  displayName: 'Hermes',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverSessions,
  open: (path) => openSession(path),
  find: (id, options) => findSession(id, options),
  watchPaths,
  capture: captureHermes,
  materialize: materializeHermes,
  defaultModel: DEFAULT_MODEL,
  fidelity,
};

export default hermes;
