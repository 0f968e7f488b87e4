// The GitHub Copilot CLI adapter (formats/copilot.md): discover, capture, materialize, fidelity.
// A session is `$COPILOT_HOME/session-state/<uuid>/events.jsonl`.
import type { Adapter } from '../../lib/adapter.js';
import { lazyIterable, once } from '../../lib/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));

export const copilot: Adapter = {
  id: 'copilot',
  displayName: 'Copilot CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureCopilot(ref, options)),
  materialize: async (events, options) => (await writing()).materializeCopilot(events, options),
  defaultModel: DEFAULT_MODEL,
  fidelity,
};

export default copilot;
