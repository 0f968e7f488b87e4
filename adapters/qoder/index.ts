// The Qoder CLI adapter (formats/qoder.md): Claude Code's transcript format under ~/.qoder, read and
// written through that format's code (lib/formats/claude-code/). Resume is proven only up to the
// client's login step.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).qoderVocabulary);

export const qoder: Adapter = {
  id: 'qoder',
  displayName: 'Qoder CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureQoder),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeQoder),
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
