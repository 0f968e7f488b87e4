// The writer section of the contract suite: one damaged canonical session (an orphan result, a
// second result for an answered call, an unanswered call, a call id no API accepts, a call without
// an id, two branches, thinking, an image) through a writer. Every writer reports the resume-safety
// pass with the one list of loss codes (lib/write/plan.ts), and what it wrote reads back through
// the same adapter's capture with every call answered and no result without its call.
import { expect, it } from 'vitest';
import type { Adapter, LossEntry, MaterializeOptions } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { LOSS } from '../../lib/write/plan.js';
import { captureAll } from './testAdapter.js';
import { SessionBuilder, from } from '../support/canonical.js';

/** A 1×1 PNG, for the image. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The damaged session, and the seqs each check looks for. */
export function damagedSession(cwd: string): { events: SpEvent[]; seqs: Record<'badId' | 'noId' | 'unanswered' | 'orphan' | 'duplicate' | 'offBranch', number> } {
  const b = new SessionBuilder('claude', 'sess_damaged', { cwd, title: 'damaged' });
  const prompt = b.user('Fix the failing test.');
  b.thinking('The test file first.');
  const badId = b.call('bad id!', 'Bash', { command: 'ls' }, 'msg_1');
  b.result('bad id!', 'a.txt\nb.txt');
  const duplicate = b.result('bad id!', 'the same answer again');
  const unanswered = b.call('toolu_unanswered', 'Bash', { command: 'npm test' }, 'msg_2');
  const orphan = b.result('toolu_ghost', 'answers nothing');
  const image = b.add('message.user', { content: [{ type: 'text', text: 'Here is the screen.' }, { type: 'image', media_type: 'image/png', data: PIXEL }] });
  void prompt;
  const offBranch = b.assistant('Branch A: a first try, later abandoned.', 'msg_3', {});
  offBranch.parent_seq = image.seq;
  const active = b.assistant('Branch B: the answer kept.', 'msg_4');
  active.parent_seq = image.seq;
  const noId = b.call('', 'Read', { file_path: 'a.txt' }, 'msg_5');
  noId.parent_seq = active.seq;
  const answer = b.result('', 'contents of a');
  answer.parent_seq = noId.seq;
  const last = b.assistant('Done.', 'msg_6');
  last.parent_seq = answer.seq;
  return { events: b.events, seqs: { badId: badId.seq, noId: noId.seq, unanswered: unanswered.seq, orphan: orphan.seq, duplicate: duplicate.seq, offBranch: offBranch.seq } };
}

export interface WriterContract {
  /** Materialize options for a fresh temporary home and project folder. */
  options: (home: string, cwd: string) => MaterializeOptions;
  /** Whether the adapter repairs a call id of characters its API refuses (`bad id!`); default true. */
  repairsIds?: boolean;
  /**
   * Known divergence, said here so the suite fails when it changes: Pi names a call without an id
   * `call_<seq>`, so the id-less result after it is dropped and the call stubbed (the other writers
   * pair an id-less call with the id-less result that follows it).
   */
  idlessCallStubbed?: boolean;
  /**
   * What the writer does with a result that answers no call, when not `dropped` (lib/write/plan.ts
   * header): Gemini and Qwen keep it as user text (`rendered`), ATIF without a call id (`transformed`).
   */
  orphanAction?: 'rendered' | 'transformed';
  /** The path `adapter.open` takes to read the written session (default: the result's path). */
  readBack?: (result: { path: string; session_id: string }) => string;
}

/** The codes of the pass, and the codes that drifted before there was one list (none may appear). */
const DRIFTED = ['stub-output', 'orphan-output', 'call-id', 'branch', 'duplicate-result'];

async function write(adapter: Adapter, events: SpEvent[], options: MaterializeOptions): Promise<{ path: string; session_id: string; losses: LossEntry[] }> {
  const losses: LossEntry[] = [];
  const result = await adapter.materialize!(from(events), { ...options, onLoss: (l) => losses.push(l) });
  return { path: result.path, session_id: result.session_id, losses };
}

/** The writer section for `adapter` (call inside a describe). */
export function testWriter(adapter: Adapter, scratch: () => string, contract: WriterContract): void {
  it(`${adapter.id}: the damaged session gives the resume-safety codes of lib/write/plan.ts, on the right events`, async () => {
    const home = scratch();
    const { events, seqs } = damagedSession(home);
    const { losses } = await write(adapter, events, contract.options(home, home));
    const at = (code: string): number[] => losses.filter((l) => l.code === code).map((l) => l.seq!).sort((a, b) => a - b);
    expect(losses.map((l) => l.code).filter((c) => DRIFTED.includes(c))).toEqual([]);
    const idless = contract.idlessCallStubbed === true;
    expect(at(LOSS.stubResult)).toEqual(idless ? [seqs.unanswered, seqs.noId] : [seqs.unanswered]);
    expect(at(LOSS.orphanResult)).toEqual([seqs.duplicate, seqs.orphan, ...(idless ? [seqs.noId + 1] : [])].sort((a, b) => a - b));
    expect(losses.find((l) => l.seq === seqs.orphan && l.code === LOSS.orphanResult)?.action).toBe(contract.orphanAction ?? 'dropped');
    const ids = at(LOSS.toolId);
    if (contract.repairsIds !== false) expect(ids).toContain(seqs.badId);
    expect(ids.every((seq) => seq === seqs.badId || seq === seqs.noId)).toBe(true);
  });

  it(`${adapter.id}: --branch active reports the abandoned branch as other-branch`, async () => {
    const home = scratch();
    const { events, seqs } = damagedSession(home);
    const { losses } = await write(adapter, events, { ...contract.options(home, home), branch: 'active' });
    expect(losses.filter((l) => l.code === LOSS.otherBranch).map((l) => l.seq)).toEqual([seqs.offBranch]);
  });

  it(`${adapter.id}: what it wrote reads back through its own capture, every call answered, no result without its call`, async () => {
    const home = scratch();
    const { events } = damagedSession(home);
    const written = await write(adapter, events, contract.options(home, home));
    const { events: back } = await captureAll(adapter, contract.readBack ? contract.readBack(written) : written.path);
    const calls = back.filter((e) => e.type === 'tool.call' && e.derived_from === undefined).map((e) => String((e.payload as { call_id?: unknown }).call_id));
    const results = back.filter((e) => e.type === 'tool.result').map((e) => String((e.payload as { call_id?: unknown }).call_id));
    const texts = JSON.stringify(back.filter((e) => e.type === 'message.assistant' || e.type === 'message.user').map((e) => e.payload));
    if (adapter.capabilities.textOnlyToolCalls !== undefined) {
      // The declared capability: the format has no tool calls, so they come back as the reply's
      // text — the unanswered call with its stub, never the result that answered nothing.
      expect([calls, results]).toEqual([[], []]);
      expect(texts).toContain('npm test');
      expect(texts).not.toContain('answers nothing');
    } else {
      expect(calls.length).toBeGreaterThanOrEqual(3);
      expect([...results].sort()).toEqual([...calls].sort());
    }
    expect(texts).toContain('Fix the failing test.');
    expect(texts).toContain('Branch B: the answer kept.');
  });
}
