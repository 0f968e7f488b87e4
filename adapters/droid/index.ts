// The Factory Droid adapter (docs/formats/droid.md): discover, capture, materialize, fidelity.
// A session is `~/.factory/sessions/<project slug>/<uuid>.jsonl`.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).droidVocabulary);

export const droid: Adapter = {
  id: 'droid',
  displayName: 'Factory Droid',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureDroid(ref, options)),
  materialize: async (events, options) => (await writing()).materializeDroid(events, options),
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
