// What each canonical event type keeps through the Zed adapter (docs/design.md §3): 0 history, 1
// working context, 2 native. Messages are numbered by their index in the thread from 1
// (`origin.native_seq`); Zed keeps no per-message times, so every event has the thread's updated_at.
// Reader only.
import type { FidelityTable } from '../../lib/adapter/interface.js';

const NOT_WRITTEN = 'not written: Zed threads are read only';

export const fidelity: FidelityTable = {
  'session.start': { level: 1, capture: 'the thread row and JSON: id, title, the first folder as cwd, parent thread (subagents), model and provider; other thread fields (profile, token usage, summary …) in extra', materialize: NOT_WRITTEN },
  'message.user': { level: 0, capture: 'Text as text blocks, Image (base64 PNG) as image blocks, Mention as a text block with the mentioned content and its uri', materialize: NOT_WRITTEN },
  'message.assistant': { level: 0, capture: 'each Text item of an Agent message', materialize: NOT_WRITTEN },
  'message.thinking': { level: 1, capture: 'Thinking (text, signature); RedactedThinking as redacted with its data opaque', materialize: NOT_WRITTEN },
  'tool.call': { level: 0, capture: 'ToolUse: id, name, input', materialize: NOT_WRITTEN },
  'tool.result': { level: 0, capture: 'the Agent message\'s tool_results: content (text or image), is_error, tool name, output as structured', materialize: NOT_WRITTEN },
  meta: { level: 2, capture: 'Resume markers (zed.resume), unknown message or content shapes with the item, a thread that cannot be decompressed or parsed (unparseable, with a diagnostic)', materialize: NOT_WRITTEN },
};
