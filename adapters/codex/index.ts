// The Codex CLI adapter (formats/codex.md): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter.js';
import { captureCodex, watchPaths } from './capture.js';
import { discoverSessions, findSession, openRollout } from './discover.js';
import { fidelity } from './fidelity.js';
import { materializeCodex } from './materialize.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const codex: Adapter = {
  id: 'codex',
  displayName: 'Codex CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverSessions,
  open: (path) => openRollout(path),
  find: (id, options) => findSession(id, options),
  capture: captureCodex,
  materialize: materializeCodex,
  watchPaths,
  fidelity,
};

export default codex;
