// What each canonical event type keeps through the OpenHands adapter (docs/design.md §3): read
// only, so every `materialize` column says so. Levels: 0 history, 1 working context, 2 OpenHands only.
import type { FidelityTable } from '../../lib/adapter/interface.js';

const READ_ONLY = 'not written: OpenHands is read only here (no client runs on this machine to check a writer)';

export const fidelity: FidelityTable = {
  'session.start': { level: 1, capture: 'the conversation id (folder name), from base_state.json the workspace working_dir as cwd, the LLM model, tool names, condenser, execution status and max iterations (never the LLM settings: keys, URLs); the first event\'s time', materialize: READ_ONLY },
  'message.user': { level: 0, capture: 'MessageEvent with a user llm_message: text and image blocks (data URLs decoded), activated skills, extended content, sender; the summary of a Condensation (or a CondensationSummaryEvent) marked compact_summary', materialize: READ_ONLY },
  'message.assistant': { level: 0, capture: 'MessageEvent with an assistant llm_message, and the thought of an ActionEvent; llm_response_id as message_id shared by one response\'s actions', materialize: READ_ONLY },
  'message.thinking': { level: 1, capture: 'reasoning_content, thinking_blocks (signed or redacted) and a Responses reasoning item (summary, encrypted content as opaque)', materialize: READ_ONLY },
  'tool.call': { level: 0, capture: 'ActionEvent: tool_call_id, tool_name, the arguments the model sent parsed as input (the string kept when not JSON), the typed action, security risk, summary; action null marked invalid', materialize: READ_ONLY },
  'tool.result': { level: 0, capture: 'ObservationEvent: observation content as blocks, is_error, the rest of the observation (command, exit_code, path …); UserRejectObservation and AgentErrorEvent as error results', materialize: READ_ONLY },
  meta: { level: 2, capture: 'Condensation as openhands.compact_boundary; SystemPromptEvent, CondensationRequest, ConversationStateUpdateEvent, PauseEvent, InterruptEvent, ConversationErrorEvent and any later kind as openhands.<kind> with the record; unparseable, over-large, missing (gap), linked and stray event files', materialize: READ_ONLY },
};
