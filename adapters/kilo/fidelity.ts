// What each canonical event type keeps through the Kilo Code CLI adapter (docs/design.md §3): 0
// history, 1 working context, 2 native. Kilo's rows are OpenCode's (docs/formats/kilo.md §2), read by
// the same code, so capture keeps what OpenCode's does; records are numbered in the client's order
// (messages by time_created then id, parts by id) from 1. The writer is OpenCode's format writer
// (lib/formats/opencode/write.ts) with Kilo's columns: what it writes is what OpenCode's writes.
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'the session row: id, directory as cwd, title, version, project id, slug, parent; the model of the last user message (else the session\'s); other columns (agent, permission, tokens, cost …) in extra',
    materialize: 'a new session row: a fresh ses_ id, the project of the cwd (.git/kilo, else the git root commit, else global; a project row added when missing), directory = cwd, title, version 7.7.7, agent code, model {id, providerID, variant} when known; no board or event-log rows (the client does not need them)',
  },
  'message.user': {
    level: 0,
    capture: 'a user message: its text parts as text blocks (synthetic ones marked, ignored ones left out), data: image file parts as image blocks, other file parts as file blocks; message fields (agent, model) in message_extra',
    materialize: 'a user message row (agent code) with a text part (Kilo sources: each text and file part as it was); images as file parts with a data: URL; --model or the source\'s own model on the message',
  },
  'message.assistant': {
    level: 0,
    capture: 'each text part: text, modelID, providerID, finish as stop_reason; message_id = the msg_ id shared by the message\'s events',
    materialize: 'one assistant message (agent and mode code) per assistant turn (step-start, parts, step-finish), provider/model from the source model name, finish tool-calls or stop',
  },
  'message.thinking': {
    level: 1,
    capture: 'reasoning parts: text; metadata.anthropic.signature as the signature (provider anthropic)',
    materialize: 'a reasoning part; the signature in metadata.anthropic for Anthropic reasoning (the client sends it back only to the same provider/model)',
  },
  'tool.call': { level: 0, capture: 'tool parts: callID, tool, state.input', materialize: 'a tool part with a complete state (input object, output or error, title, metadata, time start/end)' },
  'tool.result': {
    level: 0,
    capture: 'the tool part\'s state: output (completed), error (is_error), "[Tool execution was interrupted]" for pending/running; title, metadata, time as structured',
    materialize: 'in the call\'s tool part (completed or error); a stub for a call without a result, orphans dropped',
  },
  'command.run': { level: 1, capture: 'derived from bash: command, workdir, metadata.exit, output head', materialize: 'not written (derived)' },
  'file.read': { level: 1, capture: 'derived from a completed read: filePath, offset/limit', materialize: 'not written (derived)' },
  'file.edit': { level: 1, capture: 'derived from completed edit (metadata.diff) and write (the content as a creation diff)', materialize: 'not written (derived)' },
  meta: {
    level: 2,
    capture: 'step-start, step-finish (tokens, cost, metrics), patch, compaction and unknown part types with the part (kilo.part.<type>); messages without parts; todo rows (kilo.todos); rows that are not JSON (with a diagnostic)',
    materialize: 'not written (the writer makes its own step parts); reported in the loss ledger',
  },
};
