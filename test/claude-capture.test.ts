// Claude Code capture: the adapter contract, then golden facts about every fixture (the real-client
// corpus and the public fixtures), byte-exact raw lines, the parentUuid DAG, odd lines, side files,
// artifacts and incremental capture of a whole home.
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claude } from '../adapters/claude/index.js';
import { summarize } from '../lib/formats/claude-code/discover.js';
import { cutPrompt } from '../lib/capture/discover.js';
import { canonicalSessionId, type SpEvent } from '../lib/core/event.js';
import type { Cursor } from '../lib/adapter/interface.js';
import { UserError } from '../lib/cli/diagnostics.js';
import { bySession, captureAll, captureRef, testAdapter, type Captured } from './contract/testAdapter.js';

const F = new URL('../fixtures/claude/', import.meta.url).pathname;
const S1_HOME = `${F}corpus/S1-feature/.claude`;
const S1 = `${S1_HOME}/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl`;
const S2 = `${F}corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl`;
const S3_HOME = `${F}corpus/S3-long/.claude`;
const S3 = `${S3_HOME}/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71.jsonl`;
const S3_SUB = `${S3_HOME}/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71/subagents/agent-a4fb297860875671f.jsonl`;
const STAGE0 = `${F}public/agent-sessions/Resources/Fixtures/stage0/agents/claude/`;
const SMALL = `${STAGE0}small.jsonl`;
const LARGE = `${STAGE0}large.jsonl`;
const DRIFT = `${STAGE0}schema_drift.jsonl`;
const SUB_MAIN = `${STAGE0}subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl`;
const SUB_CHILD = `${STAGE0}subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f/subagents/agent-a0ad4f44468bdf20d.jsonl`;
const DAG = `${F}public/claude-code-log/test/test_data/dag_compact_after_rewind.jsonl`;
const CURRENT = `${F}public/transession/tests/fixtures/claude_current_sample.jsonl`;
const PENDING = `${F}public/session-bridge/tests/fixtures/claude_pending.jsonl`;

const MAIN_FIXTURES = [S1, S2, S3, SMALL, LARGE, DRIFT, SUB_MAIN, DAG, CURRENT, PENDING];
const ALL_TRANSCRIPTS = [...MAIN_FIXTURES, S3_SUB, SUB_CHILD];

testAdapter(claude, {
  fixtures: MAIN_FIXTURES,
  home: S1_HOME,
  // The real-client sessions; the public union fixtures hold ids the writer must sanitize.
  roundTrip: { fixtures: [S1, S2, S3, DAG] },
});

type Json = Record<string, any>;
const payload = (e: SpEvent): Json => e.payload as Json;

function counts(events: SpEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) out[e.type] = (out[e.type] ?? 0) + 1;
  return out;
}

function nativeLines(path: string): Json[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);
}

const cache = new Map<string, Captured>();
async function capture(path: string): Promise<Captured> {
  if (!cache.has(path)) cache.set(path, await captureAll(claude, path, { raw: true }));
  return cache.get(path)!;
}

function only<T>(list: T[], what: string): T {
  expect(list, what).toHaveLength(1);
  return list[0];
}

function callOf(events: SpEvent[], callId: string): SpEvent {
  return only(events.filter((e) => e.type === 'tool.call' && payload(e).call_id === callId), `tool.call ${callId}`);
}
function resultOf(events: SpEvent[], callId: string): SpEvent {
  return only(events.filter((e) => e.type === 'tool.result' && payload(e).call_id === callId), `tool.result ${callId}`);
}
function derivedFrom(events: SpEvent[], call: SpEvent): SpEvent[] {
  return events.filter((e) => e.session === call.session && e.derived_from === call.seq);
}

describe('claude capture: S1 feature (TaskCreate/TaskUpdate, parallel calls, tasks files)', () => {
  let events: SpEvent[];
  beforeAll(async () => {
    events = (await capture(S1)).events;
  });

  it('emits every record, typed', () => {
    expect(counts(events)).toEqual({
      'session.start': 1,
      meta: 16,
      'message.user': 2,
      'message.thinking': 2,
      'message.assistant': 4,
      'tool.call': 18,
      'tool.result': 18,
      'file.read': 2,
      'file.edit': 5,
      'command.run': 2,
      'todo.add': 3,
      'todo.update': 9,
    });
  });

  it('starts with the session values and the AI title', () => {
    const start = events[0];
    expect(start.type).toBe('session.start');
    expect(start.session).toBe(canonicalSessionId('claude', 'e05d2652-6a94-447f-8b60-cded66e4199a'));
    expect(payload(start)).toMatchObject({
      native_id: 'e05d2652-6a94-447f-8b60-cded66e4199a',
      cwd: '/home/alice/acme-api',
      git_branch: 'main',
      version: '2.1.197',
      model: 'claude-opus-4-8',
      entrypoint: 'sdk-cli',
      title: 'Add DELETE endpoint for todos',
      source_path: S1,
      raw_final_newline: true,
    });
    expect(start.ts).toBe(Date.parse('2026-11-30T05:14:39.576Z') / 1000);
  });

  it('keeps thinking with its signature, and regroups an API message by message_id', () => {
    const native = nativeLines(S1).filter((r) => r.type === 'assistant' && r.message.content[0].type === 'thinking');
    const thinking = events.filter((e) => e.type === 'message.thinking');
    expect(thinking.map((e) => payload(e).signature)).toEqual(native.map((r) => r.message.content[0].signature));
    expect(thinking.map((e) => payload(e).text)).toEqual(native.map((r) => r.message.content[0].thinking));
    for (const t of thinking) expect(payload(t)).toMatchObject({ visibility: 'visible', provider: 'anthropic' });
    const plan = events.filter((e) => payload(e).message_id === 'msg_010bixqJgTx97n4w9MGR1BPY');
    expect(plan.map((e) => e.type)).toEqual(['message.assistant', 'tool.call', 'tool.call', 'tool.call']);
    expect(payload(plan[0]).content).toEqual([{ type: 'text', text: "The router only handles `/todos` today. Here's the plan:" }]);
    for (const e of plan) expect(payload(e)).toMatchObject({ model: 'claude-opus-4-8', stop_reason: 'tool_use' });
  });

  it('links each parallel result to its own call with parent_seq', () => {
    for (const id of ['toolu_01GpdVmAEkKNH1C3U10h05v4', 'toolu_01cU6Vq5UV1bYeBJHDo4TK56', 'toolu_01aNFZMwFMCl0VFCP46nZC4h']) {
      expect(resultOf(events, id).parent_seq).toBe(callOf(events, id).seq);
    }
  });

  it('derives todos from TaskCreate/TaskUpdate and the tasks files, pointing at the calls', () => {
    const adds = events.filter((e) => e.type === 'todo.add');
    expect(adds.map((e) => [payload(e).id, payload(e).content, payload(e).status])).toEqual([
      ['1', 'Add DELETE /todos/:id handler', 'pending'],
      ['2', 'Add a test for DELETE /todos/:id', 'pending'],
      ['3', 'Run the test suite', 'pending'],
    ]);
    expect(adds[0].derived_from).toBe(callOf(events, 'toolu_01GpdVmAEkKNH1C3U10h05v4').seq);
    const updates = events.filter((e) => e.type === 'todo.update' && payload(e).tool === 'TaskUpdate');
    expect(updates.map((e) => `${payload(e).id}:${payload(e).previous_status}->${payload(e).status}`)).toEqual([
      '1:pending->in_progress',
      '1:in_progress->completed',
      '2:pending->in_progress',
      '2:in_progress->completed',
      '3:pending->in_progress',
      '3:in_progress->completed',
    ]);
    const files = events.filter((e) => payload(e).source === 'tasks_file');
    expect(files.map((e) => [payload(e).id, payload(e).status, payload(e).active_form])).toEqual([
      ['1', 'completed', 'Adding the DELETE handler'],
      ['2', 'completed', 'Adding the DELETE test'],
      ['3', 'completed', 'Running the test suite'],
    ]);
    // Each points at the last Task call that touched it (a writer for Claude skips derived events).
    expect(files[2].derived_from).toBe(callOf(events, 'toolu_01ZI0wfM8yGbGTBSwwV6JARD').seq);
    expect(files[0].origin?.path).toBe(`${S1_HOME}/tasks/e05d2652-6a94-447f-8b60-cded66e4199a/1.json`);
    for (const e of [...adds, ...updates, ...files]) expect(e).toMatchObject({ actor: 'tool', level: 1 });
  });

  it('derives file edits with unified diffs and passing test runs', () => {
    const edit = only(derivedFrom(events, callOf(events, 'toolu_018fDAAXX4ndAoXSTbDEWfyM')), 'edit');
    expect(edit.type).toBe('file.edit');
    expect(payload(edit)).toMatchObject({ path: '/home/alice/acme-api/src/routes/todos.js', kind: 'modify', added: 5, removed: 0 });
    expect(payload(edit).diff).toBe(
      '--- a/src/routes/todos.js\n+++ b/src/routes/todos.js\n@@ -22,6 +22,11 @@\n   return { status: 201, body: todo };\n }\n \n' +
        '+function remove(id) {\n+  todos.delete(id);\n+  return { status: 204, body: undefined };\n+}\n+\n function handle(method, url, body) {\n' +
        "   const path = url.split('?')[0];\n   if (path === '/todos') {\n",
    );
    const runs = events.filter((e) => e.type === 'command.run');
    expect(runs.map((e) => [payload(e).cmd, payload(e).exit_code])).toEqual([
      ['npm test', 0],
      ['npm test', 0],
    ]);
    expect(payload(runs[1]).stdout_head).toContain('✔ DELETE /todos/:id returns 404 for an unknown id');
    const read = events.find((e) => e.type === 'file.read')!;
    expect(payload(read)).toEqual({ path: '/home/alice/acme-api/src/routes/todos.js', range: { start: 1, lines: 36 }, total_lines: 36 });
  });

  it('keeps metadata records as meta with their raw record, and envelope extras', () => {
    const keys = events.filter((e) => e.type === 'meta').map((e) => payload(e).key);
    expect(new Set(keys)).toEqual(
      new Set(['claude.ai-title', 'claude.queue-operation', 'claude.attachment.agent_listing_delta', 'claude.attachment.skill_listing', 'claude.file-history-snapshot', 'claude.last-prompt', 'claude.mode']),
    );
    const queue = events.find((e) => payload(e).key === 'claude.queue-operation')!;
    expect(payload(queue).value).toEqual({ operation: 'enqueue', content: 'Add a DELETE /todos/:id endpoint with a test.' });
    expect(payload(queue).raw).toEqual(nativeLines(S1)[1]);
    const prompt = events.find((e) => e.type === 'message.user')!;
    expect(payload(prompt)).toEqual({
      content: [{ type: 'text', text: 'Add a DELETE /todos/:id endpoint with a test.' }],
      string_content: true,
      extra: { promptId: 'e7d4b3a5-4672-478e-af9c-e7214301fb9f', permissionMode: 'bypassPermissions', promptSource: 'sdk' },
    });
    expect(prompt).toMatchObject({ actor: 'user', level: 0, origin: { native_seq: 4, native_uuid: 'e91f3ff7-2c49-410c-b5b1-a7a966bc2123' } });
    const result = resultOf(events, 'toolu_01in5MiFtHDGHf5v9b6DyIuB');
    expect(payload(result).structured).toEqual(nativeLines(S1)[10].toolUseResult);
    expect(payload(result).extra).toEqual({ promptId: 'e7d4b3a5-4672-478e-af9c-e7214301fb9f', sourceToolAssistantUUID: 'eea9254e-7dc2-41df-8ffd-2a1083310ccb' });
  });
});

describe('claude capture: S2 debug (CJK + image, failing test, parallel and failing reads)', () => {
  let events: SpEvent[];
  beforeAll(async () => {
    events = (await capture(S2)).events;
  });

  it('emits every record, typed', () => {
    expect(counts(events)).toEqual({
      'session.start': 1,
      meta: 13,
      'message.user': 2,
      'message.thinking': 2,
      'message.assistant': 5,
      'tool.call': 8,
      'tool.result': 8,
      'command.run': 4,
      'file.read': 2,
      'file.edit': 1,
    });
  });

  it('keeps the CJK prompt and the PNG inline', () => {
    const prompt = events.find((e) => e.type === 'message.user')!;
    const [text, image] = payload(prompt).content;
    expect(text).toEqual({ type: 'text', text: '测试失败了，帮我看看 test/todos.test.js 为什么报错' });
    expect(image.type).toBe('image');
    expect(image.media_type).toBe('image/png');
    expect(Buffer.from(image.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(image.data).toBe(nativeLines(S2)[3].message.content[1].source.data);
  });

  it('derives exit code 1 from the failing test and 0 from the passing ones', () => {
    const runs = events.filter((e) => e.type === 'command.run');
    expect(runs.map((e) => payload(e).exit_code)).toEqual([1, 0, 0, 0]);
    expect(payload(runs[0])).toMatchObject({ cmd: 'npm test', output_combined: true });
    expect(payload(runs[0]).stdout_head).toContain('AssertionError [ERR_ASSERTION]');
    expect(payload(runs[0]).stdout_head.startsWith('Exit code')).toBe(false);
    expect(payload(runs[3]).cmd).toContain('git commit');
    const failing = resultOf(events, 'toolu_01QsnuIrq8HiaYlBwCZxSjrU');
    expect(payload(failing).is_error).toBe(true);
    expect(payload(failing).structured).toMatch(/^Error: Exit code 1/);
  });

  it('keeps the failed read as an error result without a file.read, and links the parallel reads', () => {
    const missing = resultOf(events, 'toolu_01chbkgmCPAQuAw12on7RkKp');
    expect(payload(missing)).toMatchObject({ is_error: true, name: 'Read' });
    expect(derivedFrom(events, callOf(events, 'toolu_01chbkgmCPAQuAw12on7RkKp'))).toEqual([]);
    expect(resultOf(events, 'toolu_01WGrdznLdEaE0VTkAqlJtuG').parent_seq).toBe(callOf(events, 'toolu_01WGrdznLdEaE0VTkAqlJtuG').seq);
    expect(resultOf(events, 'toolu_01IN4GosYxpTBvTvydipyxMT').parent_seq).toBe(callOf(events, 'toolu_01IN4GosYxpTBvTvydipyxMT').seq);
    expect(events.filter((e) => e.type === 'file.read').map((e) => payload(e).path)).toEqual([
      '/home/alice/acme-api/test/todos.test.js',
      '/home/alice/acme-api/src/routes/todos.js',
    ]);
  });

  it('keeps the decision text and the fix as a diff', () => {
    const texts = events.filter((e) => e.type === 'message.assistant').map((e) => payload(e).content[0].text as string);
    expect(texts.filter((t) => t.includes('Decision: keep the in-memory store; switching to SQLite is out of scope because'))).toHaveLength(1);
    const edit = events.find((e) => e.type === 'file.edit')!;
    expect(payload(edit).diff).toContain('\n-    const id = match[1];\n+    const id = Number(match[1]);\n');
    expect(payload(edit)).toMatchObject({ added: 1, removed: 1, kind: 'modify' });
  });

  it('stores the image as a content-addressed artifact with --artifacts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-artifacts-'));
    try {
      const { events: withArtifacts } = await captureAll(claude, S2, { artifactsDir: dir });
      const prompt = withArtifacts.find((e) => e.type === 'message.user')!;
      const image = payload(prompt).content[1];
      const bytes = Buffer.from(nativeLines(S2)[3].message.content[1].source.data, 'base64');
      const ref = 'sha256:' + createHash('sha256').update(bytes).digest('hex');
      expect(image).toEqual({ type: 'image', media_type: 'image/png', artifact: ref });
      expect(prompt.refs).toEqual([`artifact:${ref}`]);
      expect(readFileSync(join(dir, ref.slice(7)))).toEqual(bytes);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('claude capture: S3 long (compaction, subagent, TodoWrite, synthetic line)', () => {
  let events: SpEvent[];
  let main: SpEvent[];
  let child: SpEvent[];
  const mainSession = canonicalSessionId('claude', 'fedfe4e3-0d75-4e8a-ae44-125dd06bbf71');
  const childSession = canonicalSessionId('claude', 'fedfe4e3-0d75-4e8a-ae44-125dd06bbf71/agent-a4fb297860875671f');
  beforeAll(async () => {
    events = (await capture(S3)).events;
    main = events.filter((e) => e.session === mainSession);
    child = events.filter((e) => e.session === childSession);
  });

  it('emits the main session, then the subagent as a child session', () => {
    expect(counts(main)).toEqual({
      'session.start': 1,
      meta: 64,
      'message.user': 14,
      'message.thinking': 3,
      'message.assistant': 11,
      'tool.call': 24,
      'tool.result': 24,
      'session.fork': 1,
      'todo.add': 3,
      'todo.update': 5,
      'file.read': 4,
      'file.edit': 8,
      'command.run': 7,
    });
    expect(counts(child)).toEqual({ 'session.start': 1, meta: 1, 'message.user': 1, 'message.assistant': 1, 'tool.call': 2, 'tool.result': 2, 'file.read': 1, 'command.run': 1 });
    // Parent first, child after it.
    expect(events.findIndex((e) => e.session === childSession)).toBe(main.length);
  });

  it('links the subagent with session.fork at the Agent call, and names its parent', () => {
    const call = callOf(main, 'toolu_01JETuXEtyr9679zsOqZHaq6');
    expect(payload(call).name).toBe('Agent');
    const fork = only(main.filter((e) => e.type === 'session.fork'), 'fork');
    expect(fork.seq).toBe(call.seq + 1);
    expect(payload(fork)).toEqual({
      to_session: childSession,
      native_id: 'fedfe4e3-0d75-4e8a-ae44-125dd06bbf71/agent-a4fb297860875671f',
      call_id: 'toolu_01JETuXEtyr9679zsOqZHaq6',
      from_seq: call.seq,
      reason: 'subagent',
      agent_id: 'a4fb297860875671f',
      agent_type: 'Explore',
      description: 'Survey acme-api layout',
    });
    expect(payload(child[0])).toMatchObject({
      parent_session: mainSession,
      agent_id: 'a4fb297860875671f',
      agent_type: 'Explore',
      call_id: 'toolu_01JETuXEtyr9679zsOqZHaq6',
      model: 'claude-haiku-4-5-20251001',
      spawn_depth: 1,
      envelope: { isSidechain: true, agentId: 'a4fb297860875671f', sessionId: 'fedfe4e3-0d75-4e8a-ae44-125dd06bbf71', cwd: '/home/alice/acme-api' },
    });
    expect(payload(child[1]).content[0].text).toMatch(/^Survey this Node project/);
    // The Agent result keeps its text blocks and the structured result.
    const result = resultOf(main, 'toolu_01JETuXEtyr9679zsOqZHaq6');
    expect(payload(result).content[0].text).toMatch(/^acme-api survey:/);
    expect(payload(result).structured).toMatchObject({ agentId: 'a4fb297860875671f', agentType: 'Explore', status: 'completed' });
  });

  it('keeps the compaction: a boundary that cuts the DAG and the summary flagged', () => {
    const boundary = only(main.filter((e) => payload(e).key === 'claude.system.compact_boundary'), 'boundary');
    expect(boundary.parent_seq).toBeNull();
    expect(payload(boundary).value).toMatchObject({ trigger: 'manual' });
    expect(payload(boundary).raw).toEqual(nativeLines(S3)[98]);
    expect(payload(boundary).raw.logicalParentUuid).toBe(nativeLines(S3)[92].uuid);
    const summary = main[boundary.seq + 1];
    expect(summary.type).toBe('message.user');
    expect(summary.actor).toBe('system');
    expect(payload(summary)).toMatchObject({ compact_summary: true, visible_in_transcript_only: true });
    expect(payload(summary).content[0].text).toMatch(/^This session is being continued from a previous conversation/);
    expect(summary.parent_seq).toBeUndefined();
    const caveat = main.find((e) => e.type === 'message.user' && payload(e).is_meta === true)!;
    expect(caveat.actor).toBe('system');
    expect(payload(caveat).content[0].text).toMatch(/^<local-command-caveat>/);
  });

  it('marks the synthetic assistant line and derives TodoWrite changes', () => {
    const synthetic = only(main.filter((e) => payload(e).synthetic === true), 'synthetic');
    expect(payload(synthetic)).toMatchObject({ model: '<synthetic>', content: [{ type: 'text', text: 'No response requested.' }] });
    const todos = main.filter((e) => e.type.startsWith('todo.'));
    expect(todos.map((e) => `${e.type} ${payload(e).id} ${payload(e).status}`)).toEqual([
      'todo.add todo-1 in_progress',
      'todo.add todo-2 pending',
      'todo.add todo-3 pending',
      'todo.update todo-1 completed',
      'todo.update todo-2 in_progress',
      'todo.update todo-2 completed',
      'todo.update todo-3 in_progress',
      'todo.update todo-3 completed',
    ]);
    const write = main.find((e) => e.type === 'file.edit' && payload(e).kind === 'create')!;
    expect(payload(write).path).toBe('/home/alice/acme-api/test/server.test.js');
    expect(payload(write).diff).toMatch(/^--- \/dev\/null\n\+\+\+ b\/test\/server\.test\.js\n@@ -0,0 \+1,\d+ @@\n\+'use strict';\n/);
    expect(main.filter((e) => e.type === 'message.thinking').every((e) => typeof payload(e).signature === 'string' && payload(e).signature.length > 20)).toBe(true);
  });

  it('captures a subagent transcript on its own as a child of its parent', async () => {
    const { events: alone } = await captureAll(claude, S3_SUB);
    expect(alone.map((e) => e.session)).toEqual(child.map(() => childSession));
    expect(alone.map((e) => e.type)).toEqual(child.map((e) => e.type));
    expect(payload(alone[0])).toMatchObject({ parent_session: mainSession, call_id: 'toolu_01JETuXEtyr9679zsOqZHaq6' });
  });

  it('stores the file-history backups as artifacts with --artifacts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-artifacts-'));
    try {
      const { events: withArtifacts } = await captureAll(claude, S3, { artifactsDir: dir });
      const snapshots = withArtifacts.filter((e) => payload(e).key === 'claude.file-history-snapshot' && payload(e).value.artifacts);
      expect(snapshots.length).toBeGreaterThan(0);
      const first = snapshots[0];
      for (const [file, ref] of Object.entries(payload(first).value.artifacts as Record<string, string>)) {
        const backup = payload(first).raw.snapshot.trackedFileBackups[file].backupFileName;
        const bytes = readFileSync(`${S3_HOME}/file-history/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71/${backup}`);
        expect(ref).toBe('sha256:' + createHash('sha256').update(bytes).digest('hex'));
        expect(existsSync(join(dir, ref.slice(7)))).toBe(true);
        expect(first.refs).toContain(`artifact:${ref}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('claude capture: public fixtures', () => {
  it('small.jsonl (22 record types): every unknown or metadata type as meta, ids made up where missing', async () => {
    const { events, diagnostics } = await capture(SMALL);
    expect(diagnostics).toEqual([]);
    expect(counts(events)).toEqual({
      'session.start': 1,
      meta: 69,
      'message.user': 7,
      'message.thinking': 6,
      'message.assistant': 7,
      'tool.call': 3,
      'tool.result': 3,
      'command.run': 2,
    });
    const keys = new Set(events.filter((e) => e.type === 'meta').map((e) => payload(e).key));
    for (const key of [
      'claude.system.session_start', 'claude.summary', 'claude.progress', 'claude.agent-name', 'claude.custom-title', 'claude.ai-title',
      'claude.system.api_refusal', 'claude.system.compact_boundary', 'claude.frame-link', 'claude.pr-link', 'claude.started', 'claude.result',
      'claude.relocated', 'claude.worktree-state', 'claude.bridge-session', 'claude.atis-latch', 'claude.attachment.queued_command',
      'claude.attachment.budget_usd', 'claude.system.model_refusal_fallback',
    ]) {
      expect(keys, key).toContain(key);
    }
    // A tool_use without an id gets one, marked; the result without tool_use_id pairs with it.
    const call = events.find((e) => e.type === 'tool.call' && payload(e).call_id_synthetic === true)!;
    expect(payload(call)).toMatchObject({ call_id: 'line8_call2', name: 'bash', input: { command: 'ls' } });
    const paired = resultOf(events, 'line8_call2');
    expect(payload(paired)).toMatchObject({ call_id_inferred: true, content: 'ok', structured: { stdout: 'file1\nfile2\n' } });
    expect(payload(derivedFrom(events, call)[0])).toMatchObject({ cmd: 'ls', exit_code: 0, stdout_head: 'file1\nfile2\n' });
    // The image, and an assistant block type nobody knows, kept as they are.
    const image = events.flatMap((e) => (e.type === 'message.user' ? payload(e).content : [])).find((b: Json) => b.type === 'image');
    expect(image).toEqual({ type: 'image', media_type: '[trimmed for fixture]', data: '[trimmed for fixture]' });
    const fallback = events.find((e) => e.type === 'message.assistant' && payload(e).content[0].type === 'fallback')!;
    expect(payload(fallback).content[0]).toEqual({ type: 'fallback', from: { model: 'claude-fable-5' }, to: { model: 'claude-opus-4-8' } });
    // Values that differ from the session's (version drift, trimmed cwd) stay on the line.
    const drifted = events.find((e) => e.type === 'message.user')!;
    expect(payload(drifted).extra).toMatchObject({ version: '2.1.161', isSidechain: true });
    expect(payload(events[0]).envelope).toMatchObject({ version: '2.1.80', cwd: '/tmp', isSidechain: false });
  });

  it('large.jsonl: one line with thinking, text and a tool call gives three events of one message, raw on the first', async () => {
    const { events } = await capture(LARGE);
    const line2 = events.filter((e) => e.origin?.native_seq === 2);
    expect(line2.map((e) => e.type)).toEqual(['message.thinking', 'message.assistant', 'tool.call']);
    expect(new Set(line2.map((e) => payload(e).message_id))).toEqual(new Set(['a1']));
    expect(payload(line2[0]).message_id_synthetic).toBe(true);
    expect(line2.map((e) => e.origin?.raw?.length ?? 0)).toEqual([1, 0, 0]);
    expect(payload(line2[0]).signature).toBeUndefined();
  });

  it('schema_drift.jsonl: old top-level tool_use / tool_result records become a call and its result', async () => {
    const { events } = await capture(DRIFT);
    const call = events.find((e) => e.type === 'tool.call')!;
    expect(payload(call)).toMatchObject({ call_id: 't1', name: 'bash', input: { command: 'cat README.md' } });
    const result = resultOf(events, 't1');
    expect(payload(result)).toMatchObject({ content: '# Title\n\nBody\n', name: 'bash', call_id_inferred: true });
    expect(payload(derivedFrom(events, call)[0])).toMatchObject({ cmd: 'cat README.md', exit_code: 0 });
    const answer = events.find((e) => e.type === 'message.assistant')!;
    expect(payload(answer)).toMatchObject({ content: [{ type: 'text', text: 'Read README and extracted the title.' }], string_content: true });
    expect(payload(answer).extra).toMatchObject({ apiErrorStatus: 429, attributionPlugin: 'codex' });
    expect(payload(events.find((e) => e.type === 'message.user')!).extra).toMatchObject({ project: '/tmp/project' });
  });

  it('subagent layout without a call id in the meta file: the fork matches the Task call by agent type', async () => {
    const { events } = await capture(SUB_MAIN);
    const sessions = [...bySession(events).keys()];
    expect(sessions).toEqual([
      canonicalSessionId('claude', '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f'),
      canonicalSessionId('claude', '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f/agent-a0ad4f44468bdf20d'),
    ]);
    const call = events.find((e) => e.type === 'tool.call' && payload(e).name === 'Task')!;
    const fork = events.find((e) => e.type === 'session.fork')!;
    expect(payload(fork)).toMatchObject({ from_seq: call.seq, call_id: payload(call).call_id, agent_type: 'general-purpose', to_session: sessions[1] });
    const childStart = events.find((e) => e.session === sessions[1])!;
    expect(payload(childStart)).toMatchObject({ parent_session: sessions[0], agent_type: 'general-purpose', envelope: { sessionId: 'agent-a0ad4f44468bdf20d' } });
  });

  it('dag_compact_after_rewind.jsonl: the rewind branch and the compaction cut show in parent_seq', async () => {
    const { events } = await capture(DAG);
    const byLine = (n: number) => events.find((e) => e.origin?.native_seq === n)!;
    // Line 5 is a second child of line 2 (the rewind): it points back past the first branch.
    expect(byLine(5).parent_seq).toBe(byLine(2).seq);
    expect(byLine(3).parent_seq).toBeUndefined();
    expect(byLine(9).parent_seq).toBeNull();
    expect(payload(byLine(9)).key).toBe('claude.system.compact_boundary');
    expect(payload(byLine(10))).toMatchObject({ compact_summary: true });
    expect(payload(byLine(9)).raw.logicalParentUuid).toBe(nativeLines(DAG)[7].uuid);
  });

  it('claude_current_sample.jsonl: thinking and text of one message, snapshot and last-prompt kept', async () => {
    const { events } = await capture(CURRENT);
    const ids = events.filter((e) => e.type === 'message.thinking' || e.type === 'message.assistant').map((e) => payload(e).message_id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
    const keys = events.filter((e) => e.type === 'meta').map((e) => payload(e).key);
    expect(keys).toEqual(['claude.permission-mode', 'claude.file-history-snapshot', 'claude.attachment.companion_intro', 'claude.system.stop_hook_summary', 'claude.last-prompt']);
  });

  it('claude_pending.jsonl: an undelivered queued prompt and a call without result', async () => {
    const { events } = await capture(PENDING);
    const queued = events.find((e) => payload(e).key === 'claude.queue-operation')!;
    expect(payload(queued).value.operation).toBe('enqueue');
    expect(typeof payload(queued).value.content).toBe('string');
    expect(events.filter((e) => e.type === 'tool.call')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool.result')).toHaveLength(0);
  });
});

describe('claude capture: every fixture', () => {
  it('reproduces each transcript byte for byte from origin.raw in seq order', async () => {
    for (const path of ALL_TRANSCRIPTS) {
      const { events } = await capture(path);
      const start = events.find((e) => e.type === 'session.start' && payload(e).source_path === path)!;
      expect(start, path).toBeDefined();
      const lines = events
        .filter((e) => e.session === start.session && e.origin?.raw)
        .sort((a, b) => a.seq - b.seq)
        .flatMap((e) => e.origin!.raw!);
      const text = lines.join('\n') + (payload(start).raw_final_newline ? '\n' : '');
      expect(Buffer.from(text).equals(readFileSync(path)), path).toBe(true);
      // Exactly one event per line carries it.
      expect(lines.length).toBe(readFileSync(path, 'utf8').split('\n').length - (payload(start).raw_final_newline ? 1 : 0));
    }
  });

  it('turns every resolvable parentUuid into the right parent (parent_seq, or the event just before)', async () => {
    for (const path of ALL_TRANSCRIPTS) {
      const records = nativeLines(path);
      const lineOfUuid = new Map<string, number>();
      records.forEach((r, i) => typeof r.uuid === 'string' && lineOfUuid.set(r.uuid, i + 1));
      const { events } = await capture(path);
      const start = events.find((e) => e.type === 'session.start' && payload(e).source_path === path)!;
      const session = events.filter((e) => e.session === start.session);
      const firstOfLine = new Map<number, SpEvent>();
      const lastOfLine = new Map<number, SpEvent>();
      for (const e of session) {
        const n = e.origin?.native_seq;
        if (typeof n !== 'number') continue;
        if (!firstOfLine.has(n)) firstOfLine.set(n, e);
        lastOfLine.set(n, e);
      }
      let checked = 0;
      records.forEach((record, i) => {
        const parent = record.parentUuid;
        if (typeof parent !== 'string' || !lineOfUuid.has(parent) || lineOfUuid.get(parent)! > i) return;
        // Duplicate uuids ("[trimmed for fixture]"): the latest line before this one wins.
        const first = firstOfLine.get(i + 1)!;
        const effective = first.parent_seq ?? first.seq - 1;
        expect(session[effective].origin?.native_uuid, `${path}:${i + 1}`).toBe(parent);
        checked += 1;
      });
      if (path === S3 || path === S1) expect(checked).toBeGreaterThan(40);
    }
  });
});

describe('claude capture: odd lines', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sp-odd-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports bad lines as file:line: what: excerpt, keeps them as meta, and reproduces CRLF, BOM and blank lines', async () => {
    const path = join(dir, '11111111-2222-4333-8444-555555555555.jsonl');
    const lines = [
      '\ufeff{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-01-01T10:00:00.000Z","cwd":"/w","message":{"role":"user","content":"hi"}}',
      '{"type":"assistant","uuid":"u2","parentUuid":"u1","timestamp":"2026-01-01T10:00:01.000Z","message":{"id":"m1","model":"claude-opus-4-8","content":[{"type":"text","text":"hello"}]}}\r',
      '',
      '{"type":"assistant", this is not json',
      '[1,2,3]',
      '{"type":"hologram-sync","payload":{"x":1}}',
      '{"no_type":true}',
      '{"type":"user","uuid":"u3","parentUuid":"u2","timestamp":"not a time","message":{"role":"user","content":"again"}}',
    ];
    writeFileSync(path, lines.join('\n') + '\n{"type":"user","message":{"content":"tor');
    const { events, diagnostics } = await captureAll(claude, path, { raw: true });
    expect(diagnostics.map((d) => d.where)).toEqual([`${path}:4`, `${path}:5`, `${path}:9`]);
    expect(diagnostics[0].what).toMatch(/^invalid JSON \(.*\): \{"type":"assistant", this is not json$/);
    expect(diagnostics[1].what).toBe('not a JSON object: [1,2,3]');
    expect(diagnostics[2].what).toMatch(/\(last line has no newline: truncated\?\): \{"type":"user","message":\{"content":"tor$/);
    const byLine = (n: number) => events.filter((e) => e.origin?.native_seq === n);
    expect(payload(byLine(3)[0])).toEqual({ key: 'claude.blank-line' });
    expect(payload(byLine(4)[0])).toMatchObject({ key: 'unparseable', text: '{"type":"assistant", this is not json' });
    expect(payload(byLine(6)[0])).toEqual({ key: 'claude.hologram-sync', raw: { type: 'hologram-sync', payload: { x: 1 } } });
    expect(payload(byLine(7)[0]).key).toBe('claude.untyped');
    expect(payload(byLine(9)[0])).toMatchObject({ key: 'unparseable', unterminated: true });
    // An unparseable timestamp: the previous event's time, and the text kept on the line.
    expect(byLine(8)[0].ts).toBe(byLine(7)[0].ts);
    expect(payload(byLine(8)[0]).extra).toEqual({ timestamp: 'not a time' });
    // Byte for byte: the BOM, the CR and the missing final newline.
    const start = events[0];
    expect(payload(start).raw_final_newline).toBe(false);
    const rebuilt = events.filter((e) => e.origin?.raw).flatMap((e) => e.origin!.raw!).join('\n');
    expect(Buffer.from(rebuilt).equals(readFileSync(path))).toBe(true);
  });

  it('reads an empty transcript as a session with only its start', async () => {
    const path = join(dir, '22222222-2222-4333-8444-555555555555.jsonl');
    writeFileSync(path, '');
    const { events } = await captureAll(claude, path);
    expect(events.map((e) => e.type)).toEqual(['session.start']);
  });

  it('reports a missing transcript as a user error', async () => {
    await expect(claude.open(join(dir, 'missing.jsonl'))).rejects.toBeInstanceOf(UserError);
  });
});

describe('claude capture: incremental over a whole home', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'sp-home-'));
    cpSync(S1_HOME, home, { recursive: true });
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('continues after the cursor: new lines, changed task files, nothing twice', async () => {
    const transcript = join(home, 'projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl');
    const ref = await claude.open(transcript);
    const empty: Cursor = { version: 1, agent: 'claude', native_id: ref.native_id, sources: {}, sessions: {} };
    const first = await captureRef(claude, ref, { cursor: empty });
    const oneShot = await captureAll(claude, transcript);
    expect(first.events.map((e) => e.type)).toEqual(oneShot.events.map((e) => e.type));
    const session = first.events[0].session;
    expect(first.cursor!.sessions[session].next_seq).toBe(first.events.length);
    expect(first.cursor!.sources[transcript]).toMatchObject({ offset: readFileSync(transcript).length, line: 60 });

    // Nothing new: nothing out.
    const again = await captureRef(claude, ref, { cursor: first.cursor });
    expect(again.events).toEqual([]);

    // A new turn and a task that changed.
    const prompt = {
      parentUuid: '3193f98a-bd2f-4d8a-99b5-a62bda4f11da', isSidechain: false, type: 'user', uuid: 'aaaaaaaa-0000-4000-8000-000000000001',
      timestamp: '2026-11-30T05:20:00.000Z', message: { role: 'user', content: 'One more thing.' }, sessionId: ref.native_id, cwd: '/home/alice/acme-api',
      version: '2.1.197', gitBranch: 'main', userType: 'external', entrypoint: 'sdk-cli',
    };
    appendFileSync(transcript, JSON.stringify(prompt) + '\n');
    const taskFile = join(home, 'tasks', ref.native_id, '2.json');
    const task = JSON.parse(readFileSync(taskFile, 'utf8'));
    writeFileSync(taskFile, JSON.stringify({ ...task, status: 'in_progress' }));
    const next = await captureRef(claude, ref, { cursor: first.cursor });
    expect(next.events.map((e) => [e.seq, e.type])).toEqual([
      [first.events.length, 'message.user'],
      [first.events.length + 1, 'todo.update'],
    ]);
    expect(payload(next.events[0])).toEqual({ content: [{ type: 'text', text: 'One more thing.' }], string_content: true });
    // Its parent is the last assistant message, several events back.
    const lastText = first.events.filter((e) => e.type === 'message.assistant').pop()!;
    expect(next.events[0].parent_seq).toBe(lastText.seq);
    expect(payload(next.events[1])).toMatchObject({ id: '2', status: 'in_progress', source: 'tasks_file' });
  });

  it('refuses a cursor of another session', async () => {
    const ref = await claude.open(S2);
    const other: Cursor = { version: 1, agent: 'claude', native_id: 'someone-else', sources: {}, sessions: {} };
    await expect(captureRef(claude, ref, { cursor: other })).rejects.toBeInstanceOf(UserError);
  });
});

describe('claude discovery', () => {
  it('lists a session with its prompt, title, times and counts', async () => {
    const ref = await claude.open(S3);
    const summary = await summarize(ref);
    expect(summary).toMatchObject({
      native_id: 'fedfe4e3-0d75-4e8a-ae44-125dd06bbf71',
      cwd: '/home/alice/acme-api',
      title: 'Todo API improvements',
      first_prompt: 'Give me a quick overview of this repo: what endpoints exist and how is it tested? Use a subagent if that helps.',
      first_ts: Date.parse('2026-11-30T05:14:57.905Z') / 1000,
      last_ts: Date.parse('2026-11-30T05:15:20.306Z') / 1000,
      tool_calls: 24,
      subagents: 1,
    });
    // 9 typed prompts and /compact's 2 echo lines (command-name, local-command-stdout), plus one per API message.
    const apiMessages = new Set(nativeLines(S3).filter((r) => r.type === 'assistant').map((r) => r.message.id)).size;
    expect(summary.messages).toBe(apiMessages + 11);
  });

  it('cuts prompts to 120 characters, whole code points, whitespace folded', () => {
    expect(cutPrompt('a\n\n  b')).toBe('a b');
    const long = '测'.repeat(200);
    expect(cutPrompt(long)).toBe('测'.repeat(120));
    expect(Array.from(cutPrompt('😀'.repeat(130)))).toHaveLength(120);
  });

  it('finds a session by a unique id prefix, and says which home it searched when there is none', async () => {
    const ref = await claude.find!('e05d', { home: S1_HOME });
    expect(ref.path).toBe(S1);
    await expect(claude.find!('ffff', { home: S1_HOME })).rejects.toThrow(/no Claude session "ffff" under .*S1-feature\/\.claude\/projects/);
  });
});
