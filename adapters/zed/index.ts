// The Zed adapter (formats/zed.md), read only: the agent panel's threads in
// `<data dir>/threads/threads.db`, one row per thread holding its JSON (zstd-compressed in current
// versions); a thread is `<threads.db>#<id>`.
import type { Adapter, SessionRef } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome, parseLocator } from './paths.js';

function watchPaths(ref: SessionRef): string[] {
  const { db } = parseLocator(ref.path);
  return [db, `${db}-wal`];
}

export const zed: Adapter = {
  id: 'zed',
  displayName: 'Zed',
  label: 'Zed agent threads',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  watchPaths,
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureZed),
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: true },
    thinking: 'provider',
    incremental: { whyNot: 'a Zed thread is one compressed row rewritten on every save: it is read whole' },
    sameId: { whyNot: 'Zed threads are read, not written' },
  },
  // Zed's own models and many providers: counted like Claude, with Claude's window.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 30_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
};

export default zed;
