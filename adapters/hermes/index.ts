// The Hermes Agent adapter (formats/hermes.md): discover, capture, materialize, fidelity. Sessions
// live in one SQLite database, `$HERMES_HOME/state.db`; a session's path is `<db>#<id>`.
import type { Adapter, SessionRef } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome, parseLocator } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).hermesVocabulary);

/** The files a running Hermes changes: the database and its -wal (where new rows land first). */
function watchPaths(ref: SessionRef): string[] {
  const db = typeof ref.db === 'string' ? ref.db : parseLocator(ref.path).db;
  return [db, `${db}-wal`];
}

export const hermes: Adapter = {
  id: 'hermes',
  displayName: 'Hermes',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openSession, (m) => m.findSession),
  watchPaths,
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureHermes),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeHermes),
  defaultModel: DEFAULT_MODEL,
  label: 'Hermes Agent',
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'provider',
    incremental: true,
    sameId: true,
  },
  // OpenRouter, Anthropic models by default: counted like Claude.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 40_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  command: 'hermes',
  fidelity,
};

export default hermes;
