// Token counting for budgets. OpenAI targets are measured with their real encodings (tiktoken:
// o200k_base for GPT-5/4o-era Codex models, cl100k_base on request). Anthropic publishes no local
// tokenizer (its count_tokens endpoint needs the network), so Claude targets use a documented
// estimate: the cl100k_base count times CLAUDE_FACTOR, rounded up. Claude's tokenizers produce
// somewhat more tokens than cl100k_base on English and code, and newer Claude models up to about
// a third more; 1.35 keeps a margin above that, so a handoff sized by it fits a Claude window.
//
// tiktoken (WASM) is loaded on the first exact count, not at import: `--help` never pays its start
// (o200k_base ~0.4–1 s cold), and the compiler estimates first and counts only what is near the line.
// Text goes through encode_ordinary, so special tokens such as <|endoftext|> are plain text and
// never make the encoder throw.
import { createRequire } from 'node:module';

export const TOKENIZERS = ['o200k_base', 'cl100k_base', 'claude-estimate'] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];

/** Claude estimate = ceil(cl100k_base tokens × CLAUDE_FACTOR). */
export const CLAUDE_FACTOR = 1.35;

export interface TokenCounter {
  readonly name: TokenizerName;
  /** The count that budgets are measured with. */
  count(text: string): number;
  /** A cheap guess of `count` from the characters alone (no tokenizer). */
  estimate(text: string): number;
  /** How many exact counts ran (for tests and the bench). */
  readonly counted: number;
}

interface Encoder {
  encode_ordinary(text: string): Uint32Array;
  free(): void;
}

type Tiktoken = { get_encoding(name: 'o200k_base' | 'cl100k_base'): Encoder };

let tiktoken: Tiktoken | undefined;
function loadTiktoken(): Tiktoken {
  // createRequire: a synchronous load, so a counter can load on its first count. The package is CJS.
  tiktoken ??= createRequire(import.meta.url)('tiktoken') as Tiktoken;
  return tiktoken;
}

/**
 * Characters per token, by class, fitted on the corpus (English prose and code ≈ 3.5–4.5
 * characters per token; CJK ≈ 1 token per character in cl100k_base, fewer in o200k_base).
 */
const ESTIMATE = {
  o200k_base: { ascii: 1 / 3.9, other: 0.75 },
  cl100k_base: { ascii: 1 / 3.7, other: 1.05 },
  'claude-estimate': { ascii: CLAUDE_FACTOR / 3.7, other: CLAUDE_FACTOR * 1.05 },
} as const;

export function estimateTokens(name: TokenizerName, text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) ascii++;
    else {
      other++;
      if (c >= 0xd800 && c < 0xdc00) i++; // one astral character, two code units
    }
  }
  const k = ESTIMATE[name];
  return Math.ceil(ascii * k.ascii + other * k.other);
}

// Encoders are loaded once per process and shared (loading o200k_base costs more than most
// compiles); releaseTokenizers() frees them.
const encoders = new Map<string, Encoder>();

function encoderFor(encoding: 'o200k_base' | 'cl100k_base'): Encoder {
  let encoder = encoders.get(encoding);
  if (!encoder) {
    encoder = loadTiktoken().get_encoding(encoding);
    encoders.set(encoding, encoder);
  }
  return encoder;
}

/** Frees the WASM encoders loaded so far (the next count loads them again). */
export function releaseTokenizers(): void {
  for (const encoder of encoders.values()) encoder.free();
  encoders.clear();
}

export function createCounter(name: TokenizerName): TokenCounter {
  let counted = 0;
  const encoding = name === 'o200k_base' ? 'o200k_base' : 'cl100k_base';
  const raw = (text: string): number => {
    counted++;
    return text === '' ? 0 : encoderFor(encoding).encode_ordinary(text).length;
  };
  return {
    name,
    count: name === 'claude-estimate' ? (text) => Math.ceil(raw(text) * CLAUDE_FACTOR) : raw,
    estimate: (text) => estimateTokens(name, text),
    get counted() {
      return counted;
    },
  };
}
