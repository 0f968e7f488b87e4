// The Cline (VS Code) adapter (docs/formats/cline-vscode.md): reads the extension's task folders
// (`globalStorage/saoudrizwan.claude-dev/tasks/<id>/`). Read only: the extension runs inside an editor,
// which cannot run here, so no writer could be checked against it.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { taskWatchPaths } from '../../lib/formats/cline-tasks/paths.js';
import { fidelity } from './fidelity.js';
import { AGENT, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));
const vocabulary = once(async () => (await import('./vocabulary.js')).clineVscodeVocabulary);

export const clineVscode: Adapter = {
  id: AGENT,
  displayName: 'Cline (VS Code)',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverClineVscode(options)),
  open: async (path) => (await discovery()).openClineVscode(path),
  find: async (id, options) => (await discovery()).findClineVscode(id, options),
  watchPaths: (ref) => taskWatchPaths(ref),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureClineVscode(ref, options)),
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'own',
    incremental: { whyNot: 'the extension rewrites a task\'s files whole after each step; a task is read whole' },
    sameId: { whyNot: 'Cline (VS Code) tasks are read, not written' },
  },
  // The extension's default models are Claude's; counted like Claude.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 40_000, budget: 24_000, instructionsFile: '.clinerules' },
  fidelity,
};

export default clineVscode;
