// sp-compile --expand: every item of a handoff, kept or cut, leads back to the events it stands for.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS, captureFile } from './support/compile.js';
import { runBin, tempDir } from './support/streams.js';

const lines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l));

describe('sp-compile --expand', { timeout: 240_000 }, () => {
  // A long corpus session with a tight budget: some items are kept, others cut into digests.
  const session = CORPUS.find((s) => /long/i.test(s.name)) ?? CORPUS[CORPUS.length - 1];
  const dir = tempDir('sp-expand-');
  const handoff = join(dir, 'handoff.ndjson');
  let compiled: Record<string, any>;
  let events: Array<Record<string, any>>;

  it('prints exactly the events of a kept item, as they are in the log', () => {
    const r = runBin('sp-compile', ['--for', 'codex', '--budget', '1200', '--no-workspace', captureFile(session)]);
    expect(r.code, r.stderr).toBe(0);
    writeFileSync(handoff, r.stdout);
    events = lines(r.stdout);
    compiled = events[events.length - 1].payload;
    const kept = compiled.items.find((i: { seqs: number[] }) => i.seqs.length > 0);
    const out = runBin('sp-compile', ['--expand', kept.id, handoff]);
    expect(out.code, out.stderr).toBe(0);
    const got = out.stdout.trim().split('\n');
    const primary = events[events.length - 1].session;
    expect(got).toEqual(readFileSync(handoff, 'utf8').trim().split('\n').filter((l) => JSON.parse(l).session === primary && kept.seqs.includes(JSON.parse(l).seq)));
  });

  it('expands a cut item and a seq range; reads stdin too', () => {
    const cut = compiled.dropped.find((d: { id?: string; seqs?: unknown[] }) => d.id && Array.isArray(d.seqs) && d.seqs.length > 0);
    expect(cut, 'the tight budget cuts something').toBeDefined();
    const out = runBin('sp-compile', ['--expand', cut.id], { input: readFileSync(handoff) });
    expect(out.code, out.stderr).toBe(0);
    expect(lines(out.stdout).map((e) => e.seq)).toEqual([...new Set(cut.seqs as number[])].sort((a, b) => a - b));
    const range = runBin('sp-compile', ['--expand', '2-4', handoff]);
    expect(lines(range.stdout).map((e) => e.seq)).toEqual([2, 3, 4]);
    // A group of what is never carried (thinking) expands to those events only.
    const group = compiled.dropped.find((d: { id?: string; kind: string }) => !d.id && d.kind === 'thinking');
    if (group) {
      const thinking = runBin('sp-compile', ['--expand', `thinking@${group.seqs[0][0]}`, handoff]);
      const got = lines(thinking.stdout);
      expect(got.length).toBe(group.count);
      expect(new Set(got.map((e) => e.type))).toEqual(new Set(['message.thinking']));
    }
  });

  it('says which items exist when the id is unknown, and refuses input without a handoff', () => {
    const r = runBin('sp-compile', ['--expand', 'goal:999999', handoff]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sp-compile: --expand: no item "goal:999999" in the handoff \(seq \d+\); items like it: goal:/);
    const plain = runBin('sp-compile', ['--expand', 'goal:1', captureFile(session)]);
    expect(plain.code).toBe(2);
    expect(plain.stderr.trim()).toBe('sp-compile: input: no context.compiled event in the input: expand reads the output of sp-compile (or a stored session that holds one)');
  });

  it('reads a stored session with --store and --session', () => {
    const home = tempDir('sp-expand-home-');
    const env = { SP_HOME: home };
    expect(runBin('sp-sync', ['ingest', handoff], { env }).code).toBe(0);
    const id = events[events.length - 1].session;
    const kept = compiled.items.find((i: { seqs: number[] }) => i.seqs.length > 0);
    const out = runBin('sp-compile', ['--expand', kept.id, '--store', '', '--session', id], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(lines(out.stdout).map((e) => e.seq)).toEqual(kept.seqs);
  });

  it('still demands --for when compiling', () => {
    const r = runBin('sp-compile', [handoff]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('sp-compile: say which agent continues the work: --for AGENT or --for markdown (or sp config set compile.target …)');
  });
});
