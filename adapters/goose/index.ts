// The Goose adapter (docs/formats/goose.md), read only: sessions from `sessions/sessions.db` under
// Goose's data directory (a session's path is `<db>#<id>`) and the legacy `<id>.jsonl` files.
import type { Adapter, SessionRef } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome, parseLocator } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).gooseVocabulary);

/** The files a running Goose changes: the database and its -wal, or the legacy file. */
function watchPaths(ref: SessionRef): string[] {
  if (ref.legacy === true) return [ref.path];
  const db = typeof ref.db === 'string' ? ref.db : parseLocator(ref.path).db;
  return [db, `${db}-wal`];
}

export const goose: Adapter = {
  id: 'goose',
  displayName: 'Goose',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  watchPaths,
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureGoose),
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'provider',
    incremental: { whyNot: 'Goose rewrites a session\'s rows in place when it compacts, so a session is read whole' },
    sameId: { whyNot: 'Goose sessions are read, not written (no Goose client runs here to check a writer)' },
  },
  // Goose's default provider setups (Anthropic, OpenAI) count like Claude's estimate; 128k is the
  // smallest window of the models it ships with presets for.
  compileProfile: { tokenizer: 'claude-estimate', window: 128_000, reserve: 32_000, budget: 16_000, instructionsFile: '.goosehints' },
  command: 'goose',
  fidelity,
};

export default goose;
