// The Augment Auggie adapter (docs/formats/auggie.md): discover, capture, materialize, fidelity.
// A session is `<cache dir>/sessions/<uuid>.json` (the cache dir is `~/.augment` unless moved).
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { AUGGIE_VERSION, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).auggieVocabulary);

export const auggie: Adapter = {
  id: 'auggie',
  displayName: 'Augment Auggie',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureAuggie(ref, options)),
  materialize: async (events, options) => (await writing()).materializeAuggie(events, options),
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
