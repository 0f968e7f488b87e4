// The ATIF adapter: Agent Trajectory Interchange Format files (Harbor RFC 0001, v1.0–v1.7), read
// and written like an agent's sessions, so a trajectory from Harbor (Terminal-Bench, SFT/RL
// pipelines) can be continued in any agent sp writes, and any session handed to those tools.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const writing = once(() => import('./materialize.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).atifVocabulary);

export const atif: Adapter = {
  id: 'atif',
  displayName: 'ATIF trajectory',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverTrajectories(options)),
  open: async (path) => (await discovery()).openTrajectory(path),
  find: async (id, options) => (await discovery()).findTrajectory(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureAtif(ref, options)),
  materialize: async (events, options) => (await writing()).materializeAtif(events, options),
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
