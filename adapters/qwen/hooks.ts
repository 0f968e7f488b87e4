// Qwen Code's hooks (docs/formats/qwen.md "Hooks"): Claude Code's layout in <home>/settings.json,
// run for Stop (a turn ended) and SessionEnd; the payload on stdin names transcript_path and
// session_id. Timeouts are in seconds.
import { join } from 'node:path';
import { jsonHooks } from '../../lib/hooks/settings.js';

export const qwenHooks = jsonHooks({
  agent: 'qwen',
  displayName: 'Qwen Code',
  verifiedWith: '0.24.4',
  mechanism: 'settings.json hooks: Stop, SessionEnd (stdin names transcript_path)',
  file: (home) => join(home, 'settings.json'),
  events: ['Stop', 'SessionEnd'],
  group: (command) => ({ hooks: [{ type: 'command', command: command.shell, timeout: 10 }] }),
});
