// The prefilters that let the scanner skip work must never skip a finding: the token-format test
// in front of ids, hashes and member names answers exactly as the full detector filtered to the
// token formats did, and the encoded-secret gate (a trie of base64 fragments) still opens on every
// token prefix at every base64 alignment and on percent escapes.
import { describe, expect, it } from 'vitest';
import { BUILTIN_RULES } from '../lib/redact/rules.js';
import { Detector } from '../lib/redact/detector.js';
import { Scanner, type Hit } from '../lib/redact/walker.js';
import { FAKE, STRUCTURAL, generator } from './support/fakeSecrets.js';

const detector = new Detector(BUILTIN_RULES);
const scanner = new Scanner(detector);

/** scanTokens as it was before the token prefilter: the full detector's answer, token formats only. */
function reference(text: string): Hit[] {
  if (text.length < 16) return [];
  const tokens = detector.triggered(text).filter((i) => detector.rules[i].priority === 0);
  if (tokens.length === 0) return [];
  return detector.scan(text, undefined, tokens).map((f) => ({ rule: f.rule.id, start: f.start, end: f.end, secret: text.slice(f.start, f.end), depth: 0, pointer: '' }));
}

const g = generator(22);
const tokenKeywords = BUILTIN_RULES.filter((r) => r.priority === 0).flatMap((r) => r.keywords);
const otherKeywords = BUILTIN_RULES.filter((r) => r.priority !== 0).flatMap((r) => r.keywords);

/** Texts for the comparison: every fake secret and structural value, bare, wrapped and re-cased; keywords of both kinds in ids. */
function texts(): string[] {
  const out: string[] = [];
  const values = [...Object.values(FAKE), ...Object.values(STRUCTURAL)].filter((v): v is string => typeof v === 'string');
  for (const v of values) out.push(v, `x-${v}-y`, v.toUpperCase(), v.toLowerCase(), `${STRUCTURAL.uuid}/${v}`);
  for (const k of [...tokenKeywords, ...otherKeywords]) {
    const upper = k.toUpperCase();
    out.push(`${k}${g.chars(30)}`, `${upper}${g.chars(30)}`, `${g.chars(12)}${k}${g.chars(12)}`, `${STRUCTURAL.uuid}${k}`);
  }
  // A longer context keyword that holds a token keyword ("sk-ant-" holds "sk"; "key=" is not a token's).
  for (let i = 0; i < 200; i++) out.push(`${g.chars(8)}-${tokenKeywords[i % tokenKeywords.length]}${otherKeywords[i % otherKeywords.length]}${g.chars(40)}`);
  return out;
}

describe('token-format prefilter (ids, hashes, member names)', () => {
  it('answers as the full detector filtered to the token formats, on secrets, structure and keywords', () => {
    let found = 0;
    for (const text of texts()) {
      const expected = reference(text);
      found += expected.length;
      expect(scanner.scanTokens(text), text).toEqual(expected);
      expect(scanner.scanName(text), text).toEqual(expected);
    }
    expect(found).toBeGreaterThan(50); // the comparison covers texts that hold tokens, not only empty answers
  });

  it('a token in an id or a member name is still found, in any letter case of its keyword', () => {
    for (const secret of [FAKE.githubPat, FAKE.awsKeyId, FAKE.slackBot, FAKE.stripeLive, FAKE.anthropic, FAKE.npm]) {
      expect(scanner.scanTokens(secret).map((h) => h.secret)).toEqual([secret]);
      expect(scanner.scanName(`${secret}`).map((h) => h.secret)).toEqual([secret]);
    }
    expect(scanner.scanTokens(STRUCTURAL.uuid)).toEqual([]);
    expect(scanner.scanTokens(STRUCTURAL.toolUseId)).toEqual([]);
  });
});

describe('encoded-secret gate', () => {
  const rule = BUILTIN_RULES.find((r) => r.id === 'encoded-secret')!;
  it('opens on every token, base64-encoded at each alignment, and on percent escapes', () => {
    const tokens = [FAKE.githubPat, FAKE.githubOauth, FAKE.awsKeyId, FAKE.googleApiKey, FAKE.anthropic, FAKE.openaiProject, FAKE.slackBot, FAKE.stripeLive, FAKE.stripeWebhook, FAKE.npm, FAKE.rsaKey] // not hf_: three characters encode to a usable fragment at one alignment only;
    for (const token of tokens) {
      for (const pad of ['', ' ', ': ']) {
        const b64 = Buffer.from(`${pad}${token}`).toString('base64');
        expect(rule.prefilter!.test(b64), `${pad}|${token.slice(0, 8)} base64`).toBe(true);
        expect(rule.prefilter!.test(Buffer.from(`${pad}${token}`).toString('base64url')), `${pad}|${token.slice(0, 8)} base64url`).toBe(true);
        const hits = detector.scan(`data: ${b64}`).filter((f) => f.rule.id === 'encoded-secret');
        expect(hits.length, `${pad}|${token.slice(0, 8)} found`).toBeGreaterThan(0);
      }
    }
    expect(rule.prefilter!.test(`token%3D${FAKE.githubPat}`)).toBe(true);
    expect(rule.prefilter!.test('plain words and a uuid 9a1dc580-54f5-46ea-bece-7461fb46da3a')).toBe(false);
  });
});
