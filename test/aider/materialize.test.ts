// The Aider writer (unverified: no Aider client here). Its output is read back with an independent
// re-implementation of Aider's restore rules (docs/formats/aider.md §3) and with sp's own capture.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { aider } from '../../adapters/aider/index.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';

/** Aider's restore, by its four documented rules: `# ` skipped, `> ` tool (discarded), `#### ` user, else assistant. */
function restore(text: string): Array<{ role: string; content: string }> {
  const out: Array<{ role: string; content: string }> = [];
  let role: string | undefined;
  let buf: string[] = [];
  const flush = (): void => {
    if (role && role !== 'tool' && buf.join('\n').trim() !== '') out.push({ role, content: buf.join('\n') });
    buf = [];
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('# ')) continue;
    const next = line.startsWith('> ') ? 'tool' : line.startsWith('#### ') ? 'user' : 'assistant';
    if (next !== role) flush();
    role = next;
    buf.push(next === 'tool' ? line.slice(2) : next === 'user' ? line.slice(5) : line);
  }
  flush();
  return out;
}

async function* stream(events: SpEvent[]): AsyncGenerator<SpEvent> {
  yield* events;
}

const work = mkdtempSync(join(tmpdir(), 'sp-aider-write-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const ev = (seq: number, type: string, payload: Record<string, unknown>): SpEvent => ({ session: 's1', seq, ts: 1, agent: 'claude', type, payload });

describe('aider materialize', () => {
  it('writes a new file restore reads as the intended alternating turns; trap lines escaped; tools flattened; losses reported', async () => {
    const events = [
      ev(0, 'session.start', { native_id: 'abc-123', cwd: work }),
      ev(1, 'message.user', { content: [{ type: 'text', text: 'fix it\n\nplease' }] }),
      ev(2, 'message.user', { content: [{ type: 'text', text: 'now' }] }),
      ev(3, 'message.thinking', { text: 'hmm', visibility: 'visible' }),
      ev(4, 'message.assistant', { content: [{ type: 'text', text: 'Plan:\n#### Step 1\n> quoted\n# Heading\n```python\n# comment\n```' }] }),
      ev(5, 'tool.call', { call_id: 't1', name: 'Bash', input: { command: 'ls' } }),
      ev(6, 'tool.result', { call_id: 't1', content: '# not a header\nb.txt' }),
      ev(7, 'message.assistant', { content: [{ type: 'text', text: 'Done.' }] }),
    ];
    writeFileSync(join(work, '.aider.chat.history.md'), 'USER HISTORY\n');
    const losses: LossEntry[] = [];
    const result = await aider.materialize!(stream(events), { cwd: work, onLoss: (l) => losses.push(l) });
    expect(result.path).toBe(join(work, '.aider.sp-abc-123.chat.history.md'));
    expect(result.resume).toContain('--restore-chat-history');
    expect(readFileSync(join(work, '.aider.chat.history.md'), 'utf8')).toBe('USER HISTORY\n');
    const text = readFileSync(result.path, 'utf8');
    const restored = restore(text);
    expect(restored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(restored[0].content.split('\n').map((l) => l.replace(/ {2}$/, ''))).toEqual(['fix it', '', 'please', '', 'now']);
    const reply = restored[1].content;
    for (const line of [' #### Step 1', ' > quoted', ' # Heading', ' # comment', ' # not a header', 'b.txt', 'Done.', '"command": "ls"']) expect(reply).toContain(line);
    expect(losses.map((l) => l.code).sort()).toEqual(['reply-line-escaped', 'thinking', 'tool-call', 'tool-result']);
    // sp reads it back as the same two turns.
    const back = await captureAll(aider, result.path);
    expect(back.events.filter((e) => e.type === 'message.user')).toHaveLength(1);
    expect(back.events.filter((e) => e.type === 'message.assistant')).toHaveLength(1);
    await expect(aider.materialize!(stream(events), { cwd: work })).rejects.toThrow(/exists already/);
  });

  it('round-trips the user turns of a real session of the author\'s history', async () => {
    const { events } = await captureAll(aider, 'fixtures/aider/aider-ai/.aider.chat.history.md');
    const sessions = new Map<string, SpEvent[]>();
    for (const e of events) sessions.set(e.session, [...(sessions.get(e.session) ?? []), e]);
    const busiest = [...sessions.values()].sort((a, b) => b.filter((e) => e.type === 'message.user').length - a.filter((e) => e.type === 'message.user').length)[0];
    const dir = join(work, 'rt');
    const result = await aider.materialize!(stream(busiest), { cwd: dir, mkcwd: true });
    expect(existsSync(result.path)).toBe(true);
    const back = await captureAll(aider, result.path);
    const userLines = (list: SpEvent[]): string[] => list.filter((e) => e.type === 'message.user').flatMap((e) => ((e.payload as { content: { text: string }[] }).content[0].text.split('\n'))).filter((l) => l !== '');
    expect(userLines(back.events)).toEqual(userLines(busiest));
    expect(userLines(busiest).length).toBeGreaterThan(20);
    // Every reply line is there, escaped where restore would misread it.
    const replies = restore(readFileSync(result.path, 'utf8')).filter((m) => m.role === 'assistant').map((m) => m.content).join('\n');
    for (const e of busiest.filter((x) => x.type === 'message.assistant')) {
      for (const line of (e.payload as { content: { text: string }[] }).content[0].text.split('\n')) expect(replies).toContain(line.replace(/^(#### |> |# )/, ' $1'));
    }
  });
});
