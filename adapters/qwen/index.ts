// The Qwen Code adapter (docs/formats/qwen.md §3): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).qwenVocabulary);

export const qwen: Adapter = {
  id: 'qwen',
  displayName: 'Qwen Code',
  homeEnv: HOME_ENV,
  clientEnv: ['QWEN_CODE'],
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureQwen(ref, options)),
  materialize: async (events, options) => (await writing()).materializeQwen(events, options),
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
