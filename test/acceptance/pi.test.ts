// Acceptance with the real client: sessions are captured, materialized into a throw-away Pi agent
// dir, and resumed by the pinned `pi` (@mariozechner/pi-coding-agent 0.73.1) with
// `pi --session FILE -p PROBE` against our own mock model API (test/pi/mockModel.ts). The client
// must exit 0, append the probe to that very file, and send the whole active branch (after the
// last compaction: its summary, the kept entries and what follows) in its first model request —
// every user/assistant/tool text, every tool call id, thinking signatures for the same model —
// and nothing from an abandoned branch. The mock rejects requests a real API would reject.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { pi } from '../../adapters/pi/index.js';
import { claude } from '../../adapters/claude/index.js';
import { codex } from '../../adapters/codex/index.js';
import { materializePi, type PiLossEntry, type PiMaterializeOptions, type PiMaterializeResult } from '../../adapters/pi/materialize.js';
import type { Adapter } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { SessionBuilder, from } from '../support/canonical.js';
import { startMockModel, type ModelRequest } from '../pi/mockModel.js';
import { configureAgentDir, runPi, type PiRun, type ProviderModel } from '../pi/piClient.js';
import { BEFORE_COMPACTION, LARGE_SESSION, S1, S2, S3, activePath, readEntries } from '../pi/support.js';

const PROBE = 'SP-PI-ACCEPTANCE-PROBE: reply OK';
const FIXTURES = new URL('../../fixtures/', import.meta.url).pathname;
const CLAUDE_S1 = `${FIXTURES}claude/corpus/S1-feature/.claude/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl`;
const CLAUDE_S2 = `${FIXTURES}claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl`;
const CLAUDE_REWIND = `${FIXTURES}claude/public/claude-code-log/test/test_data/dag_compact_after_rewind.jsonl`;
const CODEX_S1 = `${FIXTURES}codex/corpus/S1-feature/sessions/2026/11/30/rollout-2026-11-30T05-06-52-01a22ad9-47d0-73f1-b186-11146d50904a.jsonl`;

type Entry = Record<string, any>;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-pi-acceptance-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Resumed {
  result: PiMaterializeResult;
  losses: PiLossEntry[];
  run: PiRun;
  request?: ModelRequest;
  requests: ModelRequest[];
  /** Every string in the first request's messages, joined: what the model saw. */
  sent: string;
  /** The session file after the client ran. */
  after: Entry[];
}

/** The model the client restores for a file: the last model_change or assistant on the active path. */
function sessionModel(entries: Entry[]): ProviderModel {
  let model: ProviderModel = { provider: 'anthropic', model: 'claude-sonnet-4-5', api: 'anthropic-messages' };
  for (const e of activePath(entries)) {
    if (e.type === 'model_change') model = { provider: e.provider, model: e.modelId, api: model.api };
    if (e.type === 'message' && e.message.role === 'assistant') model = { provider: e.message.provider, model: e.message.model, api: e.message.api };
  }
  return { ...model, api: model.api === 'openai-completions' ? 'openai-completions' : 'anthropic-messages' };
}

function strings(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, into);
  return into;
}

/** Materializes `events` into a fresh agent dir and resumes the file with the real client. */
async function materializeAndResume(events: SpEvent[], options: PiMaterializeOptions = {}, contextWindow?: number): Promise<Resumed> {
  const base = join(work, randomUUID().slice(0, 8));
  const cwd = join(base, 'project');
  mkdirSync(cwd, { recursive: true });
  const agentDir = join(base, 'agent');
  const losses: PiLossEntry[] = [];
  const result = (await materializePi(from(events), { home: agentDir, cwd: realpathSync(cwd), ...options, onLoss: (l) => losses.push(l as PiLossEntry) })) as PiMaterializeResult;
  const mock = await startMockModel();
  try {
    configureAgentDir(agentDir, mock, [sessionModel(readEntries(result.path))], { contextWindow });
    const run = await runPi(['--session', result.path, '-ne', '-ns', '-np', '-nc', '-p', PROBE], { cwd: result.cwd, agentDir, home: join(base, 'home') });
    const request = mock.requests[0];
    return { result, losses, run, request, requests: mock.requests, sent: strings(request?.body.messages, []).join('\n'), after: readEntries(result.path) };
  } finally {
    await mock.close();
  }
}

/** What the client must send for a Pi file: the active branch, from the last compaction on (docs/formats/pi.md §6). */
function expectedHistory(entries: Entry[]): string[] {
  const path = activePath(entries);
  const compaction = [...path].reverse().find((e) => e.type === 'compaction');
  const out: string[] = [];
  const text = (content: unknown) => (typeof content === 'string' ? content : (content as Entry[]).filter((b) => b.type === 'text').map((b) => b.text).join('\n'));
  let keep = !compaction;
  for (const e of path) {
    if (compaction && e.id === compaction.firstKeptEntryId) keep = true;
    if (e === compaction) {
      out.push(e.summary.slice(0, 80));
      keep = true;
      continue;
    }
    if (!keep) continue;
    if (e.type === 'message') {
      const m = e.message;
      if (m.role === 'user' || m.role === 'custom' || m.role === 'toolResult') out.push(text(m.content).slice(0, 80));
      if (m.role === 'assistant' && !['error', 'aborted'].includes(m.stopReason)) {
        for (const b of m.content) {
          if (b.type === 'text') out.push(b.text.slice(0, 80));
          if (b.type === 'toolCall') out.push(b.id);
        }
      }
      if (m.role === 'bashExecution' && !m.excludeFromContext) out.push(m.command);
    }
    if (e.type === 'custom_message') out.push(text(e.content).slice(0, 80));
    if (e.type === 'branch_summary') out.push(e.summary.slice(0, 80));
  }
  return out.filter((s) => s.trim() !== '');
}

/** The checks every resumed session must pass. */
function expectResumed(r: Resumed, expected: string[]): void {
  expect(r.run.timedOut, r.run.stderr).toBe(false);
  expect(r.run.code, r.run.stderr.slice(-2000)).toBe(0);
  expect(r.requests.map((q) => q.violations)).toEqual(r.requests.map(() => []));
  expect(r.request, 'the model got no request').toBeDefined();
  const messages = r.request!.body.messages as Entry[];
  expect(strings(messages[messages.length - 1], []).join('\n')).toContain(PROBE);
  const missing = expected.filter((s) => !r.sent.includes(s));
  expect(missing).toEqual([]);
  // The client appended to THIS file, on the branch we made active.
  const probe = r.after.find((e) => e.type === 'message' && e.message.role === 'user' && JSON.stringify(e.message.content).includes(PROBE));
  expect(probe, 'the probe was not appended to the materialized file').toBeDefined();
  const byId = new Map(r.after.map((e) => [e.id, e]));
  const ancestors = new Set<string>();
  for (let at = probe; at; at = at.parentId ? byId.get(at.parentId) : undefined) ancestors.add(at.id);
  expect(ancestors.has(r.result.leaf_id!)).toBe(true);
}

describe('acceptance: the real Pi client resumes materialized sessions and sends the whole active branch', () => {
  for (const [label, fixture] of [['S1-feature', S1], ['S2-debug', S2], ['S3-long (branch + compaction, deepseek over openai-completions)', S3]] as const) {
    it(`Pi ${label} → canonical → Pi`, async () => {
      const source = readEntries(fixture);
      const { events } = await captureAll(pi, fixture);
      const r = await materializeAndResume(events);
      expectResumed(r, expectedHistory(source));
      expect(r.losses).toEqual([]);
      // Same model: thinking goes back with its signature (Anthropic) / as reasoning_content (deepseek).
      const thinking = source.flatMap((e) => (e.message?.role === 'assistant' ? e.message.content.filter((b: Entry) => b.type === 'thinking') : []));
      const onPath = new Set(activePath(source).map((e) => e.id));
      const sentThinking = source.filter((e) => onPath.has(e.id)).flatMap((e) => (e.message?.role === 'assistant' ? e.message.content.filter((b: Entry) => b.type === 'thinking') : []));
      expect(thinking.length).toBeGreaterThan(0);
      if (fixture !== S3) for (const b of sentThinking) expect(r.sent).toContain(b.thinkingSignature);
    });
  }

  for (const [label, fixture] of [['before-compaction (v1, 2.4 MB, two compactions)', BEFORE_COMPACTION], ['large-session (v1, 1 MB, aborted turns)', LARGE_SESSION]] as const) {
    it(`pi-mono ${label} → canonical → v3 Pi`, async () => {
      const { events } = await captureAll(pi, fixture);
      // The recorded usage is over a default window: the client would compact before sending.
      const r = await materializeAndResume(events, {}, 1_000_000);
      expectResumed(r, expectedHistory(readEntries(fixture)));
      expect(r.requests).toHaveLength(1);
    });
  }

  it('a branched session: the client continues on the active branch and sends nothing of the other', async () => {
    const b = new SessionBuilder('claude', 'sess_branch', { cwd: '/tmp', model: 'claude-sonnet-4-5' });
    const u1 = b.user('BR-U1: start here');
    b.assistant('BR-A1: first answer', 'msg_a1');
    b.user('BR-U2: the abandoned question');
    b.assistant('BR-A2: the abandoned answer', 'msg_a2');
    b.add('message.user', { content: [{ type: 'text', text: 'BR-U3: asked again after a rewind' }] }, { parent_seq: u1.seq + 1 });
    b.call('toolu_br1', 'bash', { command: 'ls' }, 'msg_a3');
    b.result('toolu_br1', 'BR-R1: README.md', { name: 'bash' });
    b.assistant('BR-A3: the kept answer', 'msg_a4');
    const r = await materializeAndResume(b.events);
    expect(r.result.branches).toBe(2);
    expectResumed(r, ['BR-U1: start here', 'BR-A1: first answer', 'BR-U3: asked again after a rewind', 'toolu_br1', 'BR-R1: README.md', 'BR-A3: the kept answer']);
    expect(r.sent).not.toContain('BR-U2');
    expect(r.sent).not.toContain('BR-A2');
  });

  const relay = async (adapter: Adapter, fixture: string, options: PiMaterializeOptions = {}) => {
    const { events } = await captureAll(adapter, fixture);
    const r = await materializeAndResume(events, options);
    // What reached the model: every prompt, answer and tool call of the source, and each result.
    const expected: string[] = [];
    for (const e of events) {
      if (e.derived_from !== undefined) continue;
      const p = e.payload as Entry;
      const text = Array.isArray(p.content) ? p.content.filter((c: Entry) => c.type === 'text').map((c: Entry) => c.text).join('\n') : typeof p.content === 'string' ? p.content : '';
      if ((e.type === 'message.user' || e.type === 'message.assistant' || e.type === 'tool.result') && text.trim() !== '') expected.push(text.trim().slice(0, 60));
      if (e.type === 'tool.call') expected.push(String(p.call_id));
    }
    return { r, expected };
  };

  it('Claude Code S1 → Pi: the relay resumes with every prompt, answer, tool call and result', async () => {
    const { r, expected } = await relay(claude, CLAUDE_S1);
    expectResumed(r, expected);
  });

  it('Claude Code S2 (CJK, image, failing command) → Pi', async () => {
    const { r, expected } = await relay(claude, CLAUDE_S2);
    expectResumed(r, expected);
    // The screenshot reached the model as an image block.
    expect(JSON.stringify(r.request!.body.messages)).toMatch(/"type":"image"/);
  });

  it('a Claude Code transcript with a rewind and a compaction → a Pi tree the client continues on its active branch', async () => {
    const { events } = await captureAll(claude, CLAUDE_REWIND);
    const r = await materializeAndResume(events);
    expect(r.result.branches).toBe(3);
    expectResumed(r, ['This session is being continued', 'After compaction', 'Final answer']);
    // Like Claude Code itself: nothing before the compaction cut, nothing of the abandoned attempt.
    for (const gone of ['First attempt', 'First answer', 'Keep going']) expect(r.sent).not.toContain(gone);
  });

  it('Codex S1 → Pi, continued with --model anthropic/claude-sonnet-4-5 (cross-model replay)', async () => {
    const { r, expected } = await relay(codex, CODEX_S1, { model: 'anthropic/claude-sonnet-4-5' });
    expect(r.after.filter((e) => e.type === 'model_change').map((e) => `${e.provider}/${e.modelId}`)).toEqual(['anthropic/claude-sonnet-4-5']);
    // Reported: Codex's encrypted reasoning (only OpenAI reads it), its event records, apply_patch's
    // string input (a Pi tool call takes an object).
    expect(r.losses.every((l) => ['opaque-reasoning', 'foreign-meta', 'tool-input'].includes(l.code))).toBe(true);
    expectResumed(r, expected);
  });
});
