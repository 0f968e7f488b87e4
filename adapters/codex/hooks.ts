// Codex's notify program (docs/formats/codex.md "Hooks"): `notify = [argv…]` at the top of
// <CODEX_HOME>/config.toml runs after every turn, `codex exec` included, with one JSON argument
// appended: {"type":"agent-turn-complete","thread-id",…,"cwd"}. The thread id names the session;
// the worker finds its rollout under the home.
import { join } from 'node:path';
import { tomlNotify } from '../../lib/hooks/settings.js';

export const codexHooks = tomlNotify({
  agent: 'codex',
  displayName: 'Codex',
  verifiedWith: '0.171.0',
  mechanism: 'config.toml notify (agent-turn-complete, argv names thread-id)',
  file: (home) => join(home, 'config.toml'),
});
