// OpenCode's plugin API (docs/formats/opencode.md "Hooks"): the client loads every
// `{plugin,plugins}/*.{js,ts}` file of its global config dir (`$XDG_CONFIG_HOME/opencode`, default
// `~/.config/opencode`) and calls each exported function; the returned object's `event` hook sees
// every bus event of the instance, and `session.idle` ({sessionID}) comes when a prompt's agent loop
// has finished. sp's plugin hands that session id to sp's hook script in a detached process (the
// agent never waits for it); the worker then runs `sp-capture opencode --session ID --home DATA`.
// sp owns that one file: install creates it, uninstall removes it.
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import type { HookCommand } from '../../lib/hooks/install.js';
import { ownedFileHooks } from '../../lib/hooks/settings.js';
import { envPath } from '../../lib/fs/paths.js';

const MARK = '// sp hooks: capture each OpenCode session into the sp store';
const XDG_DATA = join('.local', 'share', 'opencode');

/**
 * The config dir whose plugins a client with this data dir loads: the XDG pair of the same base
 * (`<X>/.local/share/opencode` → `<X>/.config/opencode`), else `$XDG_CONFIG_HOME/opencode`, else
 * `~/.config/opencode`.
 */
export function configDirOf(dataHome: string): string {
  const data = resolve(dataHome);
  if (data.endsWith(sep + XDG_DATA)) return join(data.slice(0, data.length - XDG_DATA.length - 1), '.config', 'opencode');
  return join(envPath('XDG_CONFIG_HOME') ?? join(homedir(), '.config'), 'opencode');
}

function plugin(command: HookCommand): string {
  return `${MARK} (installed by \`sp hooks install opencode\`, removed by \`sp hooks uninstall opencode\`).
import { spawn } from 'node:child_process';

const HOOK = ${JSON.stringify(command.argv)};

export const SpCapture = async () => ({
  event: async ({ event }) => {
    try {
      if (event?.type !== 'session.idle') return;
      const id = event.properties?.sessionID;
      if (typeof id !== 'string') return;
      const child = spawn(HOOK[0], [...HOOK.slice(1), JSON.stringify({ session_id: id })], { detached: true, stdio: 'ignore' });
      child.on('error', () => {});
      child.unref();
    } catch {
      // never in the way of the agent
    }
  },
});
`;
}

export const opencodeHooks = ownedFileHooks({
  agent: 'opencode',
  displayName: 'OpenCode',
  verifiedWith: '1.18.33',
  mechanism: 'plugin/sp-capture.js in the config dir: session.idle (the session id)',
  file: (home) => join(configDirOf(home), 'plugin', 'sp-capture.js'),
  kind: 'plugin',
  mark: MARK,
  source: plugin,
});
