// The budget as a property: across budgets from 2k to 200k tokens, every target and every format,
// over the whole recorded corpus and a generated long session, the handoff never exceeds the
// budget as measured here with tiktoken directly (o200k_base for codex; the documented Claude
// estimate, ceil(cl100k_base × 1.35), for the others). Where the must-keep items alone do not fit,
// the compile fails with P0OverBudget and says by how much; it never trims them.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { P0OverBudget, P1_SHARE } from '../lib/compile/budget.js';
import '../adapters/index.js';
import { compileTargets, type FormatName, type TargetName } from '../lib/compile/targets.js';
import { Chainer } from '../lib/core/chain.js';
import { canonicalize } from '../lib/core/jcs.js';
import { random, workSessionEvents } from '../adapters/claude/synthetic.js';
import { CORPUS, captureFile, compileFile, measureTokens } from './support/compile.js';
import { tempDir } from './support/streams.js';
import { SessionBuilder } from './support/canonical.js';

const rand = random(8);
// The corpus sessions need 1.5k–4k tokens in full, so most of the spread sits where the budget binds.
const BUDGETS = [2000, 2200, 2500, 2800, 3200, 4000, 8000, 24_000, 200_000, ...Array.from({ length: 3 }, () => 2000 + Math.floor(rand() * 198_000))];

const TARGET = compileTargets();
const TARGETS = Object.keys(TARGET);

function measure(target: TargetName, text: string): number {
  return measureTokens(TARGET[target].tokenizer, text);
}

describe('the budget is never exceeded', () => {
  it.each(CORPUS.map((s) => s.name))('%s: every target, budgets 2k–200k', async (name) => {
    const file = captureFile(CORPUS.find((s) => s.name === name)!);
    for (const target of TARGETS) {
      let previous = 0;
      for (const budget of [...BUDGETS].sort((a, b) => a - b)) {
        const { event } = await compileFile(file, { target, budget, renderOnly: true });
        const text = event.payload.text as string;
        const used = measure(target, text);
        expect(used, `${name} ${target} ${budget}`).toBeLessThanOrEqual(budget);
        expect(event.payload.tokens).toBe(used);
        // A larger budget never gives a shorter handoff.
        expect(used).toBeGreaterThanOrEqual(previous);
        previous = used;
      }
    }
  });

  it.each(['agents-md', 'files'] as FormatName[])('holds for --format %s too (each file and all together)', async (format) => {
    for (const session of CORPUS) {
      for (const target of ['codex', 'claude'] as const) {
        for (const budget of [2000, 2600, 24_000]) {
          const { event, selection } = await compileFile(captureFile(session), { target, budget, format, renderOnly: true });
          const docs = selection.rendered.docs;
          const sum = docs.reduce((n, d) => n + measure(target, d.text), 0);
          expect(Math.max(sum, measure(target, event.payload.text as string)), `${session.name} ${format} ${budget}`).toBeLessThanOrEqual(budget);
          if (format === 'files') expect(docs.map((d) => d.name)).toEqual(['HANDOFF.md', 'STATE.md', 'TASKS.md', 'DECISIONS.md']);
        }
      }
    }
  });

  it('holds on a generated 20k-event session from 2k to 200k, or fails because P0 alone is over', async () => {
    const file = join(tempDir('sp-compile-budget-'), 'work.ndjson');
    const chainer = new Chainer();
    writeFileSync(file, [...workSessionEvents({ events: 20_000, seed: 3 })].map((e) => canonicalize(chainer.chain(e))).join('\n') + '\n');
    let fitted = 0;
    for (const target of ['codex', 'claude'] as const) {
      for (const budget of [2000, 5000, 12_000, 30_000, 80_000, 200_000]) {
        try {
          const { event } = await compileFile(file, { target, budget, renderOnly: true });
          expect(measure(target, event.payload.text as string), `${target} ${budget}`).toBeLessThanOrEqual(budget);
          fitted++;
        } catch (err) {
          expect(err).toBeInstanceOf(P0OverBudget);
          expect((err as P0OverBudget).needed).toBeGreaterThan(budget);
        }
      }
    }
    expect(fitted).toBeGreaterThanOrEqual(8);
  });

  it('gives P0 and P1 about 60 % and the extractive summary the rest when both compete', async () => {
    // Many commands (P1) and many distinct sentences from the agent (P2): both could fill the budget.
    const b = new SessionBuilder('claude', 'sess_share');
    for (let turn = 0; turn < 120; turn++) {
      b.user(`Request ${turn}: make handler ${turn} validate its input.`);
      const call = b.call(`toolu_${turn}`, 'Bash', { command: `npm test -- --grep handler-${turn}` });
      b.result(`toolu_${turn}`, `ok ${turn}\nℹ tests ${turn + 3}\nℹ pass ${turn + 3}`);
      b.add('command.run', { cmd: `npm test -- --grep handler-${turn}`, exit_code: 0, stdout_head: `ℹ tests ${turn + 3}\nℹ pass ${turn + 3}` }, { derived_from: call.seq });
      b.assistant(
        `Handler ${turn} now rejects an empty body with 400 because route ${turn} parses JSON first. ` +
          `The check lives in \`src/routes/h${turn}.js\` next to the parser, and test ${turn} covers the 400 path. ` +
          `Next, handler ${turn + 1} needs the same guard since it shares the parser.`,
      );
    }
    const file = join(tempDir('sp-compile-share-'), 'share.ndjson');
    const chainer = new Chainer();
    writeFileSync(file, b.events.map((e) => canonicalize(chainer.chain(e))).join('\n') + '\n');
    const budget = 6000;
    const { selection } = await compileFile(file, { target: 'codex', budget, renderOnly: true });
    const tokens = (priority: number) => selection.selected.filter((i) => i.priority === priority).reduce((n, i) => n + measureTokens('o200k_base', `${i.text}\n`), 0);
    // The relay header, pointers and headings count towards the 60 % as well, so the items stay below it.
    expect(tokens(0) + tokens(1)).toBeLessThanOrEqual(budget * P1_SHARE);
    expect(tokens(0) + tokens(1)).toBeGreaterThan(budget * 0.4);
    expect(tokens(2)).toBeGreaterThan(budget * 0.3);
    expect(selection.selected.filter((i) => i.kind === 'excerpt').length).toBeGreaterThan(20);
    expect(selection.dropped.some((i) => i.kind === 'command')).toBe(true);
    // What did not fit is named in a digest line, and every dropped item is listed with its reason.
    expect(selection.selected.find((i) => i.id === 'digest:commands')?.text).toMatch(/^- \d+ more commands \[seq /);
  });
});
