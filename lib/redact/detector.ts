// Finding secrets in one string: a keyword prefilter picks the rules worth running (most strings
// hold none of the keywords and cost one regex scan), then each picked rule's finder runs, the
// allowlist drops what the user vouched for, and overlapping candidates resolve to the most
// specific rule.
import type { Rule, Span } from './rules.js';
import { detach } from './values.js';

export interface Finding extends Span {
  rule: Rule;
}

export interface Allowlist {
  /** Exact secret values never to redact. */
  values?: Iterable<string>;
  /** Secrets matching one of these are kept. */
  regexes?: RegExp[];
}

/** Strings shorter than this hold no secret worth a scan (the shortest: a 4-character password by name). */
const MIN_LENGTH = 4;

// A member name worth the field checks: cheap to test, cached per name (names repeat endlessly).
const FIELD_NAME = /pass|pwd|secret|token|key|cred|auth/i;

export class Detector {
  readonly rules: Rule[];
  private readonly keywordRe: RegExp | undefined;
  private readonly byKeyword = new Map<string, number[]>();
  private readonly always: number[] = [];
  /** Rules with a prefilter of their own, tried on short texts only. */
  private readonly gated: number[] = [];
  private readonly fieldRules: Rule[];
  private readonly fieldCache = new Map<string, boolean>();
  private readonly allowValues: Set<string>;
  private readonly allowRegexes: RegExp[];
  private readonly seen: Uint8Array;

  constructor(rules: Rule[], allow: Allowlist = {}) {
    this.rules = rules;
    this.fieldRules = rules.filter((r) => r.field);
    this.allowValues = new Set(allow.values ?? []);
    this.allowRegexes = (allow.regexes ?? []).map((r) => new RegExp(r.source, r.flags.replace(/[gy]/g, '')));
    this.seen = new Uint8Array(rules.length);
    const keywords = new Map<string, Set<number>>();
    rules.forEach((rule, i) => {
      if (rule.prefilter) this.gated.push(i);
      else if (rule.keywords.length === 0) this.always.push(i);
      for (const k of rule.keywords) {
        const kw = k.toLowerCase();
        if (!keywords.has(kw)) keywords.set(kw, new Set());
        keywords.get(kw)!.add(i);
      }
    });
    // A hit on a keyword also triggers the rules of every keyword inside it ("sk-ant-" holds "sk-"):
    // the alternation reports only the longest keyword at a position.
    for (const [kw, set] of keywords) {
      const union = new Set(set);
      for (const [other, rulesOf] of keywords) if (other !== kw && kw.includes(other)) for (const i of rulesOf) union.add(i);
      this.byKeyword.set(kw, [...union].sort((a, b) => a - b));
    }
    this.keywordRe = keywords.size ? new RegExp(trie([...keywords.keys()]), 'gi') : undefined;
  }

  /** The indexes of the rules whose keywords occur in `text` (empty: nothing to look for). */
  triggered(text: string): readonly number[] {
    const re = this.keywordRe;
    if (!re || text.length < MIN_LENGTH) return this.always;
    re.lastIndex = 0;
    let m = re.exec(text);
    if (!m) return this.gated.length === 0 ? this.always : this.withGated(text, this.always); // the common case: no keyword, no allocation
    const out = this.always.slice();
    const seen = this.seen;
    seen.fill(0);
    for (const i of out) seen[i] = 1;
    do {
      const rules = this.byKeyword.get(m[0].toLowerCase());
      if (rules) {
        for (const i of rules) {
          if (!seen[i]) {
            seen[i] = 1;
            out.push(i);
          }
        }
      }
      if (out.length === this.rules.length) break;
      re.lastIndex = m.index + 1; // overlapping keywords ("apikey" then "key")
    } while ((m = re.exec(text)));
    return this.gated.length === 0 ? out : this.withGated(text, out);
  }

  private withGated(text: string, base: readonly number[]): readonly number[] {
    let out: number[] | undefined;
    for (const i of this.gated) {
      const rule = this.rules[i];
      if (rule.maxLength !== undefined && text.length > rule.maxLength) continue;
      if (!rule.prefilter!.test(text)) continue;
      (out ??= base.slice()).push(i);
    }
    return out ?? base;
  }

  /** Whether the member name `key` is one a field check looks at. */
  wantsField(key: string): boolean {
    let yes = this.fieldCache.get(key);
    if (yes === undefined) {
      yes = this.fieldRules.length > 0 && FIELD_NAME.test(key);
      if (this.fieldCache.size > 10_000) this.fieldCache.clear();
      this.fieldCache.set(detach(key), yes);
    }
    return yes;
  }

  /**
   * The secrets in `text`, sorted and not overlapping. `key` is the member name the string is the
   * value of, when it is one; `triggered` the prefilter's answer, when the caller has it already.
   */
  scan(text: string, key?: string, triggered?: readonly number[]): Finding[] {
    const candidates: Finding[] = [];
    if (key !== undefined && this.wantsField(key)) {
      for (const rule of this.fieldRules) {
        const span = rule.field!(key, text);
        if (span) candidates.push({ rule, start: span.start, end: span.end });
      }
    }
    if (text.length >= MIN_LENGTH) {
      for (const i of triggered ?? this.triggered(text)) {
        const rule = this.rules[i];
        for (const span of rule.find(text)) candidates.push({ rule, start: span.start, end: span.end });
      }
    }
    if (candidates.length === 0) return candidates;
    const placeholders = text.includes('[REDACTED:') ? placeholderSpans(text) : undefined;
    return resolve(
      candidates.filter((c) => !this.allowed(text.slice(c.start, c.end)) && !placeholders?.some((p) => p.start < c.end && c.start < p.end)),
    );
  }

  allowed(secret: string): boolean {
    if (secret.includes('[REDACTED:')) return true; // our own placeholder: a second pass changes nothing
    if (/example/i.test(secret)) return true; // documentation's own samples (AKIAIOSFODNN7EXAMPLE); no random token spells it
    if (this.allowValues.has(secret)) return true;
    for (const re of this.allowRegexes) if (re.test(secret)) return true;
    return false;
  }
}

const PLACEHOLDER_TEXT = /\[REDACTED:[a-z0-9-]{1,64}:[0-9a-f]{8}\]/g;

/** Where our own placeholders are: nothing inside one is a secret (`[REDACTED:url-credentials:12345678]`). */
function placeholderSpans(text: string): Span[] {
  const spans: Span[] = [];
  PLACEHOLDER_TEXT.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PLACEHOLDER_TEXT.exec(text))) spans.push({ start: m.index, end: m.index + m[0].length });
  return spans;
}

/** Keeps, among overlapping candidates, the most specific rule's (then the earliest, then the longest). */
function resolve(candidates: Finding[]): Finding[] {
  if (candidates.length === 1) return candidates;
  candidates.sort((a, b) => a.rule.priority - b.rule.priority || a.start - b.start || b.end - b.start - (a.end - a.start));
  const kept: Finding[] = []; // sorted by start, never overlapping
  for (const c of candidates) {
    // First kept span that ends after c starts: c overlaps it if it also starts before c ends.
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (kept[mid].end <= c.start) lo = mid + 1;
      else hi = mid;
    }
    if (lo < kept.length && kept[lo].start < c.end) continue;
    kept.splice(lo, 0, c);
  }
  return kept;
}

/**
 * One regex for a set of words, as a trie (`s(?:k(?:-(?:ant-|proj-)?|_live_)?|ecret)`): irregexp
 * then tests each position against a few branches instead of every word, about twice as fast as
 * the flat alternation on long text. Longer words are tried first at each branch.
 */
export function trie(words: string[]): string {
  interface Node {
    end: boolean;
    next: Map<string, Node>;
  }
  const root: Node = { end: false, next: new Map() };
  for (const w of words) {
    let n = root;
    for (const c of w) {
      if (!n.next.has(c)) n.next.set(c, { end: false, next: new Map() });
      n = n.next.get(c)!;
    }
    n.end = true;
  }
  const emit = (n: Node): string => {
    if (n.next.size === 0) return '';
    const alts = [...n.next].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([c, child]) => escapeRegExp(c) + emit(child));
    const body = alts.length === 1 ? alts[0] : `(?:${alts.join('|')})`;
    return n.end ? `(?:${body})?` : body;
  };
  return emit(root);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
