// The Crush adapter (formats/crush.md), read only: sessions in each project's `.crush/crush.db`, found
// through the global `projects.json`; a session inside a database is `<crush.db>#<session id>`.
import type { Adapter, SessionRef } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome, parseLocator } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).crushVocabulary);

function watchPaths(ref: SessionRef): string[] {
  const { db } = parseLocator(ref.path);
  return [db, `${db}-wal`];
}

export const crush: Adapter = {
  id: 'crush',
  displayName: 'Crush',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  watchPaths,
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureCrush),
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: false },
    thinking: 'provider',
    incremental: { whyNot: 'a Crush session is read whole from its database' },
    sameId: { whyNot: 'Crush sessions are read, not written' },
  },
  // Many providers through Catwalk: counted like Claude, with Claude's window.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 30_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  command: 'crush',
  fidelity,
};

export default crush;
