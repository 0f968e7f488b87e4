// What each canonical event type keeps through the Copilot CLI adapter (docs/design.md §3): 0 history,
// 1 working context, 2 native. Every events.jsonl line is one or more events whose
// `origin.native_seq` is its line number and `origin.native_uuid` its envelope id.
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'session.start (line 1): sessionId, context (cwd, branch, head commit), selectedModel, copilotVersion, producer, startTime; workspace.yaml name as title',
    materialize: 'a new session.start: a fresh UUID (the folder name), version 1, producer copilot-agent, copilotVersion 1.0.102, startTime now, context.cwd; a workspace.yaml with cwd and name',
  },
  'session.end': { level: 1, capture: 'not emitted: session.shutdown is kept as meta (a resumed session has several)', materialize: 'not written (the client appends its own shutdown)' },
  'message.user': {
    level: 0,
    capture: 'user.message: content, messageId, transformedContent (what the model saw), attachments and turn ids in extra',
    materialize: 'user.message {content, messageId}; transformedContent back for Copilot sources; images as a text marker',
  },
  'message.assistant': {
    level: 0,
    capture: 'assistant.message content (one event per message; none for a message that only calls tools), messageId, model; bookkeeping fields in extra',
    materialize: 'one assistant.message per assistant turn (texts joined), a fresh messageId (the source one for Copilot sources)',
  },
  'message.thinking': {
    level: 1,
    capture: 'reasoningText; Anthropic-wire reasoningBlocks one event per thinking block with its signature; reasoningOpaque / encryptedContent as opaque; assistant.reasoning events',
    materialize: 'reasoningText; reasoningBlocks and reasoningOpaque only for Copilot sources (a signature verifies only with its own model)',
  },
  'tool.call': { level: 0, capture: 'each toolRequests entry: toolCallId, name, arguments (a JSON string parsed), toolTitle/intentionSummary in extra', materialize: 'toolRequests entry {toolCallId, name, arguments object, type function}; ids made unique and [A-Za-z0-9_-]' },
  'tool.result': {
    level: 0,
    capture: 'tool.execution_complete: result.content (or error.message when success is false) with is_error; detailedContent, error and fileEdits as structured',
    materialize: 'tool.execution_complete right after its assistant.message: result.content, or success false with error.message; a stub for a call without a result, orphans dropped',
  },
  checkpoint: { level: 1, capture: 'a successful session.compaction_complete: summaryContent as the summary (kind compaction)', materialize: 'session.compaction_start/complete for Copilot sources; other agents\' compactions dropped (the whole history is written)' },
  meta: { level: 2, capture: 'every other event (system.message, turn and usage records, permissions, shutdown, resume, hooks, subagent events, types a later client adds) with the record', materialize: 'not written; reported in the loss ledger' },
};
