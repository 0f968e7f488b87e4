// Copilot CLI's hooks (docs/formats/copilot.md "Hooks"): every *.json file in <home>/hooks/ (the
// user's hook directory) is read as {"version":1,"hooks":{"<event>":[{"type":"command","bash":…}]}}.
// sp owns one file there, so install creates it and uninstall removes it; nothing of the user's is
// edited. agentStop runs after every turn with {sessionId, transcriptPath, cwd, …} on stdin.
import { join } from 'node:path';
import { UserError } from '../../lib/cli/diagnostics.js';
import { isSpCommand, type HookInstaller } from '../../lib/hooks/install.js';

function parse(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(`not valid JSON (${(err as Error).message}); nothing changed`, file);
  }
}

function spEntries(value: unknown): boolean {
  const hooks = (value as { hooks?: Record<string, unknown> } | null)?.hooks;
  if (hooks === null || typeof hooks !== 'object') return false;
  return Object.values(hooks).some((list) => Array.isArray(list) && list.some((h) => isSpCommand((h as { bash?: unknown })?.bash)));
}

export const copilotHooks: HookInstaller = {
  agent: 'copilot',
  displayName: 'Copilot CLI',
  verifiedWith: '1.0.102',
  mechanism: 'hooks/sp-capture.json: agentStop (stdin names transcriptPath)',
  file: (home) => join(home, 'hooks', 'sp-capture.json'),
  has: (text, file) => text.trim() !== '' && spEntries(parse(text, file)),
  add(text, command, file) {
    if (text !== undefined && text.trim() !== '') {
      if (spEntries(parse(text, file))) return text;
      throw new UserError("is not sp's hook file (a file of the same name is there); nothing changed", file);
    }
    const entry = { type: 'command', bash: command.shell, timeoutSec: 10 };
    return JSON.stringify({ version: 1, hooks: { agentStop: [entry] } }, null, 2) + '\n';
  },
  // sp's own file: what is left without sp's entries is an empty hook file.
  remove: () => JSON.stringify({ version: 1, hooks: {} }, null, 2) + '\n',
};
