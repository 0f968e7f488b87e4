// The Claude Code adapter (formats/claude-code.md): discover, capture, materialize, fidelity.
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from '../../lib/formats/claude-code/fidelity.js';
import { DEFAULT_MODEL, HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('../../lib/formats/claude-code/capture.js'));
const writing = once(() => import('./materialize.js'));
const vocabulary = once(async () => (await import('../../lib/formats/claude-code/vocabulary.js')).claudeVocabulary);

export const claude: Adapter = {
  id: 'claude',
  displayName: 'Claude Code',
  homeEnv: HOME_ENV,
  clientEnv: ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT'],
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverSessions(options)),
  open: async (path) => (await discovery()).openTranscript(path),
  find: async (id, options) => (await discovery()).findSession(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureTranscript(ref, options)),
  materialize: async (events, options) => (await writing()).materializeClaude(events, options),
  defaultModel: DEFAULT_MODEL,
  watchPaths: async (ref) => (await capturing()).watchPaths(ref),
  vocabulary,
  capabilities: {
    tree: false,
    images: { userMessage: true, toolResult: true },
    provider: 'anthropic',
    thinking: 'signed',
    incremental: true,
    sameId: true,
  },
  // 200k window; its system prompt and tools take ~20k, replies up to 32k.
  compileProfile: { tokenizer: 'claude-estimate', window: 200_000, reserve: 52_000, budget: 24_000, instructionsFile: 'CLAUDE.md' },
  fidelity,
  client: { package: '@anthropic-ai/claude-code', bin: 'claude', pinned: '2.1.332' },
};

export default claude;
