// The Qoder CLI adapter (formats/qoder.md): Claude Code's transcript format under ~/.qoder, read and
// written through that format's code (lib/formats/claude-code/). Resume is proven only up to the
// client's login step.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).qoderVocabulary);

export const qoder: Adapter = {
  id: 'qoder',
  displayName: 'Qoder CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openSession(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureQoder(ref, options)),
  materialize: async (events, options) => (await writing()).materializeQoder(events, options),
  defaultModel: DEFAULT_MODEL,
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: true },
    thinking: 'provider',
    incremental: true,
    sameId: true,
  },
  // Claude Code's format and Claude-class models behind tier aliases.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 52_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
  client: { package: '@qoder-ai/qodercli', bin: 'qodercli', pinned: '1.1.52' },
};

export default qoder;
