// The GitHub Copilot CLI adapter (formats/copilot.md): discover, capture, materialize, fidelity.
// A session is `$COPILOT_HOME/session-state/<uuid>/events.jsonl`.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).copilotVocabulary);

export const copilot: Adapter = {
  id: 'copilot',
  displayName: 'Copilot CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureCopilot),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeCopilot),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'provider',
    incremental: true,
    sameId: true,
  },
  // Claude and GPT models behind a 128k prompt limit; counted like Claude (the larger count).
  compileProfile: { tokenizer: 'claude-estimate', window: 128_000, reserve: 30_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
  client: { package: '@github/copilot', bin: 'copilot', pinned: '1.0.102' },
};

export default copilot;
