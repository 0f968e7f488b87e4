// The Claude Code adapter (formats/claude-code.md): discover, capture, materialize, fidelity.
import type { Adapter, EstimatingTokenizer } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery, lazyMaterialize, once } from '../../lib/adapter/lazy.js';
import { fidelity } from '../../lib/formats/claude-code/fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

// How a handoff for a Claude model is counted. Anthropic publishes no local tokenizer (its
// count_tokens endpoint needs the network), so the count is a documented estimate: the cl100k_base
// count times CLAUDE_FACTOR, rounded up. Claude's tokenizers produce somewhat more tokens than
// cl100k_base on English and code, and newer Claude models up to about a third more; 1.35 keeps a
// margin above that, so a handoff sized by it fits a Claude window. Other profiles name it by its
// name (lib/compile/tokenizers.ts registers it); the markdown target counts with it as the most
// conservative estimate. It is here, not in a module of its own: `sp-capture claude` loads no more
// modules than before.
export const CLAUDE_FACTOR = 1.35;

export const CLAUDE_ESTIMATE: EstimatingTokenizer = { name: 'claude-estimate', base: 'cl100k_base', factor: CLAUDE_FACTOR };

const capturing = once(() => import('../../lib/formats/claude-code/capture.js'));
const vocabulary = once(async () => (await import('../../lib/formats/claude-code/vocabulary.js')).claudeVocabulary);

export const claude: Adapter = {
  id: 'claude',
  displayName: 'Claude Code',
  homeEnv: HOME_ENV,
  clientEnv: ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT'],
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverSessions, (m) => m.openTranscript, (m) => m.findSession),
  capture: lazyCapture(capturing, (m) => m.captureTranscript),
  materialize: lazyMaterialize(() => import('./materialize.js'), (m) => m.materializeClaude),
  defaultModel: DEFAULT_MODEL,
  watchPaths: async (ref) => (await capturing()).watchPaths(ref),
  vocabulary,
  modelFamily: { provider: 'anthropic', names: /^(anthropic|claude)/i },
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: true },
    provider: 'anthropic',
    thinking: 'signed',
    incremental: true,
    sameId: true,
  },
  // 200k window; its system prompt and tools take ~20k, replies up to 32k.
  compileProfile: { tokenizer: CLAUDE_ESTIMATE, window: 200_000, reserve: 52_000, budget: 24_000, instructionsFile: 'CLAUDE.md' },
  fidelity,
  client: { package: '@anthropic-ai/claude-code', bin: 'claude', pinned: '2.1.332' },
};

export default claude;
