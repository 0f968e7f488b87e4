// The budget (seed §7.3). P0 items are kept verbatim: if they alone do not fit, the compile fails and
// says which items cost what. P1 items are taken by value per token until P0 + P1 reach ~60 % of the
// budget; P2 (the extractive summary and diff excerpts, plus digest lines for P1 items that did not
// fit) fills the rest; leftover room goes back to P1. Counting is lazy: every item has a cheap
// estimate, and only items whose estimate puts them near or under the line are tokenized. The
// result is measured with the target's tokenizer as a whole and trimmed until it fits, so the
// output never exceeds the budget.
import { UserError } from '../diagnostics.js';
import { SECTIONS, type Item, type Section } from './items.js';
import { digestLine, HEADINGS, type Rendered } from './render.js';
import type { TokenCounter } from './tokens.js';

export const P1_SHARE = 0.6;

export interface Selection {
  selected: Item[];
  /** Items that did not fit: every one is reported with the reason `budget`. */
  dropped: Item[];
  tokens: number;
  rendered: Rendered;
  /** Exact token counts of items (where counted). */
  counts: Map<string, number>;
}

export class P0OverBudget extends UserError {
  constructor(
    readonly needed: number,
    readonly budget: number,
    /** Tokens by kind of P0 item (and the fixed parts), largest first. */
    readonly parts: Array<{ what: string; count: number; tokens: number }>,
    /** The largest single items. */
    readonly largest: Array<{ what: string; tokens: number }>,
    /** The figures are estimates: P0 was so far over that counting it exactly was not worth it. */
    readonly estimated = false,
  ) {
    const n = (x: number) => (estimated ? '~' : '') + x.toLocaleString('en-US');
    const kinds = parts.map((p) => `${p.what}${p.count > 1 ? ` ×${p.count}` : ''} ${n(p.tokens)}`).join(', ');
    const top = largest.map((p) => `${p.what} ${n(p.tokens)}`).join(', ');
    super(
      `the must-keep (P0) items need ${n(needed)} tokens${estimated ? ' (estimated)' : ''} but the budget is ${budget.toLocaleString('en-US')} (${n(needed - budget)} over). ` +
        `By kind: ${kinds}. Largest: ${top}. Raise --budget (or --window), or hand off a smaller task.`,
      'budget',
    );
  }
}

const DIGEST_SECTIONS: Array<{ section: Section; kind: string }> = [
  { section: 'commands', kind: 'command' },
  { section: 'files', kind: 'file' },
  { section: 'requests', kind: 'request' },
  { section: 'done', kind: 'done step' },
  { section: 'constraints', kind: 'constraint' },
];

const byId = (a: Item, b: Item) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** An estimate may be this much too low: costs known only by estimate are budgeted at this factor. */
const ESTIMATE_UPPER = 1.5;
/** …and this much too high: an item whose estimate times this is over the line is skipped uncounted. */
const ESTIMATE_LOWER = 0.6;

export function selectItems(
  items: readonly Item[],
  budget: number,
  counter: TokenCounter,
  render: (items: readonly Item[]) => Rendered,
  measure: (rendered: Rendered) => number,
  primary: string,
): Selection {
  const counts = new Map<string, number>();
  const exact = (item: Item): number => {
    let n = counts.get(item.id);
    if (n === undefined) {
      n = counter.count(`${item.text}\n`);
      counts.set(item.id, n);
    }
    return n;
  };
  const estimates = new Map<string, number>();
  const estimate = (item: Item): number => {
    let n = counts.get(item.id) ?? estimates.get(item.id);
    if (n === undefined) {
      n = Math.max(1, counter.estimate(`${item.text}\n`));
      estimates.set(item.id, n);
    }
    return n;
  };
  const headingCost = new Map<Section, number>();
  const heading = (section: Section) => {
    let n = headingCost.get(section);
    if (n === undefined) {
      n = counter.count(`\n## ${HEADINGS[section]}\n\n`);
      headingCost.set(section, n);
    }
    return n;
  };

  // The running total: exactly counted costs, plus costs known only by estimate (each item's, and
  // the P0 render's as a whole) that are settled — counted — once the total nears a limit.
  let counted = 0;
  let pending: Item[] = [];
  let pendingEstimate = 0;
  let p0Pending = true;
  const p0 = items.filter((i) => i.priority === 0);
  const p0Rendered = render(p0);
  let p0Cost = counter.estimate(p0Rendered.text);
  const upper = () => counted + ESTIMATE_UPPER * (pendingEstimate + (p0Pending ? p0Cost : 0));
  const settle = () => {
    if (p0Pending) {
      p0Cost = measure(p0Rendered);
      counted += p0Cost;
      p0Pending = false;
    }
    for (const item of pending) counted += exact(item);
    pending = [];
    pendingEstimate = 0;
  };

  // P0: everything, or an error that says what it costs. P0 far over the budget by its estimate is
  // refused once a count from its start passes the budget, and described by estimates: counting a
  // pasted 200 MB log exactly only to refuse it would take minutes and gigabytes.
  if (ESTIMATE_LOWER * p0Cost > budget && counter.exceeds(p0Rendered.text, budget)) {
    throw overBudget(p0Cost, budget, p0, estimate, counter.estimate(render([]).text), true);
  }
  if (upper() > budget) {
    settle();
    if (p0Cost > budget) throw overBudget(p0Cost, budget, p0, exact, measure(render([])));
  }
  const selected = new Set<Item>(p0);

  const used = new Set<Section>(p0.map((i) => i.section));
  const slack = Math.max(8, Math.ceil(budget * 0.01));
  // Near the line, items are counted one by one; after this many in a row do not fit, what is left
  // of the phase is not worth tokenizing (the room left is smaller than the items, bar outliers).
  const MISSES = 64;
  let misses = 0;
  const tryAdd = (item: Item, limit: number): boolean => {
    const head = used.has(item.section) ? 0 : heading(item.section);
    const est = estimate(item);
    const take = () => {
      selected.add(item);
      used.add(item.section);
      return true;
    };
    // Far from the line: take it on its estimate (budgeted high).
    if (!counts.has(item.id) && upper() + head + ESTIMATE_UPPER * est <= limit) {
      counted += head;
      pending.push(item);
      pendingEstimate += est;
      return take();
    }
    // Near the line: count what was taken on estimates, then this item (unless clearly too big).
    settle();
    if (misses >= MISSES || counted + head + est * ESTIMATE_LOWER > limit) return false;
    const cost = head + exact(item);
    if (counted + cost > limit) {
      misses++;
      return false;
    }
    misses = 0;
    counted += cost;
    return take();
  };
  const phase = (pool: Item[], limit: number) => {
    misses = 0;
    for (const item of pool) if (!selected.has(item)) tryAdd(item, limit);
  };
  const rank = (pool: Item[]) => pool.sort((a, b) => b.value / estimate(b) - a.value / estimate(a) || byId(a, b));

  const p1 = rank(items.filter((i) => i.priority === 1));
  const p1Limit = Math.floor(budget * P1_SHARE);
  phase(p1, p1Limit);

  // Digest lines stand for the P1 items that did not fit, by section.
  const digests = (): Item[] => {
    const out: Item[] = [];
    for (const { section, kind } of DIGEST_SECTIONS) {
      const left = p1.filter((i) => i.section === section && !selected.has(i)).sort((a, b) => a.order - b.order || byId(a, b));
      if (left.length === 0) continue;
      out.push({
        id: `digest:${section}`,
        kind: 'digest',
        priority: 2,
        section: 'digest',
        session: primary,
        seqs: [...new Set(left.filter((i) => i.session === primary).map((i) => i.seqs[0]))].sort((a, b) => a - b),
        text: digestLine(kind, left, primary),
        value: 12 * left.length,
        order: DIGEST_SECTIONS.findIndex((d) => d.section === section),
        detail: { items: left.map((i) => i.id) },
      });
    }
    return out;
  };
  const hard = budget - slack;
  const p2 = rank([...items.filter((i) => i.priority === 2), ...digests()]);
  phase(p2, hard);
  phase(p1, hard);

  // Digests were built before the last P1 pass: rebuild them from what is really left out.
  const refreshDigests = () => {
    const chosen = [...selected].filter((i) => i.kind === 'digest');
    for (const d of chosen) selected.delete(d);
    const fresh = new Map(digests().map((d) => [d.id, d]));
    for (const id of fresh.keys()) {
      counts.delete(id); // their text changed
      estimates.delete(id);
    }
    for (const d of chosen) {
      const now = fresh.get(d.id);
      if (now) selected.add(now);
    }
  };
  refreshDigests();

  // Measure the whole and trim until it fits: joins and headings make counts not quite additive.
  // Render order: by section, then within the section.
  const ordered = () =>
    [...selected].sort((a, b) => SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section) || a.order - b.order || byId(a, b));
  let rendered = render(ordered());
  let tokens = measure(rendered);
  while (tokens > budget) {
    const droppable = [...selected]
      .filter((i) => i.priority !== 0)
      .sort((a, b) => b.priority - a.priority || a.value / estimate(a) - b.value / estimate(b) || byId(b, a));
    if (droppable.length === 0) throw overBudget(tokens, budget, p0, exact, measure(render([])));
    let over = tokens - budget;
    for (const item of droppable) {
      selected.delete(item);
      over -= exact(item);
      if (over <= 0) break;
    }
    refreshDigests();
    rendered = render(ordered());
    tokens = measure(rendered);
  }
  const final = ordered();
  return { selected: final, dropped: items.filter((i) => !selected.has(i)), tokens, rendered, counts };
}

function overBudget(needed: number, budget: number, p0: readonly Item[], cost: (item: Item) => number, skeleton: number, estimated = false): P0OverBudget {
  const byKind = new Map<string, { count: number; tokens: number }>();
  for (const item of p0) {
    const k = byKind.get(item.kind) ?? { count: 0, tokens: 0 };
    k.count++;
    k.tokens += cost(item);
    byKind.set(item.kind, k);
  }
  const parts = [{ what: 'relay header, pointers and next step', count: 1, tokens: skeleton }, ...[...byKind].map(([what, k]) => ({ what, ...k }))].sort(
    (a, b) => b.tokens - a.tokens || (a.what < b.what ? -1 : 1),
  );
  const largest = p0
    .map((i) => ({ what: `${i.kind} [seq ${i.seqs.join(', ')}]`, tokens: cost(i) }))
    .sort((a, b) => b.tokens - a.tokens || (a.what < b.what ? -1 : 1))
    .slice(0, 3);
  return new P0OverBudget(needed, budget, parts, largest, estimated);
}
