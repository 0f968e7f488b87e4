// The Claude Code adapter (formats/claude-code.md): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter.js';
import { lazyIterable, once } from '../../lib/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));

export const claude: Adapter = {
  id: 'claude',
  displayName: 'Claude Code',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openTranscript(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureClaude(ref, options)),
  materialize: async (events, options) => (await writing()).materializeClaude(events, options),
  defaultModel: DEFAULT_MODEL,
  watchPaths: async (ref) => (await capturing()).watchPaths(ref),
  fidelity,
};

export default claude;
