// The Kilo Code CLI adapter (formats/kilo.md): Kilo is a fork of OpenCode and keeps OpenCode's store
// under its own name (`<data dir>/kilo.db`), read through the format's code (lib/formats/opencode/).
// Reader only: a session inside the database is `<db>#<session id>`.
import type { Adapter, SessionRef } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { parseLocator } from '../../lib/formats/opencode/locator.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).kiloVocabulary);

/** What a running client changes: the database and its -wal (new rows land there first). */
function watchPaths(ref: SessionRef): string[] {
  const { store } = parseLocator(ref.path);
  return store.endsWith('.db') ? [store, `${store}-wal`] : [store];
}

export const kilo: Adapter = {
  id: 'kilo',
  displayName: 'Kilo Code CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  watchPaths,
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureKilo(ref, options)),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'provider',
    incremental: true,
    sameId: { whyNot: 'Kilo Code CLI sessions are read, not written (no writer yet)' },
  },
  // Many providers behind Kilo's gateway, like OpenCode: counted like Claude, with Claude's window.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 30_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
};

export default kilo;
