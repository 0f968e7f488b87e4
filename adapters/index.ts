// Every adapter, loaded: for the programs that list, check or serve all agents (sp-capture
// --all-agents, sp-doctor, sp-mcp, sp serve …) and the library. The agents themselves are named in
// adapters/registry.ts; a program that needs one agent loads it from there (`loadAdapter`).
import type { Adapter } from '../lib/adapter/interface.js';
import { registerAdapters } from '../lib/adapter/registry.js';
import { agentIds, loadAdapter, unknownAgent } from './registry.js';

export const adapters: Record<string, Adapter> = Object.fromEntries(await Promise.all(agentIds.map(async (id) => [id, await loadAdapter(id)] as const)));

// lib/ asks this registry about agents (lib/adapter/registry.ts): labels, capabilities, vocabularies.
registerAdapters(adapters);

/** The adapter for an agent name; a UserError (exit 2) naming the known agents otherwise. */
export function getAdapter(id: string): Adapter {
  const adapter = Object.prototype.hasOwnProperty.call(adapters, id) ? adapters[id] : undefined;
  if (!adapter) throw unknownAgent(id);
  return adapter;
}
