// The Aider adapter (formats/aider.md): read `.aider.chat.history.md` (every session in it) and
// `.aider.input.history`. Discovery searches a directory tree for history files (see discover.ts).
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const aider: Adapter = {
  id: 'aider',
  displayName: 'Aider',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverHistories, (m) => m.openHistory),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureAider),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeAider),
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'provider',
    incremental: { whyNot: 'a history file is captured whole' },
    sameId: { whyNot: 'an Aider history has no session id to keep (the writer always makes a new history file)' },
    textOnlyToolCalls: 'Aider has no tool calls: its writer carries each call and result as a fenced block in the reply',
  },
  command: 'aider',
  fidelity,
};

export default aider;
