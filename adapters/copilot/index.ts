// The GitHub Copilot CLI adapter (formats/copilot.md): discover, capture, materialize, fidelity.
// A session is `$COPILOT_HOME/session-state/<uuid>/events.jsonl`.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).copilotVocabulary);

export const copilot: Adapter = {
  id: 'copilot',
  displayName: 'Copilot CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureCopilot(ref, options)),
  materialize: async (events, options) => (await writing()).materializeCopilot(events, options),
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
