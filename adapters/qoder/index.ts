// The Qoder CLI adapter (formats/qoder.md): Claude Code's transcript format under ~/.qoder, read and
// written through the Claude Code adapter. Resume is proven only up to the client's login step.
import type { Adapter } from '../../lib/adapter.js';
import { captureQoder } from './capture.js';
import { discoverSessions, findSession, openSession } from './discover.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, materializeQoder } from './materialize.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const qoder: Adapter = {
  id: 'qoder',
  displayName: 'Qoder CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverSessions,
  open: (path) => openSession(path),
  find: (id, options) => findSession(id, options),
  capture: captureQoder,
  materialize: materializeQoder,
  defaultModel: DEFAULT_MODEL,
  fidelity,
};

export default qoder;
