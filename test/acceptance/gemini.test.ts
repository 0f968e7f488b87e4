// Acceptance with the real client: every corpus session of the first four agents (Claude Code,
// Codex, Pi, Hermes) and every Gemini corpus session is captured, materialized into a throw-away
// Gemini home, and resumed by the pinned `gemini` (@google/gemini-cli 0.61.0) with
// `gemini -p PROBE --resume <id>` against our own mock Gemini API (test/support/mockGemini.ts,
// which refuses unpaired function calls like the real API). The client must exit 0 and send, in its
// first agent-loop request, every user text, every function call and every function response the
// written file holds — each response exactly once — followed by the probe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gemini } from '../../adapters/gemini/index.js';
import type { GeminiMaterializeResult } from '../../adapters/gemini/materialize.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { canonicalize } from '../../lib/core/jcs.js';
import { captureAll } from '../contract/testAdapter.js';
import { SOURCES } from '../support/matrix.js';
import { agentHome, preparePlace, resumeWith, runLimit } from '../support/geminiClients.js';
import { startMockGemini, type MockGemini } from '../support/mockGemini.js';

type Json = Record<string, any>;
const PROBE = 'SP-ACCEPTANCE-PROBE: reply OK';
const CHATS = new URL('../../fixtures/gemini/corpus/.gemini/tmp/acme-api/chats/', import.meta.url).pathname;
const GEMINI_SESSIONS = ['session-2026-11-30T05-46-3222ee9e.jsonl', 'session-2026-11-30T05-46-3b7eba0a.jsonl', 'session-2026-11-30T05-46-c5c0d891.jsonl'];

let work: string;
let counter = 0;
/** Tests run concurrently, two clients at a time; each has its own mock. */
const limit = runLimit(2);
/** A test that may wait for its turn at a client: its own time limit covers the wait. */
const concurrent = (name: string, fn: () => Promise<void>) => it.concurrent(name, fn, 900_000);
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-gemini-acceptance-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** What the written file holds for the model: user texts, call ids (without the `<tool>__` prefix), result ids. */
function written(path: string): { texts: string[]; calls: string[]; results: string[] } {
  const out = { texts: [] as string[], calls: [] as string[], results: [] as string[] };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as Json;
    if (r.type === 'user') for (const p of r.content) if (typeof p.text === 'string') out.texts.push(p.text);
    for (const c of r.toolCalls ?? []) {
      const raw = String(c.id).startsWith(`${c.name}__`) ? String(c.id).slice(c.name.length + 2) : String(c.id);
      out.calls.push(raw);
      out.results.push(raw);
    }
  }
  return out;
}

/** What the first agent-loop request sent: every text, call id and response id. */
function sent(contents: Json[]): { texts: string; calls: string[]; responses: string[]; last: string } {
  const texts: string[] = [];
  const calls: string[] = [];
  const responses: string[] = [];
  for (const c of contents) {
    for (const p of c.parts ?? []) {
      if (typeof p.text === 'string') texts.push(p.text);
      if (p.functionCall) calls.push(String(p.functionCall.id));
      if (p.functionResponse) responses.push(String(p.functionResponse.id));
    }
  }
  const lastParts = contents[contents.length - 1]?.parts ?? [];
  return { texts: texts.join('\n'), calls, responses, last: lastParts.map((p: Json) => p.text ?? '').join('') };
}

async function* from(events: SpEvent[]): AsyncGenerator<SpEvent> {
  for (const event of events) yield JSON.parse(canonicalize(event)) as SpEvent;
}

async function materializeAndResume(events: SpEvent[], beforeResume?: (result: GeminiMaterializeResult) => Promise<void>): Promise<{ result: GeminiMaterializeResult; losses: LossEntry[] }> {
  const place = preparePlace('gemini', join(work, String(counter++)));
  const losses: LossEntry[] = [];
  const result = (await gemini.materialize!(from(events), { home: agentHome('gemini', place), cwd: place.cwd, onLoss: (l) => losses.push(l) })) as GeminiMaterializeResult;
  const expected = written(result.path);
  expect(expected.texts.length).toBeGreaterThan(0);
  await beforeResume?.(result);
  const mock: MockGemini = await startMockGemini('OK');
  const before = 0;
  let run;
  try {
    run = await limit(() => resumeWith('gemini', place, mock.url, result.session_id, PROBE));
  } finally {
    await mock.close();
  }
  expect(run.timedOut, run.stderr.slice(-800)).toBe(false);
  const refused = mock.requests.slice(before).flatMap((r) => r.violations);
  expect(refused, 'the mock (like the real API) refused the history').toEqual([]);
  expect(run.code, run.stderr.slice(-800)).toBe(0);
  const contents = mock.firstMain(before);
  expect(contents, 'no agent-loop request').toBeDefined();
  const got = sent(contents!);
  expect(got.last).toBe(PROBE);
  const squash = (t: string): string => t.replace(/\s+/g, ' ').trim();
  const seen = squash(got.texts);
  expect(expected.texts.filter((t) => !seen.includes(squash(t).replace(/^\u200b/, '')))).toEqual([]);
  expect(expected.calls.filter((id) => !got.calls.includes(id))).toEqual([]);
  // Each result exactly once (the client's own files make it send them twice).
  expect([...got.responses].sort()).toEqual([...expected.results].sort());
  return { result, losses };
}

describe('gemini acceptance: the real client resumes materialized sessions and sends their whole history', () => {
  for (const source of SOURCES) {
    concurrent(`${source.agent} ${source.name} → gemini: resumed, every user text, call and result sent once`, async () => {
      const events = await source.capture();
      const { losses } = await materializeAndResume(events);
      expect(losses.filter((l) => l.code === 'orphan-result')).toEqual([]);
      // Only calls that never had a result get a stub: no result was lost on the way.
      const main = events[0].session;
      const answered = new Set(events.filter((e) => e.session === main && e.type === 'tool.result').map((e) => String((e.payload as Json).call_id)));
      const stubbed = losses.filter((l) => l.code === 'stub-result').map((l) => events.find((e) => e.session === main && e.seq === l.seq && e.type === 'tool.call'));
      expect(stubbed.filter((call) => call && answered.has(String((call.payload as Json).call_id))).map((c) => c!.seq)).toEqual([]);
    });
  }

  for (const name of GEMINI_SESSIONS) {
    concurrent(`gemini ${name} → gemini (same agent, new id): resumed, each result once`, async () => {
      const { events } = await captureAll(gemini, join(CHATS, name));
      // The round trip keeps the conversation: a capture of the written file (before the client
      // appends its new turn) gives the same texts, calls and results in the same order.
      let again: SpEvent[] = [];
      await materializeAndResume(events, async (result) => {
        again = (await captureAll(gemini, result.path)).events;
      });
      const view = (list: SpEvent[]) =>
        list.filter((e) => ['message.user', 'message.assistant', 'tool.call', 'tool.result'].includes(e.type)).map((e) => {
          const p = e.payload as Json;
          if (e.type === 'tool.call') return `call ${p.call_id} ${p.name}`;
          if (e.type === 'tool.result') return `result ${p.call_id} ${p.is_error === true}`;
          return `${e.type} ${(p.content ?? []).map((b: Json) => b.text ?? '').join('')}`;
        }).filter((s) => !/^message\.assistant $/.test(s));
      expect(view(again)).toEqual(view(events));
    });
  }
});
