// What each canonical event type keeps through the Continue CLI adapter (docs/design.md §3): 0 history,
// 1 working context, 2 native. Every history item of `sessions/<id>.json` is one or more events whose
// `origin.native_seq` is its number (1-based) and `message_id` is `item-<number>`.
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'the document header (sessionId, title, workspaceDirectory as cwd, mode, chatModelTitle, session usage) and the session\'s sessions.json entry kept whole; the model is the last answer\'s usage.model; the time is the entry\'s dateCreated',
    materialize: 'a new sessions/<id>.json {sessionId, title, workspaceDirectory, history, usage} and one entry appended to sessions.json (backed up first)',
  },
  'session.end': { level: 1, capture: 'not emitted: the client records no end', materialize: 'not written' },
  'message.user': {
    level: 0,
    capture: 'a user item\'s text (a string or text parts) and data-URL images; contextItems as context_items; editorState only when it says more than the text',
    materialize: 'one user item per turn: the text as a string (parts when it has images, as data URLs), editorState the same text, contextItems empty',
  },
  'message.assistant': {
    level: 0,
    capture: 'an assistant item\'s text, usage.model as model, usage; the client keeps no time per message (every event has the session\'s time)',
    materialize: 'one assistant item per run of text and calls: content, toolCalls, and toolCallStates holding each call\'s result',
  },
  'message.thinking': {
    level: 1,
    capture: 'a history item\'s reasoning and items of role thinking (the CLI itself records none)',
    materialize: 'not written: the client replays a thinking item as an assistant message; dropped and reported',
  },
  'tool.call': { level: 0, capture: 'each toolCalls entry: id, function.name, function.arguments parsed (an unparseable string kept as raw_arguments)', materialize: 'toolCalls {id, type function, function {name, arguments as a JSON string}}; ids made unique and [A-Za-z0-9_-]' },
  'tool.result': {
    level: 0,
    capture: 'each toolCallStates entry: its output contents joined as the client sends them, is_error when the status is errored or canceled, the status and the output list kept',
    materialize: 'a toolCallStates entry on the calling item (status done or errored, output [{content, name, description}]); a stub for a call without a result, orphans dropped',
  },
  meta: { level: 2, capture: 'items of other roles (system), content parts of unknown types, calls without an id and broken items, with the record', materialize: 'not written; reported in the loss ledger' },
};
