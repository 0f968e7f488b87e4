// The agents a handoff can be compiled for: each adapter's compileProfile (how it counts tokens, its
// context window, what to reserve in it, the default handoff budget, the file it reads project
// instructions from), asked of the registry (lib/adapter/registry.ts), plus `markdown` for pasting anywhere.
import type { CompileProfile } from '../adapter/interface.js';
import { agentLabel, registeredAdapters } from '../adapter/registry.js';
import { conservativeTokenizer, tokenizerName } from './tokenizers.js';

/** An agent id with a compileProfile, or `markdown`. */
export type TargetName = string;

export const FORMATS = ['message', 'agents-md', 'files', 'a2a'] as const;
export type FormatName = (typeof FORMATS)[number];

export interface Target extends CompileProfile {
  name: TargetName;
  /** How the relay header names the agent. */
  label: string;
  /** The tokenizer's name (a declared estimate is registered under it). */
  tokenizer: string;
}

/** The target that is no agent: plain markdown for pasting anywhere. */
export const MARKDOWN = 'markdown';

/** Plain markdown: counted with the most conservative registered estimate, the largest of the counts here. */
export function markdownTarget(): Target {
  return { name: MARKDOWN, label: 'a coding agent', tokenizer: conservativeTokenizer().name, window: 128_000, reserve: 0, budget: 16_000, instructionsFile: 'HANDOFF.md' };
}

/** Every compile target by name: the registered agents with a compileProfile, then markdown. */
export function compileTargets(): Record<TargetName, Target> {
  const out: Record<TargetName, Target> = {};
  for (const adapter of Object.values(registeredAdapters())) {
    const profile = adapter.compileProfile;
    if (profile) out[adapter.id] = { name: adapter.id, label: agentLabel(adapter.id), ...profile, tokenizer: tokenizerName(profile.tokenizer) };
  }
  out[MARKDOWN] = markdownTarget();
  return out;
}

/** The target of a name; undefined for a name that is none (names come from users and tools). */
export function targetOf(name: string): Target | undefined {
  const all = compileTargets();
  return Object.prototype.hasOwnProperty.call(all, name) ? all[name] : undefined;
}

/** How a handoff names the agent a session came from. */
export { agentLabel } from '../adapter/registry.js';

export interface BudgetOptions {
  budget?: number;
  window?: number;
  reserve?: number;
}

/** The budget in tokens: --budget, else --window minus --reserve, else the target's default. */
export function resolveBudget(target: Target, options: BudgetOptions): number {
  if (options.budget !== undefined) return options.budget;
  if (options.window !== undefined || options.reserve !== undefined) {
    return (options.window ?? target.window) - (options.reserve ?? target.reserve);
  }
  return Math.min(target.budget, target.window - target.reserve);
}
