// The budget (seed §7.3). P0 items are kept verbatim: if they alone do not fit, the compile fails and
// says which items cost what. P1 items are taken by value per token until P0 + P1 reach ~60 % of the
// budget; P2 (the extractive summary and diff excerpts, plus digest lines for P1 items that did not
// fit) fills the rest; leftover room goes back to P1. Counting is lazy: every item has a cheap
// estimate, and only items whose estimate puts them near or under the line are tokenized. The
// result is measured with the target's tokenizer as a whole and trimmed until it fits, so the
// output never exceeds the budget.
import { UserError } from '../cli/diagnostics.js';
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
  return new BudgetSelection(items, budget, counter, render, measure, primary).run();
}

/** Near the line, items are counted one by one; after this many in a row do not fit, what is left
 * of the phase is not worth tokenizing (the room left is smaller than the items, bar outliers). */
const MISSES = 64;

/** One run of selectItems: token counts and estimates are cached per item id. */
class BudgetSelection {
  readonly counts = new Map<string, number>();
  private readonly estimates = new Map<string, number>();
  private readonly headingCost = new Map<Section, number>();
  private readonly selected: Set<Item>;
  private readonly used: Set<Section>;
  private readonly p0: Item[];
  private readonly p0Rendered: Rendered;
  // The running total: exactly counted costs, plus costs known only by estimate (each item's, and
  // the P0 render's as a whole) that are settled — counted — once the total nears a limit.
  private counted = 0;
  private pending: Item[] = [];
  private pendingEstimate = 0;
  private p0Pending = true;
  private p0Cost: number;
  private misses = 0;

  constructor(
    private readonly items: readonly Item[],
    private readonly budget: number,
    private readonly counter: TokenCounter,
    private readonly render: (items: readonly Item[]) => Rendered,
    private readonly measure: (rendered: Rendered) => number,
    private readonly primary: string,
  ) {
    this.p0 = items.filter((i) => i.priority === 0);
    this.p0Rendered = render(this.p0);
    this.p0Cost = counter.estimate(this.p0Rendered.text);
    this.selected = new Set<Item>(this.p0);
    this.used = new Set<Section>(this.p0.map((i) => i.section));
  }

  private readonly exact = (item: Item): number => {
    let n = this.counts.get(item.id);
    if (n === undefined) {
      n = this.counter.count(`${item.text}\n`);
      this.counts.set(item.id, n);
    }
    return n;
  };

  private readonly estimate = (item: Item): number => {
    let n = this.counts.get(item.id) ?? this.estimates.get(item.id);
    if (n === undefined) {
      n = Math.max(1, this.counter.estimate(`${item.text}\n`));
      this.estimates.set(item.id, n);
    }
    return n;
  };

  private heading(section: Section): number {
    let n = this.headingCost.get(section);
    if (n === undefined) {
      n = this.counter.count(`\n## ${HEADINGS[section]}\n\n`);
      this.headingCost.set(section, n);
    }
    return n;
  }

  private upper(): number {
    return this.counted + ESTIMATE_UPPER * (this.pendingEstimate + (this.p0Pending ? this.p0Cost : 0));
  }

  private settle(): void {
    if (this.p0Pending) {
      this.p0Cost = this.measure(this.p0Rendered);
      this.counted += this.p0Cost;
      this.p0Pending = false;
    }
    for (const item of this.pending) this.counted += this.exact(item);
    this.pending = [];
    this.pendingEstimate = 0;
  }

  run(): Selection {
    const { items, budget } = this;
    this.takeP0();
    const slack = Math.max(8, Math.ceil(budget * 0.01));
    const p1 = this.rank(items.filter((i) => i.priority === 1));
    this.phase(p1, Math.floor(budget * P1_SHARE));
    const hard = budget - slack;
    const p2 = this.rank([...items.filter((i) => i.priority === 2), ...this.digests(p1)]);
    this.phase(p2, hard);
    this.phase(p1, hard);
    // Digests were built before the last P1 pass: rebuild them from what is really left out.
    this.refreshDigests(p1);
    const { rendered, tokens } = this.trimToFit(p1);
    return { selected: this.ordered(), dropped: items.filter((i) => !this.selected.has(i)), tokens, rendered, counts: this.counts };
  }

  /**
   * P0: everything, or an error that says what it costs. P0 far over the budget by its estimate is
   * refused once a count from its start passes the budget, and described by estimates: counting a
   * pasted 200 MB log exactly only to refuse it would take minutes and gigabytes.
   */
  private takeP0(): void {
    const { budget, counter, p0 } = this;
    if (ESTIMATE_LOWER * this.p0Cost > budget && counter.exceeds(this.p0Rendered.text, budget)) {
      throw overBudget(this.p0Cost, budget, p0, this.estimate, counter.estimate(this.render([]).text), true);
    }
    if (this.upper() > budget) {
      this.settle();
      if (this.p0Cost > budget) throw overBudget(this.p0Cost, budget, p0, this.exact, this.measure(this.render([])));
    }
  }

  private tryAdd(item: Item, limit: number): boolean {
    const head = this.used.has(item.section) ? 0 : this.heading(item.section);
    const est = this.estimate(item);
    const take = () => {
      this.selected.add(item);
      this.used.add(item.section);
      return true;
    };
    // Far from the line: take it on its estimate (budgeted high).
    if (!this.counts.has(item.id) && this.upper() + head + ESTIMATE_UPPER * est <= limit) {
      this.counted += head;
      this.pending.push(item);
      this.pendingEstimate += est;
      return take();
    }
    // Near the line: count what was taken on estimates, then this item (unless clearly too big).
    this.settle();
    if (this.misses >= MISSES || this.counted + head + est * ESTIMATE_LOWER > limit) return false;
    const cost = head + this.exact(item);
    if (this.counted + cost > limit) {
      this.misses++;
      return false;
    }
    this.misses = 0;
    this.counted += cost;
    return take();
  }

  private phase(pool: Item[], limit: number): void {
    this.misses = 0;
    for (const item of pool) if (!this.selected.has(item)) this.tryAdd(item, limit);
  }

  private rank(pool: Item[]): Item[] {
    return pool.sort((a, b) => b.value / this.estimate(b) - a.value / this.estimate(a) || byId(a, b));
  }

  /** Digest lines stand for the P1 items that did not fit, by section. */
  private digests(p1: readonly Item[]): Item[] {
    const out: Item[] = [];
    const primary = this.primary;
    for (const { section, kind } of DIGEST_SECTIONS) {
      const left = p1.filter((i) => i.section === section && !this.selected.has(i)).sort((a, b) => a.order - b.order || byId(a, b));
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
  }

  private refreshDigests(p1: readonly Item[]): void {
    const chosen = [...this.selected].filter((i) => i.kind === 'digest');
    for (const d of chosen) this.selected.delete(d);
    const fresh = new Map(this.digests(p1).map((d) => [d.id, d]));
    for (const id of fresh.keys()) {
      this.counts.delete(id); // their text changed
      this.estimates.delete(id);
    }
    for (const d of chosen) {
      const now = fresh.get(d.id);
      if (now) this.selected.add(now);
    }
  }

  /** Render order: by section, then within the section. */
  private ordered(): Item[] {
    return [...this.selected].sort((a, b) => SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section) || a.order - b.order || byId(a, b));
  }

  /** Measures the whole and trims until it fits: joins and headings make counts not quite additive. */
  private trimToFit(p1: readonly Item[]): { rendered: Rendered; tokens: number } {
    const { budget } = this;
    let rendered = this.render(this.ordered());
    let tokens = this.measure(rendered);
    while (tokens > budget) {
      const droppable = [...this.selected]
        .filter((i) => i.priority !== 0)
        .sort((a, b) => b.priority - a.priority || a.value / this.estimate(a) - b.value / this.estimate(b) || byId(b, a));
      if (droppable.length === 0) throw overBudget(tokens, budget, this.p0, this.exact, this.measure(this.render([])));
      let over = tokens - budget;
      for (const item of droppable) {
        this.selected.delete(item);
        over -= this.exact(item);
        if (over <= 0) break;
      }
      this.refreshDigests(p1);
      rendered = this.render(this.ordered());
      tokens = this.measure(rendered);
    }
    return { rendered, tokens };
  }
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
