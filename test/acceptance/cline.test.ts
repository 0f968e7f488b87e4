// Acceptance with the real client: a recorded Cline session (same agent, new id) and a Claude corpus
// session (another agent) are captured, materialized into a fresh CLINE_DIR and resumed by the pinned
// `cline` (3.0.65) over its Agent Client Protocol mode (`session/load`, then one `session/prompt`),
// offline against our mock Anthropic API (test/pi/mockModel.ts: it rejects a request that breaks
// tool-call pairing, like the real API). The first model request must carry every user text we wrote,
// every tool call with its result, then the probe; the client must append the probe to THIS session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cline } from '../../adapters/cline/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { startMockModel, type MockModel } from '../pi/mockModel.js';
import { clineHome, resumeOverAcp } from '../support/clineClient.js';
import { SOURCES } from '../support/matrix.js';
import { SUMMARY, readDocument } from '../cline/support.js';

const PROBE = 'SP-CLINE-ACCEPTANCE-PROBE: reply OK';
type Json = Record<string, any>;

let work: string;
let mock: MockModel;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sp-cline-acceptance-'));
  mock = await startMockModel('OK');
});
afterAll(async () => {
  await mock?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

function sent(message: Json): string[] {
  const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as Json[]);
  return content.map((b) => (b.type === 'text' ? `text:${squash(String(b.text))}` : b.type === 'tool_use' ? `tool_use:${b.id}` : b.type === 'tool_result' ? `tool_result:${b.tool_use_id}` : String(b.type)));
}

async function resume(events: SpEvent[], name: string): Promise<{ written: Json; request?: Json; after: Json; stderr: string }> {
  const home = join(work, name);
  const cwd = join(work, `${name}-project`);
  mkdirSync(cwd, { recursive: true });
  const dir = clineHome(home, mock.anthropicUrl);
  async function* stream(): AsyncGenerator<SpEvent> {
    yield* events;
  }
  const result = await cline.materialize!(stream(), { home: dir, cwd });
  const written = readDocument(result.path);
  const before = mock.requests.length;
  const run = await resumeOverAcp(result.session_id, PROBE, { home, cwd, timeoutMs: 60_000 });
  expect(run.timedOut, run.stderr.slice(-2000)).toBe(false);
  expect(run.answers['session/load']?.error, run.stderr.slice(-2000)).toBeUndefined();
  expect(run.answers['session/prompt']?.result, run.stderr.slice(-2000)).toMatchObject({ stopReason: 'end_turn' });
  const request = mock.requests.slice(before).find((r) => r.api === 'anthropic' && Array.isArray(r.body.tools));
  return { written, request: request?.body, after: readDocument(result.path), stderr: run.stderr };
}

/** What the client must send for the written messages: texts (unwrapped), tool ids, result ids, in order. */
function expected(written: Json): string[] {
  return written.messages.flatMap((m: Json) => sent(m)).map((item: string) => item.replace(/^text:<user_input mode="[a-z]+">(.*)<\/user_input>$/, 'text:$1'));
}

describe('cline acceptance: the real client resumes what sp wrote', () => {
  it('a recorded Cline session (read_files, run_commands, editor; two results in a row) under a new id', async () => {
    const { events } = await captureAll(cline, SUMMARY);
    const { written, request, after } = await resume(events, 'cline');
    expect(request, 'no agent-loop request reached the mock').toBeDefined();
    const items = (request!.messages as Json[]).flatMap(sent);
    expect(items.slice(0, -1)).toEqual(expected(written));
    expect(items.at(-1)).toBe(`text:${PROBE}`);
    expect(items.filter((i) => i.startsWith('tool_result:'))).toHaveLength(3);
    // The client continued THIS session: the probe and the mock's answer are appended to the file.
    expect(JSON.stringify(after.messages.slice(written.messages.length))).toContain(PROBE);
  }, 90_000);

  it('a Claude corpus session (another agent) with its tool calls', async () => {
    const source = SOURCES.find((s) => s.agent === 'claude' && s.name === 'S1')!;
    const events = await source.capture();
    const { written, request } = await resume(events, 'claude');
    expect(request, 'no agent-loop request reached the mock').toBeDefined();
    const items = (request!.messages as Json[]).flatMap(sent);
    expect(items.slice(0, -1)).toEqual(expected(written));
    expect(items.at(-1)).toBe(`text:${PROBE}`);
    const texts = events.filter((e) => e.type === 'message.user').flatMap((e) => ((e.payload as Json).content as Json[]).filter((b) => b.type === 'text').map((b) => `text:${squash(String(b.text))}`));
    for (const text of texts.filter((t) => t !== 'text:')) expect(items).toContain(text);
    const calls = events.filter((e) => e.type === 'tool.call').length;
    expect(items.filter((i) => i.startsWith('tool_use:'))).toHaveLength(calls);
    expect(items.filter((i) => i.startsWith('tool_result:'))).toHaveLength(calls);
  }, 90_000);
});
