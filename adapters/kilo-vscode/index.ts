// The Kilo Code (VS Code) adapter (docs/formats/kilo-vscode.md): reads the extension's task folders
// (`globalStorage/kilocode.kilo-code/tasks/<id>/`). Read only: the extension runs inside an editor,
// which cannot run here, so no writer could be checked against it.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, once } from '../../lib/adapter/lazy.js';
import { taskWatchPaths } from '../../lib/formats/cline-tasks/paths.js';
import { fidelity } from './fidelity.js';
import { AGENT, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).kiloVscodeVocabulary);

export const kiloVscode: Adapter = {
  id: AGENT,
  displayName: 'Kilo Code (VS Code)',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverKiloVscode, (m) => m.openKiloVscode, (m) => m.findKiloVscode),
  watchPaths: (ref) => taskWatchPaths(ref),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureKiloVscode),
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'own',
    incremental: { whyNot: 'the extension rewrites a task\'s files whole after each step; a task is read whole' },
    sameId: { whyNot: 'Kilo Code (VS Code) tasks are read, not written' },
  },
  // The extension's default models are Claude's; counted like Claude.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 40_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  fidelity,
};

export default kiloVscode;
