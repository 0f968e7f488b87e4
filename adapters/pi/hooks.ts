// Pi's extension API (docs/formats/pi.md "Hooks"): every *.ts file in <agent dir>/extensions/ is
// loaded into the client; sp's extension listens for agent_end (the agent loop of a prompt ended)
// and hands the session file (ctx.sessionManager.getSessionFile()) to sp's hook script in a detached
// process, so Pi never waits for it. sp owns that one file: install creates it, uninstall removes it.
import { join } from 'node:path';
import type { HookCommand } from '../../lib/hooks/install.js';
import { ownedFileHooks } from '../../lib/hooks/settings.js';

const MARK = '// sp hooks: capture each Pi turn into the sp store';

function extension(command: HookCommand): string {
  return `${MARK} (installed by \`sp hooks install pi\`, removed by \`sp hooks uninstall pi\`).
import { spawn } from 'node:child_process';

const HOOK: string[] = ${JSON.stringify(command.argv)};

export default function (pi: any) {
  pi.on('agent_end', (_event: unknown, ctx: any) => {
    try {
      const file = ctx?.sessionManager?.getSessionFile?.();
      if (typeof file !== 'string') return;
      const child = spawn(HOOK[0], [...HOOK.slice(1), JSON.stringify({ transcript_path: file })], { detached: true, stdio: 'ignore' });
      child.on('error', () => {});
      child.unref();
    } catch {
      // never in the way of the agent
    }
  });
}
`;
}

export const piHooks = ownedFileHooks({
  agent: 'pi',
  displayName: 'Pi',
  verifiedWith: '0.73.1',
  mechanism: 'extensions/sp-capture.ts: agent_end (the session file)',
  file: (home) => join(home, 'extensions', 'sp-capture.ts'),
  kind: 'extension',
  mark: MARK,
  source: extension,
});
