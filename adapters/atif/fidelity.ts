// What each canonical event type keeps through ATIF (docs/design.md §3). ATIF is a linear list of steps, so
// it keeps the conversation, tool calls with their results, reasoning text and token metrics; it has
// no place for branches, thinking signatures, derived events or an agent's own record types.
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 0,
    capture: 'session_id, agent name/version/model, notes, final_metrics, extra (cwd, branch, title from extra.sp when sp wrote it)',
    materialize: 'a new session_id (the native one with --same-id); agent from the source; cwd, branch, title and the source in extra.sp (v1.1+)',
  },
  'message.user': { level: 0, capture: 'user steps: message (text, v1.6 image parts by path)', materialize: 'a user step; images are not written (ATIF images name files; sp writes none)' },
  'message.assistant': {
    level: 0,
    capture: 'agent steps: message, model_name, metrics (as usage; the metrics object kept whole)',
    materialize: 'one agent step per API message: message, model_name, metrics from usage (prompt_tokens counts cached tokens)',
  },
  'message.thinking': { level: 1, capture: 'reasoning_content', materialize: 'reasoning_content (text only: signatures and encrypted reasoning are dropped)' },
  'tool.call': { level: 0, capture: 'tool_calls[] (names as they are)', materialize: 'tool_calls[] on the agent step, names as they are (non-object input wrapped as {"input": …})' },
  'tool.result': {
    level: 0,
    capture: 'observation.results[] naming their call; subagent refs kept',
    materialize: 'observation.results[] of the step that made the call; is_error in extra (v1.7); images dropped',
  },
  'session.fork': { level: 2, capture: 'embedded subagent trajectories (v1.7) become child sessions', materialize: 'not written: ATIF is linear (sp-materialize --branches all writes each branch as its own trajectory)' },
  meta: { level: 2, capture: 'system steps, results without a call, unknown fields and invalid steps (raw)', materialize: 'system steps and call-less results written back; other meta dropped (ledger)' },
};
