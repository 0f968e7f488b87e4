// Qwen Code's hooks (docs/formats/qwen.md "Hooks"): Claude Code's layout in <home>/settings.json,
// run for Stop (a turn ended) and SessionEnd; the payload on stdin names transcript_path and
// session_id. Timeouts are in seconds.
import { stopHooks } from '../../lib/hooks/settings.js';

export const qwenHooks = stopHooks({ agent: 'qwen', displayName: 'Qwen Code', verifiedWith: '0.24.4' });
