// What each canonical event type keeps through the Kilo Code CLI adapter (docs/design.md §3): 0
// history, 1 working context, 2 native. Kilo's rows are OpenCode's (docs/formats/kilo.md §2), read by
// the same code, so capture keeps what OpenCode's does; records are numbered in the client's order
// (messages by time_created then id, parts by id) from 1. There is no writer yet.
import type { FidelityTable } from '../../lib/adapter/interface.js';

const NOT_WRITTEN = 'not written: Kilo Code CLI has no writer yet';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'the session row: id, directory as cwd, title, version, project id, slug, parent; the model of the last user message (else the session\'s); other columns (agent, permission, tokens, cost …) in extra',
    materialize: NOT_WRITTEN,
  },
  'message.user': {
    level: 0,
    capture: 'a user message: its text parts as text blocks (synthetic ones marked, ignored ones left out), data: image file parts as image blocks, other file parts as file blocks; message fields (agent, model) in message_extra',
    materialize: NOT_WRITTEN,
  },
  'message.assistant': { level: 0, capture: 'each text part: text, modelID, providerID, finish as stop_reason; message_id = the msg_ id shared by the message\'s events', materialize: NOT_WRITTEN },
  'message.thinking': { level: 1, capture: 'reasoning parts: text; metadata.anthropic.signature as the signature (provider anthropic)', materialize: NOT_WRITTEN },
  'tool.call': { level: 0, capture: 'tool parts: callID, tool, state.input', materialize: NOT_WRITTEN },
  'tool.result': {
    level: 0,
    capture: 'the tool part\'s state: output (completed), error (is_error), "[Tool execution was interrupted]" for pending/running; title, metadata, time as structured',
    materialize: NOT_WRITTEN,
  },
  'command.run': { level: 1, capture: 'derived from bash: command, workdir, metadata.exit, output head', materialize: NOT_WRITTEN },
  'file.read': { level: 1, capture: 'derived from a completed read: filePath, offset/limit', materialize: NOT_WRITTEN },
  'file.edit': { level: 1, capture: 'derived from completed edit (metadata.diff) and write (the content as a creation diff)', materialize: NOT_WRITTEN },
  meta: {
    level: 2,
    capture: 'step-start, step-finish (tokens, cost, metrics), patch, compaction and unknown part types with the part (kilo.part.<type>); messages without parts; todo rows (kilo.todos); rows that are not JSON (with a diagnostic)',
    materialize: NOT_WRITTEN,
  },
};
