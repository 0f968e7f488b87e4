// sp-compile --extract-decisions on the recorded corpus: a decision that only message text states
// (Claude S2, Codex S3) becomes a derived `decision` event chained after the input and before
// context.compiled, pointing at the message it was found in; compiling that output again finds the
// event and extracts nothing twice; a recorded decision outranks the text guess of the same thing.
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, captureFile, compileFile, parseLines } from './support/compile.js';
import { runBin, tempDir } from './support/streams.js';
import { computeChecksum } from '../lib/core/chain.js';
import type { SpEvent } from '../lib/core/event.js';

type Json = Record<string, any>;
const S2_DECISION = 'keep the in-memory store; switching to SQLite is out of scope';
const session = (name: string) => captureFile(CORPUS.find((s) => s.name === name)!);
const section = (text: string, heading: string) => text.split(/^## /m).find((p) => p.startsWith(heading))?.slice(heading.length) ?? '';

/** Every event chains to the one before it in its session. */
function chained(events: SpEvent[]): boolean {
  const tails = new Map<string, string>();
  for (const e of events) {
    if (e.checksum !== computeChecksum(tails.get(e.session) ?? '', e)) return false;
    tails.set(e.session, e.checksum!);
  }
  return true;
}

describe('sp-compile --extract-decisions', () => {
  it('Claude S2: the decision line becomes a chained decision event before context.compiled', () => {
    const input = session('claude/S2-debug');
    // The stream as redacted (sp-redact's closing sp.redacted record aside: sp-compile adds none).
    const inputEvents = parseLines(runBin('sp-redact', ['--quiet', input]).stdout).filter((e) => (e.payload as Json).key !== 'sp.redacted');
    const r = runBin('sp-compile', ['--for', 'codex', '--no-workspace', '--extract-decisions', input]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = parseLines(r.stdout);
    expect(out.slice(0, inputEvents.length)).toEqual(inputEvents);
    const added = out.slice(inputEvents.length);
    // Two decisions in S2's text, in session order: the agent's "Decision:" line, then its Chinese restatement.
    expect(added.map((e) => e.type)).toEqual(['decision', 'decision', 'context.compiled']);
    const [decision, zh, compiled] = added as Array<SpEvent<Json>>;
    const last = inputEvents[inputEvents.length - 1];
    expect([decision.seq, zh.seq, compiled.seq]).toEqual([last.seq + 1, last.seq + 2, last.seq + 3]);
    expect(decision.derived_from!).toBeLessThan(zh.derived_from!);
    expect(zh.payload.decision).toMatch(/^继续用内存存储，不换 SQLite/);
    expect(decision.payload).toMatchObject({ decision: S2_DECISION, found_in: 'message', extracted_by: 'sp-compile' });
    expect(decision.payload.reason).toMatch(/^the failure is a string-vs-number key mismatch in the route/);
    // derived_from names the message the sentence is in.
    const from = out.find((e) => e.seq === decision.derived_from)! as SpEvent<Json>;
    expect(from.type).toBe('message.assistant');
    expect(JSON.stringify(from.payload.content)).toContain('Decision: keep the in-memory store');
    expect(compiled.payload.extracted_decisions).toEqual([decision.seq, zh.seq]);
    expect(chained(out)).toBe(true);
    expect(runBin('sp-verify', ['--quiet'], { input: r.stdout }).code).toBe(0);

    // Compiling the result again: the decision is now an event, so nothing is extracted twice, and
    // the handoff cites the event (its wording and seq) instead of the guess from the message.
    const again = join(tempDir('sp-decide-'), 'again.ndjson');
    writeFileSync(again, r.stdout);
    const second = runBin('sp-compile', ['--for', 'codex', '--no-workspace', '--extract-decisions', again]);
    expect(second.code).toBe(0);
    const more = parseLines(second.stdout).slice(out.length);
    expect(more.map((e) => e.type)).toEqual(['context.compiled']);
    const payload = more[0].payload as Json;
    expect(payload.extracted_decisions).toBeUndefined();
    const items = (payload.items as Json[]).filter((i) => i.kind === 'decision');
    expect(items.map((i) => i.seqs)).toEqual([[decision.seq], [zh.seq]]);
    // Recorded decisions lead the section (here both are recorded now, in session order).
    expect(section(payload.text, 'Decisions and their reasons')).toContain(`${S2_DECISION} because the failure is a string-vs-number key mismatch`);
  });

  it('Codex S2 keeps its decision; sessions without one get no event; --render refuses the flag', async () => {
    const codex = await compileFile(session('codex/S2-debug'), { target: 'claude', workspace: false, extractDecisions: true });
    const codexOut = parseLines(codex.output);
    const decisions = codexOut.filter((e) => e.type === 'decision') as Array<SpEvent<Json>>;
    expect(decisions.map((e) => e.payload.decision)).toEqual([S2_DECISION, '保留内存存储，不换 SQLite —— 这个问题和持久化无关']);
    expect(decisions[0].payload.reason).toMatch(/^the failure is a field-name typo from the last commit/);
    expect(chained(codexOut)).toBe(true);
    for (const name of ['claude/S1-feature', 'codex/S1-feature', 'pi/S1-feature']) {
      const r = await compileFile(session(name), { target: 'codex', workspace: false, extractDecisions: true });
      const events = parseLines(r.output);
      expect(events.filter((e) => e.type === 'decision'), name).toEqual([]);
      expect(events.at(-1)!.payload).not.toHaveProperty('extracted_decisions');
    }
    const render = runBin('sp-compile', ['--for', 'codex', '--render', '--extract-decisions', session('claude/S1-feature')]);
    expect(render.code).toBe(2);
    expect(render.stderr).toBe('sp-compile: --extract-decisions: --extract-decisions adds events to the output stream; --render prints only the text\n');
  });

  it('a recorded decision outranks a guess from text saying the same; a different one stands beside it', async () => {
    const input = session('claude/S2-debug');
    const events = parseLines(readFileSync(input, 'utf8'));
    const last = events[events.length - 1];
    const guessAt = events.find((e) => e.type === 'message.assistant' && JSON.stringify(e.payload).includes('Decision: keep the in-memory store'))!.seq;
    const recorded = (seq: number, decision: string, reason?: string): SpEvent => ({
      session: last.session, seq, ts: last.ts, agent: last.agent, type: 'decision', actor: 'user', derived_from: guessAt,
      payload: { decision, ...(reason ? { reason } : {}), kind: 'plan' },
    });
    const file = join(tempDir('sp-decide-'), 'recorded.ndjson');
    const strip = (e: SpEvent) => {
      const { checksum: _c, ...rest } = e;
      return rest;
    };
    writeFileSync(
      file,
      [...events.map(strip), recorded(last.seq + 1, S2_DECISION), recorded(last.seq + 2, 'Use node:test, not a new test framework')].map((e) => JSON.stringify(e)).join('\n') + '\n',
    );
    const r = await compileFile(file, { target: 'codex', workspace: false, extractDecisions: true });
    const items = (r.event.payload as Json).items.filter((i: Json) => i.kind === 'decision');
    // The recorded ones first, then the guess nothing records.
    expect(items.map((i: Json) => [i.seqs[0], i.quote])).toEqual([
      [last.seq + 1, S2_DECISION],
      [last.seq + 2, 'Use node:test, not a new test framework'],
      [31, expect.stringMatching(/^继续用内存存储/)],
    ]);
    // Only the guess nothing records is extracted.
    expect(parseLines(r.output).filter((e) => e.type === 'decision' && (e.payload as Json).extracted_by).map((e) => e.derived_from)).toEqual([31]);
  });
});
