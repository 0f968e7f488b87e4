// Aider capture on real histories: the author's own 4 MB `.aider.chat.history.md` (Aider-AI/aider,
// Apache-2.0) and agentsview's small one with the `#### Step 1` trap; `.aider.input.history` built here.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aider } from '../../adapters/aider/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';

const BIG = 'fixtures/aider/aider-ai/.aider.chat.history.md';
const SMALL = 'fixtures/aider/agentsview/myrepo/.aider.chat.history.md';
const texts = (events: SpEvent[], type: string): string[] =>
  events.filter((e) => e.type === type).map((e) => ((e.payload as { content: { text: string }[] }).content[0].text));

describe('aider capture: the author\'s 4 MB history', () => {
  it('finds every session the file starts (counted independently), with each user turn', async () => {
    const text = readFileSync(BIG, 'utf8');
    const headers = text.split('\n').filter((line) => line.startsWith('# aider chat started at ')).length;
    // Maximal runs of `#### ` lines: one user turn each.
    const userRuns = (text.match(/(^|\n)(?!#### )[^\n]*\n#### /g) ?? []).length + (text.startsWith('#### ') ? 1 : 0);
    const started = Date.now();
    const { events, diagnostics } = await captureAll(aider, BIG);
    const ms = Date.now() - started;
    const starts = events.filter((e) => e.type === 'session.start');
    expect(headers).toBe(1133);
    expect(starts.filter((e) => (e.payload as { header?: boolean }).header !== false)).toHaveLength(headers);
    // The file begins with lines before its first header: one more session holds them.
    expect(text.startsWith('# aider chat started at')).toBe(false);
    expect(starts).toHaveLength(headers + 1);
    expect(texts(events, 'message.user')).toHaveLength(userRuns);
    // The same split Aider's own restore makes of this file (docs/formats/aider.md §3): 1,776 user, 1,214 assistant, 2,816 tool groups.
    expect(userRuns).toBe(1776);
    expect(texts(events, 'message.assistant')).toHaveLength(1214);
    expect(events.filter((e) => e.type === 'meta' && (e.payload as { key: string }).key === 'aider.output')).toHaveLength(2816);
    expect(diagnostics).toEqual([]);
    // Headers give each session its time; the banner its model and version.
    const withModel = starts.filter((e) => typeof (e.payload as { model?: string }).model === 'string');
    const sectionsWithModel = text.split('\n# aider chat started at ').slice(1).filter((section) => /\n> (Main model|Models?): \S/.test(section.split(/\n(?!> |\n|$)/)[0]))
      .length;
    expect(sectionsWithModel).toBeGreaterThan(800);
    expect(withModel).toHaveLength(sectionsWithModel);
    expect(starts[1].ts).toBe(Date.UTC(2024, 7, 5, 19, 33, 2) / 1000); // the first header: 2024-08-05 19:33:02
    // The preamble before it has no time of its own: it takes the first header's, not the file's mtime.
    expect(starts[0].ts).toBe(starts[1].ts);
    expect(events.filter((e) => e.session === starts[0].session).every((e) => e.ts === starts[1].ts)).toBe(true);
    console.log(`aider 4 MB: ${events.length} events, ${starts.length} sessions in ${ms} ms`);
    expect(ms).toBeLessThan(30_000);
  }, 60_000);
});

describe('aider capture: agentsview history', () => {
  it('splits sessions, user turns, replies and `>` output; a `#### ` line inside a reply is a user turn, as Aider reads it', async () => {
    const { events, diagnostics } = await captureAll(aider, SMALL);
    expect(diagnostics).toEqual([]);
    expect(events.filter((e) => e.type === 'session.start')).toHaveLength(3);
    expect(texts(events, 'message.user')).toEqual(['add a retry to the webhook', 'Step 1', 'make the timeout configurable']);
    expect(texts(events, 'message.assistant')).toEqual([
      "I'll add exponential backoff to the webhook handler.\n\nHere is the plan:",
      'Wrap the call in a loop.',
      'Done. The timeout now reads from the environment.',
    ]);
    const outputs = events.filter((e) => e.type === 'meta').map((e) => (e.payload as { lines: string[] }).lines);
    expect(outputs[0]).toContain('Did not apply edit to src/skip.py (--dry-run)');
    expect(outputs).toHaveLength(2);
  });
});

describe('aider capture: input history and replies with `# ` lines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sp-aider-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('times user turns from .aider.input.history; keeps `# ` lines inside a reply; reads the input history alone', async () => {
    const chat = join(dir, '.aider.chat.history.md');
    writeFileSync(
      chat,
      '\n# aider chat started at 2026-05-09 06:30:00\n\n> Aider v0.86.1  \n> Main model: anthropic/claude-sonnet-4 with diff edit format  \n\n' +
        '#### write a script  \n#### with a header  \n\nHere:\n\n```python\n# a comment\nprint(1)\n```\n\n> Applied edit to s.py  \n\n#### /run pytest  \n\n',
    );
    writeFileSync(join(dir, '.aider.input.history'), '\n# 2026-05-09 06:31:02.5\n+write a script\n+with a header\n\n# 2026-05-09 06:35:00.000001\n+/run pytest\n');
    const { events } = await captureAll(aider, chat);
    const start = events[0].payload as { model: string; version: string };
    expect(start).toMatchObject({ model: 'anthropic/claude-sonnet-4', version: 'v0.86.1' });
    expect(texts(events, 'message.user')).toEqual(['write a script\nwith a header', '/run pytest']);
    expect(texts(events, 'message.assistant')).toEqual(['Here:\n\n```python\n# a comment\nprint(1)\n```']);
    const users = events.filter((e) => e.type === 'message.user');
    expect(users.map((e) => e.ts)).toEqual([Date.UTC(2026, 4, 9, 6, 31, 2) / 1000 + 0.5, Date.UTC(2026, 4, 9, 6, 35, 0) / 1000 + 0.000001]);
    expect((users[1].payload as { command?: string }).command).toBe('run');

    const alone = await captureAll(aider, join(dir, '.aider.input.history'));
    expect(texts(alone.events, 'message.user')).toEqual(['write a script\nwith a header', '/run pytest']);
  });

  it('discovers history files under a search root and refuses a missing root', async () => {
    const refs = [];
    for await (const ref of aider.discover({ home: 'fixtures/aider', details: true })) refs.push(ref);
    expect(refs.map((r) => r.path.replace(/.*fixtures\//, ''))).toEqual(
      expect.arrayContaining(['aider/aider-ai/.aider.chat.history.md', 'aider/agentsview/myrepo/.aider.chat.history.md']),
    );
    expect(refs.find((r) => r.path.includes('agentsview'))?.sessions).toBe(3);
  });
});

describe('aider capture: 0latency-cli (real 0.86.x pair)', () => {
  it('reads a session of status lines only, and its input history', async () => {
    const { events, diagnostics } = await captureAll(aider, 'fixtures/aider/0latency-cli/.aider.chat.history.md');
    expect(diagnostics).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'meta']);
    expect((events[1].payload as { lines: string[] }).lines).toHaveLength(9);
    expect(events[0].ts).toBe(Date.UTC(2026, 4, 9, 6, 38, 37) / 1000);
    const input = await captureAll(aider, 'fixtures/aider/0latency-cli/.aider.input.history');
    expect(texts(input.events, 'message.user')).toEqual(['exit']);
    expect(input.events[1].ts).toBeCloseTo(Date.UTC(2026, 4, 9, 6, 38, 37) / 1000 + 0.579907, 5);
  });
});
