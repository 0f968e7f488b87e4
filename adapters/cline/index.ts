// The Cline CLI adapter (docs/formats/cline.md): discover, capture, materialize, fidelity.
// A session is `$CLINE_DIR/data/sessions/<id>/<id>.messages.json` with its manifest `<id>.json`.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { CLINE_VERSION, DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).clineVocabulary);

export const cline: Adapter = {
  id: 'cline',
  displayName: 'Cline CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureCline),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeCline),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: false },
    // Its messages are the Anthropic Messages shape whatever the provider; the mock and the tests use Anthropic.
    thinking: 'signed',
    incremental: true,
    sameId: true,
  },
  // Claude models by default (the client's default is a Claude Sonnet); counted like Claude.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 40_000, budget: 24_000, instructionsFile: '.clinerules' },
  fidelity,
  client: { package: 'cline', bin: 'cline', pinned: CLINE_VERSION },
};

export default cline;
