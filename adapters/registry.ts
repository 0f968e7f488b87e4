// The registry of adapters: the agent names the command line accepts, each with the module that
// holds its adapter. Adding an agent is one folder under adapters/ and one line here. Nothing is
// imported until asked: `sp-capture claude --path F --cursor C` loads Claude's adapter and no
// other (adapters/index.ts loads them all, for the programs that list or serve every agent).
import type { Adapter } from '../lib/adapter/interface.js';
import { UserError } from '../lib/cli/diagnostics.js';
import { withCapabilityChecks } from '../lib/adapter/registry.js';
import { didYouMean } from '../lib/cli/suggest.js';

const modules: Record<string, () => Promise<{ default: Adapter }>> = {
  aider: () => import('./aider/index.js'),
  atif: () => import('./atif/index.js'),
  auggie: () => import('./auggie/index.js'),
  claude: () => import('./claude/index.js'),
  cline: () => import('./cline/index.js'),
  'cline-vscode': () => import('./cline-vscode/index.js'),
  codex: () => import('./codex/index.js'),
  continue: () => import('./continue/index.js'),
  copilot: () => import('./copilot/index.js'),
  crush: () => import('./crush/index.js'),
  cursor: () => import('./cursor/index.js'),
  droid: () => import('./droid/index.js'),
  gemini: () => import('./gemini/index.js'),
  goose: () => import('./goose/index.js'),
  hermes: () => import('./hermes/index.js'),
  'kilo-vscode': () => import('./kilo-vscode/index.js'),
  kilo: () => import('./kilo/index.js'),
  kimi: () => import('./kimi/index.js'),
  opencode: () => import('./opencode/index.js'),
  openhands: () => import('./openhands/index.js'),
  otel: () => import('./otel/index.js'),
  pi: () => import('./pi/index.js'),
  qoder: () => import('./qoder/index.js'),
  qwen: () => import('./qwen/index.js'),
  roo: () => import('./roo/index.js'),
  zed: () => import('./zed/index.js'),
  'vscode-copilot': () => import('./vscode-copilot/index.js'),
};

/** Every built-in agent id, in registry order. */
export const agentIds: readonly string[] = Object.keys(modules);

/** Whether `id` names a built-in agent. */
export const isAgentId = (id: string): boolean => Object.prototype.hasOwnProperty.call(modules, id);

/** The UserError (exit 2) for an agent name no adapter has, naming the known ones. */
export function unknownAgent(id: string): UserError {
  const known = [...agentIds].sort().join(', ');
  return new UserError(`unknown agent "${id}"${didYouMean(id, [...agentIds])}; known agents: ${known}`);
}

// One adapter object per agent, however many times it is asked for (callers compare them).
const loaded = new Map<string, Promise<Adapter>>();

/** The adapter for an agent name, with its capabilities enforced; a UserError for an unknown name. */
export function loadAdapter(id: string): Promise<Adapter> {
  if (!isAgentId(id)) return Promise.reject(unknownAgent(id));
  let adapter = loaded.get(id);
  if (!adapter) {
    adapter = modules[id]().then((m) => withCapabilityChecks(m.default));
    loaded.set(id, adapter);
  }
  return adapter;
}
