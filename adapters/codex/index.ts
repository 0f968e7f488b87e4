// The Codex CLI adapter (formats/codex.md): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).codexVocabulary);

export const codex: Adapter = {
  id: 'codex',
  displayName: 'Codex CLI',
  homeEnv: HOME_ENV,
  clientEnv: ['CODEX_THREAD_ID', 'CODEX_SANDBOX', 'CODEX_SANDBOX_NETWORK_DISABLED'],
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openRollout, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureCodex),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeCodex),
  vocabulary,
  modelFamily: { provider: 'openai', names: /^(openai|gpt|o\d|codex|chatgpt)/i },
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: false },
    provider: 'openai',
    thinking: 'own',
    incremental: true,
    sameId: true,
  },
  // GPT-5-class models: 400k total, of which 128k output, so 272k input.
  compileProfile: { tokenizer: 'o200k_base', window: 272_000, reserve: 40_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
  client: { package: '@openai/codex', bin: 'codex', pinned: '0.171.0' },
};

export default codex;
