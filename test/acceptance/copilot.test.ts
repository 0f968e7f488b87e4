// Acceptance with the real client: every corpus session of Claude, Codex, Pi and Hermes, and both
// Copilot corpus sessions (same-agent round trip), is captured, materialized into a fresh
// COPILOT_HOME and resumed by the pinned `copilot` (1.0.102) with `--resume=<id> -p PROBE` in its
// offline BYOK mode against our own mock model API (test/pi/mockModel.ts; it rejects requests that
// break tool-call pairing, like a real API). The client must exit 0, resume THIS session (it appends
// session.resume and the probe to the file), and send in its first model request every user text we
// wrote (every user text of the source), every tool call we wrote with its result, then the probe.
// The Anthropic-wire corpus session is also resumed over the Anthropic wire: its signed thinking
// goes back with the signature.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { copilot } from '../../adapters/copilot/index.js';
import { materializeCopilot } from '../../adapters/copilot/materialize.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { startMockModel, type ModelRequest } from '../pi/mockModel.js';
import { runCopilot } from '../support/copilotClient.js';
import { SOURCES } from '../support/matrix.js';
import { ANTHROPIC, OPENAI } from '../copilot/support.js';

const PROBE = 'SP-COPILOT-ACCEPTANCE-PROBE: reply OK';
type Json = Record<string, any>;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-copilot-acceptance-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, into);
  return into;
}

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The user text blocks of a canonical session (what the writer must carry). */
function userTexts(events: SpEvent[]): string[] {
  const root = events.find((e) => e.type === 'session.start')?.session;
  return events
    .filter((e) => e.session === root && e.type === 'message.user')
    .flatMap((e) => (((e.payload as Json).content as Json[] | undefined) ?? []).filter((b) => b.type === 'text').map((b) => String(b.text)))
    .filter((t) => t.trim() !== '');
}

interface Resumed {
  written: Json[];
  after: Json[];
  request?: ModelRequest;
  requests: ModelRequest[];
  code: number | null;
  stderr: string;
  timedOut: boolean;
  losses: LossEntry[];
  ms: number;
}

async function materializeAndResume(events: SpEvent[], provider: 'openai' | 'anthropic' = 'openai'): Promise<Resumed> {
  const base = join(work, randomUUID().slice(0, 8));
  const cwd = join(base, 'project');
  mkdirSync(cwd, { recursive: true });
  const home = join(base, 'home');
  const losses: LossEntry[] = [];
  async function* from(): AsyncGenerator<SpEvent> {
    yield* events;
  }
  const result = await materializeCopilot(from(), { home: join(home, '.copilot'), cwd: realpathSync(cwd), onLoss: (l) => losses.push(l) });
  const read = (): Json[] => readFileSync(result.path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Json);
  const written = read();
  const mock = await startMockModel();
  const started = Date.now();
  try {
    const run = await runCopilot(result.session_id, PROBE, { home, cwd: result.cwd, mock, provider });
    return { written, after: read(), request: mock.requests[0], requests: mock.requests, code: run.code, stderr: run.stderr + run.stdout.slice(-1000), timedOut: run.timedOut, losses, ms: Date.now() - started };
  } finally {
    await mock.close();
  }
}

/** What every resumed session must show. */
function expectResumed(r: Resumed, source: SpEvent[]): void {
  expect(r.timedOut, r.stderr).toBe(false);
  expect(r.code, r.stderr.slice(-2000)).toBe(0);
  expect(r.requests.map((q) => q.violations)).toEqual(r.requests.map(() => []));
  expect(r.request, 'the model got no request').toBeDefined();
  const body = r.request!.body;
  const sent = squash(strings(body.messages).join('\n'));
  // The probe comes last, after the whole history.
  expect(strings(body.messages.at(-1)).join('\n')).toContain(PROBE);
  // Every user text of the source was written, and the client sent it.
  const written = r.written.filter((l) => l.type === 'user.message').map((l) => squash(String(l.data.transformedContent ?? l.data.content)));
  for (const text of userTexts(source)) {
    const t = squash(text).slice(0, 200);
    expect(written.some((w) => w.includes(t)), `not written: ${t.slice(0, 60)}`).toBe(true);
    expect(sent.includes(t), `not sent: ${t.slice(0, 60)}`).toBe(true);
  }
  // Every call written, with its result, reached the model, paired (the mock checks the pairing).
  const calls = r.written.filter((l) => l.type === 'assistant.message').flatMap((l) => (l.data.toolRequests as Json[]).map((t) => String(t.toolCallId)));
  const results = new Set(r.written.filter((l) => l.type === 'tool.execution_complete').map((l) => String(l.data.toolCallId)));
  const sourceCalls = source.filter((e) => e.type === 'tool.call' && e.derived_from === undefined && e.session === source[0].session);
  expect(calls.length).toBe(sourceCalls.length);
  const sentCalls = new Set<string>();
  const sentResults = new Set<string>();
  for (const m of body.messages as Json[]) {
    for (const c of m.tool_calls ?? []) sentCalls.add(String(c.id));
    if (m.role === 'tool') sentResults.add(String(m.tool_call_id));
    if (Array.isArray(m.content)) for (const b of m.content) {
      if (b.type === 'tool_use') sentCalls.add(String(b.id));
      if (b.type === 'tool_result') sentResults.add(String(b.tool_use_id));
    }
  }
  for (const id of calls) {
    expect(results.has(id), `no result written for ${id}`).toBe(true);
    expect(sentCalls.has(id), `call ${id} not sent`).toBe(true);
    expect(sentResults.has(id), `result of ${id} not sent`).toBe(true);
  }
  // The client resumed THIS session: it appended its resume event and the probe to our file.
  const appended = r.after.slice(r.written.length);
  expect(appended.some((l) => l.type === 'session.resume')).toBe(true);
  expect(appended.some((l) => l.type === 'user.message' && String(l.data.content).includes(PROBE))).toBe(true);
}

describe('acceptance: the real Copilot CLI resumes sessions materialized from every corpus session', () => {
  for (const source of SOURCES) {
    it(`${source.agent} ${source.name} → Copilot`, async () => {
      const events = await source.capture();
      const r = await materializeAndResume(events);
      expectResumed(r, events);
    });
  }

  for (const [label, fixture] of [['OpenAI wire (gpt-4.1)', OPENAI], ['Anthropic wire (claude-sonnet-4.5, signed thinking)', ANTHROPIC]] as const) {
    it(`Copilot ${label} → canonical → Copilot`, async () => {
      const { events } = await captureAll(copilot, fixture);
      const r = await materializeAndResume(events);
      expectResumed(r, events);
      // Nothing but bookkeeping (meta) stays behind on a same-agent trip.
      expect(r.losses.filter((l) => l.code !== 'meta')).toEqual([]);
    });
  }

  it('Copilot Anthropic-wire session resumed over the Anthropic wire: thinking goes back with its signature', async () => {
    const { events } = await captureAll(copilot, ANTHROPIC);
    const r = await materializeAndResume(events, 'anthropic');
    expectResumed(r, events);
    expect(r.request!.api).toBe('anthropic');
    const thinking = (r.request!.body.messages as Json[]).flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b: Json) => b.type === 'thinking') : []));
    expect(thinking.length).toBeGreaterThan(0);
    expect(thinking[0].signature).toBe('mock-signature');
  });
});
