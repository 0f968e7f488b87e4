// The Cursor adapter (formats/cursor.md): reads the CLI `store.db` (root-linked blobs), the IDE
// `state.vscdb` (composerData / bubbleId rows by key), and agent transcripts as a fallback; writes a
// CLI `store.db` only behind --experimental (unverified: no Cursor client runs here).
import type { Adapter } from '../../lib/adapter.js';
import { captureCursor } from './capture.js';
import { discoverCursor, openCursor } from './discover.js';
import { fidelity } from './fidelity.js';
import { UNVERIFIED, materializeCursor } from './materialize.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const cursor: Adapter = {
  id: 'cursor',
  displayName: 'Cursor',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverCursor,
  open: (path) => openCursor(path),
  capture: captureCursor,
  materialize: materializeCursor,
  experimental: UNVERIFIED,
  fidelity,
};

export default cursor;
