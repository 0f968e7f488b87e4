// What each canonical event type keeps through the Pi adapter (docs/design.md §3). `level` is the lowest
// fidelity level at which the event carries over: 0 history (any agent), 1 working context (a target
// agent can continue with it), 2 native (only Pi itself can use it).
//
// The tree. Every Pi entry is a tree node (`id`/`parentId`). Capture maps the parent to
// `parent_seq` = the seq of the LAST event made from the parent's line (so derived events that end a
// line are passed through, as in the Claude capture), set only when that is not seq - 1; a second
// root (parentId null, or a parent that is not in the file) gets `parent_seq: null`, and a missing
// parent's id is kept in `origin.native_parent`. Every event keeps the entry id in
// `origin.native_uuid`. v1 files have no ids: their entries form one chain in file order.
//
// The active leaf. Pi resumes the branch of the file's LAST entry and only ever appends (children
// of the leaf, or of an entry the user navigated to), so the leaf is the entry of the last entry
// line. Capture records it on session.start as `active_leaf` {native_uuid, native_seq} (the file as
// it was when capture started); an incremental capture that reads more lines later moves it to the
// last entry read. The writer (materialize) takes the leaf as the unit of the last event that came
// from an entry line, and writes the source's active branch last so Pi continues on it.
import type { FidelityTable } from '../../lib/adapter/interface.js';
import { levelsOf } from '../../lib/adapter/fidelity.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'header: session id, cwd, format version (1 when missing), parentSession / v1 branchedFrom and header model; title (latest session_info), first model, active leaf, source path',
    materialize: 'a v3 header {type, version:3, id, timestamp, cwd} under 512 bytes; a fresh UUIDv7 (the same id with --same-id)',
  },
  'message.user': {
    level: 0,
    capture: 'user text and image blocks; also what the client sends as user text: custom_message, role custom (v2 hookMessage), branch_summary (with the client\'s own wrapper text) and `!cmd` runs (bashExecution, as the client renders them); the native fields kept in the payload',
    materialize: 'the same native entry (user / custom_message / custom / branch_summary / bashExecution) when the payload says which; a user message with text and image blocks otherwise',
  },
  'message.assistant': {
    level: 0,
    capture: 'one event per text (or unknown) block with message_id, api, provider, model, usage (with cost), stop_reason, response id and error message; an empty assistant message (aborted) as one event with no content',
    materialize: 'one assistant message per message_id with content[], api/provider/model (the source\'s, inferred from the model name, or --model), full usage with cost.total, stopReason, timestamp',
  },
  'message.thinking': {
    level: 1,
    capture: 'thinking text, signature verbatim, provider = the Pi provider; redacted thinking as visibility redacted',
    materialize: 'a thinking block; the signature kept only when the message is written for the provider that made it',
  },
  'tool.call': {
    level: 0,
    capture: 'toolCall id, name, arguments, thoughtSignature, message_id',
    materialize: 'a toolCall block; for anthropic-messages ids are made [A-Za-z0-9_-]{1,64}',
  },
  'tool.result': {
    level: 0,
    capture: 'toolResult content (blocks, or a string as written), isError, details as structured, tool name',
    materialize: 'a toolResult right after its call (results of one message chained); details kept for Pi sources; unanswered calls get a stub result, orphans are dropped',
  },
  'file.read': { level: 1, capture: 'derived from read: path, offset/limit', materialize: 'not written (derived; the read call is)' },
  'file.edit': {
    level: 1,
    capture: 'derived from edit (unified diff converted from the exact numbered diff in details.diff) and write (the whole content added)',
    materialize: 'not written (derived; the edit/write call is)',
  },
  'command.run': {
    level: 1,
    capture: 'derived from the bash tool (exit code 0, N from "Command exited with code N", null when aborted or timed out; output head/tail); a `!cmd` run (bashExecution) also gives one, actor user, via "bashExecution", next to its message.user',
    materialize: 'not written (derived, or carried by its message.user)',
  },
  checkpoint: {
    level: 1,
    capture: 'compaction: summary, firstKeptEntryId (v1: firstKeptEntryIndex, resolved) as first_kept_seq, tokensBefore, details, fromHook',
    materialize: 'a compaction entry whose firstKeptEntryId names the new id of the kept entry',
  },
  meta: {
    level: 2,
    capture: 'model_change, thinking_level_change, label (target resolved to target_seq), session_info, custom, and unknown entry types or roles with the whole entry as raw; blank lines; unparseable lines as text',
    materialize: 'Pi entries written back from raw with new ids and parents (label targets remapped); other agents\' meta is reported, not written',
  },
};

/** The level capture puts on an event of `type`: the fidelity table's. */
export const levelOf = levelsOf(fidelity);
