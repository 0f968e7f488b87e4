// What each canonical event type keeps through Claude Code's transcript format (docs/design.md §3). `level` is the
// lowest fidelity level at which the event carries over: 0 history (any agent), 1 working context
// (a target agent can continue with it), 2 native (only Claude Code itself can use it).
import type { FidelityTable } from '../../adapter/interface.js';
import { levelsOf } from '../../adapter/fidelity.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 0,
    capture: 'native id, cwd, git branch, client version, first model, title, entrypoint, transcript path; subagents: parent session, agent id/type',
    materialize: 'cwd picks the project folder; a new session id (the same one with --same-id)',
  },
  'message.user': {
    level: 0,
    capture: 'prompt text and image blocks (inline base64 or artifact refs), isMeta / isCompactSummary / isVisibleInTranscriptOnly flags, other envelope fields in extra',
    materialize: 'a user line with text and image blocks; flags restored',
  },
  'message.assistant': {
    level: 0,
    capture: 'one event per text (or unknown) block with message_id, model, stop_reason, usage; synthetic lines marked',
    materialize: 'one assistant line per block, grouped by message_id, with a complete envelope',
  },
  'message.thinking': {
    level: 1,
    capture: 'thinking text with its signature verbatim (provider anthropic); redacted_thinking as opaque data',
    materialize: 'a thinking block only when the signature is Anthropic’s; otherwise text (reported)',
  },
  'tool.call': {
    level: 0,
    capture: 'tool_use id, name, input verbatim, message_id; ids synthesized (and marked) when the record has none',
    materialize: 'a tool_use block; ids sanitized to [A-Za-z0-9_-]',
  },
  'tool.result': {
    level: 0,
    capture: 'content (string or blocks), is_error, toolUseResult verbatim as structured',
    materialize: 'a tool_result in the user line after its tool_use; unanswered calls get a stub result',
  },
  'file.read': { level: 1, capture: 'derived from Read: path, line range', materialize: 'not written (derived; the Read call is)' },
  'file.edit': {
    level: 1,
    capture: 'derived from Edit/MultiEdit/Write: path, unified diff from structuredPatch (or the written content), added/removed counts',
    materialize: 'not written (derived; the Edit/Write call is)',
  },
  'command.run': {
    level: 1,
    capture: 'derived from Bash: command, exit code (0, or N from "Exit code N"), stdout head/tail, stderr tail, interrupted',
    materialize: 'not written (derived; the Bash call is)',
  },
  'todo.add': { level: 1, capture: 'derived from TodoWrite / TaskCreate and tasks/<session>/*.json', materialize: 'not written (derived)' },
  'todo.update': { level: 1, capture: 'derived from TodoWrite / TaskUpdate and tasks/<session>/*.json', materialize: 'not written (derived)' },
  'todo.remove': { level: 1, capture: 'derived from TodoWrite (an item left the list) / TaskUpdate status deleted', materialize: 'not written (derived)' },
  'session.fork': {
    level: 0,
    capture: 'a subagent transcript: the child session, the Agent tool call that started it, agent type and description',
    materialize: 'not written (subagent transcripts are not materialized)',
  },
  meta: {
    level: 2,
    capture: 'every other record (attachment, system, titles, queue-operation, last-prompt, file-history-snapshot (backups as artifacts with --artifacts), mode, progress, unknown types) with the whole record as raw; unparseable lines as text',
    materialize: 'written back only from raw lines (--same-id --raw)',
  },
};

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);
