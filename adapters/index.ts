// The registry of adapters: the agent names the command line accepts. Adding an agent is one
// folder under adapters/ and one line here.
import type { Adapter } from '../lib/adapter/interface.js';
import { UserError } from '../lib/cli/diagnostics.js';
import { registerAdapters, withCapabilityChecks } from '../lib/adapter/registry.js';
import { didYouMean } from '../lib/cli/suggest.js';
import { aider } from './aider/index.js';
import { atif } from './atif/index.js';
import { auggie } from './auggie/index.js';
import { claude } from './claude/index.js';
import { cline } from './cline/index.js';
import { clineVscode } from './cline-vscode/index.js';
import { codex } from './codex/index.js';
import { continueCli } from './continue/index.js';
import { copilot } from './copilot/index.js';
import { crush } from './crush/index.js';
import { cursor } from './cursor/index.js';
import { droid } from './droid/index.js';
import { gemini } from './gemini/index.js';
import { goose } from './goose/index.js';
import { hermes } from './hermes/index.js';
import { kiloVscode } from './kilo-vscode/index.js';
import { kilo } from './kilo/index.js';
import { kimi } from './kimi/index.js';
import { opencode } from './opencode/index.js';
import { openhands } from './openhands/index.js';
import { otel } from './otel/index.js';
import { pi } from './pi/index.js';
import { qoder } from './qoder/index.js';
import { qwen } from './qwen/index.js';
import { roo } from './roo/index.js';
import { zed } from './zed/index.js';
import { vscodeCopilot } from './vscode-copilot/index.js';

export const adapters: Record<string, Adapter> = Object.fromEntries(Object.entries({
  aider,
  atif,
  auggie,
  claude,
  cline,
  'cline-vscode': clineVscode,
  codex,
  continue: continueCli,
  copilot,
  crush,
  cursor,
  droid,
  gemini,
  goose,
  hermes,
  'kilo-vscode': kiloVscode,
  kilo,
  kimi,
  opencode,
  openhands,
  otel,
  pi,
  qoder,
  qwen,
  roo,
  zed,
  'vscode-copilot': vscodeCopilot,
}).map(([id, adapter]) => [id, withCapabilityChecks(adapter)]));

// lib/ asks this registry about agents (lib/adapter/registry.ts): labels, capabilities, vocabularies.
registerAdapters(adapters);

/** The adapter for an agent name; a UserError (exit 2) naming the known agents otherwise. */
export function getAdapter(id: string): Adapter {
  const adapter = Object.prototype.hasOwnProperty.call(adapters, id) ? adapters[id] : undefined;
  if (!adapter) {
    const known = Object.keys(adapters).sort().join(', ');
    throw new UserError(`unknown agent "${id}"${didYouMean(id, Object.keys(adapters))}; known agents: ${known}`);
  }
  return adapter;
}
