// The Gemini CLI adapter (formats/gemini-qwen.md §2): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter.js';
import { captureGemini } from './capture.js';
import { discoverSessions, findSession, openSession } from './discover.js';
import { fidelity } from './fidelity.js';
import { DEFAULT_MODEL, materializeGemini } from './materialize.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const gemini: Adapter = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: discoverSessions,
  open: (path) => openSession(path),
  find: (id, options) => findSession(id, options),
  capture: captureGemini,
  materialize: materializeGemini,
  defaultModel: DEFAULT_MODEL,
  fidelity,
};

export default gemini;
