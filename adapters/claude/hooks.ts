// Claude Code's hooks (docs/formats/claude.md "Hooks"): command hooks in <config dir>/settings.json,
// run for Stop (a turn ended) and SessionEnd (the session closed); the payload on stdin names the
// transcript (transcript_path), the session id and the cwd.
import { join } from 'node:path';
import { jsonHooks } from '../../lib/hooks/settings.js';

export const claudeHooks = jsonHooks({
  agent: 'claude',
  displayName: 'Claude Code',
  verifiedWith: '2.1.332',
  mechanism: 'settings.json hooks: Stop, SessionEnd (stdin names transcript_path)',
  file: (home) => join(home, 'settings.json'),
  events: ['Stop', 'SessionEnd'],
  // A bounded timeout: the hook returns in milliseconds, but a stuck one must not hold a turn.
  group: (command) => ({ hooks: [{ type: 'command', command: command.shell, timeout: 10 }] }),
});
