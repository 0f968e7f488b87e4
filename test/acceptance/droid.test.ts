// Acceptance with the real client: the Droid corpus session (same-agent round trip) and a Claude and
// a Codex corpus session are captured, materialized into a fresh `.factory` home and resumed by the
// pinned `droid` with `droid exec -s <id> PROBE`, offline against our mock model API
// (test/pi/mockModel.ts; it rejects requests that break tool-call pairing, like a real API). The
// client must exit 0, append the probe to THIS session, and send in its model request every user
// text we wrote, every tool call we wrote with its result, then the probe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { droid } from '../../adapters/droid/index.js';
import { materializeDroid } from '../../adapters/droid/materialize.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { startMockModel, type MockModel } from '../pi/mockModel.js';
import { configureDroid, runDroid } from '../support/droidClient.js';
import { SOURCES } from '../support/matrix.js';
import { SESSION, THINKING } from '../droid/support.js';

const PROBE = 'SP-DROID-ACCEPTANCE-PROBE reply OK';
type Json = Record<string, any>;
const TIMEOUT = 120_000;

let work: string;
let mock: MockModel;
beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'sp-droid-acceptance-')));
  mock = await startMockModel();
});
afterAll(async () => {
  await mock?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const records = (path: string): Json[] => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Json);

function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, into);
  return into;
}

async function resume(name: string, events: SpEvent[]): Promise<{ written: Json[]; after: Json[]; request?: Json; code: number | null; out: string }> {
  const home = join(work, name, 'home');
  const cwd = join(work, name, 'project');
  mkdirSync(cwd, { recursive: true });
  const factory = configureDroid(home, mock.anthropicUrl);
  const result = await materializeDroid((async function* () {
    yield* events;
  })(), { home: factory, cwd });
  const written = records(result.path);
  const before = mock.requests.length;
  const run = await runDroid(result.session_id, PROBE, { home, cwd, apiUrl: mock.anthropicUrl });
  const request = mock.requests.slice(before).find((r) => r.api === 'anthropic' && strings(r.body.messages).some((s) => s.includes(PROBE)));
  return { written, after: records(result.path), request: request?.body, code: run.code, out: run.stdout + run.stderr };
}

function checkHistory(written: Json[], request: Json | undefined): void {
  expect(request, 'a model request carrying the probe').toBeDefined();
  const sent = request!.messages as Json[];
  const sentStrings = strings(sent);
  const messages = written.filter((r) => r.type === 'message').map((r) => r.message);
  for (const m of messages) {
    for (const block of m.content) {
      if (block.type === 'text') expect(sentStrings.some((s) => s.includes(block.text)), `text ${block.text.slice(0, 40)}`).toBe(true);
      if (block.type === 'tool_use') expect(sent.some((s) => Array.isArray(s.content) && s.content.some((b: Json) => b.type === 'tool_use' && b.id === block.id)), `call ${block.id}`).toBe(true);
      if (block.type === 'tool_result') expect(sent.some((s) => Array.isArray(s.content) && s.content.some((b: Json) => b.type === 'tool_result' && b.tool_use_id === block.tool_use_id)), `result ${block.tool_use_id}`).toBe(true);
    }
  }
  const last = sent.at(-1)!;
  expect(strings(last.content).some((s) => s.includes(PROBE))).toBe(true);
}

describe('droid acceptance: the real client resumes what sp wrote', () => {
  it('the Droid corpus session, captured and written again: resumed with its whole history', async () => {
    const { events } = await captureAll(droid, SESSION);
    const r = await resume('droid-corpus', events);
    expect(r.code, r.out).toBe(0);
    checkHistory(r.written, r.request);
    // The client appended the probe and its answer to THIS file.
    expect(r.after.length).toBeGreaterThan(r.written.length);
    expect(strings(r.after.slice(r.written.length)).some((s) => s.includes(PROBE))).toBe(true);
    expect(r.request!.messages.filter((m: Json) => m.role === 'assistant').length).toBe(r.written.filter((w) => w.type === 'message' && w.message.role === 'assistant').length);
  }, TIMEOUT);

  it('the Droid session with signed thinking: the thinking block goes back to the model with its signature', async () => {
    const { events } = await captureAll(droid, THINKING);
    const r = await resume('droid-thinking', events);
    expect(r.code, r.out).toBe(0);
    checkHistory(r.written, r.request);
    const sentThinking = (r.request!.messages as Json[]).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: Json) => b.type === 'thinking');
    expect(sentThinking.map((b: Json) => [b.thinking, b.signature])).toEqual([['The typo is in the string literal; one edit fixes it.', 'mock-signature-0']]);
  }, TIMEOUT);

  for (const name of ['claude/S1', 'codex/S1']) {
    it(`${name}, relayed into Droid: resumed with every prompt, call and result`, async () => {
      const source = SOURCES.find((s) => `${s.agent}/${s.name}` === name)!;
      const events = await source.capture();
      const r = await resume(name.replace('/', '-'), events);
      expect(r.code, r.out).toBe(0);
      checkHistory(r.written, r.request);
      expect(r.written.filter((w) => w.type === 'message').length).toBeGreaterThan(4);
    }, TIMEOUT);
  }
});
