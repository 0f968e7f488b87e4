// Where Roo Code keeps its tasks (docs/formats/cline-tasks.md §1, docs/formats/roo.md): Roo Code, Cline's fork (marketplace id rooveterinaryinc.roo-cline, from its old name Roo Cline)
// stores each task in its editor's `globalStorage/<extension id>/tasks/<id>/`. sp's home for it is that
// extension folder; SP_ROO_HOME names one, otherwise every editor's that exists is read.
import { COMMON_TOOLS, type TaskStoreFlavor } from '../../lib/formats/cline-tasks/flavor.js';
import { defaultStorage } from '../../lib/formats/cline-tasks/paths.js';

export const AGENT = 'roo';
export const HOME_ENV = 'SP_ROO_HOME';
export const EXTENSION_IDS = ['rooveterinaryinc.roo-cline'] as const;
/** The edit tool its models are given (SEARCH/REPLACE blocks in `diff`). */
export const EDIT_TOOL = 'apply_diff' as const;

export const flavor: TaskStoreFlavor = {
  agent: AGENT,
  label: 'Roo Code',
  extensionIds: EXTENSION_IDS,
  homeEnv: HOME_ENV,
  actor: `agent:${AGENT}`,
  tools: new Set<string>([...COMMON_TOOLS, 'apply_diff', 'insert_content', 'search_and_replace', 'switch_mode', 'fetch_instructions', 'codebase_search', 'update_todo_list']),
};

export function defaultHome(): string {
  return defaultStorage(flavor);
}
