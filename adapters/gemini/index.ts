// The Gemini CLI adapter (docs/formats/gemini.md §2): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter.js';
import { lazyIterable, once } from '../../lib/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));

export const gemini: Adapter = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureGemini(ref, options)),
  materialize: async (events, options) => (await writing()).materializeGemini(events, options),
  defaultModel: DEFAULT_MODEL,
  fidelity,
};

export default gemini;
