// Cline (VS Code)'s tools (docs/formats/cline-tasks.md §4): the family's shared ones plus its own; edits
// go through `replace_in_file` with SEARCH/REPLACE blocks.
import type { Vocabulary } from '../../lib/relay/vocabulary/types.js';
import { taskStoreVocabulary } from '../../lib/formats/cline-tasks/vocabulary.js';
import { AGENT, EDIT_TOOL, flavor } from './paths.js';

export const clineVscodeVocabulary: Vocabulary = taskStoreVocabulary(AGENT, flavor.tools, EDIT_TOOL);
