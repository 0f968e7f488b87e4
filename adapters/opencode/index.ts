// The OpenCode adapter (formats/opencode.md): discover, capture, materialize, fidelity. Sessions live
// in `<data dir>/opencode.db` (1.2+), in the JSON store `storage/` (≤ 1.1) or in `opencode export`
// files; a session inside a store is `<store>#<session id>`.
import type { Adapter, SessionRef } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome, parseLocator } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).opencodeVocabulary);

/** What a running client changes: the database and its -wal (new rows land there first). */
function watchPaths(ref: SessionRef): string[] {
  const { store } = parseLocator(ref.path);
  return store.endsWith('.db') ? [store, `${store}-wal`] : [store];
}

export const opencode: Adapter = {
  id: 'opencode',
  displayName: 'OpenCode',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  watchPaths,
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureOpenCode),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeOpenCode),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'provider',
    incremental: true,
    sameId: true,
  },
  // Many providers, like Pi: counted like Claude, with Claude's window.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 30_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
  client: { package: 'opencode-ai', bin: 'opencode', pinned: '1.18.33' },
};

export default opencode;
