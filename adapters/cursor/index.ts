// The Cursor adapter (formats/cursor.md), read-only: the CLI `store.db` (root-linked blobs), the IDE
// `state.vscdb` (composerData / bubbleId rows by key), and agent transcripts as a fallback.
import type { Adapter } from '../../lib/adapter.js';
import { captureCursor } from './capture.js';
import { discoverCursor, openCursor } from './discover.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const cursor: Adapter = {
  id: 'cursor',
  displayName: 'Cursor',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverCursor,
  open: (path) => openCursor(path),
  capture: captureCursor,
  fidelity,
};

export default cursor;
