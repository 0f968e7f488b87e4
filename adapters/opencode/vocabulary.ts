// OpenCode's tool vocabulary for the relay: the family's (lib/formats/opencode/vocabulary.ts).
import { SHARED_TOOLS, storeVocabulary } from '../../lib/formats/opencode/vocabulary.js';

export const opencodeVocabulary = storeVocabulary('opencode', SHARED_TOOLS);
