// What each canonical event type keeps through the VS Code chat reader (docs/design.md §3): 0
// history, 1 working context, 2 native. Read only: nothing is materialized.
import type { FidelityTable } from '../../lib/adapter/interface.js';

const NOT_WRITTEN = 'not written: VS Code chat is read only (the editor cannot run here to check a writer)';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'the session id (file name), cwd from workspace.json (file: folders only), customTitle as title, the last modelId, version; the other top-level fields in extra',
    materialize: NOT_WRITTEN,
  },
  'session.end': { level: 1, capture: 'not emitted: the file has no end record', materialize: NOT_WRITTEN },
  'message.user': { level: 0, capture: 'request.message text (a string in the oldest files); the parsed parts, variableData and every other request field in extra', materialize: NOT_WRITTEN },
  'message.assistant': {
    level: 0,
    capture: 'agent mode: each tool-calling round\'s response text (result.metadata.toolCallRounds); otherwise the markdown parts of the response, inline references by name',
    materialize: NOT_WRITTEN,
  },
  'message.thinking': { level: 1, capture: 'a round\'s thinking text, or a response part of kind thinking', materialize: NOT_WRITTEN },
  'tool.call': {
    level: 0,
    capture: 'agent mode: each round\'s toolCalls {id, name, arguments} as the model sent them; otherwise toolInvocationSerialized parts (toolId, toolCallId; the panel keeps no arguments, toolSpecificData stands in)',
    materialize: NOT_WRITTEN,
  },
  'tool.result': {
    level: 0,
    capture: 'agent mode: toolCallResults[id] text parts; otherwise a complete invocation\'s past-tense message and resultDetails; a call without a kept result has none',
    materialize: NOT_WRITTEN,
  },
  meta: {
    level: 2,
    capture: 'every other response part (textEditGroup, codeblockUri, progressMessage, undoStop …) with the part, the panel\'s parts when the rounds told the answer, result timings/errors, bad or unknown log lines',
    materialize: NOT_WRITTEN,
  },
};
