// What each canonical event type keeps through the Factory Droid adapter (docs/design.md §3): 0
// history, 1 working context, 2 native. Every session line is one or more events whose
// `origin.native_seq` is its line number and `origin.native_uuid` its record id.
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'session_start (line 1): id, cwd, title, format version; owner, hostId and flags in extra',
    materialize: 'a new session_start: a fresh UUID (the file name), version 2, the cwd and a title; a <uuid>.settings.json naming the model',
  },
  'session.end': { level: 1, capture: 'not emitted: the file has no end record (agent_turn_outcome closes each turn and is kept as meta)', materialize: 'not written' },
  'message.user': {
    level: 0,
    capture: 'message role user: text and image blocks; tool_result blocks of the same record become tool.result events; interactionMode in extra',
    materialize: 'message role user with text blocks (images as a text marker); results of the previous assistant turn in their own user record first',
  },
  'message.assistant': {
    level: 0,
    capture: 'message role assistant: its text blocks as one event, modelId as model; reasoningEffort in extra',
    materialize: 'message role assistant with text then tool_use blocks, modelId the session model',
  },
  'message.thinking': {
    level: 1,
    capture: 'thinking / redacted_thinking blocks with their signatures; signatureProvider and durationMs in extra',
    materialize: 'Droid sources: the signed thinking block as it was (the client sends it back); other agents\' reasoning dropped and reported (a signature verifies only with the model that made it)',
  },
  'tool.call': { level: 0, capture: 'tool_use blocks: id, name, input', materialize: 'tool_use blocks {id, name, input}; ids made unique and [A-Za-z0-9_-]' },
  'tool.result': {
    level: 0,
    capture: 'tool_result blocks: tool_use_id, content (string or blocks), is_error',
    materialize: 'tool_result blocks in the user record after their call; a stub for a call without a result, orphans dropped',
  },
  checkpoint: { level: 1, capture: 'compaction_state: summaryText as the summary (kind compaction); anchor and counts in extra', materialize: 'not written (the whole history is written); reported' },
  meta: { level: 2, capture: 'the client\'s llm_only context message (droid.context), agent_turn_outcome and every other record type with the record', materialize: 'not written; reported in the loss ledger' },
};
