// The agents a handoff can be compiled for: how each counts tokens, its context window, what to
// reserve in it (system prompt, tool definitions, room for the reply), the default handoff budget,
// and the file it reads project instructions from.
import type { TokenizerName } from './tokens.js';

export const TARGETS = ['claude', 'codex', 'pi', 'hermes', 'opencode', 'copilot', 'gemini', 'qwen', 'qoder', 'markdown'] as const;
export type TargetName = (typeof TARGETS)[number];

export const FORMATS = ['message', 'agents-md', 'files', 'a2a'] as const;
export type FormatName = (typeof FORMATS)[number];

export interface Target {
  name: TargetName;
  /** How the relay header names the agent. */
  label: string;
  tokenizer: TokenizerName;
  /** Context window in tokens. */
  window: number;
  /** Tokens the agent needs for itself: system prompt, tool definitions, the reply. */
  reserve: number;
  /**
   * The default handoff budget: a handoff states the work, it does not refill the window; what
   * it leaves out stays one [seq] away. `--budget` or `--window/--reserve` lift it.
   */
  budget: number;
  /** The instructions file `--format agents-md` writes a section into. */
  instructionsFile: string;
}

export const TARGET: Record<TargetName, Target> = {
  // Claude Code: 200k window; its system prompt and tools take ~20k, replies up to 32k.
  claude: { name: 'claude', label: 'Claude Code', tokenizer: 'claude-estimate', window: 200_000, reserve: 52_000, budget: 24_000, instructionsFile: 'CLAUDE.md' },
  // Codex CLI on GPT-5-class models: 400k total, of which 128k output, so 272k input.
  codex: { name: 'codex', label: 'Codex CLI', tokenizer: 'o200k_base', window: 272_000, reserve: 40_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  // Pi runs many providers; counted like Claude (the larger count), with Claude's window.
  pi: { name: 'pi', label: 'Pi', tokenizer: 'claude-estimate', window: 200_000, reserve: 30_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  // Hermes Agent (OpenRouter, Anthropic models by default): counted like Claude.
  hermes: { name: 'hermes', label: 'Hermes Agent', tokenizer: 'claude-estimate', window: 200_000, reserve: 40_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  // OpenCode runs many providers, like Pi: counted like Claude, with Claude's window.
  opencode: { name: 'opencode', label: 'OpenCode', tokenizer: 'claude-estimate', window: 200_000, reserve: 30_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  // Copilot CLI: Claude and GPT models behind a 128k prompt limit; counted like Claude (the larger count).
  copilot: { name: 'copilot', label: 'Copilot CLI', tokenizer: 'claude-estimate', window: 128_000, reserve: 30_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  // Gemini CLI on Gemini 2.5: a 1M window; no local Gemini tokenizer, so counted like Claude (more tokens, safer).
  gemini: { name: 'gemini', label: 'Gemini CLI', tokenizer: 'claude-estimate', window: 1_000_000, reserve: 40_000, budget: 24_000, instructionsFile: 'GEMINI.md' },
  // Qwen Code on Qwen3-Coder: 256k native window; counted like Claude.
  qwen: { name: 'qwen', label: 'Qwen Code', tokenizer: 'claude-estimate', window: 256_000, reserve: 40_000, budget: 24_000, instructionsFile: 'QWEN.md' },
  // Qoder CLI: Claude Code's format and Claude-class models behind tier aliases.
  qoder: { name: 'qoder', label: 'Qoder CLI', tokenizer: 'claude-estimate', window: 200_000, reserve: 52_000, budget: 24_000, instructionsFile: 'AGENTS.md' },
  // Plain markdown for pasting anywhere: counted like Claude, the larger of the counts here.
  markdown: { name: 'markdown', label: 'a coding agent', tokenizer: 'claude-estimate', window: 128_000, reserve: 0, budget: 16_000, instructionsFile: 'HANDOFF.md' },
};

/** How a handoff names the agent a session came from. */
export { agentLabel } from '../agents.js';

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
