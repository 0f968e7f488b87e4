// The relay in sp-materialize (lib/relay/relay.ts) on corpus sessions: context mode (the compiled
// handoff first, then whole recent turns within the budget, everything older summarized), branches
// for linear targets (the active one; with --branches all one session per branch sharing the
// prefix), and the ledger (exactly one row per source event). The pipeline through the binaries:
// sp-capture | sp-compile | sp-materialize, and --report / the stderr totals agreeing with jq.
// lib/ asks the adapter registry about agents (lib/adapter/registry.ts): loading it registers them.
import '../adapters/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { claude } from '../adapters/claude/index.js';
import { codex } from '../adapters/codex/index.js';
import { pi } from '../adapters/pi/index.js';
import type { SpEvent } from '../lib/core/event.js';
import { canonicalize } from '../lib/core/jcs.js';
import { createCounter } from '../lib/compile/tokens.js';
import { splitBranches } from '../lib/write/branches.js';
import { compiledOf, contextSession, isCompaction, modelText } from '../lib/relay/context.js';
import { relay } from '../lib/relay/relay.js';
import { captureAll } from './contract/testAdapter.js';
import * as CODEX from './support/codexFixtures.js';
import { runBin, tempDir } from './support/streams.js';

const F = new URL('../fixtures/', import.meta.url).pathname;
const CLAUDE_S3 = `${F}claude/corpus/S3-long/.claude/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71.jsonl`;
const PI_S3 = `${F}pi/corpus/S3-long/agent/sessions/--home-carol-acme-api--/2026-11-30T05-03-28-829Z_01a22ad6-2c3b-714c-9526-cda55a420afd.jsonl`;

const dirs: string[] = [];
const dir = (): string => {
  const d = tempDir('sp-relay-modes-');
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const file = (events: SpEvent[]): string => {
  const path = join(dir(), 'events.ndjson');
  writeFileSync(path, events.map((e) => canonicalize(e)).join('\n') + '\n');
  return path;
};
const lines = (text: string): any[] => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
async function* from(events: SpEvent[]): AsyncGenerator<SpEvent> {
  yield* events;
}

describe('context mode', () => {
  it('Claude S3 compiled for Codex at 4000 tokens: the handoff, then whole newest turns within the room; the rest summarized', async () => {
    const { events } = await captureAll(claude, CLAUDE_S3);
    const compiled = runBin('sp-compile', ['--for', 'codex', '--budget', '4000', file(events)]);
    expect(compiled.code, compiled.stderr).toBe(0);
    const stream = lines(compiled.stdout) as SpEvent[];
    const last = stream[stream.length - 1];
    expect(last.type).toBe('context.compiled');
    const info = compiledOf(last)!;
    const own = stream.slice(0, -1).filter((e) => e.session === last.session);
    const counter = createCounter('o200k_base');
    const built = contextSession(own, last, info, counter.count);

    // session.start, the handoff, then the turns; seqs renumbered 0..n, each mapped back.
    expect(built.events[0].type).toBe('session.start');
    expect(built.events[1]).toMatchObject({ type: 'message.user', payload: { content: [{ type: 'text', text: info.text }] } });
    expect(built.events.map((e) => e.seq)).toEqual(built.events.map((_, i) => i));
    expect(built.sourceSeq.get(1)).toBe(last.seq);
    // Some turns kept, some summarized, none lost: summarized + kept = the session.
    expect(built.turns).toBeGreaterThan(0);
    expect(built.summarized.length).toBeGreaterThan(10);
    const kept = built.events.slice(2).map((e) => built.sourceSeq.get(e.seq));
    expect([...built.summarized.map((e) => e.seq), ...kept, 0].sort((a, b) => a! - b!)).toEqual(own.map((e) => e.seq).sort((a, b) => a - b));
    // The kept part starts at a user message, fits the room, and pairs every call with its result.
    expect(built.events[2].type).toBe('message.user');
    const cost = built.events.slice(2).reduce((n, e) => n + (modelText(e).text ? counter.count(modelText(e).text) : 0) + modelText(e).images * 1600, 0);
    expect(cost).toBe(built.turnTokens);
    expect(cost).toBeLessThanOrEqual(built.room);
    expect(built.room).toBe(info.budget - info.tokens);
    const calls = built.events.filter((e) => e.type === 'tool.call' && e.derived_from === undefined).map((e) => (e.payload as any).call_id);
    const results = built.events.filter((e) => e.type === 'tool.result').map((e) => (e.payload as any).call_id);
    expect(calls.length).toBeGreaterThan(0);
    expect([...calls].sort()).toEqual([...results].sort());
    // One more turn would not have fitted, or lies before a compaction (the client would drop the handoff with it).
    const firstKept = own.findIndex((e) => e.seq === kept[0]);
    const previousStart = own.slice(0, firstKept).map((e) => e.type).lastIndexOf('message.user');
    const previousTurn = own.slice(previousStart, firstKept);
    const previous = previousTurn.reduce((n, e) => n + (modelText(e).text ? counter.count(modelText(e).text) : 0) + modelText(e).images * 1600, 0);
    expect(cost + previous > built.room || previousTurn.some(isCompaction)).toBe(true);
    // Nothing kept lies before the session's last compaction.
    const lastCompaction = own.filter(isCompaction).at(-1);
    if (lastCompaction) expect(kept.every((seq) => seq! > lastCompaction.seq)).toBe(true);
  }, 120_000);

  it('sp-capture | sp-compile --for codex | sp-materialize codex: a context-mode session, every source seq in the ledger', () => {
    const home = dir();
    const captured = runBin('sp-capture', ['codex', '--path', CODEX.S3]);
    const compiled = runBin('sp-compile', ['--for', 'codex', '--budget', '3000'], { input: captured.stdout });
    expect(compiled.code, compiled.stderr).toBe(0);
    const report = join(home, 'ledger.ndjson');
    const written = runBin('sp-materialize', ['codex', '--home', home, '--report', report], { input: compiled.stdout });
    expect(written.code, written.stderr).toBe(0);
    const result = JSON.parse(written.stdout);
    expect(result.mode).toBe('context');
    const rollout = lines(readFileSync(result.path, 'utf8'));
    const firstUser = rollout.find((l) => l.type === 'response_item' && l.payload.role === 'user');
    const handoff = lines(compiled.stdout).at(-1).payload.text as string;
    expect(firstUser.payload.content[0].text).toBe(handoff);

    const input = lines(compiled.stdout);
    const rows = lines(readFileSync(report, 'utf8')).filter((e) => e.payload.key === 'sp.materialize.ledger').map((e) => e.payload.value);
    expect(rows.map((r) => r.seq)).toEqual(input.map((e) => e.seq));
    expect(rows.filter((r) => r.code === 'summarized').length).toBeGreaterThan(0);
    expect(rows.at(-1)).toMatchObject({ type: 'context.compiled', action: 'rendered', code: 'handoff' });
    // The stderr totals are the report's rows counted by action.
    const count = (action: string) => rows.filter((r) => r.action === action).length;
    const summarized = rows.filter((r) => r.code === 'summarized').length;
    expect(written.stderr).toContain(
      `sp-materialize: ledger: ${count('carried')} carried, ${count('translated')} translated, ${count('rendered')} rendered` +
        `${count('transformed') ? `, ${count('transformed')} transformed` : ''}, ${count('stubbed')} stubbed, ${count('dropped')} dropped (${summarized} summarized)`,
    );
    const verified = runBin('sp-verify', [report]);
    expect(verified.code, verified.stderr).toBe(0);
  }, 240_000);
});

describe('branches for a linear target', () => {
  it('Pi S3 (an abandoned branch): the active branch is the path to the last message; the other shares the prefix up to the branch point', async () => {
    const { events } = await captureAll(pi, PI_S3);
    const split = splitBranches(events);
    expect(split.others).toHaveLength(1);
    const other = split.others[0];
    const activeSeqs = new Set(split.active.events.map((e) => e.seq));
    // The prefix up to the fork is shared; the other branch's own steps are not on the active one.
    expect(other.forkSeq).toBeDefined();
    for (const e of other.events) if (e.seq <= other.forkSeq!) expect(activeSeqs.has(e.seq), `seq ${e.seq}`).toBe(true);
    expect(other.own.size).toBeGreaterThan(0);
    for (const seq of other.own) expect(activeSeqs.has(seq)).toBe(false);
    // The active branch ends at the session's last message.
    const lastMessage = [...events].reverse().find((e) => e.type === 'message.assistant' || e.type === 'message.user')!;
    expect(activeSeqs.has(lastMessage.seq)).toBe(true);
    expect(split.offActive.map((e) => e.seq).sort((a, b) => a - b)).toEqual([...other.own].sort((a, b) => a - b));
  });

  it('a session without branches is one branch with every event', async () => {
    const { events } = await captureAll(codex, CODEX.S2);
    const split = splitBranches(events);
    expect(split.others).toEqual([]);
    expect(split.active.events).toHaveLength(events.length);
  });

  it('--branches all: Pi S3 → Codex as two sessions, one JSON line each, the branch linked to the active one', () => {
    const home = dir();
    const report = join(home, 'ledger.ndjson');
    const captured = runBin('sp-capture', ['pi', '--path', PI_S3]);
    const written = runBin('sp-materialize', ['codex', '--home', home, '--branches', 'all', '--report', report], { input: captured.stdout });
    expect(written.code, written.stderr).toBe(0);
    const [main, branch, ...rest] = lines(written.stdout);
    expect(rest).toEqual([]);
    expect(main.sessions).toEqual([main.session_id, branch.session_id]);
    expect(branch.branch).toMatchObject({ of: main.session_id, leaf_seq: expect.any(Number), fork_seq: expect.any(Number) });
    const ledger = lines(readFileSync(report, 'utf8'));
    expect(ledger.filter((e) => e.payload.key === 'sp.materialize.result').map((e) => e.payload.value.session_id)).toEqual([branch.session_id, main.session_id]);
    // The other branch's steps are carried (in the branch session), not dropped.
    const rows = ledger.filter((e) => e.payload.key === 'sp.materialize.ledger').map((e) => e.payload.value);
    expect(rows.filter((r) => r.code === 'other-branch')).toEqual([]);
    expect(rows.filter((r) => r.code === 'branch-session' || (r.seq > branch.branch.fork_seq && r.seq <= branch.branch.leaf_seq)).length).toBeGreaterThan(0);
    // Without --branches all the other branch is dropped, and said so.
    const active = runBin('sp-materialize', ['codex', '--home', dir()], { input: captured.stdout });
    expect(lines(active.stdout)).toHaveLength(1);
    expect(active.stderr).toMatch(/^sp-materialize: dropped other-branch: \d+× — seq \d+: not on the active branch; --branches all/m);
  }, 240_000);
});

describe('the ledger', () => {
  it('one row per source event, for every pair of corpus agents (history mode, in-process)', async () => {
    const { events } = await captureAll(claude, CLAUDE_S3);
    for (const target of [codex, pi]) {
      const outcome = await relay(target, from(events), { home: dir(), cwd: dir(), mkcwd: true });
      const rows = [...outcome.ledger.rows()];
      expect(rows.map((r) => `${r.session}/${r.seq}`)).toEqual(events.map((e) => `${e.session}/${e.seq}`));
      // Subagent sessions in the stream are not written, and each of their events says so.
      const others = rows.filter((r) => r.session !== outcome.session);
      expect(others.length).toBeGreaterThan(0);
      expect(others.every((r) => r.action === 'dropped' && r.code === 'other-session')).toBe(true);
      const totals = outcome.ledger.totals();
      expect(totals.events).toBe(events.length);
      expect(totals.translated).toBeGreaterThan(0);
      outcome.ledger.remove();
    }
  });

  it("the ledger's temp file goes with remove(), and with the relay when the write fails; sp-materialize leaves none", async () => {
    const { events } = await captureAll(claude, CLAUDE_S3);
    const outcome = await relay(codex, from(events), { home: dir(), cwd: dir(), mkcwd: true });
    const path = outcome.ledger.path!;
    expect(existsSync(path)).toBe(true);
    outcome.ledger.remove();
    expect(existsSync(path)).toBe(false);
    // A write that fails after the ledger has entries (the Codex writer refuses a home that is a file).
    const tmp = dir();
    const home = join(dir(), 'a-file');
    writeFileSync(home, '');
    const cwd = dir();
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      await expect(relay(codex, from(events), { home, cwd, mkcwd: true })).rejects.toThrow();
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(readdirSync(tmp)).toEqual([]);
    const bin = dir();
    const written = runBin('sp-materialize', ['codex', '--home', dir(), '--cwd', dir(), '--mkcwd', file(events)], { env: { TMPDIR: bin } });
    expect(written.code).toBe(0);
    expect(readdirSync(bin)).toEqual([]);
  });
});

describe('the relay flow (flows/relay.ts)', () => {
  const flow = new URL('../dist/flows/relay.js', import.meta.url).pathname;
  it('--demo --compile: capture | redact | compile | materialize | read back and verify, then the resume command alone on stdout', () => {
    const report = join(dir(), 'ledger.ndjson');
    const r = spawnSync(process.execPath, [flow, '--demo', '--compile', '--budget', '5000', '--report', report], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toMatch(/^cd \S+ && CODEX_HOME=\S+ codex resume [0-9a-f-]{36}\n$/); // a temporary home, named on the line
    expect(r.stderr).toMatch(/redacted, compiled for codex/);
    expect(r.stderr).toMatch(/ledger: \d+ carried, \d+ translated, \d+ rendered.* \(\d+ summarized\)/);
    expect(r.stderr).toMatch(/the written session reads back and verifies/);
    const ledger = spawnSync(process.execPath, [new URL('../dist/bin/sp-verify.js', import.meta.url).pathname, report], { encoding: 'utf8' });
    expect(ledger.status, ledger.stdout + ledger.stderr).toBe(0); // the ledger is a chained stream too
    const rows = lines(readFileSync(report, 'utf8')).filter((e) => e.payload.key === 'sp.materialize.ledger');
    expect(rows.at(-1).payload.value).toMatchObject({ type: 'context.compiled', action: 'rendered' });
    // Usage errors: exit 2, one line naming the fix.
    const bad = spawnSync(process.execPath, [flow, '--from', 'claude', '--to', 'codex'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('relay: say which session: --session ID (or the third positional) or --latest\n');
  }, 240_000);
});
