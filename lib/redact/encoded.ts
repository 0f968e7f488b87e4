// Secrets hidden one encoding deep: a token inside base64 (a Kubernetes Secret's `data:`, a Basic
// auth pair, `echo … | base64`) or inside URL-encoding (`token%3Dghp_…`, `%22sk-ant-…%22`).
// Bounded work: only strings of at most 4 KB, one decode level, and only when the prefilter saw a
// token prefix as it looks once base64-encoded, or a percent escape.
import { Detector, trie } from './detector.js';
import type { Rule, Span } from './rules.js';

export const ENCODED_MAX_LENGTH = 4096;

/** Token prefixes (exact case) looked for inside base64. Four characters or more encode to a usable keyword. */
const PREFIXES = [
  'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'glpat-', 'AKIA', 'ASIA', 'AIza', 'GOCSPX-', 'ya29.', 'sk-ant-',
  'sk-proj-', 'sk-svcacct-', 'xoxb-', 'xoxp-', 'xapp-', 'sk_live_', 'rk_live_', 'sk_test_', 'whsec_', 'npm_', 'pypi-AgE',
  'hf_', '-----BEGIN',
];

/**
 * The characters of base64 text that depend only on `prefix`, for each of the three alignments
 * it can have in the encoded bytes (at least 4 characters; shorter fragments would match anything).
 */
export function base64Fragments(prefix: string): string[] {
  const bytes = Buffer.from(prefix, 'latin1');
  const out = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const from = Math.ceil((offset * 8) / 6);
    const to = Math.floor(((offset + bytes.length) * 8) / 6); // exclusive: last character wholly inside
    const fragment = encoded.slice(from, to);
    if (fragment.length >= 4) {
      out.add(fragment);
      out.add(fragment.replace(/\+/g, '-').replace(/\//g, '_')); // base64url
    }
  }
  return [...out];
}

const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,4096}={0,2}/g;
const PERCENT = /%[2-7][0-9A-Fa-f]/;

/** Percent-decoding that remembers where each decoded character came from. */
function percentDecode(text: string): { value: string; from: Int32Array; to: Int32Array } {
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  let value = '';
  let k = 0;
  for (let i = 0; i < text.length; k++) {
    if (text[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      value += String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16));
      from[k] = i;
      to[k] = i + 3;
      i += 3;
    } else {
      value += text[i];
      from[k] = i;
      to[k] = i + 1;
      i++;
    }
  }
  return { value, from: from.subarray(0, k), to: to.subarray(0, k) };
}

/**
 * The rule: `inner()` gives the rules run over decoded text (the token formats and context rules;
 * never this one, so there is one decode level).
 */
export function encodedSecretRule(inner: () => Rule[]): Rule {
  let detector: Detector | undefined;
  const scan = (decoded: string) => (detector ??= new Detector(inner())).scan(decoded);
  return {
    id: 'encoded-secret',
    description: 'A token inside base64 or URL-encoding of a string of at most 4 KB (decoded once, checked with the token rules)',
    // Not the keyword prefilter: a hundred fragments starting with most letters would slow it
    // down for every text; a regex of its own runs only on texts of at most 4 KB.
    keywords: [],
    // The fragments as a trie: the same texts pass, about 20 % faster than the flat alternation.
    prefilter: new RegExp(`${trie([...new Set(PREFIXES.flatMap(base64Fragments))])}|%[2-7][0-9A-Fa-f]`),
    maxLength: ENCODED_MAX_LENGTH,
    priority: 2,
    *find(text: string): Generator<Span> {
      if (text.length > ENCODED_MAX_LENGTH) return;
      if (PERCENT.test(text)) {
        const d = percentDecode(text);
        for (const f of scan(d.value)) {
          const start = d.from[f.start];
          const end = d.to[f.end - 1];
          // Only what the escapes hid: a token written plainly is the plain rules' finding.
          if (end - start !== f.end - f.start || /%[0-9A-Fa-f]{2}/.test(text.slice(Math.max(0, start - 3), start))) yield { start, end };
        }
      }
      BASE64_RUN.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = BASE64_RUN.exec(text))) {
        const run = m[0];
        const bytes = Buffer.from(run, 'base64');
        if (bytes.length < 12) continue;
        const decoded = bytes.toString('latin1');
        for (const f of scan(decoded)) {
          // Base64 carries 3 bytes in 4 characters: the groups that hold the secret's bytes.
          const start = m.index + Math.floor(f.start / 3) * 4;
          const end = m.index + Math.min(run.length, Math.ceil(f.end / 3) * 4);
          yield { start, end };
        }
      }
    },
  };
}
