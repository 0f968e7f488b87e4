// The Cursor adapter (formats/cursor.md): reads the CLI `store.db` (root-linked blobs), the IDE
// `state.vscdb` (composerData / bubbleId rows by key), and agent transcripts as a fallback; writes a
// CLI `store.db` only behind --experimental (unverified: no Cursor client runs here).
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, UNVERIFIED, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).cursorVocabulary);

export const cursor: Adapter = {
  id: 'cursor',
  displayName: 'Cursor',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverCursor, (m) => m.openCursor),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureCursor),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeCursor),
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'provider',
    incremental: { whyNot: 'a chat is captured whole' },
    sameId: true,
    experimental: UNVERIFIED,
    textOnlyToolCalls: 'the Cursor writer carries tool calls as text: native tool-call leaves written by another program are unproven',
  },
  command: 'cursor-agent',
  fidelity,
};

export default cursor;
