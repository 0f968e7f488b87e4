// The Gemini CLI adapter (docs/formats/gemini.md §2): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).geminiVocabulary);

export const gemini: Adapter = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  homeEnv: HOME_ENV,
  clientEnv: ['GEMINI_CLI'],
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureGemini),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeGemini),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  modelFamily: { provider: 'google', names: /^(google|gemini)/i },
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: false },
    thinking: 'provider',
    incremental: true,
    sameId: true,
  },
  // Gemini 2.5: a 1M window; no local Gemini tokenizer, so counted like Claude (more tokens, safer).
  compileProfile: { tokenizer: 'claude-estimate', window: 1_000_000, reserve: 40_000, budget: 24_000, instructionsFile: 'GEMINI.md' },
  fidelity,
  client: { package: '@google/gemini-cli', bin: 'gemini', pinned: '0.61.0' },
};

export default gemini;
