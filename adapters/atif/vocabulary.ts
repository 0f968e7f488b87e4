// ATIF as a relay target: a trajectory records tool calls under the names the source agent gave
// them, so nothing is translated (capabilities.keepsSourceTerms). As a source, its calls carry whatever names the
// agent that made the trajectory used (Terminus's bash keystrokes, OpenHands actions …): none is
// parsed into an intent, so another target gets them as text with their results.
import type { Vocabulary } from '../../lib/relay/vocabulary/types.js';

export const atifVocabulary: Vocabulary = {
  agent: 'atif',
  tools: new Set<string>(),
  parse: () => undefined,
  render: () => undefined,
};
