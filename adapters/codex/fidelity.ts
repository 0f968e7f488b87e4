// What each canonical event type keeps through the Codex adapter (docs/design.md §3). `level` is the
// lowest fidelity level at which the event carries over: 0 history (any agent), 1 working context
// (a target agent can continue with it), 2 native (only Codex itself can use it).
import type { FidelityTable } from '../../lib/adapter/interface.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 0,
    capture: 'session_meta: native id, cwd, git (branch, head, remote), model provider, cli version, originator, source, history mode, first model, title (session_index.jsonl); base instructions once, as a digest plus the text (or an artifact ref with --artifacts)',
    materialize: 'a new session_meta (new UUIDv7 id, now as start time, source "cli", the target home\'s provider); a Codex session keeps git and base instructions; the title and first prompt go to the state db row',
  },
  'message.user': {
    level: 0,
    capture: 'response_item message (user, developer, system): input_text as text, input_image data URLs as images (or artifact refs); context messages (developer, <environment_context> …) marked is_meta',
    materialize: 'a response_item message with input_text / input_image parts, and an event_msg user_message for real prompts',
  },
  'message.assistant': {
    level: 0,
    capture: 'response_item message (assistant): output_text as text, message id, phase, the turn\'s model; compaction answers marked',
    materialize: 'a response_item message with output_text parts, and an event_msg agent_message',
  },
  'message.thinking': {
    level: 1,
    capture: 'reasoning: raw reasoning_text (visible) or summary text (summary), encrypted_content as opaque (provider openai)',
    materialize: 'a reasoning item only for OpenAI reasoning captured from Codex; any other reasoning as "[reasoning]" text in an assistant message (reported)',
  },
  'tool.call': {
    level: 0,
    capture: 'function_call (arguments parsed when they are JSON), custom_tool_call (freeform input), local_shell_call (action)',
    materialize: 'function_call with JSON-string arguments, custom_tool_call for freeform tools, local_shell_call as captured; ids unique',
  },
  'tool.result': {
    level: 0,
    capture: 'function_call_output / custom_tool_call_output: output text (or content items); known error texts marked is_error',
    materialize: 'the output item for its call (custom or function); unanswered calls get a stub output, orphan outputs are dropped',
  },
  'file.edit': {
    level: 1,
    capture: 'derived from apply_patch: one per file, unified diff from the client\'s patch_apply_end / FileChange record, else from the patch (no line numbers)',
    materialize: 'not written (derived; the apply_patch call is)',
  },
  'command.run': {
    level: 1,
    capture: 'derived from exec_command / shell / local_shell_call: command, cwd, exit code (output header or CommandExecution), output head/tail',
    materialize: 'not written (derived; the call is)',
  },
  'todo.add': { level: 1, capture: 'derived from update_plan: a step that joined the plan', materialize: 'not written (derived)' },
  'todo.update': { level: 1, capture: 'derived from update_plan: a step whose status changed', materialize: 'not written (derived)' },
  'todo.remove': { level: 1, capture: 'derived from update_plan: a step that left the plan', materialize: 'not written (derived)' },
  checkpoint: {
    level: 1,
    capture: 'compacted: the summary and replacement_history (what the model saw from then on); earlier lines stay in the log',
    materialize: 'a compacted line with the same replacement history (Codex sources)',
  },
  meta: {
    level: 2,
    capture: 'event_msg (UI echoes, token_count usage, patch_apply_end …), turn_context, world_state, token_usage_record, other response items (web search, tool search, image generation, ghost snapshots …), unknown lines; the whole record as raw; unparseable lines as text',
    materialize: 'Codex records written back (UI echoes regenerated, paginated-only records dropped); other agents\' meta dropped (reported)',
  },
};

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);
