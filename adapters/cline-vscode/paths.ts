// Where Cline (VS Code) keeps its tasks (docs/formats/cline-tasks.md §1, docs/formats/cline-vscode.md): Cline's VS Code extension (marketplace id saoudrizwan.claude-dev, from its old name Claude Dev)
// stores each task in its editor's `globalStorage/<extension id>/tasks/<id>/`. sp's home for it is that
// extension folder; SP_CLINE_VSCODE_HOME names one, otherwise every editor's that exists is read.
import { COMMON_TOOLS, type TaskStoreFlavor } from '../../lib/formats/cline-tasks/flavor.js';
import { defaultStorage } from '../../lib/formats/cline-tasks/paths.js';

export const AGENT = 'cline-vscode';
export const HOME_ENV = 'SP_CLINE_VSCODE_HOME';
export const EXTENSION_IDS = ['saoudrizwan.claude-dev'] as const;
/** The edit tool its models are given (SEARCH/REPLACE blocks in `diff`). */
export const EDIT_TOOL = 'replace_in_file' as const;

export const flavor: TaskStoreFlavor = {
  agent: AGENT,
  label: 'Cline (VS Code)',
  extensionIds: EXTENSION_IDS,
  homeEnv: HOME_ENV,
  actor: `agent:${AGENT}`,
  tools: new Set<string>([...COMMON_TOOLS, 'replace_in_file', 'plan_mode_respond', 'load_mcp_documentation', 'web_fetch', 'new_rule', 'condense', 'summarize_task', 'report_bug']),
};

export function defaultHome(): string {
  return defaultStorage(flavor);
}
