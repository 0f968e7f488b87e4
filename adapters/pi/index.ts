// The Pi coding agent adapter (formats/pi.md): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL } from './models.js';
import { HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).piVocabulary);

export const pi: Adapter = {
  id: 'pi',
  displayName: 'Pi',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.capturePi),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializePi),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  capabilities: {
    tree: true,
    images: { userMessage: true, toolResult: true },
    thinking: 'provider',
    incremental: true,
    sameId: true,
  },
  // Many providers: counted like Claude (the larger count), with Claude's window.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 30_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
  client: { package: '@mariozechner/pi-coding-agent', bin: 'pi', pinned: '0.73.1' },
};

export default pi;
