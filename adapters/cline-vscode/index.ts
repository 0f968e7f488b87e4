// The Cline (VS Code) adapter (docs/formats/cline-vscode.md): reads the extension's task folders
// (`globalStorage/saoudrizwan.claude-dev/tasks/<id>/`). Read only: the extension runs inside an editor,
// which cannot run here, so no writer could be checked against it.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, once } from '../../lib/adapter/lazy.js';
import { taskWatchPaths } from '../../lib/formats/cline-tasks/paths.js';
import { fidelity } from './fidelity.js';
import { AGENT, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).clineVscodeVocabulary);

export const clineVscode: Adapter = {
  id: AGENT,
  displayName: 'Cline (VS Code)',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverClineVscode, (m) => m.openClineVscode, (m) => m.findClineVscode),
  watchPaths: (ref) => taskWatchPaths(ref),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureClineVscode),
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
