// Codex capture: the adapter contract, then golden facts about every fixture (the real-client
// corpus in both file styles, a compacted session, and the public fixtures), byte-exact raw lines,
// derived events, odd lines, titles and listing.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codex } from '../adapters/codex/index.js';
import { parseShellOutput } from '../adapters/codex/derive.js';
import { parsePatchSections } from '../lib/relay/patch.js';
import { isContextText } from '../adapters/codex/rollout.js';
import { canonicalSessionId, type SpEvent } from '../lib/core/event.js';
import { captureAll, testAdapter, type Captured } from './contract/testAdapter.js';

import { BRIDGE, CORPUS, CURRENT, DRAG_DROP, DRIFT, F, LARGE, PUBLIC, S1, S1_HOME, S1P, S2, S3, SMALL } from './support/codexFixtures.js';

testAdapter(codex, {
  fixtures: [...CORPUS, ...PUBLIC],
  home: S1_HOME,
  // Files whose name carries the thread id (an empty copy opens as the same session), and one without a session_meta.
  incremental: { fixtures: [S1P, S3, DRIFT] },
  roundTrip: { fixtures: [S1, S1P, S2, S3, BRIDGE, CURRENT] },
});

type Json = Record<string, any>;
const payload = (e: SpEvent): Json => e.payload as Json;

const cache = new Map<string, Captured>();
async function capture(path: string): Promise<Captured> {
  if (!cache.has(path)) cache.set(path, await captureAll(codex, path, { raw: true }));
  return cache.get(path)!;
}

function counts(events: SpEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) {
    const k = e.type === 'meta' ? `meta:${payload(e).key}` : e.type;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

function nativeLines(path: string): Json[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Json);
}

/** Response items of a rollout by payload type (what the model saw). */
function itemCount(path: string, type: string, role?: string): number {
  return nativeLines(path).filter((l) => l.type === 'response_item' && l.payload?.type === type && (role === undefined || l.payload.role === role)).length;
}

describe('codex capture: every fixture, golden counts', () => {
  // The canonical event mix of each fixture: a change in any mapping shows up here.
  const golden: Record<string, Record<string, number>> = {
    [S1]: { 'session.start': 1, 'message.user': 4, 'message.assistant': 3, 'message.thinking': 5, 'tool.call': 11, 'tool.result': 11, 'command.run': 3, 'file.edit': 4, 'todo.add': 3, 'todo.update': 5 },
    [S1P]: { 'session.start': 1, 'message.user': 4, 'message.assistant': 3, 'message.thinking': 5, 'tool.call': 11, 'tool.result': 11, 'command.run': 3, 'file.edit': 4, 'todo.add': 3, 'todo.update': 5 },
    [S2]: { 'session.start': 1, 'message.user': 4, 'message.assistant': 4, 'message.thinking': 4, 'tool.call': 7, 'tool.result': 7, 'command.run': 6, 'file.edit': 1 },
    [S3]: { 'session.start': 1, 'message.user': 12, 'message.assistant': 12, 'message.thinking': 3, 'tool.call': 18, 'tool.result': 18, 'command.run': 9, 'file.edit': 6, 'todo.add': 3, 'todo.update': 4, checkpoint: 1 },
    [SMALL]: { 'session.start': 1, 'message.user': 2, 'message.assistant': 1, 'message.thinking': 2, 'tool.call': 4, 'tool.result': 5, 'command.run': 1, checkpoint: 6, 'meta:codex.session_meta': 6 },
    [LARGE]: { 'session.start': 1, 'message.user': 7, 'message.assistant': 7, 'meta:codex.response_item.tool_call': 1, 'meta:codex.response_item.tool_result': 1 },
    [DRIFT]: { 'session.start': 1, 'meta:codex.untyped': 2, 'meta:codex.function_call': 1, 'meta:codex.function_result': 1, 'meta:codex.world_state': 1, 'meta:codex.blank-line': 1 },
    [BRIDGE]: { 'session.start': 1, 'message.user': 1, 'message.assistant': 1, 'message.thinking': 2, 'tool.call': 1, 'tool.result': 1, 'command.run': 1 },
    [CURRENT]: { 'session.start': 1, 'message.user': 2, 'message.assistant': 1, 'message.thinking': 1, 'tool.call': 1, 'tool.result': 1 },
  };

  for (const [fixture, want] of Object.entries(golden)) {
    it(`${fixture.slice(F.length)}`, async () => {
      const { events, diagnostics } = await capture(fixture);
      expect(diagnostics).toEqual([]);
      const got = counts(events);
      for (const [type, n] of Object.entries(want)) expect(got[type] ?? 0, type).toBe(n);
      // Lossless: every native line is represented, and --raw gives the file back byte for byte.
      const lines = readFileSync(fixture, 'utf8').split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      const seqs = new Set(events.map((e) => e.origin?.native_seq).filter((n) => typeof n === 'number'));
      expect(seqs.size).toBe(lines.length);
      const raw = events.flatMap((e) => e.origin?.raw ?? []);
      const start = payload(events[0]);
      const text = raw.join('\n') + (start.raw_final_newline ? '\n' : '');
      expect(createHash('sha256').update(text).digest('hex')).toBe(createHash('sha256').update(readFileSync(fixture)).digest('hex'));
      // One session; its id is canonical from (codex, native id); levels come from the fidelity table.
      expect(new Set(events.map((e) => e.session))).toEqual(new Set([canonicalSessionId('codex', start.native_id)]));
      for (const e of events) expect(e.level, e.type).toBe(codex.fidelity[e.type]?.level ?? 2);
    });
  }

  it('never counts a turn twice: one message.user per response_item user message, UI echoes stay meta', async () => {
    for (const fixture of [S1, S1P, S2, S3]) {
      const { events } = await capture(fixture);
      const c = counts(events);
      expect(c['message.user'], fixture).toBe(itemCount(fixture, 'message', 'user') + itemCount(fixture, 'message', 'developer'));
      expect(c['message.assistant'], fixture).toBe(itemCount(fixture, 'message', 'assistant'));
      const echoes = (c['meta:codex.event_msg.user_message'] ?? 0) + (c['meta:codex.event_msg.item_completed.UserMessage'] ?? 0);
      expect(echoes, fixture).toBeGreaterThan(0);
    }
  });
});

describe('codex capture: S1 legacy and paginated tell the same story', () => {
  it('session.start: id, cwd, git, provider, version, originator, source, model, base instructions once', async () => {
    const legacy = payload((await capture(S1)).events[0]);
    expect(legacy).toMatchObject({
      native_id: '01a22ad9-47d0-73f1-b186-11146d50904a',
      cwd: '/home/bob/acme-api',
      git_branch: 'main',
      model: 'gpt-5.5',
      model_provider: 'mock',
      version: '0.171.0',
      originator: 'codex_vscode',
      source: 'vscode',
    });
    expect(legacy.base_instructions.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(legacy.base_instructions.text).toMatch(/^You are Codex/);
    const paged = payload((await capture(S1P)).events[0]);
    expect(paged).toMatchObject({ history_mode: 'paginated', originator: 'codex_exec', source: 'exec', model: 'gpt-5.5' });
    // The system prompt is said once, not per event.
    const { events } = await capture(S1);
    const marker = legacy.base_instructions.text.slice(0, 60);
    expect(events.filter((e) => JSON.stringify(e.payload).includes(marker))).toHaveLength(1);
  });

  it('same conversation, tools and derived events in both styles', async () => {
    const view = (events: SpEvent[]) =>
      events
        .filter((e) => ['message.user', 'message.assistant', 'tool.call', 'command.run', 'file.edit', 'todo.add', 'todo.update'].includes(e.type))
        .map((e) => {
          const p = payload(e);
          if (e.type === 'tool.call') return `call ${p.name}`;
          if (e.type === 'command.run') return `run ${p.cmd} → ${p.exit_code}`;
          if (e.type === 'file.edit') return `edit ${p.path} +${p.added} -${p.removed}`;
          if (e.type.startsWith('todo.')) return `${e.type} ${p.id} ${p.status}`;
          return `${e.type} ${p.content.map((b: Json) => b.text ?? b.type).join('|').slice(0, 80)}`;
        })
        .filter((line) => !line.includes('<environment_context>') && !line.includes('<skills_instructions>'));
    expect(view((await capture(S1P)).events)).toEqual(view((await capture(S1)).events));
    // The paginated style's ordinal and item metadata ride along, not lost.
    const first = (await capture(S1P)).events.find((e) => e.type === 'message.user')!;
    expect(payload(first).envelope_extra.ordinal).toBeTypeOf('number');
  });

  it('context messages are is_meta (developer role, environment_context); the prompt is the user\'s', async () => {
    const users = (await capture(S1)).events.filter((e) => e.type === 'message.user');
    expect(users.map((e) => [payload(e).role ?? 'user', payload(e).is_meta === true, e.actor])).toEqual([
      ['developer', true, 'system'],
      ['user', true, 'system'],
      ['user', false, 'user'],
      ['user', false, 'user'],
    ]);
    expect(payload(users[2]).content).toEqual([{ type: 'text', text: 'Add a DELETE /todos/:id endpoint with a test.' }]);
  });

  it('reasoning: summary text, encrypted_content kept opaque and provider-bound', async () => {
    const thinking = (await capture(S1)).events.filter((e) => e.type === 'message.thinking');
    expect(thinking).toHaveLength(5);
    const p = payload(thinking[0]);
    expect(p).toMatchObject({ visibility: 'summary', provider: 'openai', message_id: 'rs_b9a5f6ecc63be5a8cb42d251' });
    expect(p.text).toMatch(/^\*\*Planning the DELETE endpoint\*\*/);
    expect(Buffer.from(p.opaque, 'base64').toString()).toMatch(/^mock-encrypted:/);
  });

  it('exec_command → command.run, apply_patch → file.edit with the client\'s diff, update_plan → todo.*', async () => {
    const { events } = await capture(S1);
    const calls = new Map(events.filter((e) => e.type === 'tool.call').map((e) => [e.seq, e]));
    for (const e of events.filter((x) => x.derived_from !== undefined)) {
      expect(e.actor).toBe('tool');
      const call = calls.get(e.derived_from!)!;
      const name = payload(call).name;
      expect(name).toBe(e.type === 'command.run' ? 'exec_command' : e.type === 'file.edit' ? 'apply_patch' : 'update_plan');
    }
    const runs = events.filter((e) => e.type === 'command.run').map((e) => payload(e));
    expect(runs.map((r) => [r.cmd, r.exit_code, r.cwd])).toEqual([
      ["sed -n '1,120p' src/routes/todos.js", 0, '/home/bob/acme-api'],
      ['npm test', 0, '/home/bob/acme-api'],
      ['npm test', 0, '/home/bob/acme-api'],
    ]);
    expect(runs[1].stdout_head).toContain('TAP version 13');
    const edit = payload(events.find((e) => e.type === 'file.edit')!);
    expect(edit.path).toBe('/home/bob/acme-api/src/routes/todos.js');
    expect(edit.kind).toBe('modify');
    expect(edit.diff.split('\n').slice(0, 3)).toEqual(['--- a/src/routes/todos.js', '+++ b/src/routes/todos.js', '@@ -29,2 +29,7 @@']);
    expect(edit.added).toBe(7);
    expect(edit.removed).toBe(1);
    const todos = events.filter((e) => e.type.startsWith('todo.')).map((e) => `${e.type} ${payload(e).id} ${payload(e).status}`);
    expect(todos).toEqual([
      'todo.add plan-1 in_progress',
      'todo.add plan-2 pending',
      'todo.add plan-3 pending',
      'todo.update plan-1 completed',
      'todo.update plan-2 in_progress',
      'todo.update plan-2 completed',
      'todo.update plan-3 in_progress',
      'todo.update plan-3 completed',
    ]);
  });

  it('token_count becomes usage, turn_context the model and cwd', async () => {
    const { events } = await capture(S1);
    const usage = events.filter((e) => payload(e).key === 'codex.event_msg.token_count').map((e) => payload(e).value);
    expect(usage[0]).toMatchObject({ last: { input_tokens: 1000, output_tokens: 50 }, context_window: 258400 });
    const turn = payload(events.find((e) => payload(e).key === 'codex.turn_context')!);
    expect(turn.value).toMatchObject({ model: 'gpt-5.5', cwd: '/home/bob/acme-api', approval_policy: 'never' });
    const assistant = events.find((e) => e.type === 'message.assistant')!;
    expect(payload(assistant)).toMatchObject({ model: 'gpt-5.5', phase: 'commentary' });
  });
});

describe('codex capture: S2 debug (CJK, image, failures, parallel calls)', () => {
  it('the prompt keeps its CJK text and the image (data URL → image block, artifact with --artifacts)', async () => {
    const { events } = await capture(S2);
    const prompt = events.find((e) => e.type === 'message.user' && e.actor === 'user')!;
    const content = payload(prompt).content;
    expect(content.map((b: Json) => b.type)).toEqual(['text', 'image', 'text', 'text']);
    expect(content[1]).toMatchObject({ media_type: 'image/png', detail: 'original' });
    expect(Buffer.from(content[1].data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(content[3].text).toBe('测试失败了，帮我看看 test/todos.test.js 为什么报错');

    const artifacts = mkdtempSync(join(tmpdir(), 'sp-codex-art-'));
    const stored = await captureAll(codex, S2, { artifactsDir: artifacts });
    const image = payload(stored.events.find((e) => e.type === 'message.user' && e.actor === 'user')!).content[1];
    expect(image.data).toBeUndefined();
    expect(image.artifact).toMatch(/^sha256:/);
    expect(readFileSync(join(artifacts, image.artifact.slice(7))).equals(Buffer.from(content[1].data, 'base64'))).toBe(true);
    expect(payload(stored.events[0]).base_instructions.artifact).toMatch(/^sha256:/);
    expect(payload(stored.events[0]).base_instructions.text).toBeUndefined();
  });

  it('a failing npm test and a failing cat are command.run with exit 1; the patch and commit follow', async () => {
    const { events } = await capture(S2);
    const runs = events.filter((e) => e.type === 'command.run').map((e) => [payload(e).cmd, payload(e).exit_code]);
    expect(runs.filter(([, code]) => code === 1).length).toBeGreaterThanOrEqual(2);
    expect(runs.some(([cmd]) => /^cat /.test(cmd))).toBe(true);
    expect(runs.some(([cmd]) => /git commit/.test(cmd))).toBe(true);
    expect(events.filter((e) => e.type === 'file.edit')).toHaveLength(1);
  });
});

describe('codex capture: S3 compaction', () => {
  it('compacted → one checkpoint holding what the model saw from then on; older lines stay', async () => {
    const { events } = await capture(S3);
    const checkpoint = only(events.filter((e) => e.type === 'checkpoint'));
    const p = payload(checkpoint);
    expect(p.kind).toBe('compaction');
    expect(p.summary).toMatch(/^Another language model started to solve this problem/);
    expect(p.context).toHaveLength(10);
    expect(p.context[0].content[0].text).toBe("Give me a quick tour of this repo: what's here and how do I run it?");
    expect(p.context[9].content[0].text).toMatch(/^Another language model/);
    expect(p.extra.window_number).toBe(1);
    // The compaction answer is an assistant message, marked; the pre-compaction turns are all still there.
    const answer = events.filter((e) => e.type === 'message.assistant' && payload(e).compaction_output === true);
    expect(answer).toHaveLength(1);
    expect(answer[0].seq).toBeLessThan(checkpoint.seq);
    const prompts = events.filter((e) => e.type === 'message.user' && e.actor === 'user');
    expect(prompts.filter((e) => e.seq < checkpoint.seq).length).toBeGreaterThanOrEqual(7);
    expect(prompts.filter((e) => e.seq > checkpoint.seq).length).toBeGreaterThanOrEqual(2);
    expect(events.some((e) => payload(e).key === 'codex.event_msg.context_compacted')).toBe(true);
    // Raw reasoning content (not just a summary) is visible thinking.
    expect(events.some((e) => e.type === 'message.thinking' && payload(e).visibility === 'visible')).toBe(true);
  });
});

function only<T>(list: T[]): T {
  expect(list).toHaveLength(1);
  return list[0];
}

describe('codex capture: public fixtures and odd lines', () => {
  it('small.jsonl (union of 0.146 kinds): later session_meta lines, other items and garbage timestamps are meta with raw', async () => {
    const { events } = await capture(SMALL);
    const metas = events.filter((e) => e.type === 'meta');
    for (const e of metas) expect(payload(e).raw ?? payload(e).text, payload(e).key).toBeDefined();
    for (const key of ['codex.response_item.web_search_call', 'codex.response_item.ghost_snapshot', 'codex.response_item.image_generation_call', 'codex.inter_agent_communication_metadata']) {
      expect(metas.some((e) => payload(e).key === key), key).toBe(true);
    }
    // "[trimmed for fixture]" timestamps: the previous time is kept, never NaN.
    for (const e of events) expect(Number.isFinite(e.ts)).toBe(true);
    const output = events.find((e) => e.type === 'tool.result' && payload(e).native_output !== undefined)!;
    expect(payload(output).content).toBe('a.txt\n');
  });

  it('large.jsonl (0.106, v4-style id, instructions field): messages and the unknown tool items', async () => {
    const { events } = await capture(LARGE);
    expect(payload(events[0])).toMatchObject({ native_id: '019b2ea4-aaaa-bbbb-cccc-58208e1f0000', instructions: 'large', version: '0.106.0', model: 'gpt-5.2' });
  });

  it('schema_drift.jsonl: no session_meta first, records without type: a made-up session.start, then meta for each line', async () => {
    const { events } = await capture(DRIFT);
    expect(events[0].type).toBe('session.start');
    expect(events[0].origin?.native_seq).toBeUndefined();
    expect(payload(events[0]).native_id).toBe('schema_drift');
    expect(events.slice(1).every((e) => e.type === 'meta')).toBe(true);
  });

  it('codex_sample (0.144 shell tool, id not a UUID): shell → command.run; raw reasoning content is visible', async () => {
    const { events } = await capture(BRIDGE);
    expect(payload(events[0]).native_id).toBe('cx-1');
    expect(payload(only(events.filter((e) => e.type === 'command.run')))).toMatchObject({ cmd: 'ls *.py', exit_code: null, stdout_head: 'main.py\nutils.py' });
    expect(events.filter((e) => e.type === 'message.thinking').map((e) => payload(e).visibility)).toEqual(['summary', 'visible']);
  });

  it('rollout_drag_drop_image.json (openai/codex test fixture): the <image> wrapper and the image part', async () => {
    const item = JSON.parse(readFileSync(DRAG_DROP, 'utf8')) as Json;
    const dir = mkdtempSync(join(tmpdir(), 'sp-codex-dd-'));
    const path = join(dir, 'rollout-2026-01-01T00-00-00-00000000-0000-4000-8000-000000000001.jsonl');
    const png = 'iVBORw0KGgo=';
    item.content[1].image_url = `data:image/png;base64,${png}`;
    const lines = [
      { timestamp: '2026-01-01T00:00:00.000Z', type: 'session_meta', payload: { id: '00000000-0000-4000-8000-000000000001', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/w', originator: 'x', cli_version: '0.1.0' } },
      { timestamp: '2026-01-01T00:00:01.000Z', type: 'response_item', payload: item },
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const { events } = await captureAll(codex, path);
    const content = payload(only(events.filter((e) => e.type === 'message.user'))).content;
    expect(content).toEqual([
      { type: 'text', text: '<image>' },
      { type: 'image', media_type: 'image/png', data: png },
      { type: 'text', text: '</image>' },
      { type: 'text', text: 'dropped image' },
    ]);
  });

  it('a bad JSON line becomes meta unparseable with a file:line diagnostic; a CRLF file still round-trips byte for byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-codex-odd-'));
    const path = join(dir, 'rollout-2026-01-01T00-00-00-00000000-0000-4000-8000-000000000002.jsonl');
    const text = readFileSync(CURRENT, 'utf8').split('\n');
    text.splice(3, 0, '{"timestamp":"x","type":"response_item","payload":{');
    writeFileSync(path, text.join('\r\n'));
    const { events, diagnostics } = await captureAll(codex, path, { raw: true });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].where).toBe(`${path}:4`);
    expect(diagnostics[0].what).toMatch(/invalid JSON/);
    expect(events.filter((e) => payload(e).key === 'unparseable')).toHaveLength(1);
    const raw = events.flatMap((e) => e.origin?.raw ?? []).join('\n') + (payload(events[0]).raw_final_newline ? '\n' : '');
    expect(raw).toBe(readFileSync(path, 'utf8'));
  });
});

describe('codex discover', () => {
  it('lists a home newest first with titles from session_index.jsonl and --list details', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sp-codex-home-'));
    cpSync(`${F}corpus/S1-feature/sessions`, join(home, 'sessions'), { recursive: true });
    cpSync(`${F}corpus/S2-debug/sessions`, join(home, 'sessions'), { recursive: true });
    writeFileSync(join(home, 'session_index.jsonl'), JSON.stringify({ id: '01a22ad9-7cda-7dc3-af4a-0f4bdf56c072', thread_name: 'Fix the failing test', updated_at: '2026-11-30T05:08:00Z' }) + '\n');
    const refs = [];
    for await (const ref of codex.discover({ home, details: true })) refs.push(ref);
    expect(refs.map((r) => r.native_id).sort()).toEqual(['01a22ad9-47d0-73f1-b186-11146d50904a', '01a22ad9-7cda-7dc3-af4a-0f4bdf56c072']);
    const s2 = refs.find((r) => r.native_id.startsWith('01a22ad9-7cda'))!;
    expect(s2.title).toBe('Fix the failing test');
    expect(s2.first_prompt).toBe('测试失败了，帮我看看 test/todos.test.js 为什么报错');
    expect(s2.cwd).toBe('/home/bob/acme-api');
    expect(s2.tool_calls).toBe(7);
    const s1 = refs.find((r) => r.native_id.startsWith('01a22ad9-47d0'))!;
    expect(s1.messages).toBe(5); // 2 prompts, 3 answers
    // A unique id prefix finds it; the title reaches session.start.
    const found = await codex.find!('01a22ad9-7cda', { home });
    expect(found.path).toBe(s2.path);
    const { events } = await captureAll(codex, found.path);
    expect(payload(events[0]).title).toBe('Fix the failing test');
    // --cwd keeps one project's sessions.
    const none = [];
    for await (const ref of codex.discover({ home, cwd: '/elsewhere' })) none.push(ref);
    expect(none).toEqual([]);
  });

  it('parses tool outputs and patches of every generation', () => {
    expect(parseShellOutput('Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 2\nOutput:\nboom')).toMatchObject({ exit_code: 2, body: 'boom' });
    expect(parseShellOutput('Exit code: 0\nWall time: 0 seconds\nOutput:\nok\n')).toMatchObject({ exit_code: 0, body: 'ok\n' });
    expect(parseShellOutput('{"output":"hi\\n","metadata":{"exit_code":1,"duration_seconds":0.5}}')).toMatchObject({ exit_code: 1, body: 'hi\n', wall_time: 0.5 });
    expect(parseShellOutput('Chunk ID: 1\nProcess running with session ID 17414\nOutput:\n')).toMatchObject({ running: 17414 });
    expect(parsePatchSections('*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-y\n+z\n*** Delete File: d.txt\n*** End Patch\n')).toEqual([
      { file: { op: 'add', path: 'a.txt', content: 'x\n' }, lines: [] },
      { file: { op: 'update', path: 'b.txt', moveTo: 'c.txt', hunks: [{ old: 'y', new: 'z' }] }, lines: ['@@', '-y', '+z'] },
      { file: { op: 'delete', path: 'd.txt' }, lines: [] },
    ]);
    expect(isContextText('<environment_context>\n<cwd>/x</cwd>')).toBe(true);
    expect(isContextText('fix <environment_context> please')).toBe(false);
  });
});
