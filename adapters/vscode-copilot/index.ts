// The GitHub Copilot Chat in VS Code adapter (docs/formats/vscode-copilot.md): reads the chat
// sessions VS Code keeps per workspace (`workspaceStorage/<hash>/chatSessions/<id>.json|.jsonl`).
// Read only: the editor cannot run here, so no writer could be checked against it.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { AGENT, HOME_ENV, defaultHome } from './paths.js';

const vocabulary = once(async () => (await import('./vocabulary.js')).vscodeCopilotVocabulary);

export const vscodeCopilot: Adapter = {
  id: AGENT,
  displayName: 'GitHub Copilot Chat (VS Code)',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverVscodeCopilot, (m) => m.openVscodeCopilot, (m) => m.findVscodeCopilot),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureVscodeCopilot),
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'own',
    incremental: { whyNot: 'the editor rewrites a flat session whole, and its log patches earlier requests in place; a session is read whole' },
    sameId: { whyNot: 'VS Code chat sessions are read, not written' },
  },
  // Copilot's agent mode runs Claude, GPT and Gemini models; counted like Claude (the larger count).
  compileProfile: { tokenizer: 'claude-estimate', window: 128_000, reserve: 32_000, budget: 24_000, instructionsFile: '.github/copilot-instructions.md' },
  fidelity,
};

export default vscodeCopilot;
