// The extractive summarizer (seed §7.3, P2): no model, no network. It cuts the agent's messages into
// sentences and scores each by what it says (causes, fixes, results, decisions, next steps), whether
// it names code, where it stands in its message and how recent it is. The budget then takes the best
// sentences per token; they are rendered in the order they were said, each with its [seq]. Output is
// the seed's fixed form: a conclusion and the seq that is its evidence.
import type { Msg } from './extract.js';
import type { Item } from './items.js';
import { cueCount, cutText, namesCode, normalizeKey, sentences, verbatimPart, withoutCode } from './text.js';

export interface SummarizeOptions {
  /** 0 at the start of the session, 1 at its end. */
  recency(seq: number): number;
  /** Normalized texts other items already quote: not repeated. */
  covered: ReadonlySet<string>;
  provenance(seqs: number[]): string;
  session: string;
}

const MAX_SENTENCE = 300;

/** Distinct names, numbers and long words in a sentence (CJK: a third of its characters), up to 25. */
export function information(sentence: string): number {
  const words = new Set(sentence.toLowerCase().match(/`[^`]+`|[a-z_][\w./:-]{4,}|\d+(?:\.\d+)*/g) ?? []);
  const cjk = (sentence.match(/[\u3400-\u9fff\uf900-\ufaff]/g) ?? []).length;
  return Math.min(25, words.size + Math.floor(cjk / 3));
}

export function summarize(messages: readonly Msg[], options: SummarizeOptions): Item[] {
  const out: Item[] = [];
  const seen = new Set<string>();
  // Long quotes of other items: a sentence that contains one (or is contained in one) says it again.
  const long = [...options.covered].filter((k) => k.length >= 24);
  const restates = (key: string) => options.covered.has(key) || long.some((k) => key.includes(k) || (key.length >= 24 && k.includes(key)));
  // Newest first, so that of two restatements the later one is kept.
  for (let m = messages.length - 1; m >= 0; m--) {
    const msg = messages[m];
    const parts = sentences(withoutCode(msg.text));
    for (let i = parts.length - 1; i >= 0; i--) {
      // A list marker is layout, not content (the item is a bullet of its own).
      const sentence = parts[i].replace(/^(?:[-*+]|\d+[.)])\s+/, '');
      if (/^#{1,6}\s|^\|/.test(sentence)) continue; // headings and table rows say little alone
      if (sentence.replace(/[\s*_`>#-]/g, '').length < 8) continue;
      const key = normalizeKey(sentence);
      if (!key || seen.has(key) || restates(key)) continue;
      seen.add(key);
      // Value grows with what a sentence names (so that value per token does not favour filler like
      // "Updating the table."), and with its cues, its place in the message and its recency.
      const score =
        (1 + information(sentence)) *
        (1 + 0.5 * cueCount(sentence)) *
        (namesCode(sentence) ? 1.15 : 1) *
        (i === 0 ? 1.15 : 1) *
        (0.35 + 0.65 * options.recency(msg.seq));
      const text = cutText(sentence, MAX_SENTENCE);
      out.push({
        id: `excerpt:${msg.seq}:${i}`,
        kind: 'excerpt',
        priority: 2,
        section: 'excerpts',
        session: options.session,
        seqs: [msg.seq],
        text: `- ${options.provenance([msg.seq])} ${text}`,
        quote: verbatimPart(text),
        value: score,
        order: msg.seq + i / 1e4,
      });
    }
  }
  return out;
}
