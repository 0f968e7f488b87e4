// The Qwen Code adapter (formats/gemini-qwen.md §3): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter.js';
import { captureQwen } from './capture.js';
import { discoverSessions, findSession, openSession } from './discover.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, materializeQwen } from './materialize.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const qwen: Adapter = {
  id: 'qwen',
  displayName: 'Qwen Code',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverSessions,
  open: (path) => openSession(path),
  find: (id, options) => findSession(id, options),
  capture: captureQwen,
  materialize: materializeQwen,
  defaultModel: DEFAULT_MODEL,
  fidelity,
};

export default qwen;
