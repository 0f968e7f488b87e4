// Golden tests of the Copilot capture on every corpus and public fixture: counts checked against
// the native file read independently here, and the fields that matter for a resume.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { copilot } from '../../adapters/copilot/index.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { ANTHROPIC, HOME, OPENAI, PUBLIC_SMALL } from './support.js';

type Json = Record<string, any>;
const records = (path: string): Json[] => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Json);
const ofType = (events: SpEvent[], type: string) => events.filter((e) => e.type === type);
const p = (e: SpEvent): Json => e.payload as Json;

describe('copilot capture: corpus sessions', () => {
  for (const [label, path] of [['OpenAI wire', OPENAI], ['Anthropic wire', ANTHROPIC]] as const) {
    it(`${label}: every line is one or more events, conversation counts as in the file`, async () => {
      const native = records(path);
      const { events, diagnostics } = await captureAll(copilot, path);
      expect(diagnostics).toEqual([]);
      const start = events[0];
      expect(start.type).toBe('session.start');
      expect(p(start)).toMatchObject({ native_id: native[0].data.sessionId, cwd: '/home/judy/acme-api', git_branch: 'main', version: '1.0.102', title: 'Add a DELETE /todos/:id endpoint with a test.' });
      // Every line is accounted for: by line number, every line but the first gives events.
      const lines = new Set(events.map((e) => e.origin?.native_seq));
      for (let i = 1; i <= native.length; i += 1) expect(lines.has(i), `line ${i}`).toBe(true);
      const requests = native.filter((r) => r.type === 'assistant.message').flatMap((r) => r.data.toolRequests);
      expect(ofType(events, 'tool.call').map((e) => p(e).call_id)).toEqual(requests.map((t: Json) => t.toolCallId));
      expect(ofType(events, 'tool.result').map((e) => p(e).call_id)).toEqual(native.filter((r) => r.type === 'tool.execution_complete').map((r) => r.data.toolCallId));
      expect(ofType(events, 'message.user').map((e) => p(e).content[0].text)).toEqual(native.filter((r) => r.type === 'user.message').map((r) => r.data.content));
      expect(ofType(events, 'message.user').every((e) => typeof p(e).transformed_content === 'string')).toBe(true);
      const metaTypes = new Set(ofType(events, 'meta').map((e) => p(e).key));
      for (const type of ['system.message', 'assistant.turn_start', 'session.usage_record', 'session.shutdown', 'session.resume']) expect(metaTypes.has(`copilot.${type}`), type).toBe(true);
      // The failing create: success false, the error message as the result text.
      const failed = ofType(events, 'tool.result').filter((e) => p(e).is_error);
      expect(failed.map((e) => p(e).content)).toEqual(native.filter((r) => r.type === 'tool.execution_complete' && r.data.success === false).map((r) => r.data.error.message));
      expect(failed.length).toBeGreaterThan(0);
    });
  }

  it('Anthropic wire: the signed thinking block with its signature and the reasoningBlocks kept', async () => {
    const { events } = await captureAll(copilot, ANTHROPIC);
    const thinking = ofType(events, 'message.thinking');
    expect(thinking.length).toBeGreaterThan(0);
    expect(p(thinking[0])).toMatchObject({ text: 'I should read the store and the server before changing anything.', signature: 'mock-signature', provider: 'anthropic', visibility: 'visible' });
    expect(p(thinking[0]).reasoning_blocks.provider).toBe('anthropic-messages');
  });

  it('OpenAI wire: reasoningText without a signature', async () => {
    const { events } = await captureAll(copilot, OPENAI);
    const thinking = ofType(events, 'message.thinking');
    expect(thinking.length).toBe(records(OPENAI).filter((r) => r.type === 'assistant.message' && r.data.reasoningText).length);
    expect(p(thinking[0]).signature).toBeUndefined();
  });

  it('discover lists both sessions with their cwd and title', async () => {
    const refs = [];
    for await (const ref of copilot.discover({ home: HOME, details: true })) refs.push(ref);
    expect(refs.map((r) => r.native_id).sort()).toEqual(['37ff58dd-12dc-4017-8e24-403f3eda6806', '67f33fd5-d20a-4bad-a942-cd54b8907c3f']);
    for (const ref of refs) {
      expect(ref.cwd).toBe('/home/judy/acme-api');
      expect(ref.messages).toBe(11);
      expect(ref.tool_calls).toBe(9);
      expect(ref.first_prompt).toBe('Add a DELETE /todos/:id endpoint with a test.');
    }
  });
});

describe('copilot capture: public agent-sessions small.jsonl (1.0.77, trimmed ids)', () => {
  it('reads string arguments, assistant.reasoning, subagent and unknown events; trimmed timestamps do not stop it', async () => {
    const native = records(PUBLIC_SMALL);
    const { events, diagnostics } = await captureAll(copilot, PUBLIC_SMALL);
    expect(diagnostics).toEqual([]);
    expect(p(events[0])).toMatchObject({ native_id: 'copilot_stage0_small', cwd: '/tmp/repo', model: 'gpt-5-mini', version: '1.0.77' });
    const call = ofType(events, 'tool.call')[0];
    expect(p(call)).toMatchObject({ call_id: 'call-1', name: 'shell', input: { command: 'ls' }, arguments_string: true });
    expect(p(ofType(events, 'tool.result')[0])).toMatchObject({ call_id: 'call-1', content: 'a.txt\nb.txt\n', is_error: false });
    expect(ofType(events, 'message.thinking').some((e) => p(e).reasoning_id !== undefined)).toBe(true);
    const keys = new Set(ofType(events, 'meta').map((e) => p(e).key));
    for (const key of ['copilot.subagent.started', 'copilot.abort', 'copilot.session.truncation', 'copilot.hook.start', 'copilot.session.error']) expect(keys.has(key), key).toBe(true);
    expect(new Set(events.map((e) => e.origin?.native_seq)).size).toBe(native.length);
    // Timestamps that do not parse take the previous event's time.
    for (let i = 1; i < events.length; i += 1) expect(events[i].ts).toBeGreaterThanOrEqual(events[i - 1].ts);
  });
});
