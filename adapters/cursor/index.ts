// The Cursor adapter (formats/cursor.md): reads the CLI `store.db` (root-linked blobs), the IDE
// `state.vscdb` (composerData / bubbleId rows by key), and agent transcripts as a fallback; writes a
// CLI `store.db` only behind --experimental (unverified: no Cursor client runs here).
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, UNVERIFIED, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).cursorVocabulary);

export const cursor: Adapter = {
  id: 'cursor',
  displayName: 'Cursor',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverCursor(options)),
  open: async (path) => (await discovery()).openCursor(path),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureCursor(ref, options)),
  materialize: async (events, options) => (await writing()).materializeCursor(events, options),
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
