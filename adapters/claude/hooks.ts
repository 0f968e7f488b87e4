// Claude Code's hooks (docs/formats/claude.md "Hooks"): command hooks in <config dir>/settings.json,
// run for Stop (a turn ended) and SessionEnd (the session closed); the payload on stdin names the
// transcript (transcript_path), the session id and the cwd.
import { stopHooks } from '../../lib/hooks/settings.js';

export const claudeHooks = stopHooks({ agent: 'claude', displayName: 'Claude Code', verifiedWith: '2.1.332' });
