// Acceptance with the real client: a recorded Continue session (same agent, new id), a Claude corpus
// session and a Codex corpus session relayed into Continue are written into a fresh global folder and
// continued by the pinned `cn` (1.5.47) headless, offline against our mock model (test/pi/mockModel.ts:
// it rejects a request whose tool calls are not answered, like the real API). The request that carries
// the probe must hold every prompt, answer, tool call and result we wrote, in order, then the probe.
// `cn --fork <id>` (the resume command the writer prints) starts a new session from ours; `cn --resume`
// continues the newest session file in place; `cn ls --json` lists what the index names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { continueCli } from '../../adapters/continue/index.js';
import { materializeContinue } from '../../adapters/continue/materialize.js';
import type { SpEvent } from '../../lib/core/event.js';
import { relay } from '../../lib/relay/relay.js';
import { captureAll } from '../contract/testAdapter.js';
import { startMockModel, type MockModel } from '../pi/mockModel.js';
import { continueHome, runContinue } from '../support/continueClient.js';
import { SOURCES } from '../support/matrix.js';
import { SUMMARY } from '../continue/support.js';

const PROBE = 'SP-CONTINUE-ACCEPTANCE-PROBE: reply OK';
const TIMEOUT = 150_000;
type Json = Record<string, any>;

let work: string;
let mock: MockModel;
beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'sp-continue-acceptance-')));
  mock = await startMockModel('OK');
});
afterAll(async () => {
  await mock?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const readJson = (path: string): Json => JSON.parse(readFileSync(path, 'utf8')) as Json;
const textOf = (content: unknown): string => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: Json) => p.text ?? '').join('') : '');

/** What the client must send for a written history: each item, then a tool message per call state. */
function expectedMessages(history: Json[]): string[] {
  return history.flatMap((item) => {
    const m = item.message;
    const head = m.role === 'assistant' ? `assistant:${textOf(m.content)}|${(m.toolCalls ?? []).map((c: Json) => `${c.id}:${c.function.name}:${c.function.arguments}`).join(',')}` : `${m.role}:${textOf(m.content)}`;
    const results = (item.toolCallStates ?? []).map((s: Json) => `tool:${s.toolCallId}:${s.output.map((o: Json) => o.content).join('\n')}`);
    return [head, ...results];
  });
}

function sentMessages(request: Json): string[] {
  return (request.messages as Json[]).filter((m) => m.role !== 'system').map((m) => {
    if (m.role === 'assistant') return `assistant:${textOf(m.content)}|${(m.tool_calls ?? []).map((c: Json) => `${c.id}:${c.function.name}:${c.function.arguments}`).join(',')}`;
    if (m.role === 'tool') return `tool:${m.tool_call_id}:${textOf(m.content)}`;
    return `${m.role}:${textOf(m.content)}`;
  });
}

interface Setup {
  home: string;
  global: string;
  cwd: string;
}

function setup(name: string): Setup {
  const home = join(work, name, 'home');
  const cwd = join(work, name, 'project');
  mkdirSync(cwd, { recursive: true });
  return { home, cwd, global: continueHome(home, mock.openaiUrl) };
}

/** Runs `cn -p --auto <mode…> PROBE`; returns the model request that carries the probe. */
async function probe(s: Setup, mode: string[]): Promise<Json> {
  const before = mock.requests.length;
  const run = await runContinue(['-p', '--auto', ...mode, PROBE], { home: s.home, cwd: s.cwd });
  expect(run.timedOut, run.stderr.slice(-1500)).toBe(false);
  expect(run.code, run.stdout.slice(-800) + run.stderr.slice(-1500)).toBe(0);
  const requests = mock.requests.slice(before);
  expect(requests.flatMap((r) => r.violations)).toEqual([]);
  const request = requests.find((r) => r.api === 'openai' && JSON.stringify(r.body.messages ?? []).includes(PROBE));
  expect(request, 'no model request carried the probe').toBeDefined();
  return request!.body;
}

function checkSent(request: Json, history: Json[]): void {
  const sent = sentMessages(request);
  expect(sent.slice(0, -1)).toEqual(expectedMessages(history));
  expect(sent.at(-1)).toBe(`user:${PROBE}`);
}

const streamOf = (events: SpEvent[]) =>
  (async function* () {
    yield* events;
  })();

describe('continue acceptance: the real client continues what sp wrote', () => {
  it('a recorded Continue session under a new id: `cn --fork <id>` sends its whole history, `cn ls` lists it', async () => {
    const s = setup('continue');
    const { events } = await captureAll(continueCli, SUMMARY);
    const result = await materializeContinue(streamOf(events), { home: s.global, cwd: s.cwd });
    expect(result.resume).toContain(`cn --fork ${result.session_id}`);
    const written = readJson(result.path);
    // Same history as the client recorded it, the errored calls included.
    const source = readJson(SUMMARY);
    expect(expectedMessages(written.history)).toEqual(expectedMessages(source.history));
    const request = await probe(s, ['--fork', result.session_id]);
    checkSent(request, written.history);
    expect(sentMessages(request).filter((m) => m.startsWith('tool:'))).toHaveLength(7);
    // The fork is a new session holding our history and the probe; ours is left as written.
    const forks = readdirSync(join(s.global, 'sessions')).filter((n) => n.endsWith('.json') && n !== 'sessions.json' && n !== `${result.session_id}.json`);
    expect(forks).toHaveLength(1);
    expect(JSON.stringify(readJson(join(s.global, 'sessions', forks[0])).history)).toContain(PROBE);
    expect(readJson(result.path)).toEqual(written);
    const list = await runContinue(['ls', '--json'], { home: s.home, cwd: s.cwd });
    expect(list.code, list.stderr.slice(-800)).toBe(0);
    const listed = JSON.parse(list.stdout.slice(list.stdout.indexOf('{'))) as Json;
    expect(listed.sessions.map((x: Json) => x.id)).toContain(result.session_id);
  }, TIMEOUT);

  it('a Claude corpus session (another agent): `cn --fork <id>` sends every prompt, call and result', async () => {
    const s = setup('claude');
    const source = SOURCES.find((x) => x.agent === 'claude' && x.name === 'S1')!;
    const events = await source.capture();
    const outcome = await relay(continueCli, streamOf(events), { home: s.global, cwd: s.cwd });
    const written = readJson(outcome.results[0].path);
    const request = await probe(s, ['--fork', outcome.results[0].session_id]);
    checkSent(request, written.history);
    const texts = events.filter((e) => e.type === 'message.user').map((e) => textOf((e.payload as Json).content)).filter((t) => t.trim() !== '');
    const sent = sentMessages(request).join('\n');
    for (const text of texts) expect(sent).toContain(text);
    const calls = events.filter((e) => e.type === 'tool.call').length;
    expect(sentMessages(request).filter((m) => m.startsWith('tool:'))).toHaveLength(calls);
  }, TIMEOUT);

  it('a Codex corpus session relayed into Continue: `cn --resume` continues the written session in place', async () => {
    const s = setup('codex');
    // The only session file in this home is the one written: --resume takes the newest file.
    const source = SOURCES.find((x) => x.agent === 'codex' && x.name === 'S1')!;
    const events = await source.capture();
    const outcome = await relay(continueCli, streamOf(events), { home: s.global, cwd: s.cwd });
    const path = outcome.results[0].path;
    const written = readJson(path);
    expect(written.history.some((i: Json) => (i.toolCallStates ?? []).length > 0)).toBe(true);
    const request = await probe(s, ['--resume']);
    checkSent(request, written.history);
    const after = readJson(path);
    expect(after.sessionId).toBe(outcome.results[0].session_id);
    expect(after.history.slice(0, written.history.length)).toEqual(written.history);
    expect(JSON.stringify(after.history.slice(written.history.length))).toContain(PROBE);
  }, TIMEOUT);
});
