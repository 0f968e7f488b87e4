// What each canonical event type keeps through the Crush adapter (docs/design.md §3): 0 history,
// 1 working context, 2 native. Message rows are numbered in the client's order (created_at, then
// insertion) from 1: `origin.native_seq`; `origin.native_uuid` is the row id. Reader only.
import type { FidelityTable } from '../../lib/adapter/interface.js';

const NOT_WRITTEN = 'not written: Crush is read only';

export const fidelity: FidelityTable = {
  'session.start': { level: 1, capture: 'the sessions row: id, title, parent session; the project folder from projects.json (or the folder holding .crush) as cwd; the last assistant model and provider; token counts and cost in extra', materialize: NOT_WRITTEN },
  'message.user': { level: 0, capture: 'text items as text blocks; binary image items as image blocks (base64), other binaries as file blocks; image_url items as image blocks with the URL', materialize: NOT_WRITTEN },
  'message.assistant': { level: 0, capture: 'each text item, with the row\'s model and provider and the finish item\'s reason as stop_reason', materialize: NOT_WRITTEN },
  'message.thinking': { level: 1, capture: 'reasoning items: the thinking text and its signature', materialize: NOT_WRITTEN },
  'tool.call': { level: 0, capture: 'tool_call items: id, name, the JSON input parsed (the text when it is not JSON)', materialize: NOT_WRITTEN },
  'tool.result': { level: 0, capture: 'tool_result items of tool messages: content, is_error, name; metadata, mime type and data as structured', materialize: NOT_WRITTEN },
  'command.run': { level: 1, capture: 'shell_command items of user messages: command, exit code, output head', materialize: NOT_WRITTEN },
  meta: { level: 2, capture: 'finish items and unknown item types (crush.part.<type>), system messages, rows whose parts are not JSON (with a diagnostic), the session\'s todos (crush.todos), its file versions (crush.files: path and version)', materialize: NOT_WRITTEN },
};
