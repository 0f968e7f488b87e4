// The Kimi CLI adapter (docs/formats/kimi.md), read only: discover, capture, fidelity. A session is
// `~/.kimi/sessions/<md5 of the work dir>/<uuid>/context.jsonl`. The client is Python (PyPI), not
// runnable here, so there is no writer: the format comes from the client's public source.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).kimiVocabulary);

export const kimi: Adapter = {
  id: 'kimi',
  displayName: 'Kimi CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureKimi(ref, options)),
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
