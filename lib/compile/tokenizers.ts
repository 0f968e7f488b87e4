// The tokenizers budgets are counted with: the base encodings sp ships (encoding.ts), and the
// estimates adapters' compile profiles declare over one of them, for model families that publish no
// local tokenizer (the base count times a factor, rounded up). lib/ knows only "an estimate over a
// base encoding"; names and factors are the adapters' data. Light: no encoder is loaded here.
import type { EstimatingTokenizer } from '../adapter/interface.js';
import { registeredAdapters } from '../adapter/registry.js';
import type { EncodingName } from './encoding.js';

/** A tokenizer: a base encoding (factor 1) or an estimate over one. */
export type Tokenizer = EstimatingTokenizer;

export const ENCODINGS: readonly EncodingName[] = ['o200k_base', 'cl100k_base'];

const isEncoding = (name: string): name is EncodingName => (ENCODINGS as readonly string[]).includes(name);

/** Every tokenizer by name: the base encodings, then the estimates registered profiles declare (registry order). */
export function tokenizers(): Tokenizer[] {
  const out: Tokenizer[] = ENCODINGS.map((name) => ({ name, base: name, factor: 1 }));
  for (const adapter of Object.values(registeredAdapters())) {
    const declared = adapter.compileProfile?.tokenizer;
    if (typeof declared !== 'object' || out.some((t) => t.name === declared.name)) continue;
    // A declaration is checked once here, not trusted: a bad factor would size every budget wrong.
    if (!isEncoding(declared.base) || !(declared.factor >= 1) || !Number.isFinite(declared.factor)) {
      throw new Error(`${adapter.id}: compile profile: tokenizer ${declared.name} must estimate over ${ENCODINGS.join(' or ')} with a finite factor ≥ 1`);
    }
    out.push({ name: declared.name, base: declared.base, factor: declared.factor });
  }
  return out;
}

/** The tokenizer of a name; undefined for a name that is none (names come from users, tools and stored handoffs). */
export function tokenizerOf(name: string): Tokenizer | undefined {
  return tokenizers().find((t) => t.name === name);
}

/** The most conservative estimate registered (the largest factor; the first of equals), else cl100k_base. */
export function conservativeTokenizer(): Tokenizer {
  let best: Tokenizer = { name: 'cl100k_base', base: 'cl100k_base', factor: 1 };
  for (const t of tokenizers()) if (t.factor > best.factor) best = t;
  return best;
}

/** A profile's tokenizer by name (a declared estimate is named by its `name`). */
export const tokenizerName = (declared: string | EstimatingTokenizer): string => (typeof declared === 'string' ? declared : declared.name);
