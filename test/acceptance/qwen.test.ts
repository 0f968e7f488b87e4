// Acceptance with the real client: every corpus session of the first four agents (Claude Code,
// Codex, Pi, Hermes) and every Qwen corpus session is captured, materialized into a throw-away Qwen
// home, and resumed by the pinned `qwen` (@qwen-code/qwen-code 0.24.4) with
// `qwen -p PROBE --resume <id>` against our own mock OpenAI chat-completions API (test/pi/mockModel.ts,
// which refuses unpaired tool calls like a real provider). The client must exit 0 and send, in its
// first request, every user text, every tool call and every tool result the written file holds,
// then the probe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { qwen } from '../../adapters/qwen/index.js';
import { clientNeedsNewerNode } from '../support/engines.js';

const probe = (() => {
  try {
    return clientBin('qwen');
  } catch {
    return undefined;
  }
})();
const unsupported = clientNeedsNewerNode('@qwen-code/qwen-code', probe);
if (unsupported) process.stderr.write(`qwen acceptance skipped: ${unsupported}\n`);
import type { LossEntry, MaterializeResult } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { canonicalize } from '../../lib/core/jcs.js';
import { captureAll } from '../contract/testAdapter.js';
import { SOURCES } from '../support/matrix.js';
import { agentHome, clientBin, preparePlace, resumeWith, runLimit } from '../support/geminiClients.js';
import { startMockModel, type MockModel } from '../pi/mockModel.js';

type Json = Record<string, any>;
const PROBE = 'SP-ACCEPTANCE-PROBE: reply OK';
const CHATS = new URL('../../fixtures/qwen/corpus/.qwen/projects/-home-frank-acme-api/chats/', import.meta.url).pathname;
const QWEN_SESSIONS = ['5b9fc1a9-155a-439a-92db-56b55ac98811.jsonl', '1979a61b-1f78-43eb-bdec-2a31005e9698.jsonl'];

let work: string;
let counter = 0;
/** Tests run concurrently, two clients at a time; each has its own mock. */
const limit = runLimit(2);
/** A test that may wait for its turn at a client: its own time limit covers the wait. */
const concurrent = (name: string, fn: () => Promise<void>) => it.concurrent(name, fn, 900_000);
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-qwen-acceptance-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function written(path: string): { texts: string[]; calls: string[]; results: string[] } {
  const out = { texts: [] as string[], calls: [] as string[], results: [] as string[] };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as Json;
    for (const p of r.message?.parts ?? []) {
      if (r.type === 'user' && typeof p.text === 'string') out.texts.push(p.text);
      if (p.functionCall) out.calls.push(String(p.functionCall.id));
      if (p.functionResponse) out.results.push(String(p.functionResponse.id));
    }
  }
  return out;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: Json) => (typeof c.text === 'string' ? c.text : '')).join('\n');
  return '';
}

async function* from(events: SpEvent[]): AsyncGenerator<SpEvent> {
  for (const event of events) yield JSON.parse(canonicalize(event)) as SpEvent;
}

async function materializeAndResume(events: SpEvent[], beforeResume?: (result: MaterializeResult) => Promise<void>): Promise<{ result: MaterializeResult; losses: LossEntry[] }> {
  const place = preparePlace('qwen', join(work, String(counter++)));
  const losses: LossEntry[] = [];
  const result = await qwen.materialize!(from(events), { home: agentHome('qwen', place), cwd: place.cwd, onLoss: (l) => losses.push(l) });
  const expected = written(result.path);
  expect(expected.texts.length).toBeGreaterThan(0);
  await beforeResume?.(result);
  const mock: MockModel = await startMockModel('OK');
  const before = 0;
  let run;
  try {
    run = await limit(() => resumeWith('qwen', place, `http://127.0.0.1:${mock.port}`, result.session_id, PROBE));
  } finally {
    await mock.close();
  }
  expect(run.timedOut, run.stderr.slice(-800)).toBe(false);
  const refused = mock.requests.slice(before).flatMap((r) => r.violations);
  expect(refused, 'the mock (like a real provider) refused the history').toEqual([]);
  expect(run.code, run.stderr.slice(-800)).toBe(0);
  // The agent-loop request: the one that offers tools.
  const request = mock.requests.slice(before).find((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
  expect(request, 'no agent-loop request').toBeDefined();
  const messages: Json[] = request!.body.messages;
  const squash = (t: string): string => t.replace(/\s+/g, ' ').trim();
  const seen = squash(messages.filter((m) => m.role === 'user').map((m) => contentText(m.content)).join('\n'));
  expect(expected.texts.filter((t) => !seen.includes(squash(t)))).toEqual([]);
  const calls = messages.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c: Json) => String(c.id)) : []));
  const results = messages.filter((m) => m.role === 'tool').map((m) => String(m.tool_call_id));
  expect(expected.calls.filter((id) => !calls.includes(id))).toEqual([]);
  expect([...results].sort()).toEqual([...expected.results].sort());
  expect(contentText(messages[messages.length - 1].content)).toContain(PROBE);
  return { result, losses };
}

describe.skipIf(unsupported !== undefined)('qwen acceptance: the real client resumes materialized sessions and sends their whole history', () => {
  for (const source of SOURCES) {
    concurrent(`${source.agent} ${source.name} → qwen: resumed, every user text, call and result sent`, async () => {
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

  for (const name of QWEN_SESSIONS) {
    concurrent(`qwen ${name} → qwen (same agent, new id): resumed; a capture of the written file keeps the conversation`, async () => {
      const { events } = await captureAll(qwen, join(CHATS, name));
      let again: SpEvent[] = [];
      await materializeAndResume(events, async (result) => {
        again = (await captureAll(qwen, result.path)).events;
      });
      const view = (list: SpEvent[]) =>
        list.filter((e) => ['message.user', 'message.assistant', 'tool.call', 'tool.result'].includes(e.type)).map((e) => {
          const p = e.payload as Json;
          if (e.type === 'tool.call') return `call ${p.call_id} ${p.name}`;
          if (e.type === 'tool.result') return `result ${p.call_id} ${p.is_error === true}`;
          return `${e.type} ${(p.content ?? []).map((b: Json) => b.text ?? '').join('')}`;
        });
      expect(view(again)).toEqual(view(events));
    });
  }
});
