// What each canonical event type keeps through the Kimi CLI adapter (docs/design.md §3): 0 history,
// 1 working context, 2 native. Capture only: the client is Python and cannot run here, so nothing
// is written. Every context line is one or more events whose `origin.native_seq` is its line number.
import type { FidelityTable } from '../../lib/adapter/interface.js';

const NOT_WRITTEN = 'not written: Kimi CLI is read only (no writer)';

export const fidelity: FidelityTable = {
  'session.start': { level: 1, capture: 'made up (header: false): the session id (its folder), the work dir kimi.json maps the folder to, the custom title from state.json; its time the first record of wire.jsonl', materialize: NOT_WRITTEN },
  'session.end': { level: 1, capture: 'not emitted: the context file has no end record', materialize: NOT_WRITTEN },
  'message.user': { level: 0, capture: 'role user: text and image_url parts (data: URLs as inline images); audio/video and other parts in native_blocks; the client\'s own <system> texts kept as they are', materialize: NOT_WRITTEN },
  'message.assistant': { level: 0, capture: 'role assistant: its text parts as one event; name, partial in extra (the file names no model)', materialize: NOT_WRITTEN },
  'message.thinking': { level: 1, capture: 'think parts: the text, encrypted as opaque, provider moonshot', materialize: NOT_WRITTEN },
  'tool.call': { level: 0, capture: 'tool_calls: id, function.name, function.arguments parsed as the input (unparseable arguments kept in native_arguments); extras in extra', materialize: NOT_WRITTEN },
  'tool.result': { level: 0, capture: 'role tool by tool_call_id: the content parts; is_error from the client\'s leading <system>ERROR: text', materialize: NOT_WRITTEN },
  checkpoint: { level: 2, capture: 'not emitted: a _checkpoint is an undo point, not a compaction (kept as meta kimi._checkpoint)', materialize: NOT_WRITTEN },
  meta: { level: 2, capture: '_system_prompt, _usage (token_count), _checkpoint, system-role messages and every other record with the record; of wire.jsonl only its first time (the session start)', materialize: NOT_WRITTEN },
};
