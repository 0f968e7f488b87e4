// The Pi coding agent adapter (formats/pi.md): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter.js';
import { capturePi } from './capture.js';
import { discoverSessions, findSession, openSession } from './discover.js';
import { fidelity } from './fidelity.js';
import { materializePi } from './materialize.js';
import { DEFAULT_MODEL } from './models.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const pi: Adapter = {
  id: 'pi',
  displayName: 'Pi',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverSessions,
  open: (path) => openSession(path),
  find: (id, options) => findSession(id, options),
  capture: capturePi,
  materialize: materializePi,
  defaultModel: DEFAULT_MODEL,
  fidelity,
};

export default pi;
