// The Qwen Code adapter (docs/formats/qwen.md §3): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).qwenVocabulary);

export const qwen: Adapter = {
  id: 'qwen',
  displayName: 'Qwen Code',
  homeEnv: HOME_ENV,
  clientEnv: ['QWEN_CODE'],
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureQwen),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeQwen),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  modelFamily: { provider: 'qwen', names: /^(qwen|qwq)/i },
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: false },
    thinking: 'provider',
    incremental: true,
    sameId: true,
  },
  // Qwen3-Coder: 256k native window; counted like Claude.
  compileProfile: { tokenizer: 'claude-estimate', window: 256_000, reserve: 40_000, budget: 24_000, instructionsFile: 'QWEN.md' },
  fidelity,
  client: { package: '@qwen-code/qwen-code', bin: 'qwen', pinned: '0.24.4' },
};

export default qwen;
