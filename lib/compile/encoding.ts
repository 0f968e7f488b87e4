// The OpenAI encodings, loaded on demand: gpt-tokenizer (pure JavaScript), whose counts equal
// tiktoken's encode_ordinary on 278,695 texts in both encodings and which loads o200k_base for
// about half the CPU (README, dependencies). Shared by the counting thread and token-worker.ts.
import { createRequire } from 'node:module';

export type EncodingName = 'o200k_base' | 'cl100k_base';

interface GptEncoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}

// No special token is disallowed (nor allowed): <|endoftext|> and friends count as plain text and
// never make the encoder throw, as encode_ordinary did.
const PLAIN = { disallowedSpecial: new Set<string>() };

/** A token counter for `name`; loads the encoding's tables (synchronously: the package is also CJS). */
export function loadEncoding(name: EncodingName): (text: string) => number {
  const encoding = createRequire(import.meta.url)(`gpt-tokenizer/cjs/encoding/${name}`) as GptEncoding;
  return (text) => encoding.countTokens(text, PLAIN);
}
