// Text helpers for the context compiler: plain text out of content blocks, sentence splitting
// (English and CJK punctuation), one-line cuts, the error line of a command's output, and the
// cue words that mark decisions, constraints and conclusions. All pure and deterministic.

/** The text of a message's content (blocks or a string); images and tool pointers are left out. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === 'string') parts.push(block);
    else if (block && typeof block === 'object') {
      const b = block as { type?: unknown; text?: unknown };
      if ((b.type === 'text' || b.type === 'input_text' || b.type === 'output_text') && typeof b.text === 'string') parts.push(b.text);
    }
  }
  return parts.join('\n');
}

/** How many image blocks a content holds (images are not carried into a handoff). */
export function imageCount(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const block of content) if (block && typeof block === 'object' && (block as { type?: unknown }).type === 'image') n++;
  return n;
}

/** Whitespace collapsed to single spaces, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = Infinity): string {
  // A long text is flattened only as far as the cut keeps: collapsing all of a pasted 200 MB log
  // to show its first line would take seconds and gigabytes. A prefix whose flat form is longer
  // than `max` cuts to the same line as the whole text does.
  for (let take = 4 * max + 64; take < text.length; take *= 4) {
    const flat = text.slice(0, take).replace(/\s+/g, ' ').trimStart();
    if (flat.length > max) return cutText(flat, max);
  }
  return cutText(text.replace(/\s+/g, ' ').trim(), max);
}

/** Cut to `max` characters (never inside a surrogate pair), with an ellipsis when cut. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code < 0xdc00) end--;
  return `${text.slice(0, end).trimEnd()}…`;
}

/** The part of a (possibly cut) text that is verbatim source text: everything before the ellipsis. */
export function verbatimPart(text: string): string {
  return text.endsWith('…') ? text.slice(0, -1) : text;
}

/** Lowercased, punctuation-free, single-spaced: a key to find restatements of the same sentence. */
export function normalizeKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_~"'“”‘’()[\]{}<>]/g, '')
    .replace(/[\s.,;:!?。，；：！？、]+/g, ' ')
    .trim();
}

/** How much of a text `coverKey` looks at: a restatement of a long paste restates its start. */
export const COVER_PREFIX = 1 << 16;

/** `normalizeKey` of a quoted text's first COVER_PREFIX characters, to find sentences that repeat it. */
export function coverKey(text: string): string {
  return normalizeKey(text.length > COVER_PREFIX ? text.slice(0, COVER_PREFIX) : text);
}

/** Text outside fenced code blocks (code is for reading files, not for a summary). */
export function withoutCode(text: string): string {
  return text.replace(/```[\s\S]*?(?:```|$)/g, '\n');
}

// A sentence ends at . ! ? followed by whitespace (and then not a lowercase letter, which keeps
// "e.g. this" and "v0.4.0" together), or right after a CJK full stop, exclamation or question mark.
const SENTENCE_END = /([.!?])\s+(?=[^a-z])|([。！？])/gu;

/** Sentences of a text: each non-empty line, split further at sentence ends. Markdown bullets are kept. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\n+/)) {
    const line = raw.trim();
    if (!line) continue;
    let from = 0;
    SENTENCE_END.lastIndex = 0;
    for (let m = SENTENCE_END.exec(line); m; m = SENTENCE_END.exec(line)) {
      const end = m.index + 1;
      const piece = line.slice(from, end).trim();
      if (piece) out.push(piece);
      from = m[2] ? end : m.index + m[0].length;
    }
    const rest = line.slice(from).trim();
    if (rest) out.push(rest);
  }
  return out;
}

// ---- commands and their output ----------------------------------------------------------------

const STACK_FRAME = /^\s*(?:at\s|\S+\s\(.*:\d+:\d+\)$|node:internal)/;
/** A line that only announces what follows: "…strictly equal:", a YAML block ("error: |-"). */
const ANNOUNCES = /(?::|[|>][-+]?)\s*$/;
const PASSED = /^(?:ok\b|✔|✓|√|PASS\b)/;

function lineScore(line: string): number {
  const t = line.trim();
  if (!t || STACK_FRAME.test(line) || PASSED.test(t)) return 0;
  if (/\b[A-Z]\w*(?:Error|Exception)\b(?:\s*\[[^\]]*\])?:/.test(t)) return 10; // TypeError: …, AssertionError [ERR_…]: …
  if (/^(?:error|fatal|panic)(?:\[\w+\])?\s*:|^ERROR\b|^(?:npm )?ERR!/i.test(t)) return 9;
  if (/no such file or directory|ENOENT|command not found|permission denied|cannot find module|does not exist|is not defined|undefined reference|segmentation fault/i.test(t)) return 8;
  if (/^(?:not ok\b|✖|✗|×|FAIL\b|FAILED\b)/.test(t) && !/^✖ failing tests:?$/.test(t)) return 5;
  if (/\b(?:failed|failure|error)\b/i.test(t) && !/^#|^ℹ|\b0 (?:failed|errors?)\b|\bfail 0\b/i.test(t)) return 3;
  return 0;
}

/** The telling lines of a failed command's output, verbatim (trimmed). */
export interface ErrorExcerpt {
  /** The failing-test marker ("✖ …", "not ok …"), when it is not the main line. */
  marker?: string;
  /** The main error line, then the lines it announces ("…strictly equal:" → "404 !== 200"). */
  lines: string[];
}

/**
 * The error of a failed command's output: the most telling line (an `Error:` line beats an `error:`
 * field, which beats a "No such file" line, which beats a failing-test marker), with the lines
 * after it while it only announces what follows ("…strictly equal:", "error: |-"), and the
 * failing-test marker when that is another line. Undefined when nothing looks like an error.
 */
export function errorExcerpt(output: string): ErrorExcerpt | undefined {
  const lines = output.split(/\r?\n/);
  let best = -1;
  let bestScore = 0;
  let marker = -1;
  for (let i = 0; i < lines.length; i++) {
    const score = lineScore(lines[i]);
    if (score === 5 && marker === -1) marker = i;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  if (best === -1) return undefined;
  const main = [lines[best].trim()];
  for (let i = best + 1; main.length < 3 && ANNOUNCES.test(main[main.length - 1]) && i < lines.length; i++) {
    const next = lines[i].trim();
    if (!next) continue;
    if (STACK_FRAME.test(lines[i])) break;
    main.push(next);
  }
  return { ...(marker !== -1 && marker !== best ? { marker: lines[marker].trim() } : {}), lines: main };
}

/** The error as display lines: the marker, then the main line joined with what it announces. */
export function errorLines(output: string, max = 240): string[] {
  const ex = errorExcerpt(output);
  if (!ex) return [];
  const joined = ex.lines.map((l, i) => (i < ex.lines.length - 1 ? l.replace(/\s*[|>][-+]?\s*$/, '') : l)).join(' ');
  return [...(ex.marker ? [oneLine(ex.marker, max)] : []), oneLine(joined, max)];
}

/** A verbatim line of the error to quote: the main line, or the first it announces if it says nothing itself ("error: |-"). */
export function errorQuote(output: string): string | undefined {
  const ex = errorExcerpt(output);
  if (!ex) return undefined;
  return ex.lines.find((l) => !/^[\w-]+:\s*[|>][-+]?$/.test(l)) ?? ex.lines[0];
}

/**
 * A one-line result of a successful command: a test tally when there is one, else its first line
 * that says something (git prints "[main abc123] message" first; a closing brace says nothing).
 */
export function resultLine(output: string, max = 160): string | undefined {
  const lines = output.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  if (lines.length === 0) return undefined;
  const tally: string[] = [];
  for (const l of lines) {
    const m = /^(?:[#ℹ]\s*)?(tests|pass|fail|passed|failed|skipped)\s+(\d+)$/i.exec(l);
    if (m) tally.push(`${m[1]} ${m[2]}`);
  }
  if (tally.length > 0) return oneLine(tally.join(', '), max);
  const summary = lines.find((l) => /\b\d+\s+(?:passed|failed|passing|failing)\b|\bTests?:\s/i.test(l));
  return oneLine(summary ?? lines.find((l) => l.replace(/[^\p{L}\p{N}]/gu, '').length >= 3) ?? lines[0], max);
}

// ---- cues ------------------------------------------------------------------------------------------

/** "Decision: …" / "**Decision**: …" / "决定：…" at the start of a line, or "we decided to …" in a sentence. */
const DECISION_MARK = /^(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__)?(?:decision|decided|we decided|决定|决策|结论)(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/i;
const DECISION_PHRASE = /\b(?:we|I)(?:'ve| have)? (?:decided|chose|agreed) (?:to|that|on|against|not to)\b/i;

export interface DecisionText {
  /** The sentence as it stands in the source (after the marker). */
  text: string;
  decision: string;
  reason?: string;
}

/** Splits a decision sentence into what was decided and why ("… because …", "…（原因）", "因为 …"). */
export function splitReason(text: string): { decision: string; reason?: string } {
  const because = /\s*(?:,|;|—|-)?\s*\b(?:because|since|as it|given that)\b\s*/i.exec(text);
  if (because && because.index > 0) return { decision: text.slice(0, because.index).trim(), reason: text.slice(because.index + because[0].length).trim() };
  const zh = /[，,]?\s*(?:因为|由于|原因是)\s*/.exec(text);
  if (zh && zh.index > 0) return { decision: text.slice(0, zh.index).trim(), reason: text.slice(zh.index + zh[0].length).trim() };
  const paren = /^(.*\S)\s*[（(]([^（）()]+)[）)]\s*[。.]?$/.exec(text);
  if (paren) return { decision: paren[1].trim(), reason: paren[2].trim() };
  return { decision: text.trim() };
}

/** Cheap test before the line-by-line search (most messages state no decision). */
const DECISION_HINT = /decision|decided|chose|agreed|决定|决策|结论/i;

/** Decisions stated in a message: each sentence that starts with a marker ("Decision: …"), or says "we decided to …". */
export function findDecisions(text: string): DecisionText[] {
  const out: DecisionText[] = [];
  if (!DECISION_HINT.test(text)) return out;
  for (const raw of withoutCode(text).split(/\n+/)) {
    const line = raw.trim();
    if (!DECISION_HINT.test(line)) continue;
    const marked = DECISION_MARK.exec(line);
    if (marked) {
      // A marker opening the line: the decision runs to the end of its sentence.
      const body = sentences(marked[1])[0] ?? marked[1];
      out.push({ text: body, ...splitReason(body) });
      continue;
    }
    for (const s of sentences(line)) {
      const inner = DECISION_MARK.exec(s);
      if (inner) out.push({ text: inner[1], ...splitReason(inner[1]) });
      else if (DECISION_PHRASE.test(s)) out.push({ text: s, ...splitReason(s) });
    }
  }
  return out;
}

/** Decisions listed under a "Decisions" heading of a summary (a client's compaction summary). */
export function findSummaryDecisions(text: string): DecisionText[] {
  const out: DecisionText[] = [];
  let inSection = false;
  for (const raw of text.split(/\n/)) {
    const line = raw.trim();
    if (/^#{1,6}\s/.test(line) || /^\d+\.\s+[A-Z][^:]*:$/.test(line)) {
      inSection = /decision/i.test(line);
      continue;
    }
    if (!inSection) continue;
    const item = /^[-*+]\s+(.+)$/.exec(line);
    if (!item || /^\(?none\)?\.?$/i.test(item[1])) continue;
    const bold = /^\*\*(.+?)\*\*\s*[:：]?\s*(.*)$/.exec(item[1]);
    if (bold) out.push({ text: item[1], decision: bold[1].replace(/[:：]$/, '').trim(), reason: bold[2] || undefined });
    else out.push({ text: item[1], ...splitReason(item[1]) });
  }
  return out;
}

const CONSTRAINT_CUE =
  /\b(?:never|don'?t|do not|does not|must(?:n'?t| not)?|should(?:n'?t| not)|avoid|always|make sure|remember|keep (?:the|it|them|using|to)|only (?:use|touch|change|edit|modify)|no (?:new )?(?:dependencies|deps|external)|without (?:adding|changing|touching|breaking)|let'?s not|leave (?:the|it)|stick (?:to|with)|prefer|not allowed)\b|不要|别动|别改|不许|禁止|必须|务必|记住|一定要|只能|不能|保持|不准/i;

/** Sentences of a user message that state a constraint ("never touch X", "remember Y", "不要 …"). */
export function findConstraints(text: string): string[] {
  const out: string[] = [];
  if (!CONSTRAINT_CUE.test(text)) return out;
  for (const s of sentences(withoutCode(text))) {
    if (s.endsWith('?') || s.endsWith('？')) continue;
    if (CONSTRAINT_CUE.test(s)) out.push(s);
  }
  return out;
}

/** A checklist line of a text plan: `1. [ ] step`, `- [x] step`. */
const CHECKBOX = /^\s*(?:[-*+]|\d+[.)])\s+\[( |x|X|~|-|\/)\]\s+(.+?)\s*$/;

export interface PlanStep {
  text: string;
  done: boolean;
}

/** The steps of a checklist posted in a message (two or more checkbox lines), or none. */
export function findPlan(text: string): PlanStep[] {
  const steps: PlanStep[] = [];
  if (!/\[[ xX~/-]\]/.test(text)) return steps;
  for (const line of withoutCode(text).split(/\n/)) {
    const m = CHECKBOX.exec(line);
    if (m) steps.push({ text: m[2], done: m[1] === 'x' || m[1] === 'X' });
  }
  return steps.length >= 2 ? steps : [];
}

// Words that mark a sentence worth keeping in an extractive summary: causes, fixes, results,
// decisions, next steps, problems (English and Chinese).
const CUES: RegExp[] = [
  /\b(?:because|cause|reason|root cause|due to)\b|原因|因为|由于/i,
  /\b(?:fix(?:ed|es)?|resolv(?:ed|es)|changed?|added|removed|renamed|updated|implemented|refactor(?:ed)?)\b|修复|修改|改为|添加|新增|删除/i,
  /\b(?:pass(?:es|ed|ing)?|fail(?:s|ed|ing|ure)?|error|broken|works?)\b|通过|失败|报错|错误/i,
  /\b(?:decid(?:e|ed)|decision|chose|keep|instead|out of scope)\b|决定|保留|不换/i,
  /\b(?:next|todo|remaining|still|not yet|pending|later|follow[- ]up)\b|下一步|还没|待办|之后/i,
];

/** How many kinds of cue a sentence carries (0–5). */
export function cueCount(sentence: string): number {
  let n = 0;
  for (const cue of CUES) if (cue.test(sentence)) n++;
  return n;
}

/** Whether a sentence names code: a path, a backticked name, or a call. */
export function namesCode(sentence: string): boolean {
  return /`[^`]+`|\b[\w-]+\/[\w./-]+|\b\w+\.(?:js|ts|py|go|rs|md|json|ya?ml|toml|sh)\b|\w\(\)/.test(sentence);
}

// ---- seq lists -----------------------------------------------------------------------------------

/** "3", "3, 7", "3–9" (ranges of consecutive seqs), cut after `max` groups. */
export function formatSeqs(seqs: readonly number[], max = 6): string {
  const sorted = [...new Set(seqs)].sort((a, b) => a - b);
  const groups: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    groups.push(j === i ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  if (groups.length > max) return `${groups.slice(0, max - 1).join(', ')}, …, ${groups[groups.length - 1]}`;
  return groups.join(', ');
}

/** Seqs as [first, last] ranges of consecutive numbers. */
export function seqRanges(seqs: readonly number[]): Array<[number, number]> {
  const sorted = [...new Set(seqs)].sort((a, b) => a - b);
  const out: Array<[number, number]> = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s === last[1] + 1) last[1] = s;
    else out.push([s, s]);
  }
  return out;
}

/** A path relative to the session's working directory when it lies inside it. */
export function relativePath(path: string, cwd: string | undefined): string {
  if (cwd && path.startsWith(cwd.endsWith('/') ? cwd : `${cwd}/`)) return path.slice(cwd.length + (cwd.endsWith('/') ? 0 : 1));
  return path;
}

/** Markdown inline code that survives backticks in the text. */
export function code(text: string): string {
  const runs = text.match(/`+/g);
  const fence = '`'.repeat(runs ? Math.max(...runs.map((r) => r.length)) + 1 : 1);
  return fence.length > 1 ? `${fence} ${text} ${fence}` : `\`${text}\``;
}
