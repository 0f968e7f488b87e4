// The Factory Droid adapter (docs/formats/droid.md): discover, capture, materialize, fidelity.
// A session is `~/.factory/sessions/<project slug>/<uuid>.jsonl`.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).droidVocabulary);

export const droid: Adapter = {
  id: 'droid',
  displayName: 'Factory Droid',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureDroid),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeDroid),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'own',
    incremental: true,
    sameId: true,
  },
  // Anthropic, OpenAI and other models; counted like Claude (the larger count), the smaller common window.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 40_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
  client: { package: '@factory/cli', bin: 'droid', pinned: '0.225.1' },
};

export default droid;
