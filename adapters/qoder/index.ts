// The Qoder CLI adapter (formats/qoder.md): Claude Code's transcript format under ~/.qoder, read and
// written through the Claude Code adapter. Resume is proven only up to the client's login step.
import type { Adapter } from '../../lib/adapter.js';
import { lazyIterable, once } from '../../lib/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));

export const qoder: Adapter = {
  id: 'qoder',
  displayName: 'Qoder CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureQoder(ref, options)),
  materialize: async (events, options) => (await writing()).materializeQoder(events, options),
  defaultModel: DEFAULT_MODEL,
  fidelity,
};

export default qoder;
