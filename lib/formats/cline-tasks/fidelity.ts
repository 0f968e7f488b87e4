// What each canonical event type keeps when a Cline-family task is read (docs/design.md §3): 0
// history, 1 working context, 2 native. There is no writer: the extensions run only inside an
// editor, so nothing here could check that they resume a written task.
import type { FidelityTable } from '../../adapter/interface.js';

const READ_ONLY = 'not written: read only (the extension runs only inside its editor, which cannot run here)';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'the task id (folder name), the history entry (task text as title, workspace as cwd, tokens, cost, mode, parent task) and task_metadata.json kept whole, the extension id and the editor from the path',
    materialize: READ_ONLY,
  },
  'message.user': {
    level: 0,
    capture: 'user text with the <task>/<feedback>/<answer>/<user_message> wrapper taken off (its name kept in wrappers); images; the appended <environment_details> block becomes meta',
    materialize: READ_ONLY,
  },
  'message.assistant': { level: 0, capture: 'each run of assistant text; the result of attempt_completion (the task\'s final answer, completion_of its call); with only ui_messages.json, the task\'s say text / completion_result and followup questions', materialize: READ_ONLY },
  'message.thinking': { level: 1, capture: 'thinking (with signature), redacted_thinking and AI SDK reasoning blocks; Roo\'s stand-alone encrypted reasoning items as encrypted', materialize: READ_ONLY },
  'tool.call': {
    level: 0,
    capture: 'tool_use and tool-call blocks (id, name, input); an XML-style tool element in older assistant text as a call with a made-up id (<task>-<message>-text-<n>), extra.written_as "text"',
    materialize: READ_ONLY,
  },
  'tool.result': {
    level: 0,
    capture: 'tool_result and tool-result blocks and the role "tool" messages; a "[tool for …] Result:" text answering a text-mode or native call; images in results; is_error from the flag, an error output or an [ERROR] prefix',
    materialize: READ_ONLY,
  },
  checkpoint: { level: 1, capture: 'a checkpoint_created UI message: its commit hash in the shadow repository, the record whole', materialize: READ_ONLY },
  meta: {
    level: 2,
    capture: 'every other UI message (key <agent>.ui.<say|ask>.<kind>, the record whole) placed after the API message it followed; <environment_details> texts; unknown roles and blocks; broken files and records',
    materialize: READ_ONLY,
  },
};
