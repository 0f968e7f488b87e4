// What each canonical event type keeps through the Cline CLI adapter (docs/design.md §3): 0 history,
// 1 working context, 2 native. Every message of `<id>.messages.json` is one or more events whose
// `origin.native_seq` is its number (1-based) and `origin.native_uuid` its id.
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': {
    level: 1,
    capture: 'the file header (version, sessionId, origin with the client version, system_prompt) and the manifest beside it (cwd, provider, model, title, status, usage) kept whole',
    materialize: 'a new folder data/sessions/<id>/ with <id>.messages.json (version 1, agent lead, origin) and a manifest <id>.json (cwd, provider, model, title, status completed)',
  },
  'session.end': { level: 1, capture: 'not emitted: the manifest status and ended_at are in session.start', materialize: 'not written (the manifest says completed)' },
  'message.user': {
    level: 0,
    capture: 'a user message\'s text blocks, the <user_input mode> wrapper taken off (the mode kept as user_input_mode); images',
    materialize: 'one user message per turn, text wrapped in <user_input mode="act"> as the client writes it; images as Anthropic image blocks',
  },
  'message.assistant': {
    level: 0,
    capture: 'the text blocks of an assistant message (one event per run of text), its id, modelInfo.id as model, metrics as usage',
    materialize: 'one assistant message per turn: text, thinking and tool_use blocks in order, a fresh id',
  },
  'message.thinking': {
    level: 1,
    capture: 'thinking blocks with their signature; redacted_thinking as opaque',
    materialize: 'thinking blocks with a signature only when the source is Cline (a signature verifies only with its model); other reasoning dropped and reported',
  },
  'tool.call': { level: 0, capture: 'each tool_use block: id, name, input', materialize: 'tool_use {id, name, input}; ids made unique and [A-Za-z0-9_-]' },
  'tool.result': {
    level: 0,
    capture: 'each tool_result block: the text of its content (a string, or the {query, result, success} list joined), is_error when a result says success false; the native content as structured',
    materialize: 'one user message per result, right after its call, content a string; a stub for a call without a result, orphans dropped',
  },
  meta: { level: 2, capture: 'messages of another role, content blocks of unknown types and broken messages, with the record', materialize: 'not written; reported in the loss ledger' },
};
