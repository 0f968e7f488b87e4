// The GitHub Copilot CLI adapter (formats/copilot.md): discover, capture, materialize, fidelity.
// A session is `$COPILOT_HOME/session-state/<uuid>/events.jsonl`.
import type { Adapter } from '../../lib/adapter.js';
import { captureCopilot } from './capture.js';
import { discoverSessions, findSession, openSession } from './discover.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, materializeCopilot } from './materialize.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const copilot: Adapter = {
  id: 'copilot',
  displayName: 'Copilot CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverSessions,
  open: (path) => openSession(path),
  find: (id, options) => findSession(id, options),
  capture: captureCopilot,
  materialize: materializeCopilot,
  defaultModel: DEFAULT_MODEL,
  fidelity,
};

export default copilot;
