// Acceptance with the real client from an ATIF source: a Terminal-Bench style trajectory (Harbor's
// ATIF v1.7, fixtures/atif/terminus-v1.7.json) is captured, relayed to Codex as `sp-materialize codex`
// does (lib/relay), and resumed by the pinned `codex` (@openai/codex 0.171.0) against our own mock
// Responses API. The client must accept the session and send the trajectory's user message, the
// agent's replies and every tool call with its output (as text: a trajectory's tools are not Codex's).
// lib/ asks the adapter registry about agents (lib/adapter/registry.ts): loading it registers them.
import '../../adapters/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atif } from '../../adapters/atif/index.js';
import { codex } from '../../adapters/codex/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { canonicalize } from '../../lib/core/jcs.js';
import { relay } from '../../lib/relay/relay.js';
import { captureAll } from '../contract/testAdapter.js';
import { runCodexExec, writeCodexConfig } from '../support/codexClient.js';
import { startMockResponses, type MockResponses } from '../support/mockResponses.js';

const TRAJECTORY = new URL('../../fixtures/atif/terminus-v1.7.json', import.meta.url).pathname;
const PROBE = 'SP-ACCEPTANCE-PROBE: reply OK';
type Json = Record<string, any>;

let work: string;
let mock: MockResponses;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sp-atif-acceptance-'));
  mock = await startMockResponses('OK');
});
afterAll(async () => {
  await mock?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const textOf = (item: Json): string => (Array.isArray(item.content) ? item.content.map((c: Json) => c.text ?? '').join('') : String(item.content ?? item.output ?? ''));

describe('atif acceptance: a Harbor trajectory continued in Codex', () => {
  it('capture atif → sp-materialize codex → codex exec resume sends the prompt, the replies and every call with its output', async () => {
    const { events, diagnostics } = await captureAll(atif, TRAJECTORY);
    expect(diagnostics).toEqual([]);
    const home = join(work, 'codex-home');
    const cwd = join(work, 'repo');
    mkdirSync(cwd, { recursive: true });
    writeCodexConfig(home, mock.baseUrl);
    async function* piped(): AsyncGenerator<SpEvent> {
      for (const event of events) yield JSON.parse(canonicalize(event)) as SpEvent;
    }
    const outcome = await relay(codex, piped(), { home, cwd });
    const sessionId = outcome.results[0].session_id;
    const before = mock.inputs().length;
    const run = await runCodexExec(['resume', sessionId, PROBE], { home, work, cwd });
    expect(run.timedOut, run.stderr.slice(-600)).toBe(false);
    expect(run.code, run.stderr.slice(-600)).toBe(0);
    expect(run.threadId).toBe(sessionId);
    const input = (mock.inputs()[before] ?? []) as Json[];
    const sent = input.map(textOf).join('\n');
    expect(textOf(input[input.length - 1])).toBe(PROBE);
    expect(input.some((i) => i.role === 'user' && textOf(i).includes("Create a file called hello.txt with 'Hello, world!' as the content."))).toBe(true);
    for (const reply of ['Writing the file.', 'Checking the content.', "hello.txt now contains 'Hello, world!'. The task is complete."]) expect(sent).toContain(reply);
    // Both bash calls and their outputs reached the model.
    expect(sent).toContain("echo 'Hello, world!' > hello.txt");
    expect(sent).toContain('cat hello.txt');
    expect(sent).toContain('Hello, world!\n');
    // The ledger says how the calls went: rendered as text, nothing silently lost.
    const entries = [...outcome.ledger.rows()].flatMap((row): Array<{ code?: string; action: string; from?: string }> => row.entries ?? (row.code ? [row] : []));
    expect(entries.filter((e) => e.code === 'tool-name' && e.action === 'rendered').map((e) => e.from)).toEqual(['bash', 'bash']);
  });
});
