// Acceptance with the real client: every corpus session of Claude, Codex, Pi and Hermes, and the
// three OpenCode corpus sessions (same-agent round trip), is captured and materialized into a copy
// of a client-made opencode.db in a fresh HOME, then resumed by the pinned `opencode` (1.18.33) with
// `opencode run --session ID PROBE` from the session's directory, offline against our own mock
// model API (test/pi/mockModel.ts; it rejects requests that break tool-call pairing, like a real
// API). The client must exit 0, store the probe in THIS session, and send in its model request every
// user text of the source, every tool call we wrote with its result, then the probe. The Anthropic
// corpus session goes back over the Anthropic wire with its thinking signatures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { opencode } from '../../adapters/opencode/index.js';
import { materializeOpenCode } from '../../adapters/opencode/materialize.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { startMockModel, type ModelRequest } from '../pi/mockModel.js';
import { configureOpenCode, opencodeHome, runOpenCode } from '../support/opencodeClient.js';
import { SOURCES } from '../support/matrix.js';
import { ATTACHMENT, DB, FAILING, FEATURE, copyDb, locator } from '../opencode/support.js';

// One word: `opencode run` re-joins positional words with spaces in quotes.
const PROBE = 'SP-OPENCODE-ACCEPTANCE-PROBE-reply-OK';
type Json = Record<string, any>;
// A loaded machine: the client alone took 70 s per resume with 8 jobs on 2 cores.
const TIMEOUT = 240_000;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-opencode-acceptance-'));
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

function userTexts(events: SpEvent[]): string[] {
  const root = events.find((e) => e.type === 'session.start')?.session;
  return events
    .filter((e) => e.session === root && e.type === 'message.user')
    .flatMap((e) => (((e.payload as Json).content as Json[] | undefined) ?? []).filter((b) => b.type === 'text').map((b) => String(b.text)))
    .filter((t) => t.trim() !== '');
}

interface Rows {
  messages: Json[];
  parts: Json[];
}

function readRows(db: string, session: string): Rows {
  const handle = new Database(db, { readonly: true });
  try {
    const messages = (handle.prepare('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id').all(session) as Json[]).map((m) => ({ ...m, data: JSON.parse(m.data) }));
    const parts = (handle.prepare('SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id').all(session) as Json[]).map((p) => ({ ...p, data: JSON.parse(p.data) }));
    return { messages, parts };
  } finally {
    handle.close();
  }
}

interface Resumed {
  written: Rows;
  after: Rows;
  request?: ModelRequest;
  requests: ModelRequest[];
  code: number | null;
  out: string;
  timedOut: boolean;
  losses: LossEntry[];
}

async function materializeAndResume(events: SpEvent[]): Promise<Resumed> {
  const base = join(work, randomUUID().slice(0, 8));
  const cwd = join(base, 'project');
  mkdirSync(cwd, { recursive: true });
  const { home, data } = opencodeHome(base);
  const db = copyDb(data);
  const losses: LossEntry[] = [];
  async function* from(): AsyncGenerator<SpEvent> {
    yield* events;
  }
  const result = await materializeOpenCode(from(), { home: data, cwd: realpathSync(cwd), backup: false, onLoss: (l) => losses.push(l) });
  const written = readRows(db, result.session_id);
  const mock = await startMockModel();
  try {
    configureOpenCode(home, mock);
    const run = await runOpenCode(result.session_id, PROBE, { home, cwd: result.cwd, timeoutMs: TIMEOUT });
    const request = mock.requests.find((q) => strings(q.body.messages).some((s) => s.includes(PROBE)));
    return { written, after: readRows(db, result.session_id), request, requests: mock.requests, code: run.code, out: `${run.stderr}\n${run.stdout}`.slice(-3000), timedOut: run.timedOut, losses };
  } finally {
    await mock.close();
  }
}

function expectResumed(r: Resumed, source: SpEvent[]): void {
  expect(r.timedOut, r.out).toBe(false);
  expect(r.code, r.out).toBe(0);
  expect(r.requests.map((q) => q.violations)).toEqual(r.requests.map(() => []));
  expect(r.request, `no model request carried the probe: ${r.out}`).toBeDefined();
  const messages = r.request!.body.messages as Json[];
  expect(strings(messages.at(-1)).join('\n')).toContain(PROBE);
  const sent = squash(strings(messages).join('\n'));
  const writtenTexts = r.written.parts.filter((p) => p.data.type === 'text').map((p) => squash(p.data.text));
  for (const text of userTexts(source)) {
    const t = squash(text).slice(0, 200);
    expect(writtenTexts.some((w) => w.includes(t)), `not written: ${t.slice(0, 60)}`).toBe(true);
    expect(sent.includes(t), `not sent: ${t.slice(0, 60)}`).toBe(true);
  }
  const tools = r.written.parts.filter((p) => p.data.type === 'tool');
  const sourceCalls = source.filter((e) => e.type === 'tool.call' && e.derived_from === undefined && e.session === source[0].session);
  expect(tools.length).toBe(sourceCalls.length);
  const sentCalls = new Set<string>();
  const sentResults = new Set<string>();
  for (const m of messages) {
    for (const c of m.tool_calls ?? []) sentCalls.add(String(c.id));
    if (m.role === 'tool') sentResults.add(String(m.tool_call_id));
    if (Array.isArray(m.content)) for (const b of m.content) {
      if (b.type === 'tool_use') sentCalls.add(String(b.id));
      if (b.type === 'tool_result') sentResults.add(String(b.tool_use_id));
    }
  }
  for (const t of tools) {
    expect(['completed', 'error']).toContain(t.data.state.status);
    expect(t.data.state.time?.start, 'tool state without time').toBeTypeOf('number');
    expect(sentCalls.has(t.data.callID), `call ${t.data.callID} not sent`).toBe(true);
    expect(sentResults.has(t.data.callID), `result of ${t.data.callID} not sent`).toBe(true);
  }
  // Written in conversation order, never in the future; the client stored the probe in THIS session.
  const times = r.written.messages.map((m) => m.time_created as number);
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(new Set(times).size).toBe(times.length);
  const probe = r.after.parts.find((p) => p.data.type === 'text' && String(p.data.text).includes(PROBE));
  expect(probe, 'the probe was not stored in the materialized session').toBeDefined();
}

describe('acceptance: the real OpenCode client resumes sessions materialized from every corpus session', () => {
  for (const source of SOURCES) {
    it(`${source.agent} ${source.name} → OpenCode`, async () => {
      const events = await source.capture();
      const r = await materializeAndResume(events);
      expectResumed(r, events);
    }, TIMEOUT + 30_000);
  }

  for (const [label, id] of [['feature (OpenAI chat, reasoning, parallel edits)', FEATURE], ['failing (Anthropic, signed thinking, tool error, Chinese)', FAILING], ['--file attachment (synthetic parts)', ATTACHMENT]] as const) {
    it(`OpenCode ${label} → canonical → OpenCode`, async () => {
      const { events } = await captureAll(opencode, locator(DB, id));
      const r = await materializeAndResume(events);
      expectResumed(r, events);
      expect(r.losses.filter((l) => l.code !== 'meta')).toEqual([]);
      if (id === FAILING) {
        // The session's own model (mock-anthropic/mock-claude): thinking goes back with its signatures.
        expect(r.request!.api).toBe('anthropic');
        const signatures = (r.request!.body.messages as Json[]).flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b: Json) => b.type === 'thinking').map((b: Json) => b.signature) : []));
        expect(signatures).toEqual(['sig-zh-1', 'sig-zh-2']);
      }
    }, TIMEOUT + 30_000);
  }
});
