// Qoder CLI's hooks (docs/formats/qoder.md "Hooks"): Claude Code's layout — command hooks in
// <config dir>/settings.json (`$QODER_CONFIG_DIR`, default ~/.qoder: the user scope), run for Stop
// (a turn ended) and SessionEnd (the session closed); the payload on stdin names session_id,
// transcript_path and cwd. Timeouts are in seconds. Found in the shipped 1.1.52 bundle (its hook
// runner and its bundled hook-config guide); the client cannot run a turn offline, so this is
// checked with the payloads it sends, not with a real turn.
import { stopHooks } from '../../lib/hooks/settings.js';

export const qoderHooks = stopHooks({ agent: 'qoder', displayName: 'Qoder CLI', verifiedWith: '1.1.52 (payloads only)' });
