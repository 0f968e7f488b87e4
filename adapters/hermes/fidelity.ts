// What each canonical event type keeps through the Hermes adapter (docs/design.md §3). `level` is the
// lowest fidelity level at which the event carries over: 0 history (any agent), 1 working context
// (a target agent can continue with it), 2 native (only Hermes itself can use it).
//
// Rows and events. Every `messages` row is one or more events whose `origin.native_seq` is the row
// id (Hermes's replay order); `--raw` puts the row as JSON in `origin.raw` of its first event.
// Archived rows (active = 0) are meta with `seen_by_model: false` (see rows.ts for why).
// Exports (`hermes sessions export` JSONL, the JSON logs of older versions) are read into the same
// rows (export.ts): the same events, without lineage forks (an export line does not hold them).
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'the sessions row: id, cwd, model, title, source, billing provider, started/ended, end_reason, git columns, profile, model_config, the system prompt (system_prompts, else the inline column), counters as stats, cost; lineage {kind, parent, chain, root, children, compression_tip} and parent_session for a child; unknown columns in extra',
    materialize: 'a new sessions row: a fresh id in Hermes\'s style (YYYYMMDD_HHMMSS_<6 hex>), source cli, cwd, a model Hermes routes, started_at now, a unique title, counters for listings, system prompt left NULL so Hermes builds its own',
  },
  'session.end': { level: 1, capture: 'ended_at and end_reason (emitted once per end; a resume that reopens is meta hermes.session.reopened), counters and cost', materialize: 'the new session ends as cli_close, as the CLI leaves it' },
  'session.fork': { level: 1, capture: 'a child session (compression continuation, delegate, branch, reset, tool) at the point it began, with its native id and kind', materialize: 'not written (each session is written on its own)' },
  'message.user': {
    level: 0,
    capture: 'user rows: text, or the decoded \\x00json: parts (text, image_url as image blocks) with content_json verbatim; api_content (the bytes sent) beside content; platform_message_id, observed, display_kind/metadata, unknown columns in extra',
    materialize: 'a user row (consecutive prompts merged, empty ones dropped); images become a text marker, as Hermes stores them; \\x00json: content written back for Hermes sources',
  },
  'message.assistant': {
    level: 0,
    capture: 'the assistant row\'s text, finish_reason as stop_reason, the session model, api_content, codex_message_items; message_id hermes:<row id> shared by the row\'s events',
    materialize: 'one assistant row per message_id (consecutive assistant messages merged), finish_reason',
  },
  'message.thinking': {
    level: 1,
    capture: 'reasoning as text; reasoning_content (or reasoning_content_same), reasoning_details and codex_reasoning_items verbatim; the signature of a single signed block; provider = the session\'s billing provider, format as recorded',
    materialize: 'reasoning (and reasoning_content for Hermes sources); reasoning_details and codex items only when the new session uses the provider that made them',
  },
  'tool.call': {
    level: 0,
    capture: 'each tool_calls entry: id (else call_id), function name, arguments parsed into input (the string kept when json.dumps would not give it back), call_id / response_item_id / extra_content in call_extra',
    materialize: 'an entry {id, call_id, response_item_id, type:"function", function:{name, arguments}} with arguments a JSON-object string',
  },
  'tool.result': {
    level: 0,
    capture: 'tool rows: tool_call_id, tool_name, content verbatim; is_error from the JSON result (error set, success false, non-zero exit_code)',
    materialize: 'one tool row per call right after its assistant row (results from anywhere in the stream); a stub for a call without a result, orphans dropped',
  },
  'command.run': { level: 1, capture: 'derived from terminal: command, workdir, exit_code, output head/tail, error', materialize: 'not written (derived)' },
  'file.read': { level: 1, capture: 'derived from a successful read_file: path, offset/limit', materialize: 'not written (derived)' },
  'file.edit': { level: 1, capture: 'derived from patch (the result\'s unified diff per file; the replaced text without line numbers when there is none) and write_file (the whole content)', materialize: 'not written (derived)' },
  'todo.add': { level: 1, capture: 'derived from todo: an item that joined the list', materialize: 'not written (derived)' },
  'todo.update': { level: 1, capture: 'derived from todo: an item whose status or text changed', materialize: 'not written (derived)' },
  'todo.remove': { level: 1, capture: 'derived from todo: an item that left the list (a replacing call)', materialize: 'not written (derived)' },
  meta: {
    level: 2,
    capture: 'archived rows (hermes.message.compacted / .inactive, seen_by_model false), rows archived after an incremental capture emitted them (hermes.messages.archived), session_meta, system and unknown roles (hermes.message.<role>), unparseable tool_calls, session_model_usage rows, session updates and reopens',
    materialize: 'not written; reported in the loss ledger',
  },
};
