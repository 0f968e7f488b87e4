// Qoder's tools are Claude Code's, under the same names and inputs (docs/formats/qoder.md §4).
import type { Vocabulary } from '../../lib/relay/vocabulary/types.js';
import { claudeVocabulary } from '../../lib/formats/claude-code/vocabulary.js';

export const qoderVocabulary: Vocabulary = { ...claudeVocabulary, agent: 'qoder' };
