// Acceptance with the real client: a recorded Auggie session (same agent, new id), a Claude corpus
// session and a Codex corpus session (other agents) are captured, materialized into a fresh cache
// folder and resumed by the pinned `auggie` (0.36.0) with `--print -r <id>`, offline against our
// mock tenant (test/support/mockAugment.ts). The first /chat-stream request must carry, as
// `chat_history`, every user text, tool use and tool result we wrote, in order, with every tool use
// answered by the next request (historyViolations); the probe is the new request; and the client
// must append the probe to THIS session file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auggie } from '../../adapters/auggie/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { runAuggie } from '../support/auggieClient.js';
import { historyViolations, startMockAugment, type MockAugment } from '../support/mockAugment.js';
import { SOURCES } from '../support/matrix.js';
import { TOOLS, readDocument } from '../auggie/support.js';

const PROBE = 'SP-AUGGIE-ACCEPTANCE-PROBE: reply OK';
type Json = Record<string, any>;

let work: string;
let mock: MockAugment;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sp-auggie-acceptance-'));
  mock = await startMockAugment();
});
afterAll(async () => {
  await mock?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** An exchange as the model sees it: request texts and tool result ids, then response texts and tool use ids. */
function items(exchange: Json): string[] {
  const request = (exchange.request_nodes as Json[]).flatMap((n) => (n.type === 0 ? [`text:${squash(n.text_node.content)}`] : n.type === 1 ? [`tool_result:${n.tool_result_node.tool_use_id}`] : []));
  const response = (exchange.response_nodes as Json[]).flatMap((n) => (n.type === 0 ? [`answer:${squash(n.content)}`] : n.type === 5 ? [`tool_use:${n.tool_use.tool_use_id}`] : []));
  return [...request, ...response];
}

async function resume(events: SpEvent[], name: string): Promise<{ written: Json; request: Json; after: Json; sessions: string[] }> {
  const home = join(work, name);
  const cacheDir = join(home, '.augment');
  const cwd = join(work, `${name}-project`);
  mkdirSync(cwd, { recursive: true });
  async function* stream(): AsyncGenerator<SpEvent> {
    yield* events;
  }
  const result = await auggie.materialize!(stream(), { home: cacheDir, cwd });
  const written = readDocument(result.path);
  const before = mock.chats().length;
  const run = await runAuggie(PROBE, { home, cacheDir, cwd, tenantUrl: mock.url, resume: result.session_id, timeoutMs: 60_000 });
  expect(run.timedOut, run.stderr.slice(-2000)).toBe(false);
  expect(run.code, run.stdout.slice(-2000) + run.stderr.slice(-2000)).toBe(0);
  const request = mock.chats()[before];
  expect(request, 'no /chat-stream request reached the mock').toBeDefined();
  return { written, request, after: readDocument(result.path), sessions: readdirSync(join(cacheDir, 'sessions')) };
}

function check(outcome: { written: Json; request: Json; after: Json; sessions: string[] }): string[] {
  const { written, request, after, sessions } = outcome;
  const sent = (request.chat_history as Json[]).flatMap(items);
  expect(sent).toEqual((written.chatHistory as Json[]).flatMap((e) => items(e.exchange)));
  expect(historyViolations(request)).toEqual([]);
  expect((request.nodes as Json[]).filter((n) => n.type === 0).map((n) => n.text_node.content)).toEqual([PROBE]);
  expect(request.conversation_id).toBe(written.sessionId);
  // The client continued THIS session: the probe is appended to the file sp wrote, no other file made.
  expect(sessions).toEqual([`${written.sessionId}.json`]);
  expect(JSON.stringify(after.chatHistory.slice(written.chatHistory.length))).toContain(PROBE);
  expect(mock.errors()).toEqual([]);
  return sent;
}

describe('auggie acceptance: the real client resumes what sp wrote', () => {
  it('a recorded Auggie session (view, launch-process, save-file, str-replace-editor, an error result) under a new id', async () => {
    const { events } = await captureAll(auggie, TOOLS);
    const outcome = await resume(events, 'auggie');
    const sent = check(outcome);
    const source = (readDocument(TOOLS).chatHistory as Json[]).flatMap((e) => items(e.exchange));
    expect(sent).toEqual(source);
    expect(sent.filter((i) => i.startsWith('tool_result:'))).toHaveLength(5);
  }, 90_000);

  for (const agent of ['claude', 'codex'] as const) {
    it(`a ${agent} corpus session (another agent) with its tool calls`, async () => {
      const source = SOURCES.find((s) => s.agent === agent && s.name === 'S1')!;
      const events = await source.capture();
      const sent = check(await resume(events, agent));
      // Every text block the user sent reached the model (a message's blocks are one text node).
      const userTexts = sent.filter((i) => i.startsWith('text:')).join('\n');
      const blocks = events.filter((e) => e.type === 'message.user').flatMap((e) => ((e.payload as Json).content as Json[]).filter((b) => b.type === 'text').map((b) => squash(String(b.text))));
      for (const block of blocks.filter((t) => t !== '')) expect(userTexts).toContain(block);
      const calls = events.filter((e) => e.type === 'tool.call').length;
      expect(calls).toBeGreaterThan(0);
      expect(sent.filter((i) => i.startsWith('tool_use:'))).toHaveLength(calls);
      expect(sent.filter((i) => i.startsWith('tool_result:'))).toHaveLength(calls);
    }, 90_000);
  }
});
