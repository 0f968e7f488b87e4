// The agents `sp hooks` can install into, each with its own extension point (adapters/<agent>/hooks.ts).
import type { HookInstaller } from '../lib/hooks/install.js';
import { UserError } from '../lib/cli/diagnostics.js';
import { claudeHooks } from './claude/hooks.js';
import { codexHooks } from './codex/hooks.js';
import { copilotHooks } from './copilot/hooks.js';
import { geminiHooks } from './gemini/hooks.js';
import { hermesHooks } from './hermes/hooks.js';
import { opencodeHooks } from './opencode/hooks.js';
import { piHooks } from './pi/hooks.js';
import { qoderHooks } from './qoder/hooks.js';
import { qwenHooks } from './qwen/hooks.js';

export const hookInstallers: Record<string, HookInstaller> = {
  claude: claudeHooks,
  codex: codexHooks,
  copilot: copilotHooks,
  gemini: geminiHooks,
  hermes: hermesHooks,
  opencode: opencodeHooks,
  pi: piHooks,
  qoder: qoderHooks,
  qwen: qwenHooks,
};

export function getHookInstaller(agent: string): HookInstaller {
  const installer = Object.prototype.hasOwnProperty.call(hookInstallers, agent) ? hookInstallers[agent] : undefined;
  if (!installer) throw new UserError(`no hooks for agent "${agent}"; sp hooks installs into: ${Object.keys(hookInstallers).join(', ')}`);
  return installer;
}
