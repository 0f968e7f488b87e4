// What each canonical event type keeps through the Aider adapter (DESIGN §3): 0 history,
// 1 working context, 2 native. Aider's chat file is a Markdown transcript: no ids, no tool calls.
import type { FidelityTable } from '../../lib/adapter.js';

export const fidelity: FidelityTable = {
  'session.start': { level: 1, capture: '`# aider chat started at` header (local time read as UTC), `> Aider v…` version and `> Main model:` model from the banner', materialize: 'not written (read-only adapter)' },
  'message.user': { level: 0, capture: 'consecutive `#### ` lines, prefix and trailing hard-break spaces removed; `/command` noted; time from .aider.input.history when it matches', materialize: 'not written (read-only adapter)' },
  'message.assistant': { level: 0, capture: 'reply text between user and `> ` lines, trimmed; `# ` lines inside a reply kept as text; edits stay SEARCH/REPLACE text', materialize: 'not written (read-only adapter)' },
  'tool.call': { level: 0, capture: 'none: Aider has no tool calls (edits are text inside replies)', materialize: 'not written (read-only adapter)' },
  'tool.result': { level: 0, capture: 'none: `> ` status lines (applied edits, commits, confirm answers) are meta aider.output', materialize: 'not written (read-only adapter)' },
  meta: { level: 1, capture: 'aider.output for each run of `> ` lines; aider.unknown for a `# ` line outside a reply; aider.invalid-utf8 for a line with bad bytes (reported)', materialize: 'not written (read-only adapter)' },
};
