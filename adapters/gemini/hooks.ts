// Gemini CLI's hooks (docs/formats/gemini.md "Hooks"): command hooks in <home>/settings.json (the
// user settings), run for AfterAgent (once per turn, after the final answer) and SessionEnd (exit;
// best effort, the client does not wait). The payload on stdin names transcript_path and session_id.
// Timeouts are in milliseconds.
import { join } from 'node:path';
import { jsonHooks } from '../../lib/hooks/settings.js';

export const geminiHooks = jsonHooks({
  agent: 'gemini',
  displayName: 'Gemini CLI',
  verifiedWith: '0.61.0',
  mechanism: 'settings.json hooks: AfterAgent, SessionEnd (stdin names transcript_path)',
  file: (home) => join(home, 'settings.json'),
  events: ['AfterAgent', 'SessionEnd'],
  group: (command) => ({ hooks: [{ name: 'sp-capture', type: 'command', command: command.shell, timeout: 10_000 }] }),
});
