// Golden capture of two public Copilot Chat sessions that VS Code wrote, committed as test fixtures
// to git-ai-project/git-ai (Apache-2.0; fixtures/vscode-copilot/README.md): a flat `.json` (format
// version 3, October 2025, ask and agent requests) and a 1.109+ `.jsonl` mutation log (February
// 2026, Copilot Chat 0.37.1). Every request and response must come out, none dropped.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { vscodeCopilot } from '../../adapters/vscode-copilot/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';

const DIR = new URL('../../fixtures/vscode-copilot/public/git-ai/', import.meta.url).pathname;
const FLAT = `${DIR}copilot_session_simple.json`;
const LOG = `${DIR}copilot_session_multiline.jsonl`;
const p = (e: SpEvent) => e.payload as Record<string, any>;
const kind = (e: SpEvent) => (e.type === 'meta' ? `meta:${String(p(e).key)}` : e.type);

describe('vscode-copilot public recordings (git-ai test fixtures)', () => {
  it('the flat version-3 file: three requests, two tool rounds, nothing unknown', async () => {
    const { events, diagnostics } = await captureAll(vscodeCopilot, FLAT);
    expect(diagnostics).toEqual([]);
    expect(events.map(kind)).toEqual([
      'session.start',
      'message.user', 'message.assistant', 'meta:vscode-copilot.response', 'meta:vscode-copilot.result',
      'message.user', 'message.assistant', 'tool.call', 'tool.result', 'message.assistant', 'meta:vscode-copilot.response', 'meta:vscode-copilot.result',
      'message.user', 'message.assistant', 'tool.call', 'tool.result', 'message.assistant', 'meta:vscode-copilot.response', 'meta:vscode-copilot.result',
    ]);
    expect(p(events[0])).toMatchObject({ format: 'json', format_version: 3, title: 'Assistance with TypeScript project tasks', model: 'copilot/claude-sonnet-4', recorded_session_id: '331fed7f-cfd6-409c-8502-06a56322b636' });
    const requests = JSON.parse(readFileSync(FLAT, 'utf8')).requests as Array<{ requestId: string; message: { text: string }; response: unknown[] }>;
    expect(events.filter((e) => e.type === 'message.user').map((e) => p(e).message_id)).toEqual(requests.map((r) => r.requestId));
    expect(events.filter((e) => e.type === 'message.user').map((e) => p(e).content[0].text)).toEqual(requests.map((r) => r.message.text));
    // Each request's whole response list is kept beside what was mapped from it.
    expect(events.filter((e) => kind(e) === 'meta:vscode-copilot.response').map((e) => p(e).raw.length)).toEqual(requests.map((r) => r.response.length));
    const calls = events.filter((e) => e.type === 'tool.call').map(p);
    expect(calls.map((c) => c.name)).toEqual(['replace_string_in_file', 'grep_search']);
    expect(calls[1].input).toMatchObject({ query: 'Bonjour', isRegexp: false });
    const results = events.filter((e) => e.type === 'tool.result').map(p);
    expect(results.map((r) => r.call_id)).toEqual(calls.map((c) => c.call_id));
  });

  it('the 1.109+ mutation log: the follow-up request pushed by a later line is read too', async () => {
    const { events, diagnostics } = await captureAll(vscodeCopilot, LOG);
    expect(diagnostics).toEqual([]);
    expect(readFileSync(LOG, 'utf8').trimEnd().split('\n')).toHaveLength(6);
    expect(events.map(kind)).toEqual([
      'session.start',
      'message.user', 'tool.call', 'tool.result', 'tool.call', 'tool.result', 'message.assistant', 'meta:vscode-copilot.response', 'meta:vscode-copilot.result',
      'message.user', 'message.assistant', 'meta:vscode-copilot.response', 'meta:vscode-copilot.result',
    ]);
    expect(p(events[0])).toMatchObject({ format: 'jsonl', title: 'Adding a joke to jokes.csv file', model: 'copilot/gpt-4o', recorded_session_id: '7de89a80-6d93-43e7-be0a-0a9afe980198' });
    expect(events.filter((e) => e.type === 'tool.call').map((e) => p(e).name)).toEqual(['read_file', 'insert_edit_into_file']);
    expect(p(events[9]).content[0].text).toBe('follow up message');
  });
});
