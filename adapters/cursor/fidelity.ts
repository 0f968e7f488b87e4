// What each canonical event type keeps through the Cursor adapter (DESIGN §3): 0 history,
// 1 working context, 2 native. Read only: CLI store.db, IDE state.vscdb, agent transcripts.
import type { FidelityTable } from '../../lib/adapter.js';

const READ_ONLY = 'not written (read-only adapter)';

export const fidelity: FidelityTable = {
  'session.start': { level: 1, capture: 'store.db meta: agentId, name, mode, lastUsedModel, createdAt (blobEncryptionKey never copied), meta.json cwd; IDE composerData: name, modelConfig, workspace folder, _v, the listing that named it; transcripts: file name', materialize: READ_ONLY },
  'message.user': { level: 0, capture: 'user leaves / type-1 bubbles / transcript user lines; <user_query> unwrapped; <user_info> and system leaves kept as meta without text', materialize: READ_ONLY },
  'message.assistant': { level: 0, capture: 'assistant text (one event per leaf / bubble / line), modelInfo.modelName; no per-message times in store.db (createdAt for all), transcripts take the file time', materialize: READ_ONLY },
  'message.thinking': { level: 1, capture: 'reasoning blocks (signature kept), bubble thinking, transcript thinking', materialize: READ_ONLY },
  'tool.call': { level: 0, capture: 'tool-call blocks / OpenAI tool_calls; IDE toolFormerData (name, rawArgs parsed, status); transcripts tool_use with synthetic ids <line>:<n>', materialize: READ_ONLY },
  'tool.result': { level: 0, capture: 'tool-result blocks and role tool leaves joined by toolCallId; IDE toolFormerData.result (error/cancelled as is_error); transcripts have none', materialize: READ_ONLY },
  meta: { level: 1, capture: 'cursor.system-prompt, cursor.user-info (text dropped); transcript turn_ended / error / unknown records with raw; unparseable lines reported', materialize: READ_ONLY },
};
