// The Claude Code adapter (formats/claude-code.md): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter.js';
import { captureClaude, watchPaths } from './capture.js';
import { discoverSessions, findSession, openTranscript } from './discover.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, materializeClaude } from './materialize.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const claude: Adapter = {
  id: 'claude',
  displayName: 'Claude Code',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverSessions,
  open: (path) => openTranscript(path),
  find: (id, options) => findSession(id, options),
  capture: captureClaude,
  materialize: materializeClaude,
  defaultModel: DEFAULT_MODEL,
  watchPaths,
  fidelity,
};

export default claude;
