// What OpenTelemetry agent telemetry keeps (docs/design.md §3): it is read-only and holds only what the
// client chose to log, so most types are history at best.
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': { level: 0, capture: 'session.id / conversation.id, client version, model', materialize: 'not written (read-only)' },
  'message.user': { level: 0, capture: 'user_prompt with its text when the client logs prompts (else meta with the length)', materialize: 'not written' },
  'message.assistant': { level: 0, capture: 'one per model call (model, tokens, cost; Codex: the response.completed with token counts); Claude Code reply text when logged', materialize: 'not written' },
  'tool.call': { level: 0, capture: 'from tool_result: name, call id, arguments (Codex) or tool_input (Claude Code with OTEL_LOG_TOOL_DETAILS=1); start = end - duration', materialize: 'not written' },
  'tool.result': { level: 0, capture: 'success, duration; output from Codex only', materialize: 'not written' },
  meta: { level: 2, capture: 'every other event (decisions, API errors, stream events) with its record', materialize: 'not written' },
};
