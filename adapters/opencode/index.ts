// The OpenCode adapter (formats/opencode.md): discover, capture, materialize, fidelity. Sessions live
// in `<data dir>/opencode.db` (1.2+), in the JSON store `storage/` (≤ 1.1) or in `opencode export`
// files; a session inside a store is `<store>#<session id>`.
import type { Adapter, SessionRef } from '../../lib/adapter.js';
import { captureOpenCode } from './capture.js';
import { discoverSessions, findSession, openSession } from './discover.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, materializeOpenCode } from './materialize.js';
import { HOME_ENV, defaultHome, parseLocator } from './paths.js';

/** What a running client changes: the database and its -wal (new rows land there first). */
function watchPaths(ref: SessionRef): string[] {
  const { store } = parseLocator(ref.path);
  return store.endsWith('.db') ? [store, `${store}-wal`] : [store];
}

export const opencode: Adapter = {
  id: 'opencode',
  displayName: 'OpenCode',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverSessions,
  open: (path) => openSession(path),
  find: (id, options) => findSession(id, options),
  watchPaths,
  capture: captureOpenCode,
  materialize: materializeOpenCode,
  defaultModel: DEFAULT_MODEL,
  fidelity,
};

export default opencode;
