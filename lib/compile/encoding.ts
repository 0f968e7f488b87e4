// The OpenAI encodings, loaded on demand: gpt-tokenizer (pure JavaScript), whose counts equal
// tiktoken's encode_ordinary on 278,695 texts in both encodings and which loads o200k_base for
// about half the CPU (README, dependencies). Shared by the counting thread and token-worker.ts.
//
// The rank table is read from the package's .tiktoken file (one "base64 rank" line per token)
// rather than from its JavaScript module: parsing a 2.4 MB array literal costs ~15 MB more peak
// memory than these 3.6 MB of text, for the same CPU. The table built here equals the module's
// (test/compile-encoding.test.ts compares them entry by entry).
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export type EncodingName = 'o200k_base' | 'cl100k_base';

interface GptEncoding {
  countTokens(text: string, options: { disallowedSpecial: Set<string> }): number;
}
interface GptEncodingClass {
  getEncodingApi(name: EncodingName, ranks: () => Array<string | number[]>): GptEncoding;
}

// No special token is disallowed (nor allowed): <|endoftext|> and friends count as plain text and
// never make the encoder throw, as encode_ordinary did.
const PLAIN = { disallowedSpecial: new Set<string>() };

const require = createRequire(import.meta.url);

/**
 * The ranks of `name` as gpt-tokenizer keeps them: index = rank, the token as a string when its
 * bytes are UTF-8, else as its bytes. A token starting with a BOM stays bytes too: as a string it
 * would lose the BOM (TextDecoder drops it), as it does in the package's own table.
 */
export function rankTable(name: EncodingName): Array<string | number[]> {
  const text = readFileSync(require.resolve(`gpt-tokenizer/data/${name}.tiktoken`), 'latin1');
  const ranks: Array<string | number[]> = [];
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const space = text.indexOf(' ', at);
    if (space !== -1 && space < end) {
      const bytes = Buffer.from(text.slice(at, space), 'base64');
      const rank = Number(text.slice(space + 1, end));
      if (!Number.isSafeInteger(rank) || rank < 0 || rank > 1 << 20) throw new Error(`${name}.tiktoken: bad rank at byte ${space + 1}`);
      const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
      ranks[rank] = isUtf8(bytes) && !bom ? bytes.toString('utf8') : [...bytes];
    }
    at = end + 1;
  }
  return ranks;
}

/** A token counter for `name`; loads the encoding's tables (synchronously: the package is also CJS). */
export function loadEncoding(name: EncodingName): (text: string) => number {
  const { GptEncoding } = require('gpt-tokenizer/cjs/GptEncoding') as { GptEncoding: GptEncodingClass };
  const ranks = rankTable(name);
  const encoding = GptEncoding.getEncodingApi(name, () => ranks);
  return (text) => encoding.countTokens(text, PLAIN);
}
