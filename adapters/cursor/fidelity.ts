// What each canonical event type keeps through the Cursor adapter (docs/design.md §3): 0 history,
// 1 working context, 2 native. Reads the CLI store.db, IDE state.vscdb and agent transcripts; writes
// a CLI store.db only behind --experimental (unverified), in the one layout known to resume: text leaves.
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': { level: 1, capture: 'store.db meta: agentId, name, mode, lastUsedModel, createdAt (blobEncryptionKey never copied), meta.json cwd; IDE composerData: name, modelConfig, workspace folder, _v, the listing that named it; transcripts: file name', materialize: '--experimental: meta[\'0\'] {agentId (new UUID), latestRootBlobId, name (the title), mode default, createdAt, lastUsedModel}; meta.json {cwd}' },
  'message.user': { level: 0, capture: 'user leaves / type-1 bubbles / transcript user lines; <user_query> unwrapped; <user_info> and system leaves kept as meta without text', materialize: '--experimental: a user text leaf; consecutive user messages joined; images as [image]' },
  'message.assistant': { level: 0, capture: 'assistant text (one event per leaf / bubble / line), modelInfo.modelName; no per-message times in store.db (createdAt for all), transcripts take the file time', materialize: '--experimental: an assistant text leaf with a running id; consecutive replies, tool calls and thinking joined into it' },
  'message.thinking': { level: 1, capture: 'reasoning blocks (signature kept), bubble thinking, transcript thinking', materialize: '--experimental: marked text ([thinking]) in the assistant leaf' },
  'tool.call': { level: 0, capture: 'tool-call blocks / OpenAI tool_calls; IDE toolFormerData (name, rawArgs parsed, status); transcripts tool_use with synthetic ids <line>:<n>', materialize: '--experimental: a fenced tool-call block in the assistant text (native tool-call leaves unproven)' },
  'tool.result': { level: 0, capture: 'tool-result blocks and role tool leaves joined by toolCallId; IDE toolFormerData.result (error/cancelled as is_error); transcripts have none', materialize: '--experimental: a fenced tool-result block in the assistant text' },
  meta: { level: 1, capture: 'cursor.system-prompt, cursor.user-info (text dropped); transcript turn_ended / error / unknown records with raw; unparseable lines reported', materialize: 'not written' },
};
