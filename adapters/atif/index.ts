// The ATIF adapter: Agent Trajectory Interchange Format files (Harbor RFC 0001, v1.0–v1.7), read
// and written like an agent's sessions, so a trajectory from Harbor (Terminal-Bench, SFT/RL
// pipelines) can be continued in any agent sp writes, and any session handed to those tools.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).atifVocabulary);

export const atif: Adapter = {
  id: 'atif',
  displayName: 'ATIF trajectory',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverTrajectories, (m) => m.openTrajectory, (m) => m.findTrajectory),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureAtif),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeAtif),
  label: 'an ATIF trajectory',
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: true },
    thinking: 'provider',
    incremental: { whyNot: 'a trajectory is one JSON document, captured whole' },
    sameId: true,
    keepsSourceTerms: true,
  },
  fidelity,
};

export default atif;
