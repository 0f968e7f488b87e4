// sp-capture pi: golden files for every fixture, byte-exact raw lines, the tree, v1/v2 migration
// in memory, derived events, discovery, and that the user's file is never touched.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pi } from '../../adapters/pi/index.js';
import { BRANCH_SUMMARY_PREFIX } from '../../adapters/pi/format.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { createValidator } from '../../lib/core/schema.js';
import { canonicalSessionId, type SpEvent } from '../../lib/core/event.js';
import type { SessionRef } from '../../lib/adapter/interface.js';
import { captureAll } from '../contract/testAdapter.js';
import { tempDir } from '../support/streams.js';
import { ALL, BEFORE_COMPACTION, LARGE_SESSION, OPENCLAW, PI, S1, S2, S3, STAGE0_PI, goldenText, name, readEntries, short } from './support.js';

const GOLDEN = `${PI}expected/`;
/** Golden canonical output kept in full below this size; larger ones as sha256 + counts. */
const FULL_GOLDEN_MAX = 200_000;

function countsOf(events: SpEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) {
    const key = e.type === 'meta' ? `meta ${String(e.payload.key)}` : e.derived_from !== undefined ? `${e.type} (derived)` : e.type;
    out[key] = (out[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(out).sort());
}

describe('capture: golden canonical events for every Pi fixture', () => {
  for (const fixture of ALL) {
    it(name(fixture), async () => {
      const { events, diagnostics } = await captureAll(pi, fixture);
      expect(diagnostics).toEqual([]);
      const text = goldenText(events);
      const base = `${GOLDEN}${short(fixture)}`;
      const summary = { sha256: createHash('sha256').update(text).digest('hex'), events: events.length, counts: countsOf(events) };
      if (process.env.SP_UPDATE_GOLDEN) {
        mkdirSync(GOLDEN, { recursive: true });
        if (text.length <= FULL_GOLDEN_MAX) writeFileSync(`${base}.ndjson`, text);
        writeFileSync(`${base}.summary.json`, JSON.stringify(summary, null, 2) + '\n');
      }
      // Counts first: on a mismatch they say what changed before the hash does.
      expect(summary.counts).toEqual(JSON.parse(readFileSync(`${base}.summary.json`, 'utf8')).counts);
      if (existsSync(`${base}.ndjson`)) expect(text).toBe(readFileSync(`${base}.ndjson`, 'utf8'));
      expect(summary.sha256).toBe(JSON.parse(readFileSync(`${base}.summary.json`, 'utf8')).sha256);
    });
  }
});

describe('capture: raw lines', () => {
  for (const fixture of ALL) {
    it(`origin.raw of the first event of each line gives ${name(fixture)} byte for byte`, async () => {
      const { events } = await captureAll(pi, fixture, { raw: true });
      const lines: string[] = [];
      for (const e of events) if (e.origin?.raw) lines.push(...e.origin.raw);
      const start = events[0].payload as Record<string, unknown>;
      const text = lines.join('\n') + (start.raw_final_newline ? '\n' : '');
      expect(createHash('sha256').update(text).digest('hex')).toBe(createHash('sha256').update(readFileSync(fixture)).digest('hex'));
    });
  }
});

/** Entry id → the id of the entry its first event's parent comes from (walking through events of no entry). */
function canonicalParents(events: SpEvent[]): Map<string, string | null> {
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  const firstOfLine = new Map<number, SpEvent>();
  for (const e of events) if (!firstOfLine.has(e.origin!.native_seq!)) firstOfLine.set(e.origin!.native_seq!, e);
  const out = new Map<string, string | null>();
  for (const first of firstOfLine.values()) {
    const uuid = first.origin?.native_uuid;
    if (typeof uuid !== 'string' || first.type === 'session.start') continue;
    let at: number | null = first.parent_seq === null ? null : (first.parent_seq ?? first.seq - 1);
    let parent: string | null = null;
    while (at !== null && at >= 0) {
      const e = bySeq.get(at)!;
      if (e.type !== 'session.start' && typeof e.origin?.native_uuid === 'string' && e.derived_from === undefined && e.origin.native_seq !== first.origin!.native_seq) {
        parent = e.origin.native_uuid;
        break;
      }
      at = e.parent_seq === null ? null : (e.parent_seq ?? e.seq - 1);
    }
    out.set(uuid, parent);
  }
  return out;
}

describe('capture: the tree', () => {
  for (const fixture of [S1, S2, S3, STAGE0_PI]) {
    it(`parent_seq gives every entry of ${name(fixture)} its parentId`, async () => {
      const { events } = await captureAll(pi, fixture);
      const parents = canonicalParents(events);
      const entries = readEntries(fixture).slice(1);
      expect(parents.size).toBe(entries.length);
      for (const entry of entries) expect(parents.get(entry.id), entry.id).toBe(entry.parentId);
    });
  }

  it('keeps both branches of S3 and marks the branch point with parent_seq', async () => {
    const { events } = await captureAll(pi, S3);
    const summary = events.find((e) => e.payload.pi_type === 'branch_summary')!;
    // The branch summary hangs from the assistant message the abandoned branch also started from.
    const from = events.filter((e) => e.origin?.native_uuid === 'e98e9f43');
    expect(summary.parent_seq).toBe(from[from.length - 1].seq);
    expect(summary.payload.from_seq).toBe(from[from.length - 1].seq);
    const text = (summary.payload.content as Array<{ text: string }>)[0].text;
    expect(text.startsWith(BRANCH_SUMMARY_PREFIX)).toBe(true);
    const abandoned = events.find((e) => e.origin?.native_uuid === '3ec61d10')!;
    expect(abandoned.type).toBe('message.user');
    expect(abandoned.parent_seq).toBeUndefined(); // first child: follows e98e9f43 directly
  });

  it('records the active leaf (the last entry) on session.start', async () => {
    for (const fixture of ALL) {
      const { events } = await captureAll(pi, fixture);
      const entries = readEntries(fixture);
      const lines = readFileSync(fixture, 'utf8').trimEnd().split('\n').length;
      const leaf = (events[0].payload as Record<string, any>).active_leaf;
      expect(leaf.native_seq, name(fixture)).toBe(lines);
      expect(leaf.native_uuid, name(fixture)).toBe(entries[entries.length - 1].id);
    }
  });

  it('makes entries whose parent is not in the file new roots and keeps the id they named', async () => {
    const { events } = await captureAll(pi, OPENCLAW);
    // m1's parentId is the session id; m3's and m6's name tool-call ids.
    for (const id of ['m1', 'm3', 'm6']) {
      const first = events.find((e) => e.origin?.native_uuid === id)!;
      expect(first.parent_seq, id).toBeNull();
      expect(typeof first.origin?.native_parent).toBe('string');
    }
  });

  it('resolves a compaction\'s firstKeptEntryId to the seq of that entry', async () => {
    const { events } = await captureAll(pi, S3);
    const checkpoint = events.find((e) => e.type === 'checkpoint')!;
    expect(checkpoint.payload).toMatchObject({ kind: 'compaction', first_kept_entry_id: '08976960', tokens_before: 7948 });
    const kept = events.find((e) => e.seq === checkpoint.payload.first_kept_seq)!;
    expect(kept.origin?.native_uuid).toBe('08976960');
    expect(kept.type).toBe('message.user');
  });
});

describe('capture: v1 and v2 files, migrated in memory only', () => {
  it('links v1 entries in file order and resolves firstKeptEntryIndex like the client', async () => {
    const before = statSync(BEFORE_COMPACTION);
    const { events } = await captureAll(pi, BEFORE_COMPACTION);
    expect(events[0].payload).toMatchObject({ format_version: 1, model: 'claude-opus-4-5', provider: 'anthropic', thinking_level: 'off' });
    expect((await captureAll(pi, LARGE_SESSION)).events[0].payload).toMatchObject({ model: 'claude-sonnet-4-5', provider: 'anthropic' });
    expect(typeof events[0].payload.branched_from).toBe('string');
    // The session it was branched from, by the id in that file's name.
    expect(events[0].payload.parent_session).toBe(canonicalSessionId('pi', 'd97339c6-6c10-4827-846b-9ff1d9c3dc37'));
    // v1: no entry ids, so no parent_seq except after events of no entry (none here) — a single chain.
    expect(events.filter((e) => e.parent_seq !== undefined)).toEqual([]);
    const checkpoints = events.filter((e) => e.type === 'checkpoint');
    expect(checkpoints.map((c) => c.payload.first_kept_entry_index)).toEqual([293, 551]);
    for (const c of checkpoints) {
      const kept = events.find((e) => e.seq === c.payload.first_kept_seq)!;
      // Index = position among parsed lines, the header being 0: line index + 1.
      expect(kept.origin?.native_seq).toBe((c.payload.first_kept_entry_index as number) + 1);
    }
    const after = statSync(BEFORE_COMPACTION);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.size).toBe(before.size);
  });

  it('reads a v2 hookMessage as role custom and leaves the file as it was', async () => {
    const dir = tempDir();
    const path = join(dir, '2026-01-03T10-00-00-000Z_v2-hook.jsonl');
    const text = [
      { type: 'session', version: 2, id: 'v2-hook', timestamp: '2026-01-03T10:00:00.000Z', cwd: dir },
      { type: 'message', id: 'a1', parentId: null, timestamp: '2026-01-03T10:00:01.000Z', message: { role: 'user', content: 'hello', timestamp: 1767434401000 } },
      { type: 'message', id: 'a2', parentId: 'a1', timestamp: '2026-01-03T10:00:02.000Z', message: { role: 'hookMessage', customType: 'note', content: 'HOOK-TEXT', display: true, timestamp: 1767434402000 } },
    ].map((e) => JSON.stringify(e)).join('\n') + '\n';
    writeFileSync(path, text);
    chmodSync(path, 0o444);
    const { events, diagnostics } = await captureAll(pi, path);
    expect(diagnostics).toEqual([]);
    const hook = events.find((e) => e.origin?.native_uuid === 'a2')!;
    expect(hook.type).toBe('message.user');
    expect(hook.payload).toMatchObject({ pi_role: 'custom', native_role: 'hookMessage', custom_type: 'note', content: [{ type: 'text', text: 'HOOK-TEXT' }] });
    const user = events.find((e) => e.origin?.native_uuid === 'a1')!;
    expect(user.payload).toMatchObject({ string_content: true, content: [{ type: 'text', text: 'hello' }] });
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});

describe('capture: messages and derived events', () => {
  it('splits an assistant message into thinking, text and tool.call events sharing its fields', async () => {
    const { events } = await captureAll(pi, S1);
    const first = events.filter((e) => e.origin?.native_uuid === '3a84000c');
    expect(first.map((e) => e.type)).toEqual(['message.thinking', 'message.assistant', 'tool.call']);
    for (const e of first) {
      expect(e.payload).toMatchObject({ message_id: 'msg_01BsTtAiUFnif7ZhrhhFN1Y4', api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', stop_reason: 'toolUse' });
      expect((e.payload.usage as Record<string, any>).cost.total).toBe(0.012687);
    }
    expect(first[0].payload.signature).toMatch(/^EqMI/);
    expect(first[0].payload.visibility).toBe('visible');
    expect(first[2].payload).toMatchObject({ call_id: 'toolu_01Yv2VH3Fc14cXYC1ULogsGa', name: 'read', input: { path: 'src/routes/todos.js' } });
  });

  it('derives file.edit with an exact unified diff and command.run with the exit code', async () => {
    const { events } = await captureAll(pi, S1);
    const edit = events.find((e) => e.type === 'file.edit')!;
    expect(events.find((e) => e.seq === edit.derived_from)!.type).toBe('tool.call');
    expect(edit.actor).toBe('tool');
    expect(edit.payload).toMatchObject({ path: 'src/routes/todos.js', kind: 'modify', added: 4, removed: 0, tool: 'edit' });
    expect(edit.payload.diff).toBe(
      '--- a/src/routes/todos.js\n+++ b/src/routes/todos.js\n@@ -33,8 +33,12 @@\n' +
        "   if (method === 'GET' && id !== null) {\n     const todo = todos.get(id);\n     return todo ? { status: 200, body: todo } : { status: 404, body: { error: 'todo not found' } };\n   }\n" +
        "+  if (method === 'DELETE' && id !== null) {\n+    todos.delete(id);\n+    return { status: 204, body: null };\n+  }\n" +
        "   return { status: 405, body: { error: 'method not allowed' } };\n }\n \n module.exports = { handle, reset, createTodo };\n",
    );
    const runs = events.filter((e) => e.type === 'command.run');
    expect(runs.map((r) => [r.payload.cmd, r.payload.exit_code])).toEqual([['npm test', 0], ['npm test', 0]]);
    expect(runs[0].payload.cwd).toBe('/home/carol/acme-api');
  });

  it('keeps a failing command\'s exit code and no read for a missing file (S2)', async () => {
    const { events } = await captureAll(pi, S2);
    const runs = events.filter((e) => e.type === 'command.run');
    expect(runs[0].payload.exit_code).toBe(1);
    expect(String(runs[0].payload.stdout_head)).toContain('not ok');
    expect(String(runs[0].payload.stdout_head)).not.toContain('Command exited with code');
    const reads = events.filter((e) => e.type === 'file.read').map((e) => e.payload.path);
    const failed = events.find((e) => e.type === 'tool.result' && e.payload.is_error === true && e.payload.name === 'read')!;
    expect(String(JSON.stringify(failed.payload.content))).toContain('ENOENT');
    expect(reads).not.toContain('src/store.js');
    const user = events.find((e) => e.type === 'message.user')!;
    const image = (user.payload.content as Array<Record<string, unknown>>).find((b) => b.type === 'image')!;
    expect(image.media_type).toBe('image/png');
    expect(typeof image.data).toBe('string');
  });

  it('stores images as artifacts with --artifacts', async () => {
    const dir = tempDir();
    const { events } = await captureAll(pi, S2, { artifactsDir: dir });
    const user = events.find((e) => e.type === 'message.user')!;
    const image = (user.payload.content as Array<Record<string, unknown>>).find((b) => b.type === 'image')!;
    expect(image.data).toBeUndefined();
    expect(image.artifact).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(existsSync(join(dir, String(image.artifact).slice(7)))).toBe(true);
  });

  it('turns a user `!cmd` run into the user text the client sends plus a command.run', async () => {
    const { events } = await captureAll(pi, BEFORE_COMPACTION);
    const bash = events.filter((e) => e.payload.pi_role === 'bashExecution');
    expect(bash).toHaveLength(3);
    expect((bash[0].payload.content as Array<{ text: string }>)[0].text).toMatch(/^Ran `ls`\n```\nAGENTS.md\n/);
    const run = events.find((e) => e.seq === bash[0].seq + 1)!;
    expect(run).toMatchObject({ type: 'command.run', actor: 'user', payload: { cmd: 'ls', exit_code: 0, via: 'bashExecution' } });
    expect(run.derived_from).toBeUndefined();
  });

  it('keeps the large v1 session\'s provider switch and its aborted turns', async () => {
    const { events } = await captureAll(pi, LARGE_SESSION);
    const providers = new Set(events.filter((e) => e.type === 'message.assistant').map((e) => `${e.payload.provider}/${e.payload.api}`));
    expect(providers).toEqual(new Set(['openai/openai-responses', 'anthropic/anthropic-messages']));
    // The openai turn was aborted before any block: one event with no content carries its fields.
    const openai = events.find((e) => e.type !== 'session.start' && e.payload.provider === 'openai')!;
    expect(openai).toMatchObject({ type: 'message.assistant', payload: { content: [], stop_reason: 'aborted', model: 'gpt-5.1-codex', message_id_synthetic: true } });
    const aborted = events.filter((e) => e.type === 'message.assistant' && e.payload.stop_reason === 'aborted');
    expect(aborted.length).toBeGreaterThan(10);
  });

  it('keeps blocks the canonical schema cannot hold whole as {type:"unknown", value}, and every event valid', async () => {
    const dir = tempDir();
    const path = join(dir, 'odd.jsonl');
    const odd = [
      { type: 'session', version: 3, id: 'odd', timestamp: '2026-01-01T00:00:00.000Z', cwd: dir },
      { type: 'message', id: 'u1', parentId: null, timestamp: -5, message: { role: 'user', content: [{ type: 'text', text: 42 }, { type: 'image', mimeType: 'image/png' }, 'plain', { no: 'type' }] } },
      { type: 'message', id: 'a1', parentId: 'u1', timestamp: '2026-01-01T00:00:02.000Z', message: { role: 'assistant', content: [{ type: 'text', text: ['x'] }, 7], stopReason: 5 } },
    ];
    writeFileSync(path, odd.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const { events, diagnostics } = await captureAll(pi, path);
    expect(diagnostics).toEqual([]);
    const validator = await createValidator();
    for (const e of events) expect(validator.validate(e), `${e.seq} ${e.type}`).toEqual([]);
    const user = events.find((e) => e.type === 'message.user')!;
    expect(user.payload.content).toEqual([
      { type: 'unknown', value: { type: 'text', text: 42 } },
      { type: 'unknown', value: { type: 'image', mimeType: 'image/png' } },
      { type: 'unknown', value: 'plain' },
      { type: 'unknown', value: { no: 'type' } },
    ]);
    expect(user.ts).toBe(1767225600); // a negative time is not a time: the header's is used
    const assistant = events.filter((e) => e.type === 'message.assistant');
    expect(assistant.map((e) => e.payload.content)).toEqual([[{ type: 'unknown', value: { type: 'text', text: ['x'] } }], [{ type: 'unknown', value: 7 }]]);
    expect(assistant[0].payload.stop_reason).toBeUndefined();
    expect(assistant[0].payload.message_extra).toEqual({ stopReason: 5 });
  });

  it('reports a line that is not JSON with file:line and keeps it as meta', async () => {
    const dir = tempDir();
    const path = join(dir, 'broken.jsonl');
    const lines = readFileSync(S1, 'utf8').split('\n');
    lines.splice(4, 0, '{"type":"message","message":{"role":"user","content":"cut');
    writeFileSync(path, lines.join('\n'));
    const { events, diagnostics } = await captureAll(pi, path);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0].where).toBe(`${path}:5`);
    expect(diagnostics[0].what).toMatch(/invalid JSON/);
    const bad = events.find((e) => e.payload.key === 'unparseable')!;
    expect(bad.payload.text).toContain('"cut');
    // The entry after it still finds its parent (the line before the bad one).
    const next = events.find((e) => e.origin?.native_seq === 6)!;
    expect(next.parent_seq).toBe(bad.seq - 1);
  });
});

describe('discover', () => {
  const home = `${PI}corpus/S3-long/agent`;

  it('lists a home\'s sessions with details and finds one by id prefix', async () => {
    const refs: SessionRef[] = [];
    for await (const ref of pi.discover({ home, details: true })) refs.push(ref);
    expect(refs).toHaveLength(1);
    expect(refs[0]).toMatchObject({ agent: 'pi', native_id: '01a22ad6-2c3b-714c-9526-cda55a420afd', cwd: '/home/carol/acme-api', format_version: 3, branches: 2, model: 'deepseek-v4-pro' });
    expect(refs[0].first_prompt).toMatch(/^Give me a quick tour/);
    expect((await pi.find!('01a22ad6', { home })).path).toBe(S3);
    await expect(pi.find!('ffff', { home })).rejects.toBeInstanceOf(UserError);
  });

  it('filters by cwd and skips files without a header (with a diagnostic)', async () => {
    const dir = tempDir();
    const folder = join(dir, 'sessions', '--home-carol-acme-api--');
    mkdirSync(folder, { recursive: true });
    copyFileSync(S1, join(folder, 'a.jsonl'));
    writeFileSync(join(folder, 'b.jsonl'), '{"type":"message"}\n');
    const other = join(dir, 'sessions', '--tmp-other--');
    mkdirSync(other);
    copyFileSync(S2, join(other, 'c.jsonl'));
    const diagnostics: string[] = [];
    const all: SessionRef[] = [];
    for await (const ref of pi.discover({ home: dir, onDiagnostic: (w) => diagnostics.push(w) })) all.push(ref);
    expect(all.map((r) => r.native_id).sort()).toEqual(['01a22ad4-b363-77ef-ab50-931c39c72539', '01a22ad5-1860-75b1-a6ae-a6566d610280']);
    expect(diagnostics).toEqual([`${join(folder, 'b.jsonl')}:1`]);
    const mine: SessionRef[] = [];
    for await (const ref of pi.discover({ home: dir, cwd: '/home/carol/acme-api' })) mine.push(ref);
    // c.jsonl is filed under /tmp/other but its header says /home/carol/acme-api: both count.
    expect(mine).toHaveLength(2);
    const none: SessionRef[] = [];
    for await (const ref of pi.discover({ home: dir, cwd: '/nowhere' })) none.push(ref);
    expect(none).toHaveLength(0);
  });
});
