// The compiler's parts on their own: reading error lines, decisions, constraints and checklists out
// of text; the active branch; the tokenizers; and the selection against a hand-made budget.
import { describe, expect, it } from 'vitest';
import {
  errorLines,
  errorQuote,
  findConstraints,
  findDecisions,
  findPlan,
  findSummaryDecisions,
  resultLine,
  sentences,
  splitReason,
  formatSeqs,
  oneLine,
} from '../lib/compile/text.js';
import { Extractor } from '../lib/compile/extract.js';
import { extract, type Item } from '../lib/compile/items.js';
import { selectItems, P0OverBudget } from '../lib/compile/budget.js';
import { createCounter, estimateTokens } from '../lib/compile/tokens.js';
import { CLAUDE_FACTOR } from '../adapters/claude/index.js';
import { rankTable } from '../lib/compile/encoding.js';
import { createRequire } from 'node:module';
import '../adapters/index.js';
import { compileTargets, resolveBudget } from '../lib/compile/targets.js';
import { mergeSection } from '../lib/compile/output.js';
import { AGENTS_MD_BEGIN, AGENTS_MD_END, type Rendered } from '../lib/compile/render.js';
import { SessionBuilder } from './support/canonical.js';
import { measureTokens } from './support/compile.js';

describe('error lines', () => {
  it('node:test spec output: the failing test and the assertion with what it announces', () => {
    const out = '✔ GET /todos starts empty (7.0ms)\n✖ GET /todos/:id returns the todo (10.5ms)\n  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n  \n  404 !== 200\n  \n      at TestContext.<anonymous> (/x/test.js:30:10)\nℹ fail 1';
    expect(errorLines(out)).toEqual(['✖ GET /todos/:id returns the todo (10.5ms)', 'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 404 !== 200']);
    expect(errorQuote(out)).toBe('AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:');
  });

  it('TAP output with a YAML error block', () => {
    const out = 'ok 1 - a\nnot ok 2 - POST /todos creates a todo\n  ---\n  error: |-\n    Expected values to be strictly deep-equal:\n    + actual - expected\n  code: ERR_ASSERTION\n# fail 1';
    expect(errorLines(out)).toEqual(['not ok 2 - POST /todos creates a todo', 'error: Expected values to be strictly deep-equal: + actual - expected']);
    expect(errorQuote(out)).toBe('Expected values to be strictly deep-equal:');
  });

  it('shell errors, and nothing for output that shows no error', () => {
    expect(errorLines('cat: src/db.js: No such file or directory\n')).toEqual(['cat: src/db.js: No such file or directory']);
    expect(errorLines('npm ERR! code ELIFECYCLE\nnpm ERR! errno 1')).toEqual(['npm ERR! code ELIFECYCLE']);
    expect(errorLines('ok 1 - todo not found returns 404\n# pass 1\n# fail 0')).toEqual([]);
  });

  it('a result line: the test tally, else the first line that says something', () => {
    expect(resultLine('> x test\nℹ tests 5\nℹ pass 5\nℹ fail 0\nℹ duration_ms 9')).toBe('tests 5, pass 5, fail 0');
    expect(resultLine('[main b22480b] Test GET /health\n 1 file changed\n}')).toBe('[main b22480b] Test GET /health');
    expect(resultLine('{\n  "name": "acme"\n}')).toBe('"name": "acme"');
    expect(resultLine('')).toBeUndefined();
  });
});

describe('decisions, constraints, plans', () => {
  it('finds a decision line and splits its reason (the corpus wording, English and Chinese)', () => {
    const text = '原因找到了。\n\nDecision: keep the in-memory store; switching to SQLite is out of scope because the failure is a key mismatch, not a storage problem. 这次只修字段名。';
    expect(findDecisions(text)).toEqual([
      {
        text: 'Decision: keep the in-memory store; switching to SQLite is out of scope because the failure is a key mismatch, not a storage problem.'.slice(10),
        decision: 'keep the in-memory store; switching to SQLite is out of scope',
        reason: 'the failure is a key mismatch, not a storage problem.',
      },
    ]);
    expect(findDecisions('**决定**：继续用内存存储，不换 SQLite（这次问题跟存储无关，换数据库超出范围）。')[0]).toMatchObject({
      decision: '继续用内存存储，不换 SQLite',
      reason: '这次问题跟存储无关，换数据库超出范围',
    });
    expect(findDecisions('Fixed it. Decision: no moment.js because we have no deps.')[0]).toMatchObject({ decision: 'no moment.js', reason: 'we have no deps.' });
    expect(findDecisions('We decided to ship on Friday since QA signed off.')[0]).toMatchObject({ decision: 'We decided to ship on Friday', reason: 'QA signed off.' });
    expect(findDecisions('The decision tree is in src/tree.js.')).toEqual([]);
    expect(findDecisions('```\nDecision: inside code\n```')).toEqual([]);
  });

  it('reads "Key Decisions" from a compaction summary', () => {
    const summary = '## Goal\nx\n\n## Key Decisions\n- **No SQLite for now**: postponed until Node 22.\n- keep tests fast because CI is slow\n\n## Next Steps\n- [ ] y';
    expect(findSummaryDecisions(summary)).toEqual([
      { text: '**No SQLite for now**: postponed until Node 22.', decision: 'No SQLite for now', reason: 'postponed until Node 22.' },
      { text: 'keep tests fast because CI is slow', decision: 'keep tests fast', reason: 'CI is slow' },
    ]);
  });

  it('splitReason leaves a sentence without a reason whole', () => {
    expect(splitReason('use tabs')).toEqual({ decision: 'use tabs' });
  });

  it('finds constraints the user states, not questions', () => {
    const text = "Update the README. Keep the existing table format, and don't touch the Run or Storage sections — I'll rewrite those myself. Should we never do that?";
    expect(findConstraints(text)).toEqual(["Keep the existing table format, and don't touch the Run or Storage sections — I'll rewrite those myself."]);
    expect(findConstraints('不要修改 deploy/ 目录。帮我修复测试。')).toEqual(['不要修改 deploy/ 目录。']);
    expect(findConstraints('Add a PATCH endpoint.')).toEqual([]);
  });

  it('reads a checklist the agent posted', () => {
    expect(findPlan('Plan:\n1. [ ] Add the route\n2. [x] Read the code\n\nStarting.')).toEqual([
      { text: 'Add the route', done: false },
      { text: 'Read the code', done: true },
    ]);
    expect(findPlan('- [ ] only one')).toEqual([]);
  });

  it('splits sentences in English and Chinese without cutting versions or e.g.', () => {
    expect(sentences('Bumped to v0.4.0 today. It works, e.g. on Node 20.\n修好了。测试通过！')).toEqual(['Bumped to v0.4.0 today.', 'It works, e.g. on Node 20.', '修好了。', '测试通过！']);
    expect(formatSeqs([5, 1, 2, 3, 9])).toBe('1–3, 5, 9');
  });
});

describe('the active branch', () => {
  // u1 → a1 → u2 → a2 (abandoned), then back to a1: u3 → a3.
  function branched() {
    const b = new SessionBuilder('pi', 'sess_branch');
    b.user('first request');
    const a1 = b.assistant('first answer');
    b.user('Should we switch to SQLite? Never mind the cost.');
    const call = b.call('t1', 'bash', { command: 'npm i better-sqlite3' });
    b.result('t1', 'added 1 package');
    b.add('command.run', { cmd: 'npm i better-sqlite3', exit_code: 0 }, { derived_from: call.seq });
    b.assistant('Decision: move to SQLite because it scales.');
    b.add('message.user', { content: [{ type: 'text', text: 'Let us not do SQLite. Add a done filter instead.' }] }, { parent_seq: a1.seq });
    b.assistant('Added the filter.');
    return b;
  }

  it('leaves an abandoned branch out and reports it', () => {
    const ex = new Extractor();
    for (const e of branched().events) ex.push(e);
    const r = extract(ex, 'sess_branch');
    const texts = r.items.map((i) => i.text).join('\n');
    expect(texts).toContain('Let us not do SQLite. Add a done filter instead.');
    expect(texts).not.toContain('Should we switch to SQLite?');
    expect(texts).not.toContain('better-sqlite3');
    expect(texts).not.toContain('move to SQLite');
    expect(r.abandoned).toEqual([[3, 7]]);
    expect(r.losses).toContainEqual(expect.objectContaining({ kind: 'branch', count: 5, ranges: [[3, 7]] }));
  });

  it('keeps the results of parallel tool calls, whose parents are their calls', () => {
    const b = new SessionBuilder('claude', 'sess_parallel');
    b.user('read both');
    const c1 = b.call('t1', 'Bash', { command: 'cat a' });
    const c2 = b.call('t2', 'Bash', { command: 'cat b' }, undefined);
    b.result('t1', 'cat: a: No such file or directory', { is_error: true }, );
    b.events[b.events.length - 1].parent_seq = c1.seq;
    b.add('command.run', { cmd: 'cat a', exit_code: 1, stdout_head: 'cat: a: No such file or directory' }, { derived_from: c1.seq });
    const r2 = b.result('t2', 'B');
    r2.parent_seq = c2.seq;
    b.assistant('a is missing', undefined).parent_seq = r2.seq;
    const ex = new Extractor();
    for (const e of b.events) ex.push(e);
    const r = extract(ex, 'sess_parallel');
    expect(r.abandoned).toEqual([]);
    expect(r.items.find((i) => i.kind === 'failed-command')?.text).toContain('cat: a: No such file or directory');
  });
});

describe('canonical decision and memory events', () => {
  it('uses decision events (with their reason) and memory.write as what to remember', () => {
    const b = new SessionBuilder('hermes', 'sess_events');
    b.user('Ship the importer.');
    b.add('decision', { decision: 'parse CSV with the built-in reader', reason: 'no new dependencies', alternatives: ['papaparse'] });
    b.add('memory.write', { key: 'style', value: 'tabs, not spaces' });
    b.assistant('Done.');
    const ex = new Extractor();
    for (const e of b.events) ex.push(e);
    const items = extract(ex, 'sess_events').items;
    expect(items.find((i) => i.kind === 'decision')).toMatchObject({ priority: 0, seqs: [2], quote: 'parse CSV with the built-in reader', detail: { decision: 'parse CSV with the built-in reader', reason: 'no new dependencies' } });
    expect(items.find((i) => i.kind === 'decision')?.text).toBe('- parse CSV with the built-in reader because no new dependencies [seq 2]');
    expect(items.find((i) => i.kind === 'memory')?.text).toBe('- Remembered: style: tabs, not spaces [seq 3]');
  });
});

describe('tokenizers', () => {
  it('counts special tokens as text and matches tiktoken directly', () => {
    const text = 'a <|endoftext|> b <|im_start|> 测试失败了';
    for (const name of ['o200k_base', 'cl100k_base', 'claude-estimate'] as const) {
      expect(createCounter(name).count(text)).toBe(measureTokens(name, text));
    }
    expect(createCounter('claude-estimate').count(text)).toBe(Math.ceil(createCounter('cl100k_base').count(text) * CLAUDE_FACTOR));
  });

  it("reads the rank tables from the .tiktoken files exactly as the package's own modules hold them", () => {
    const require = createRequire(import.meta.url);
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const ours = rankTable(name);
      const theirs = (require(`gpt-tokenizer/cjs/bpeRanks/${name}`) as { default: Array<string | number[]> }).default;
      expect(ours.length, name).toBe(theirs.length);
      const differ: number[] = [];
      for (let i = 0; i < theirs.length; i++) {
        const a = theirs[i];
        const b = ours[i];
        if (typeof a === 'string' ? a !== b : typeof b === 'string' || b.length !== a.length || b.some((x, j) => x !== a[j])) differ.push(i);
      }
      expect(differ, name).toEqual([]);
    }
  });

  it('estimates within a factor that the budget allows for, on prose, code and CJK', () => {
    const samples = [
      'The handler reads the todo list from the in-memory store, filters it by the query, and returns the page.',
      "export async function removeTodo(req, res) {\n  const id = Number(req.params.id);\n  if (index === -1) return res.status(404).json({ error: 'not found' });\n}",
      '测试失败了，帮我看看为什么报错。我们保留内存存储；切换到 SQLite 不在本次范围内。',
    ];
    for (const name of ['o200k_base', 'claude-estimate'] as const) {
      for (const s of samples) {
        const ratio = createCounter(name).count(s) / estimateTokens(name, s);
        expect(ratio, `${name}: ${s.slice(0, 20)}`).toBeGreaterThan(0.6);
        expect(ratio).toBeLessThan(1.5);
      }
    }
  });

  it('budgets: --budget, else window − reserve, else the target default', () => {
    const TARGET = compileTargets();
    expect(resolveBudget(TARGET.codex, { budget: 5000 })).toBe(5000);
    expect(resolveBudget(TARGET.codex, { window: 100_000, reserve: 20_000 })).toBe(80_000);
    expect(resolveBudget(TARGET.claude, { window: 100_000 })).toBe(100_000 - TARGET.claude.reserve);
    expect(resolveBudget(TARGET.markdown, {})).toBe(16_000);
  });
});

describe('selection', () => {
  const counter = createCounter('o200k_base');
  const item = (id: string, priority: 0 | 1 | 2, words: number, value = 1): Item => ({
    id,
    kind: priority === 0 ? 'decision' : priority === 1 ? 'command' : 'excerpt',
    priority,
    section: priority === 0 ? 'decisions' : priority === 1 ? 'commands' : 'excerpts',
    session: 's',
    seqs: [1],
    text: `- ${`${id} `.repeat(words).trim()}`,
    value,
    order: 0,
  });
  const render = (items: readonly Item[]): Rendered => {
    const text = `# H\n${items.map((i) => i.text).join('\n')}\n`;
    return { docs: [{ name: 'message', text }], text };
  };
  const measure = (r: Rendered) => counter.count(r.text);

  it('keeps every P0 item, fills by value per token, never goes over, lists the rest', () => {
    const items = [item('keep', 0, 50), ...Array.from({ length: 40 }, (_, i) => item(`p1x${i}`, 1, 20, i % 3 === 0 ? 10 : 1)), ...Array.from({ length: 40 }, (_, i) => item(`p2x${i}`, 2, 20))];
    const s = selectItems(items, 600, counter, render, measure, 's');
    expect(s.tokens).toBeLessThanOrEqual(600);
    expect(s.tokens).toBe(measure(s.rendered));
    expect(s.selected.some((i) => i.id === 'keep')).toBe(true);
    expect(s.selected.length + s.dropped.length).toBe(items.length + s.selected.filter((i) => i.kind === 'digest').length);
    // The valuable P1 items go first.
    const p1 = s.selected.filter((i) => i.priority === 1);
    expect(p1.length).toBeGreaterThan(0);
    expect(p1.every((i) => i.value === 10)).toBe(true);
    expect(s.selected.some((i) => i.priority === 2)).toBe(true);
  });

  it('fails with what P0 needs when P0 alone is over', () => {
    const items = [item('a', 0, 300), item('b', 0, 100)];
    try {
      selectItems(items, 200, counter, render, measure, 's');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(P0OverBudget);
      const e = err as P0OverBudget;
      expect(e.needed).toBe(measure(render(items)));
      expect(e.message).toContain(`(${(e.needed - 200).toLocaleString('en-US')} over)`);
      expect(e.largest[0].what).toBe('decision [seq 1]');
      expect(e.exitCode).toBe(2);
    }
  });
});

describe('large texts', () => {
  it('P0 far over the budget is refused on estimates, once a count of its start passes the budget', () => {
    const counter = createCounter('o200k_base');
    const huge: Item = { id: 'huge', kind: 'goal', priority: 0, section: 'goal', session: 's', seqs: [7], text: 'All work and no play. '.repeat(200_000), value: 0, order: 0 };
    const render = (items: readonly Item[]): Rendered => ({ text: items.map((i) => i.text).join('\n'), docs: [] });
    try {
      selectItems([huge], 1000, counter, render, (r) => counter.count(r.text), 's');
      expect.unreachable();
    } catch (err) {
      const e = err as P0OverBudget;
      expect(e.estimated).toBe(true);
      expect(e.needed).toBeGreaterThan(600_000);
      expect(e.message).toContain('(estimated)');
      expect(e.largest[0].what).toBe('goal [seq 7]');
    }
    expect(counter.counted).toBe(1); // the bounded count (its first quarter MiB), not the 4 MB
  });

  it('P0 that only looks far over (whitespace runs tokenize tightly) is counted, and fits', () => {
    const counter = createCounter('o200k_base');
    const padded: Item = { id: 'padded', kind: 'goal', priority: 0, section: 'goal', session: 's', seqs: [3], text: `keep ${' '.repeat(40_000)} this`, value: 0, order: 0 };
    const render = (items: readonly Item[]): Rendered => ({ text: items.map((i) => i.text).join('\n'), docs: [] });
    expect(0.6 * counter.estimate(padded.text)).toBeGreaterThan(5000);
    const s = selectItems([padded], 5000, counter, render, (r) => counter.count(r.text), 's');
    expect(s.selected).toEqual([padded]);
    expect(s.tokens).toBeLessThan(5000);
  });

  it('a text over a million characters is counted piece by piece, to the whole count', () => {
    const counter = createCounter('o200k_base');
    const line = 'The quick brown fox jumps over the lazy dog.\n'; // its tokens never merge with the next line's
    expect(counter.count(line.repeat(50_000))).toBe(counter.count(line) * 50_000); // 2.25 M characters, three pieces
  });

  it('a one-line cut of a long text reads only its start, and cuts as the whole would', () => {
    const long = 'word  \n\t'.repeat(1_000_000);
    expect(oneLine(long, 50)).toBe(oneLine(long.slice(0, 100_000), 50));
    expect(oneLine(long, 50)).toHaveLength(50);
    expect(oneLine('  short\n text  ', 50)).toBe('short text');
  });
});

describe('instructions-file sections', () => {
  it('appends a section, then replaces it in place', () => {
    const section = `${AGENTS_MD_BEGIN}\n## Handoff\nnew\n${AGENTS_MD_END}\n`;
    const once = mergeSection('# Rules\nUse tabs.\n', section);
    expect(once).toBe(`# Rules\nUse tabs.\n\n${section}`);
    const twice = mergeSection(`${once}\n## Later notes\n`, section.replace('new', 'newer'));
    expect(twice).toBe(`# Rules\nUse tabs.\n\n${section.replace('new', 'newer')}\n## Later notes\n`);
  });
});
