// Cursor capture: the CLI store.db and the IDE state.vscdb built from the documented layout (no public
// real DB exists), the public store.db fixture whose head dangles, and public agent transcripts.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cursor } from '../../adapters/cursor/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { SECRET, buildIde, buildStore, type IdeEra } from './support.js';

const work = mkdtempSync(join(tmpdir(), 'sp-cursor-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const texts = (events: SpEvent[], type: string): string[] =>
  events.filter((e) => e.type === type).map((e) => ((e.payload as { content: { type: string; text?: string }[] }).content.filter((b) => b.type === 'text').map((b) => b.text).join('\n')));

describe('cursor CLI store.db', () => {
  it('reads the root-linked order (subtrees in place), joins tool results, drops system and <user_info> text, never the secret nor an abandoned branch', async () => {
    const path = join(work, 'chats', 'h', 'c0ffee00-0000-4000-8000-000000000001', 'store.db');
    buildStore(path, { cwd: '/home/u/proj' });
    const before = readFileSync(path);
    const { events, diagnostics } = await captureAll(cursor, path);
    expect(diagnostics).toEqual([]);
    expect(events[0].payload).toMatchObject({ native_id: 'c0ffee00-0000-4000-8000-000000000001', title: 'List files', model: 'claude-4.5-sonnet', cwd: '/home/u/proj', encrypted: true });
    expect(texts(events, 'message.user')).toEqual(['list the files', 'read a.txt']);
    expect(texts(events, 'message.assistant')).toEqual(['Listing.', 'Two files: a.txt and b.txt.', '', 'It says hello.']);
    const calls = events.filter((e) => e.type === 'tool.call').map((e) => e.payload);
    expect(calls).toEqual([{ call_id: 'toolu_01', name: 'Shell', input: { command: 'ls' } }, { call_id: 'call_2', name: 'Read', input: { path: 'a.txt' } }]);
    expect(events.filter((e) => e.type === 'tool.result').map((e) => [(e.payload as { call_id: string }).call_id, (e.payload as { content: string }).content])).toEqual([['toolu_01', 'a.txt\nb.txt'], ['call_2', 'hello']]);
    expect(events.find((e) => e.type === 'message.thinking')?.payload).toMatchObject({ text: 'I should run ls.', signature: 'sig-1' });
    const all = JSON.stringify(events);
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain('ABANDONED-BRANCH-PROMPT');
    expect(all).not.toContain('SYSTEM-PROMPT-TEXT');
    expect(all).not.toContain('OS: linux');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('reads the public store.db whose head names a missing blob: the session, and a diagnostic', async () => {
    const { events, diagnostics } = await captureAll(cursor, 'fixtures/cursor/agent-sessions/test-store.db');
    expect(events).toHaveLength(1);
    expect(events[0].payload).toMatchObject({ native_id: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890', title: 'Test Session', model: 'claude-4-sonnet' });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].what).toMatch(/blob deadbeef is missing/);
  });
});

describe('cursor IDE state.vscdb', () => {
  for (const era of ['workspace', 'global-key', 'table'] as IdeEra[]) {
    it(`lists composers (${era} listing) and reads each by key: header order, tools, legacy inline, no orphan, no token`, async () => {
      const userDir = join(work, `ide-${era}`);
      const { globalDb, composers } = buildIde(userDir, era);
      const before = readFileSync(globalDb);
      const { events, diagnostics } = await captureAll(cursor, globalDb);
      expect(diagnostics).toEqual([]);
      // Read-only: the file is unchanged and no -wal/-shm appeared beside it.
      expect(readFileSync(globalDb).equals(before)).toBe(true);
      expect(readdirSync(join(userDir, 'globalStorage'))).toEqual(['state.vscdb']);
      const starts = events.filter((e) => e.type === 'session.start').map((e) => e.payload as Record<string, unknown>);
      expect(starts.map((s) => s.native_id)).toEqual([composers[2], composers[0], composers[1]]);
      expect(new Set(starts.map((s) => s.listing))).toEqual(new Set([era]));
      expect(starts[1]).toMatchObject({ title: 'Add retry', model: 'claude-4.5-sonnet', cwd: '/home/u/proj', version: 'composer _v 13' });
      expect(texts(events, 'message.user')).toEqual(['hello from 0.41', 'add a retry to fetch()', 'run the tests']);
      expect(texts(events, 'message.assistant')).toEqual(['hi from 0.41', '', 'Done – fetch() now retries 3×.', '']);
      const calls = events.filter((e) => e.type === 'tool.call').map((e) => e.payload as Record<string, unknown>);
      expect(calls.map((c) => [c.call_id, c.name, c.input])).toEqual([['toolu_01', 'read_file', { target_file: 'src/net.ts' }], ['toolu_02', 'run_terminal_cmd', { command: 'npm test' }]]);
      const results = events.filter((e) => e.type === 'tool.result').map((e) => e.payload as Record<string, unknown>);
      expect(results.map((r) => r.is_error ?? false)).toEqual([false, true]);
      expect(events.find((e) => e.type === 'message.user' && texts([e], 'message.user')[0] === 'add a retry to fetch()')?.ts).toBe(Date.UTC(2026, 0, 1, 10, 0, 0) / 1000);
      const all = JSON.stringify(events);
      expect(all).not.toContain(SECRET);
      expect(all).not.toContain('ORPHAN-EDITED-AWAY');

      // One composer by locator; discovery lists all three under a home's ide/ folder.
      const one = await captureAll(cursor, `${globalDb}#${composers[1]}`);
      expect(texts(one.events, 'message.user')).toEqual(['run the tests']);
      const home = join(work, `home-${era}`);
      cpSync(userDir, join(home, 'ide'), { recursive: true });
      const refs = [];
      for await (const ref of cursor.discover({ home })) refs.push(ref);
      expect(refs.map((r) => r.native_id).sort()).toEqual([...composers].sort());
      expect(refs.every((r) => r.listing === era && r.cwd === '/home/u/proj')).toBe(true);
      expect(JSON.stringify(refs)).not.toContain(SECRET);
    });
  }
});

describe('cursor agent transcripts', () => {
  it('reads the public transcripts: <user_query> unwrapped, tool_use without ids, results paired in order, turn_ended/error as meta, a bad line reported', async () => {
    const a = await captureAll(cursor, 'fixtures/cursor/agent-sessions/test-session.jsonl');
    expect(texts(a.events, 'message.user')).toEqual(['run ls command', 'now show me the git status']);
    expect(a.events.filter((e) => e.type === 'tool.call')).toHaveLength(2);
    const sub = await captureAll(cursor, 'fixtures/cursor/agent-sessions/subagent-session.jsonl');
    expect(texts(sub.events, 'message.user')).toEqual(['Run ls -la in the workspace directory and return the output.']);
    const large = await captureAll(cursor, 'fixtures/cursor/agent-sessions/large.jsonl');
    const calls = large.events.filter((e) => e.type === 'tool.call').map((e) => (e.payload as { call_id: string }).call_id);
    const results = large.events.filter((e) => e.type === 'tool.result').map((e) => (e.payload as { call_id: string }).call_id);
    expect(results).toEqual(calls);
    expect(large.events.filter((e) => e.type === 'message.thinking')).toHaveLength(1);
    const edge = await captureAll(cursor, 'fixtures/cursor/vibe-replay/cursor-edge-cases.jsonl');
    expect(edge.diagnostics).toHaveLength(1);
    expect(edge.diagnostics[0].where).toMatch(/cursor-edge-cases.jsonl:3$/);
    expect(texts(edge.events, 'message.user')).toEqual(['First real prompt', 'Second prompt with <user_query>nested tags</user_query> inside']);
    const errors = await captureAll(cursor, 'fixtures/cursor/cursor-history/transcripts/error-line.jsonl');
    expect(errors.events.some((e) => e.type === 'meta' && (e.payload as { key: string }).key === 'cursor.error')).toBe(true);
  });
});
