// What tells the three extensions apart to the shared reader: the agent's name, its extension ids,
// the variable that names its storage, and its tool names (docs/formats/cline-tasks.md §1, §4).
import type { Actor } from '../../core/event.js';

export interface TaskStoreFlavor {
  /** The agent's name on sp's command line. */
  agent: string;
  /** How listings and errors name it. */
  label: string;
  /** Its marketplace ids: the folder names under `globalStorage/` (a rename leaves the old one). */
  extensionIds: readonly string[];
  /** The environment variable naming the storage folder (the one that holds `tasks/`). */
  homeEnv: string;
  actor: Actor;
  /** Its tool names: which XML-style elements in older assistant text are tool calls. */
  tools: ReadonlySet<string>;
}

/** The tools every extension of the family declares (names as the models see them). */
export const COMMON_TOOLS = [
  'read_file', 'write_to_file', 'execute_command', 'search_files', 'list_files', 'list_code_definition_names',
  'browser_action', 'use_mcp_tool', 'access_mcp_resource', 'ask_followup_question', 'attempt_completion', 'new_task',
] as const;
