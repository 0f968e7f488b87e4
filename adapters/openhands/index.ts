// The OpenHands adapter (docs/formats/openhands.md), read only: conversations the OpenHands CLI and
// agent server (the software-agent SDK) persist as `conversations/<id>/` folders of event files.
import type { Adapter, SessionRef } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { BASE_STATE, EVENTS_DIR, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).openhandsVocabulary);

/** A conversation changes by new event files and a rewritten base_state.json. */
function watchPaths(ref: SessionRef): string[] {
  return [`${ref.path}/${EVENTS_DIR}`, `${ref.path}/${BASE_STATE}`];
}

export const openhands: Adapter = {
  id: 'openhands',
  displayName: 'OpenHands',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverConversations, (m) => m.openConversation, (m) => m.findConversation),
  watchPaths,
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureOpenHands),
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'provider',
    incremental: true,
    sameId: { whyNot: 'OpenHands conversations are read, not written (no OpenHands client runs here to check a writer)' },
  },
  // The CLI's default models (Claude through the OpenHands or Anthropic provider) count like Claude.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 40_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  command: 'openhands',
  fidelity,
};

export default openhands;
