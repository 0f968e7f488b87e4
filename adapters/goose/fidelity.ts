// What each canonical event type keeps through the Goose adapter (docs/design.md §3): read only, so
// every `materialize` column says so. Levels: 0 history, 1 working context, 2 Goose only.
import type { FidelityTable } from '../../lib/adapter/interface.js';

const READ_ONLY = 'not written: Goose is read only here (no client runs on this machine to check a writer)';

export const fidelity: FidelityTable = {
  'session.start': { level: 1, capture: 'the sessions row: id, working_dir as cwd, name (or description) as title, session_type, provider and model_config (model_name as model), created/updated, extension_data, recipe and its values, token counters as stats, unknown columns in extra; a legacy file: its metadata line', materialize: READ_ONLY },
  'message.user': { level: 0, capture: 'text and image blocks of a user message; message_id; agent_visible / user_visible when false; the agent-only summary after a compaction marked compact_summary', materialize: READ_ONLY },
  'message.assistant': { level: 0, capture: 'text and image blocks of an assistant message; message_id; visibility flags', materialize: READ_ONLY },
  'message.thinking': { level: 1, capture: 'thinking (text and signature) and redactedThinking (data as opaque, visibility redacted)', materialize: READ_ONLY },
  'tool.call': { level: 0, capture: 'toolRequest (and frontendToolRequest, marked frontend): id, the extension-prefixed name, arguments as input, provider metadata and _meta; an unreadable request is meta goose.tool_request.invalid', materialize: READ_ONLY },
  'tool.result': { level: 0, capture: 'toolResponse: the MCP content as blocks (text, image, resource text), isError or an error status as is_error, structuredContent', materialize: READ_ONLY },
  meta: { level: 2, capture: 'conversationCompacted (goose.compact_boundary), toolConfirmationRequest, actionRequired, systemNotification, contextLengthExceeded, summarizationRequested and any later block as goose.content.<type>; unknown roles as goose.message.<role>; unparseable content_json and lines as unparseable; over-large rows as goose.message.too_large', materialize: READ_ONLY },
};
