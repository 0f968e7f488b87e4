// What each canonical event type keeps through the Aider adapter (docs/design.md §3): 0 history,
// 1 working context, 2 native. Aider's chat file is a Markdown transcript: no ids, no tool calls.
// The writer is unverified (no Aider client here): it follows Aider's restore parser.
import type { FidelityTable } from '../../lib/adapter/interface.js';

export const fidelity: FidelityTable = {
  'session.start': { level: 1, capture: '`# aider chat started at` header (local time read as UTC), `> Aider v…` version and `> Main model:` model from the banner', materialize: 'a new file <cwd>/.aider.sp-<id>.chat.history.md: header with the import time, one `> Imported by sp …` line' },
  'message.user': { level: 0, capture: 'consecutive `#### ` lines, prefix and trailing hard-break spaces removed; `/command` noted; time from .aider.input.history when it matches', materialize: 'every line `#### <line>  `; neighbouring user messages merged' },
  'message.assistant': { level: 0, capture: 'reply text between user and `> ` lines, trimmed; `# ` lines inside a reply kept as text; edits stay SEARCH/REPLACE text', materialize: 'plain lines; a line starting `#### `, `> ` or `# ` gets one leading space (restore would misread it); neighbours merged' },
  'tool.call': { level: 0, capture: 'none: Aider has no tool calls (edits are text inside replies)', materialize: 'rendered into the reply as a fenced tool-call block (name + JSON input)' },
  'tool.result': { level: 0, capture: 'none: `> ` status lines (applied edits, commits, confirm answers) are meta aider.output', materialize: 'rendered into the reply as a fenced tool-result block' },
  meta: { level: 1, capture: 'aider.output for each run of `> ` lines; aider.unknown for a `# ` line outside a reply; aider.invalid-utf8 for a line with bad bytes (reported)', materialize: 'not written (thinking dropped too)' },
};
