// The Kilo Code CLI adapter (formats/kilo.md): Kilo is a fork of OpenCode and keeps OpenCode's store
// under its own name (`<data dir>/kilo.db`), read through the format's code (lib/formats/opencode/).
// A session inside the database is `<db>#<session id>`; the writer adds rows to a database the client made.
import type { Adapter, SessionRef } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { parseLocator } from '../../lib/formats/opencode/locator.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, KILO_VERSION, defaultHome } from './paths.js';

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
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  watchPaths,
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureKilo),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeKilo),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'provider',
    incremental: true,
    sameId: true,
  },
  // Many providers behind Kilo's gateway, like OpenCode: counted like Claude, with Claude's window.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 30_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
  // The launcher's Linux binary exists on the registry for 7.7.7, not for the newest 7.8.x (docs/formats/kilo.md §1).
  client: { package: '@kilocode/cli', bin: 'kilo', pinned: KILO_VERSION },
};

export default kilo;
