// The Continue CLI adapter (docs/formats/continue.md): discover, capture, materialize, fidelity.
// A session is `$CONTINUE_GLOBAL_DIR/sessions/<id>.json`, listed by `sessions/sessions.json`.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { CONTINUE_VERSION, DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).continueVocabulary);

export const continueCli: Adapter = {
  id: 'continue',
  displayName: 'Continue CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureContinue),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeContinue),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: false },
    // Its history is the OpenAI chat shape whatever the provider: no reasoning is replayed.
    thinking: 'own',
    incremental: true,
    sameId: true,
  },
  // The model comes from the user's config.yaml (any provider); counted like an OpenAI model.
  compileProfile: { tokenizer: 'o200k_base', window: 128_000, reserve: 16_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
  client: { package: '@continuedev/cli', bin: 'cn', pinned: CONTINUE_VERSION },
};

export default continueCli;
