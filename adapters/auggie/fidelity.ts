// What each canonical event type keeps through the Auggie adapter (docs/design.md §3): 0 history,
// 1 working context, 2 native. Every `chatHistory` entry of `sessions/<uuid>.json` is one or more
// events whose `origin.native_seq` is its number (1-based) and `origin.native_uuid` its request id.
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'the document header kept whole (sessionId, created, modified, agentState with modelId and guidelines, rootTaskUuid, terminalId, sub-agent costs), the cwd from the first IDE state, the root task list rootTaskUuid names (a UUID only)',
    materialize: 'a new sessions/<uuid>.json: sessionId, created, modified, agentState (modelId from --model, else the client default), no task list (the client makes one when it resumes)',
  },
  'session.end': { level: 1, capture: 'not emitted: the file has no end record', materialize: 'not written' },
  'message.user': {
    level: 0,
    capture: 'the text nodes of a request (request_message when a request has none); the entry fields (completed, sequenceId, finishedAt, changedFiles, source) and the IDE state ride on the first event of the exchange',
    materialize: 'a new exchange: request_message and a text node, then an IDE state node naming the cwd',
  },
  'message.assistant': {
    level: 0,
    capture: 'the text nodes of a response (one event per run of text); response_text when there are no nodes; request_id as message_id',
    materialize: 'text response nodes of the exchange, response_text their concatenation',
  },
  'message.thinking': {
    level: 1,
    capture: 'thinking response nodes (content, else summary; encrypted_content as opaque): read from the client\'s handling, not recorded here',
    materialize: 'not written (the client replays no reasoning of another model); reported',
  },
  'tool.call': { level: 0, capture: 'tool_use response nodes: tool_use_id, tool_name, input_json parsed (kept as written too)', materialize: 'tool_use response nodes {tool_use_id, tool_name, input_json}' },
  'tool.result': {
    level: 0,
    capture: 'tool_result request nodes of the next exchange: content, is_error; duration, start time and metadata kept as extra',
    materialize: 'tool_result request nodes opening the next exchange; a stub for a call without a result, orphans dropped',
  },
  meta: { level: 2, capture: 'request and response nodes of other types, entries without an exchange, entries that are not objects, with the raw record', materialize: 'not written; reported in the loss ledger' },
};
