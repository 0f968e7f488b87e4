// What capture makes of OpenHands conversations (fixtures/openhands/, written from the SDK's event
// models), and broken or hostile folders: a truncated event file, a gap in the indexes, an event
// file over the size bound, symbolic links and stray files, ids that could be paths.
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openhands } from '../../adapters/openhands/index.js';
import { MAX_EVENT_BYTES, readBaseState, stateSummary } from '../../adapters/openhands/files.js';
import type { SessionRef } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { captureAll, captureRef } from '../contract/testAdapter.js';
import { A, B, CONV_A, CONV_B, HOME, PUBLIC_STATE, addEventFile, copyConversation, copyHome, tempDir } from './support.js';

const payload = (e: { payload: unknown }) => e.payload as Record<string, unknown>;

async function list(options: Parameters<typeof openhands.discover>[0]): Promise<SessionRef[]> {
  const refs: SessionRef[] = [];
  for await (const ref of openhands.discover(options)) refs.push(ref);
  return refs;
}

describe('openhands capture', () => {
  it('maps actions, observations, an invalid call, a rejection, a condensation and finish', async () => {
    const { events, diagnostics } = await captureAll(openhands, CONV_A);
    expect(diagnostics).toEqual([]);
    expect(events.map((e) => (e.type === 'meta' ? `meta:${String(payload(e).key)}` : e.type))).toEqual([
      'session.start', 'meta:openhands.SystemPromptEvent', 'message.user',
      'message.thinking', 'message.assistant', 'tool.call', 'tool.result',
      'message.thinking', 'tool.call', 'tool.result',
      'message.assistant', 'tool.call', 'tool.result',
      'tool.call', 'tool.result',
      'meta:openhands.ConversationStateUpdateEvent', 'meta:openhands.compact_boundary', 'message.user',
      'message.assistant', 'tool.call', 'tool.result',
      'tool.call', 'tool.result',
    ]);
    expect(payload(events[0])).toMatchObject({ native_id: A, cwd: '/work/project-a', model: 'anthropic/claude-sonnet-4-5-20250929', state: { tools: ['terminal', 'file_editor', 'task_tracker'], condenser: 'LLMSummarizingCondenser' } });
    // base_state's LLM settings (keys, base URLs) never reach the stream.
    expect(JSON.stringify(events[0])).not.toContain('api_key');
    // Naive SDK timestamps are read as UTC (to the millisecond).
    expect(events[0].ts).toBe(Date.UTC(2026, 10, 30, 14, 0, 0, 123) / 1000);

    const calls = events.filter((e) => e.type === 'tool.call').map(payload);
    expect(calls.map((c) => [c.call_id, c.name])).toEqual([['toolu_01', 'terminal'], ['toolu_02', 'file_editor'], ['toolu_03', 'task_tracker'], ['toolu_04', 'file_editor'], ['toolu_05', 'terminal'], ['toolu_06', 'finish']]);
    expect(calls[0]).toMatchObject({ input: { command: 'pytest -q tests/test_math.py', security_risk: 'LOW' }, message_id: 'chatcmpl-r1', summary: 'run the math tests', action: { kind: 'TerminalAction' } });
    // Arguments cut off by the model: the text is kept, the call marked invalid; its error is the result.
    expect(calls[3]).toMatchObject({ invalid: true, arguments_text: '{"command": "view", "path": ' });
    const results = events.filter((e) => e.type === 'tool.result').map(payload);
    expect(results.map((r) => [r.call_id, r.is_error])).toEqual([['toolu_01', false], ['toolu_02', false], ['toolu_03', false], ['toolu_04', true], ['toolu_05', true], ['toolu_06', false]]);
    expect(results[0]).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('1 failed, 1 passed') }], observation: { exit_code: 1, kind: 'TerminalObservation' } });
    expect(results[4]).toMatchObject({ rejected: true, content: 'rejected by the user: Do not delete the build folder' });

    const summary = events.find((e) => e.type === 'message.user' && payload(e).compact_summary === true)!;
    expect(summary.actor).toBe('system');
    expect(payload(summary).content).toEqual([{ type: 'text', text: expect.stringContaining('COMPLETED: add() fixed') }]);
    expect(payload(events.find((e) => e.type === 'meta' && payload(e).key === 'openhands.compact_boundary')!).forgotten).toBe(6);
    // Every event of a file carries its index; the tree parent is kept.
    expect(events[5].origin?.native_seq).toBe(2);
    expect(payload(events[5]).parent_event_id).toBe(payload(events[2]).event_id);
    expect(events.find((e) => e.type === 'message.thinking' && payload(e).signature === 'EqQBCkYIBxgCKkB')).toBeDefined();
  });

  it('maps images, reasoning, pauses and conversation errors', async () => {
    const { events } = await captureAll(openhands, CONV_B);
    expect(payload(events[2])).toMatchObject({ content: [{ type: 'text', text: 'What is in this picture?' }, { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' }], activated_skills: ['vision'] });
    expect(payload(events[3])).toMatchObject({ text: 'The image is tiny and red.' });
    expect(payload(events[4])).toMatchObject({ content: [{ type: 'text', text: 'A small red square.' }], message_id: 'resp_b1' });
    expect(events.slice(5).map((e) => payload(e).key)).toEqual(['openhands.PauseEvent', 'openhands.ConversationErrorEvent']);
    expect(payload(events[6]).raw).toMatchObject({ code: 'LLMBadRequestError' });
  });

  it('reads the SDK\'s public base_state.json without its LLM settings', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'base_state.json'), readFileText(PUBLIC_STATE));
    const summary = stateSummary(readBaseState(dir).state);
    expect(summary).toEqual({ id: '11111111-2222-3333-4444-555555555555', cwd: '/workspace/project/software-agent-sdk/.agent_tmp/repro/persistence', workspace_kind: 'LocalWorkspace', model: 'gpt-4o-mini', tools: ['terminal', 'file_editor', 'task_tracker'], condenser: 'LLMSummarizingCondenser', execution_status: 'idle', max_iterations: 500 });
  });
});

function readFileText(path: string): string {
  return readFileSync(path, 'utf8');
}

describe('openhands discovery', () => {
  it('lists conversations newest first, filters by cwd, opens a folder, its state or an event file', async () => {
    const refs = await list({ home: HOME, details: true });
    expect(refs.map((r) => r.native_id).sort()).toEqual([A, B].sort());
    expect(refs.find((r) => r.native_id === A)).toMatchObject({ cwd: '/work/project-a', messages: 16, first_prompt: 'Fix the failing test in tests/test_math.py' });
    expect((await list({ home: HOME, cwd: '/work/project-b' })).map((r) => r.native_id)).toEqual([B]);
    const file = join(CONV_A, 'events', readdirSync(join(CONV_A, 'events'))[3]);
    for (const path of [CONV_A, `${CONV_A}/`, join(CONV_A, 'base_state.json'), join(CONV_A, 'events'), file]) expect((await openhands.open(path)).native_id, path).toBe(A);
  });

  it('finds by id with or without dashes, or a prefix; refuses what could be a path', async () => {
    expect((await openhands.find!('3f2a9c1e-8b7d-4e6f-a0c1-d2e3f4a5b6c7', { home: HOME })).native_id).toBe(A);
    expect((await openhands.find!('9b8c', { home: HOME })).native_id).toBe(B);
    for (const bad of ['../../etc', '..', 'a/b', '3f2a/../x', '']) await expect(openhands.find!(bad, { home: HOME }), bad).rejects.toBeInstanceOf(UserError);
    await expect(openhands.open(join(HOME, 'nope'))).rejects.toBeInstanceOf(UserError);
    await expect(openhands.open(PUBLIC_STATE.replace('base_state.json', 'nothing.txt'))).rejects.toBeInstanceOf(UserError);
  });

  it('does not follow symbolic links: a linked conversation, event file or base_state', async () => {
    const home = copyHome();
    const outside = copyConversation(CONV_B, tempDir());
    symlinkSync(outside, join(home, 'conversations', 'ffffffffffffffffffffffffffffffff'));
    expect((await list({ home })).map((r) => r.native_id).sort()).toEqual([A, B].sort());
    await expect(openhands.open(join(home, 'conversations', 'ffffffffffffffffffffffffffffffff'))).rejects.toThrow(/symbolic link/);

    const conv = join(home, 'conversations', A);
    const target = join(outside, 'events', readdirSync(join(outside, 'events'))[1]);
    symlinkSync(target, join(conv, 'events', 'event-00016-ffffffff-0000-4000-8000-000000000016.json'));
    rmSync(join(conv, 'base_state.json'));
    symlinkSync(join(outside, 'base_state.json'), join(conv, 'base_state.json'));
    const { events, diagnostics } = await captureAll(openhands, conv);
    expect(JSON.stringify(events)).not.toContain('What is in this picture?');
    expect(payload(events[0]).cwd).toBeUndefined();
    expect(diagnostics.map((d) => d.what)).toEqual(['a symbolic link: not followed', 'a symbolic link in the events folder: not followed']);
    expect(events.filter((e) => e.type === 'meta' && payload(e).key === 'openhands.events.symlink')).toHaveLength(1);
  });
});

describe('openhands broken input', () => {
  it('a truncated event file: file:1 with its text, kept as meta, the rest captured', async () => {
    const conv = copyConversation(CONV_B);
    const path = addEventFile(conv, '{"kind":"MessageEvent","source":"user","llm_message":{"role":"user","content":[{"type":"text","text":"half');
    const { events, diagnostics } = await captureAll(openhands, conv);
    expect(diagnostics).toEqual([{ where: `${path}:1`, what: expect.stringContaining('"text":"half') }]);
    expect(events.at(-1)).toMatchObject({ type: 'meta', payload: { key: 'unparseable' } });
    expect(events).toHaveLength(8);
  });

  it('a gap in the event numbers is reported and marked where it is', async () => {
    const conv = copyConversation(CONV_A);
    const names = readdirSync(join(conv, 'events')).sort();
    rmSync(join(conv, 'events', names[3]));
    rmSync(join(conv, 'events', names[4]));
    const { events, diagnostics } = await captureAll(openhands, conv);
    expect(diagnostics).toEqual([{ where: join(conv, 'events', names[5]), what: expect.stringContaining('event files 3–4 are missing') }]);
    const gap = events.find((e) => e.type === 'meta' && payload(e).key === 'openhands.events.gap')!;
    expect(payload(gap)).toMatchObject({ from: 3, to: 4 });
    expect(gap.origin?.native_seq).toBe(5);
  });

  it('an event file over the bound is not read: a clear diagnostic and a meta with its size', async () => {
    const conv = copyConversation(CONV_B);
    const path = addEventFile(conv, '');
    truncateSync(path, MAX_EVENT_BYTES + 1); // sparse: no memory or disk spent
    const { events, diagnostics } = await captureAll(openhands, conv);
    expect(diagnostics).toEqual([{ where: path, what: `${MAX_EVENT_BYTES + 1} bytes, over ${MAX_EVENT_BYTES}: not read` }]);
    expect(events.at(-1)).toMatchObject({ type: 'meta', payload: { key: 'openhands.event.too_large', bytes: MAX_EVENT_BYTES + 1 } });
  });

  it('stray files in the events folder are reported, the lock file is not; an empty folder is a bare start', async () => {
    const conv = copyConversation(CONV_B);
    writeFileSync(join(conv, 'events', '.eventlog.lock'), '');
    writeFileSync(join(conv, 'events', 'notes.txt'), 'x');
    mkdirSync(join(conv, 'events', 'event-00099-aaaaaaaa.json'));
    const { events, diagnostics } = await captureAll(openhands, conv);
    expect(diagnostics.map((d) => d.where.slice(conv.length))).toEqual(['/events/event-00099-aaaaaaaa.json', '/events/notes.txt']);
    expect(events.filter((e) => e.type === 'meta' && payload(e).key === 'openhands.events.foreign_file')).toHaveLength(2);
    // With a cursor, a stray file is reported by the run that first sees it, not again.
    const ref = await openhands.open(conv);
    const first = await captureRef(openhands, ref, { cursor: { version: 1, agent: 'openhands', native_id: ref.native_id, sources: {}, sessions: {} } });
    writeFileSync(join(conv, 'events', 'event-00005-ffffffff-0000-4000-8000-000000000005.json'), JSON.stringify({ kind: 'PauseEvent', id: 'p2', timestamp: '2026-11-30T16:01:00', source: 'user' }));
    const second = await captureRef(openhands, ref, { cursor: first.cursor });
    expect(first.diagnostics).toHaveLength(2);
    expect(second.diagnostics).toEqual([]);
    expect(second.events.map((e) => [e.seq, payload(e).key])).toEqual([[first.events.length, 'openhands.PauseEvent']]);
    const empty = join(tempDir(), 'cccccccccccccccccccccccccccccccc');
    mkdirSync(join(empty, 'events'), { recursive: true });
    expect((await captureAll(openhands, empty)).events.map((e) => e.type)).toEqual(['session.start']);
  });

  it('bytes that are not UTF-8 are named with their file and line, and an incremental capture still continues', async () => {
    const conv = copyConversation(CONV_B);
    const path = addEventFile(conv, '');
    const event = (note: string) => Buffer.from(JSON.stringify({ kind: 'PauseEvent', id: 'p1', timestamp: '2026-11-30T16:00:00', source: 'user', note }));
    const [before, after] = event('@').toString('latin1').split('@');
    writeFileSync(path, Buffer.concat([Buffer.from(before, 'latin1'), Buffer.from([0xff, 0xfe]), Buffer.from(after, 'latin1')]));
    writeFileSync(join(conv, 'base_state.json'), Buffer.concat([Buffer.from('{"title":"a'), Buffer.from([0xc3]), Buffer.from('"}')]));
    const ref = await openhands.open(conv);
    const first = await captureRef(openhands, ref, { cursor: { version: 1, agent: 'openhands', native_id: ref.native_id, sources: {}, sessions: {} } });
    expect(first.diagnostics).toEqual([
      { where: `${join(conv, 'base_state.json')}:1`, what: 'not valid UTF-8: the bad bytes are read as U+FFFD' },
      { where: `${path}:1`, what: 'not valid UTF-8: the bad bytes are read as U+FFFD' },
    ]);
    expect(first.events.at(-1)).toMatchObject({ type: 'meta', payload: { key: 'openhands.PauseEvent' } });
    // The cursor's fingerprint is of the file's bytes, so the unchanged file is not taken for a rewrite.
    const again = await captureRef(openhands, ref, { cursor: first.cursor });
    expect(again.events).toEqual([]);
  });

  it('a folder with neither base_state.json nor events/ is refused, not read as an empty conversation', async () => {
    const dir = join(tempDir(), 'base_state.json');
    mkdirSync(dir);
    await expect(openhands.open(dir)).rejects.toThrow(UserError);
    await expect(openhands.open(dir)).rejects.toThrow(/neither base_state.json nor events/);
  });
});
