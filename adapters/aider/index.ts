// The Aider adapter (formats/aider.md): read `.aider.chat.history.md` (every session in it) and
// `.aider.input.history`. Discovery searches a directory tree for history files (see discover.ts).
import type { Adapter } from '../../lib/adapter.js';
import { captureAider } from './capture.js';
import { discoverHistories, openHistory } from './discover.js';
import { fidelity } from './fidelity.js';
import { materializeAider } from './materialize.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const aider: Adapter = {
  id: 'aider',
  displayName: 'Aider',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverHistories,
  open: (path) => openHistory(path),
  capture: captureAider,
  materialize: materializeAider,
  fidelity,
};

export default aider;
