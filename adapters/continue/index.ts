// The Continue CLI adapter (docs/formats/continue.md): discover, capture, materialize, fidelity.
// A session is `$CONTINUE_GLOBAL_DIR/sessions/<id>.json`, listed by `sessions/sessions.json`.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { CONTINUE_VERSION, DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).continueVocabulary);

export const continueCli: Adapter = {
  id: 'continue',
  displayName: 'Continue CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureContinue(ref, options)),
  materialize: async (events, options) => (await writing()).materializeContinue(events, options),
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
