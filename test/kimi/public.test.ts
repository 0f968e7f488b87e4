// Golden capture of a public Kimi CLI recording: a session history the client wrote in a
// SWE-bench run (scikit-learn issue 26323), committed to MoonshotAI/kimi-cli (Apache-2.0) in the
// older flat layout `sessions/<md5 of the work dir>/<uuid>.jsonl` (fixtures/kimi/README.md).
// Every line must come out as a canonical event or bookkeeping meta, none dropped, none unknown.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { kimi } from '../../adapters/kimi/index.js';
import type { SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';

const HOME = new URL('../../fixtures/kimi/public/kimi-cli', import.meta.url).pathname;
const ID = '531d195b-6436-426e-b010-4bf723a992de';
const FILE = `${HOME}/sessions/00d5060aaec3fda180930ea52304b87b/${ID}.jsonl`;
const p = (e: SpEvent) => e.payload as Record<string, any>;
const kind = (e: SpEvent) => (e.type === 'meta' ? `meta:${String(p(e).key)}` : e.type);

async function list(): Promise<SessionRef[]> {
  const refs: SessionRef[] = [];
  for await (const ref of kimi.discover({ home: HOME, details: true })) refs.push(ref);
  return refs;
}

describe('kimi public recording (kimi-cli SWE-bench run, flat layout)', () => {
  it('is discovered as the one session of its home, with its prompt and counts', async () => {
    const refs = await list();
    expect(refs.map((r) => r.native_id)).toEqual([ID]);
    expect(refs[0]).toMatchObject({ messages: 29, tool_calls: 27, first_prompt: expect.stringMatching(/^You will be provided with a partial code base/) });
  });

  it('captures all 141 lines: 1 prompt, 28 assistant lines, 27 calls and results, 85 bookkeeping lines', async () => {
    const { events, diagnostics } = await captureAll(kimi, FILE);
    expect(diagnostics).toEqual([]);
    const lines = readFileSync(FILE, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(141);
    const counts: Record<string, number> = {};
    for (const e of events) counts[kind(e)] = (counts[kind(e)] ?? 0) + 1;
    // 10 of the 28 assistant lines hold only tool calls (empty content): they make no message.
    expect(counts).toEqual({ 'session.start': 1, 'message.user': 1, 'message.assistant': 18, 'tool.call': 27, 'tool.result': 27, 'meta:kimi._checkpoint': 29, 'meta:kimi._usage': 56 });
    // Every line is read, in order: native_seq covers lines 1..141.
    const seqs = new Set(events.slice(1).map((e) => e.origin?.native_seq));
    expect(seqs.size).toBe(141);
    expect(Math.min(...(seqs as Set<number>))).toBe(1);
    expect(Math.max(...(seqs as Set<number>))).toBe(141);
  });

  it('pairs every call with its result and keeps the client\'s tool names and ids', async () => {
    const { events } = await captureAll(kimi, FILE);
    const calls = events.filter((e) => e.type === 'tool.call').map(p);
    const results = events.filter((e) => e.type === 'tool.result').map(p);
    expect(results.map((r) => r.call_id)).toEqual(calls.map((c) => c.call_id));
    const names: Record<string, number> = {};
    for (const c of calls) names[c.name] = (names[c.name] ?? 0) + 1;
    expect(names).toEqual({ Bash: 17, WriteFile: 4, Think: 2, ReadContext: 2, StrReplaceFile: 2 });
    expect(calls[0]).toMatchObject({ call_id: 'Think:0', name: 'Think', input: { thought: expect.stringContaining('Let me analyze this issue') } });
    expect(calls[4]).toMatchObject({ call_id: 'Bash:4', input: { command: 'cd /testbed && python reproduce_issue.py' } });
    // Results are the client's text parts (a <system> status line first); none is an error here.
    expect(results.every((r) => r.is_error === false)).toBe(true);
    expect(results[1].content[0]).toEqual({ type: 'text', text: expect.stringContaining('Transcript saved to: /root/.kimi/sessions/00d5060aaec3fda180930ea52304b87b/') });
    const usage = events.filter((e) => kind(e) === 'meta:kimi._usage').map((e) => p(e).raw.token_count);
    expect(usage.at(-1)).toBe(20384);
  });
});
