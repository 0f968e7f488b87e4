// The Copilot writer without the client: the file's shape (what the client validates line by line),
// pairing, never overwriting, dry runs.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { copilot } from '../../adapters/copilot/index.js';
import { materializeCopilot } from '../../adapters/copilot/materialize.js';
import { readWorkspace } from '../../adapters/copilot/paths.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { SessionBuilder } from '../support/canonical.js';
import { freshDirs } from '../support/scratch.js';
import { ANTHROPIC, OPENAI } from './support.js';
import { opencode } from '../../adapters/opencode/index.js';
import { ATTACHMENT, DB, locator } from '../opencode/support.js';

type Json = Record<string, any>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const fresh = freshDirs('sp-copilot-write-');
async function* from(events: SpEvent[]): AsyncGenerator<SpEvent> {
  yield* events;
}
const lines = (path: string): Json[] => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);

describe('copilot writer', () => {
  it('writes session.start first, UUID envelope ids chained by parentId, ISO timestamps, messageIds, results right after their calls', async () => {
    const home = fresh();
    const { events } = await captureAll(copilot, OPENAI);
    const result = await materializeCopilot(from(events), { home, cwd: '/tmp/x' });
    expect(result.path).toBe(join(home, 'session-state', result.session_id, 'events.jsonl'));
    const file = lines(result.path);
    expect(file[0]).toMatchObject({ type: 'session.start', parentId: null, data: { sessionId: result.session_id, version: 1, producer: 'copilot-agent', copilotVersion: '1.0.102', context: { cwd: '/tmp/x' } } });
    file.forEach((line, i) => {
      expect(Object.keys(line).sort()).toEqual(['data', 'id', 'parentId', 'timestamp', 'type']);
      expect(line.id).toMatch(UUID);
      expect(line.parentId).toBe(i === 0 ? null : file[i - 1].id);
      expect(line.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });
    const open = new Set<string>();
    for (const line of file) {
      if (line.type === 'assistant.message') {
        expect(open.size).toBe(0);
        expect(typeof line.data.messageId).toBe('string');
        for (const t of line.data.toolRequests) open.add(t.toolCallId);
      } else if (line.type === 'tool.execution_complete') {
        expect(open.delete(line.data.toolCallId)).toBe(true);
      } else expect(open.size).toBe(0);
    }
    expect(readWorkspace(result.path)).toMatchObject({ id: result.session_id, cwd: '/tmp/x', name: 'Add a DELETE /todos/:id endpoint with a test.' });
    // No staging folder is left behind.
    expect(readdirSync(join(home, 'session-state'))).toEqual([result.session_id]);
  });

  it('carries reasoningBlocks and the signature back for a Copilot source only', async () => {
    const home = fresh();
    const { events } = await captureAll(copilot, ANTHROPIC);
    const same = lines((await materializeCopilot(from(events), { home, cwd: '/tmp/x' })).path);
    const first = same.find((l) => l.type === 'assistant.message' && l.data.reasoningText)!;
    expect(first.data).toMatchObject({ reasoningOpaque: 'mock-signature', reasoningBlocks: { provider: 'anthropic-messages' } });
    const b = new SessionBuilder('claude');
    b.user('hi');
    b.add('message.thinking', { text: 'pondering', signature: 'sig', provider: 'anthropic', visibility: 'visible' });
    b.assistant('hello', 'm1');
    const losses: LossEntry[] = [];
    const other = lines((await materializeCopilot(from(b.events), { home, cwd: '/tmp/x', onLoss: (l) => losses.push(l) })).path);
    const message = other.find((l) => l.type === 'assistant.message')!;
    expect(message.data).toMatchObject({ content: 'hello', reasoningText: 'pondering' });
    expect(message.data.reasoningOpaque).toBeUndefined();
    expect(losses.map((l) => l.code)).toContain('reasoning-signature');
  });

  it('stubs an unanswered call, makes call ids safe and unique, renders images as a marker', async () => {
    const b = new SessionBuilder('codex');
    b.add('message.user', { content: [{ type: 'text', text: 'look' }, { type: 'image', media_type: 'image/png', data: 'AAAA' }] });
    b.add('tool.call', { call_id: 'call|1', name: 'shell', input: { command: 'ls' } });
    b.add('tool.call', { call_id: 'call|1', name: 'shell', input: { command: 'pwd' } });
    b.add('tool.result', { call_id: 'call|1', content: 'a' });
    const losses: LossEntry[] = [];
    const file = lines((await materializeCopilot(from(b.events), { home: fresh(), cwd: '/tmp/x', onLoss: (l) => losses.push(l) })).path);
    const ids = file.find((l) => l.type === 'assistant.message')!.data.toolRequests.map((t: Json) => t.toolCallId);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
    const results = file.filter((l) => l.type === 'tool.execution_complete');
    expect(results.map((r) => r.data.toolCallId)).toEqual(ids);
    expect(results[1].data).toMatchObject({ success: false, error: { message: expect.stringContaining('No result was recorded') } });
    expect(file.find((l) => l.type === 'user.message')!.data.content).toContain('[image: image/png');
    expect(losses.map((l) => l.code)).toEqual(expect.arrayContaining(['stub-result', 'tool-id', 'image']));
  });

  it('an OpenCode attachment (file part) becomes a text marker next to the text the model saw', async () => {
    const { events } = await captureAll(opencode, locator(DB, ATTACHMENT));
    const losses: LossEntry[] = [];
    const file = lines((await materializeCopilot(from(events), { home: fresh(), cwd: '/tmp/x', onLoss: (l) => losses.push(l) })).path);
    const first = file.find((l) => l.type === 'user.message')!.data.content as string;
    expect(first).toContain('[file: package.json (file:///home/grace/acme-api/package.json)]');
    expect(first).toContain('Summarize the attached file in one sentence.');
    expect(losses.filter((l) => l.code === 'file')).toHaveLength(1);
  });

  it('never overwrites: --same-id of an existing session is refused; a dry run writes nothing', async () => {
    const home = fresh();
    const { events } = await captureAll(copilot, OPENAI);
    const first = await materializeCopilot(from(events), { home, cwd: '/tmp/x', sameId: true });
    expect(first.session_id).toBe('67f33fd5-d20a-4bad-a942-cd54b8907c3f');
    await expect(materializeCopilot(from(events), { home, cwd: '/tmp/x', sameId: true })).rejects.toBeInstanceOf(UserError);
    const b = new SessionBuilder('pi');
    b.user('hello');
    await expect(materializeCopilot(from(b.events), { home, sameId: true })).rejects.toBeInstanceOf(UserError);
    const dryHome = fresh();
    const out: string[] = [];
    const dry = await materializeCopilot(from(events), { home: dryHome, cwd: '/tmp/x', dryRun: true, onLine: (l) => out.push(l) });
    expect(out.length).toBe(dry.records);
    expect(existsSync(join(dryHome, 'session-state'))).toBe(false);
  });
});
