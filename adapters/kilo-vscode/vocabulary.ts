// Kilo Code (VS Code)'s tools (docs/formats/cline-tasks.md §4): the family's shared ones plus its own; edits
// go through `apply_diff` with SEARCH/REPLACE blocks.
import type { Vocabulary } from '../../lib/relay/vocabulary/types.js';
import { taskStoreVocabulary } from '../../lib/formats/cline-tasks/vocabulary.js';
import { AGENT, EDIT_TOOL, flavor } from './paths.js';

export const kiloVscodeVocabulary: Vocabulary = taskStoreVocabulary(AGENT, flavor.tools, EDIT_TOOL);
