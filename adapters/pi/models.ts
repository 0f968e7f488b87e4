// What an assistant message written for Pi must say about its model (docs/formats/pi.md §5, §7):
// `api`, `provider`, `model` (the client restores the session's model from them and compares them
// with the current model to decide whether thinking signatures and tool ids can be replayed as
// they are), full `usage` with `cost`, and a Pi `stopReason`.
import { isObject, type Json } from '../../lib/core/json.js';
import { num, STOP_REASONS } from './format.js';

export interface ModelIdentity {
  api: string;
  provider: string;
  model: string;
}

/** Used when neither the message, the session nor --model names a model. */
export const DEFAULT_MODEL = 'anthropic/claude-sonnet-4-5';

/** The API each provider's models use by default in the client's registry. */
const PROVIDER_API: Record<string, string> = {
  anthropic: 'anthropic-messages',
  openai: 'openai-responses',
  'openai-codex': 'openai-codex-responses',
  'azure-openai': 'azure-openai-responses',
  google: 'google-generative-ai',
  'google-vertex': 'google-vertex',
  'amazon-bedrock': 'bedrock-converse-stream',
  mistral: 'mistral-conversations',
};

/** Providers known from a model name's family, for sources that only name the model. */
const FAMILIES: Array<[RegExp, string]> = [
  [/^claude/i, 'anthropic'],
  [/^(gpt|o\d|codex|chatgpt)/i, 'openai'],
  [/^gemini/i, 'google'],
  [/^deepseek/i, 'deepseek'],
  [/^grok/i, 'xai'],
  [/^(mistral|codestral|devstral|magistral)/i, 'mistral'],
];

export function apiOf(provider: string): string {
  return PROVIDER_API[provider] ?? 'openai-completions';
}

/**
 * `provider/model` (as `pi --model` takes it) or a bare model name whose provider is inferred from
 * its family; undefined for a name that says nothing usable.
 */
export function parseModel(name: string | undefined, fallbackProvider = 'anthropic'): ModelIdentity | undefined {
  if (!name || name === '<synthetic>') return undefined;
  const slash = name.indexOf('/');
  if (slash > 0 && slash < name.length - 1) {
    const provider = name.slice(0, slash);
    return { provider, model: name.slice(slash + 1), api: apiOf(provider) };
  }
  const provider = FAMILIES.find(([re]) => re.test(name))?.[1] ?? fallbackProvider;
  return { provider, model: name, api: apiOf(provider) };
}

const ZERO_COST = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };

/**
 * Pi's usage shape with every number the TUI sums (5 counts + 5 costs). Pi usage is completed;
 * Anthropic / OpenAI usage is converted (cost unknown: 0); none gives zeros.
 */
export function piUsage(usage: unknown): Json {
  const u = isObject(usage) ? usage : {};
  let input: number;
  let output: number;
  let cacheRead: number;
  let cacheWrite: number;
  let cost: Json = { ...ZERO_COST };
  const piShaped = num(u.input) !== undefined || num(u.output) !== undefined;
  if (piShaped) {
    input = num(u.input) ?? 0;
    output = num(u.output) ?? 0;
    cacheRead = num(u.cacheRead) ?? 0;
    cacheWrite = num(u.cacheWrite) ?? 0;
    if (isObject(u.cost)) {
      const c = u.cost;
      cost = { input: num(c.input) ?? 0, output: num(c.output) ?? 0, cacheRead: num(c.cacheRead) ?? 0, cacheWrite: num(c.cacheWrite) ?? 0, total: 0 };
      cost.total = num(c.total) ?? (cost.input as number) + (cost.output as number) + (cost.cacheRead as number) + (cost.cacheWrite as number);
    }
  } else {
    const details = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
    cacheRead = num(u.cache_read_input_tokens) ?? num(u.cached_input_tokens) ?? num(details.cached_tokens) ?? 0;
    cacheWrite = num(u.cache_creation_input_tokens) ?? 0;
    const prompt = num(u.input_tokens) ?? num(u.prompt_tokens) ?? 0;
    // OpenAI counts cached tokens inside the prompt; Pi stores them apart (as its own providers do).
    input = num(u.cache_read_input_tokens) === undefined ? Math.max(0, prompt - cacheRead) : prompt;
    output = num(u.output_tokens) ?? num(u.completion_tokens) ?? 0;
  }
  const out: Json = { input, output, cacheRead, cacheWrite, totalTokens: num(u.totalTokens) ?? input + output + cacheRead + cacheWrite, cost };
  // Fields a newer client may add to its own usage pass through.
  if (piShaped) for (const [key, value] of Object.entries(u)) if (!(key in out)) out[key] = value;
  return out;
}

/** A Pi stopReason from any agent's stop reason; `toolUse` when the message calls tools and says nothing. */
export function piStopReason(reason: unknown, hasToolCalls: boolean): string {
  if (typeof reason === 'string' && STOP_REASONS.has(reason)) return reason;
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'completed':
      return 'stop';
    case 'tool_use':
    case 'tool_calls':
    case 'function_call':
      return 'toolUse';
    case 'max_tokens':
    case 'max_output_tokens':
      return 'length';
    case 'refusal':
      return 'stop';
    default:
      return hasToolCalls ? 'toolUse' : 'stop';
  }
}
