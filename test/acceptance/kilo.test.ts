// Acceptance with the real client: the Kilo recording (same-agent round trip), a Claude and a Codex
// corpus session are captured and materialized into a copy of the client-made kilo.db in a fresh
// HOME, then resumed by the pinned `kilo` (7.7.7) with `kilo run --session ID PROBE` from the
// session's directory, offline against our own mock model API (test/pi/mockModel.ts; it rejects
// requests that break tool-call pairing, like a real API). The client must exit 0, store the probe
// in THIS session, and send in its model request every user text of the source, every tool call we
// wrote with its result, in the order written, then the probe. Three cases only: a turn costs the
// client about 25 s of CPU (docs/formats/kilo.md §5), two minutes and more on a loaded machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { kilo } from '../../adapters/kilo/index.js';
import { materializeKilo } from '../../adapters/kilo/materialize.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { startMockModel, type ModelRequest } from '../pi/mockModel.js';
import { KILO_BIN, KILO_TIMEOUT, configureKilo, kiloHome, kiloPresent, runKilo } from '../support/kiloClient.js';
import { SOURCES } from '../support/matrix.js';
import { DB, SESSION, copyDb, locator } from '../kilo/support.js';

// One word: `kilo run` re-joins positional words with spaces in quotes.
const PROBE = 'SP-KILO-ACCEPTANCE-PROBE-reply-OK';
type Json = Record<string, any>;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-kilo-acceptance-'));
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
  session: Json;
  messages: Json[];
  parts: Json[];
}

function readRows(db: string, session: string): Rows {
  const handle = new Database(db, { readonly: true });
  try {
    const row = handle.prepare('SELECT * FROM session WHERE id = ?').get(session) as Json;
    const messages = (handle.prepare('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id').all(session) as Json[]).map((m) => ({ ...m, data: JSON.parse(m.data) }) as Json);
    const parts = (handle.prepare('SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id').all(session) as Json[]).map((p) => ({ ...p, data: JSON.parse(p.data) }) as Json);
    return { session: row, messages, parts };
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
  const { home, data } = kiloHome(base);
  const db = copyDb(data);
  const losses: LossEntry[] = [];
  async function* from(): AsyncGenerator<SpEvent> {
    yield* events;
  }
  const result = await materializeKilo(from(), { home: data, cwd: realpathSync(cwd), backup: false, onLoss: (l) => losses.push(l) });
  expect(result.resume_exec?.argv).toEqual(['kilo', '--session', result.session_id]);
  const written = readRows(db, result.session_id);
  const mock = await startMockModel();
  try {
    configureKilo(home, mock);
    const run = await runKilo(result.session_id, PROBE, { home, cwd: result.cwd });
    const request = mock.requests.find((q) => strings(q.body.messages).some((s) => s.includes(PROBE)));
    return { written, after: readRows(db, result.session_id), request, requests: mock.requests, code: run.code, out: `${run.stderr}\n${run.stdout}`.slice(-3000), timedOut: run.timedOut, losses };
  } finally {
    await mock.close();
  }
}

/** One step of a conversation: a user or assistant text, a call or a result (by call id). */
type Step = { kind: 'user' | 'assistant' | 'call' | 'result'; value: string };

/** The request's history as steps, in the order sent. */
function sentSteps(messages: Json[]): Step[] {
  const out: Step[] = [];
  for (const m of messages) {
    if (m.role === 'tool') out.push({ kind: 'result', value: String(m.tool_call_id) });
    else if (m.role === 'user' || m.role === 'assistant') {
      for (const text of typeof m.content === 'string' ? [m.content] : Array.isArray(m.content) ? m.content.filter((b: Json) => b.type === 'text').map((b: Json) => String(b.text)) : []) out.push({ kind: m.role, value: squash(text) });
      for (const c of m.tool_calls ?? []) out.push({ kind: 'call', value: String(c.id) });
    }
  }
  return out;
}

/**
 * What was written, in the order written, as a chat API can carry it: per message its texts, then
 * its tool parts' calls, then their results (parallel calls go out together, then their results).
 */
function writtenSteps(rows: Rows): Step[] {
  const out: Step[] = [];
  for (const m of rows.messages) {
    const parts = rows.parts.filter((p) => p.message_id === m.id);
    for (const p of parts) if (p.data.type === 'text' && squash(p.data.text) !== '') out.push({ kind: m.data.role, value: squash(p.data.text).slice(0, 200) });
    const calls = parts.filter((p) => p.data.type === 'tool').map((p) => String(p.data.callID));
    out.push(...calls.map((value): Step => ({ kind: 'call', value })), ...calls.map((value): Step => ({ kind: 'result', value })));
  }
  return out;
}

const sameStep = (written: Step, sent: Step): boolean => written.kind === sent.kind && (written.kind === 'call' || written.kind === 'result' ? sent.value === written.value : sent.value.includes(written.value));

function expectResumed(r: Resumed, source: SpEvent[]): void {
  expect(r.timedOut, r.out).toBe(false);
  expect(r.code, r.out).toBe(0);
  expect(r.requests.map((q) => q.violations)).toEqual(r.requests.map(() => []));
  expect(r.request, `no model request carried the probe: ${r.out}`).toBeDefined();
  const messages = r.request!.body.messages as Json[];
  expect(strings(messages.at(-1)).join('\n')).toContain(PROBE);
  // Kilo's own columns, as 7.7.7 writes them.
  expect(r.written.session).toMatchObject({ version: '7.7.7', agent: 'code' });
  expect(r.written.messages.every((m) => m.data.agent === 'code')).toBe(true);

  // Every user text of the source was written and sent.
  const sent = squash(strings(messages).join('\n'));
  const writtenTexts = r.written.parts.filter((p) => p.data.type === 'text').map((p) => squash(p.data.text));
  for (const text of userTexts(source)) {
    const t = squash(text).slice(0, 200);
    expect(writtenTexts.some((w) => w.includes(t)), `not written: ${t.slice(0, 60)}`).toBe(true);
    expect(sent.includes(t), `not sent: ${t.slice(0, 60)}`).toBe(true);
  }
  // One tool part per source call, each complete.
  const tools = r.written.parts.filter((p) => p.data.type === 'tool');
  const sourceCalls = source.filter((e) => e.type === 'tool.call' && e.derived_from === undefined && e.session === source[0].session);
  expect(tools.length).toBe(sourceCalls.length);
  for (const t of tools) {
    expect(['completed', 'error']).toContain(t.data.state.status);
    expect(t.data.state.time?.start, 'tool state without time').toBeTypeOf('number');
  }
  // Every written turn, call and result reaches the model, in the order written, before the probe.
  const sentOrder = sentSteps(messages);
  let at = -1;
  for (const step of writtenSteps(r.written)) {
    const found = sentOrder.findIndex((s, i) => i > at && sameStep(step, s));
    expect(found, `not sent in order: ${step.kind} ${step.value.slice(0, 80)}`).toBeGreaterThan(at);
    at = found;
  }
  expect(sentOrder.slice(at + 1).some((s) => s.kind === 'user' && s.value.includes(PROBE))).toBe(true);
  // Written in conversation order, never in the future; the client stored the probe in THIS session.
  const times = r.written.messages.map((m) => m.time_created as number);
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(new Set(times).size).toBe(times.length);
  const probe = r.after.parts.find((p) => p.data.type === 'text' && String(p.data.text).includes(PROBE));
  expect(probe, 'the probe was not stored in the materialized session').toBeDefined();
}

const present = kiloPresent();
if (!present) console.warn(`kilo acceptance skipped: no Kilo Code CLI at ${KILO_BIN} (run \`node scripts/clients.mjs prepare\`)`);

describe.skipIf(!present)('acceptance: the real Kilo Code CLI resumes sessions sp wrote', () => {
  it('Kilo recording → canonical → Kilo', async () => {
    const { events } = await captureAll(kilo, locator(DB, SESSION));
    const r = await materializeAndResume(events);
    expectResumed(r, events);
    expect(r.losses.filter((l) => l.code !== 'meta')).toEqual([]);
  }, KILO_TIMEOUT + 30_000);

  for (const [agent, name] of [['claude', 'S1'], ['codex', 'S1']] as const) {
    it(`${agent} ${name} → Kilo`, async () => {
      const source = SOURCES.find((s) => s.agent === agent && s.name === name)!;
      const events = await source.capture();
      const r = await materializeAndResume(events);
      expectResumed(r, events);
    }, KILO_TIMEOUT + 30_000);
  }
});
