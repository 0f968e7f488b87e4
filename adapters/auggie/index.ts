// The Augment Auggie adapter (docs/formats/auggie.md): discover, capture, materialize, fidelity.
// A session is `<cache dir>/sessions/<uuid>.json` (the cache dir is `~/.augment` unless moved).
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { AUGGIE_VERSION, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).auggieVocabulary);

export const auggie: Adapter = {
  id: 'auggie',
  displayName: 'Augment Auggie',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureAuggie),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeAuggie),
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    // The tenant picks the model; the client replays no reasoning.
    thinking: 'own',
    incremental: true,
    sameId: true,
  },
  // Augment serves Claude and GPT models behind its own API; counted like Claude (the larger count).
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 40_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
  client: { package: '@augmentcode/auggie', bin: 'auggie', pinned: AUGGIE_VERSION },
};

export default auggie;
