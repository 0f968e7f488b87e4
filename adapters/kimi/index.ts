// The Kimi CLI adapter (docs/formats/kimi.md), read only: discover, capture, fidelity. A session is
// `~/.kimi/sessions/<md5 of the work dir>/<uuid>/context.jsonl`. The client is Python (PyPI), not
// runnable here, so there is no writer: the format comes from the client's public source.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).kimiVocabulary);

export const kimi: Adapter = {
  id: 'kimi',
  displayName: 'Kimi CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureKimi),
  vocabulary,
  modelFamily: { provider: 'moonshot', names: /^(moonshot|kimi)/i },
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'own',
    incremental: true,
    sameId: { whyNot: 'Kimi CLI sessions are read, not written (the client cannot run here to check a writer)' },
  },
  // Kimi models: counted with the generic estimate, the 256k window of the K2 models.
  compileProfile: { tokenizer: 'claude-estimate', window: 256_000, reserve: 40_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  command: 'kimi',
  fidelity,
};

export default kimi;
