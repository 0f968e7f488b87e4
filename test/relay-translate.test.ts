// The relay transform (lib/relay/translate.ts) on the real corpus sessions of every agent, relayed
// to every other agent: tool calls in the target's vocabulary or rendered as text, results paired,
// the header first, a ledger entry per call; same-agent streams untouched.
import { describe, expect, it } from 'vitest';
import { claude } from '../adapters/claude/index.js';
import { codex } from '../adapters/codex/index.js';
import { hermes } from '../adapters/hermes/index.js';
import { pi } from '../adapters/pi/index.js';
import type { Adapter, LossEntry } from '../lib/adapter/interface.js';
import type { SpEvent } from '../lib/core/event.js';
import { isObject, type Json } from '../lib/core/json.js';
import { relayTransform, type RelayOptions } from '../lib/relay/translate.js';
import { VOCABULARIES } from './support/vocabularies.js';
import { captureAll } from './contract/testAdapter.js';
import * as CODEX from './support/codexFixtures.js';

const F = new URL('../fixtures/', import.meta.url).pathname;
const HERMES_DB = `${F}hermes/corpus/state.db`;

interface Source {
  agent: string;
  name: string;
  adapter: Adapter;
  path: string;
}

const SOURCES: Source[] = [
  { agent: 'claude', name: 'S1', adapter: claude, path: `${F}claude/corpus/S1-feature/.claude/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl` },
  { agent: 'claude', name: 'S2', adapter: claude, path: `${F}claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl` },
  { agent: 'claude', name: 'S3', adapter: claude, path: `${F}claude/corpus/S3-long/.claude/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71.jsonl` },
  { agent: 'codex', name: 'S1', adapter: codex, path: CODEX.S1 },
  { agent: 'codex', name: 'S2', adapter: codex, path: CODEX.S2 },
  { agent: 'codex', name: 'S3', adapter: codex, path: CODEX.S3 },
  { agent: 'pi', name: 'S1', adapter: pi, path: `${F}pi/corpus/S1-feature/agent/sessions/--home-carol-acme-api--/2026-11-30T05-01-52-356Z_01a22ad4-b363-77ef-ab50-931c39c72539.jsonl` },
  { agent: 'pi', name: 'S2', adapter: pi, path: `${F}pi/corpus/S2-debug/agent/sessions/--home-carol-acme-api--/2026-11-30T05-02-18-208Z_01a22ad5-1860-75b1-a6ae-a6566d610280.jsonl` },
  { agent: 'pi', name: 'S3', adapter: pi, path: `${F}pi/corpus/S3-long/agent/sessions/--home-carol-acme-api--/2026-11-30T05-03-28-829Z_01a22ad6-2c3b-714c-9526-cda55a420afd.jsonl` },
  { agent: 'hermes', name: 'S1', adapter: hermes, path: `${HERMES_DB}#20261130_051619_bb4de5` },
  { agent: 'hermes', name: 'S2', adapter: hermes, path: `${HERMES_DB}#20261130_051637_0bbbb5` },
  { agent: 'hermes', name: 'S3', adapter: hermes, path: `${HERMES_DB}#20261130_051641_564346` },
];
const TARGETS = ['claude', 'codex', 'pi', 'hermes'];

const captured = new Map<Source, SpEvent[]>();
async function eventsOf(source: Source): Promise<SpEvent[]> {
  let events = captured.get(source);
  if (!events) captured.set(source, (events = (await captureAll(source.adapter, source.path)).events));
  // Each relay gets its own copies: the transform may set a parent on the events it reads.
  return events.map((e) => structuredClone(e));
}

async function* from(events: SpEvent[]): AsyncGenerator<SpEvent> {
  yield* events;
}

async function relayed(events: SpEvent[], options: Omit<RelayOptions, 'onLoss'>): Promise<{ out: SpEvent[]; losses: LossEntry[] }> {
  const losses: LossEntry[] = [];
  const out: SpEvent[] = [];
  for await (const event of relayTransform(from(events), { ...options, onLoss: (e) => losses.push(e) })) out.push(event);
  return { out, losses };
}

const payload = (e: SpEvent): Json => (isObject(e.payload) ? e.payload : {});
const textOf = (e: SpEvent): string => {
  const content = payload(e).content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.filter(isObject).map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n') : '';
};
const main = (events: SpEvent[]): SpEvent[] => events.filter((e) => e.session === events[0].session && e.derived_from === undefined);

describe('relayTransform on the corpus: every source to every other target', () => {
  for (const source of SOURCES) {
    for (const target of TARGETS.filter((t) => t !== source.agent)) {
      it(`${source.agent} ${source.name} → ${target}`, async () => {
        const events = await eventsOf(source);
        const { out, losses } = await relayed(events, { target, now: new Date('2026-11-30T10:00:00Z') });
        const own = main(events);
        const sourceCalls = own.filter((e) => e.type === 'tool.call');
        expect(sourceCalls.length).toBeGreaterThan(0);

        // Every call names a tool of the target; each translated call says what it came from.
        const vocabulary = VOCABULARIES[target];
        const calls = out.filter((e) => e.type === 'tool.call' && e.session === events[0].session);
        for (const call of calls) {
          expect(vocabulary.tools.has(String(payload(call).name)), `${String(payload(call).name)} is a ${target} tool`).toBe(true);
          expect(payload(call).relay).toMatchObject({ target, source: source.agent });
        }

        // One ledger entry per source call: translated (from → to the names written) or rendered.
        for (const call of sourceCalls) {
          const entries = losses.filter((l) => l.seq === call.seq && l.type === 'tool.call');
          expect(entries, `ledger for call seq ${call.seq}`).toHaveLength(1);
          const [entry] = entries;
          expect(entry.from).toBe(payload(call).name);
          expect(['translated', 'rendered']).toContain(entry.action);
          if (entry.action === 'translated') {
            const written = out.filter((e) => e.type === 'tool.call' && Math.floor(e.seq) === call.seq).map((e) => payload(e).name);
            expect(written.join('+')).toBe(entry.to);
          } else {
            const text = out.find((e) => e.seq === call.seq && e.type === 'message.assistant');
            expect(textOf(text!)).toContain(`\`${String(payload(call).name)}\``);
          }
        }
        // (The other sessions of the input, a Claude subagent's, are translated too.)
        expect(losses.filter((l) => l.code === 'tool-name').length).toBe(events.filter((e) => e.type === 'tool.call').length);

        // Calls and results stay paired: every written call whose source call had a result has exactly one, after it.
        const answered = new Set(own.filter((e) => e.type === 'tool.result').map((e) => String(payload(e).call_id)));
        for (const call of calls) {
          const id = String(payload(call).call_id);
          const sourceId = id.replace(/_sp\d+$/, '');
          const results = out.filter((e) => e.type === 'tool.result' && payload(e).call_id === id);
          expect(results.length, `results for ${id}`).toBe(answered.has(sourceId) ? 1 : 0);
          if (results[0]) expect(out.indexOf(results[0])).toBeGreaterThan(out.indexOf(call));
        }
        // A result whose call became text goes with it: no result is left without a call.
        const written = new Set(calls.map((c) => String(payload(c).call_id)));
        for (const result of out.filter((e) => e.type === 'tool.result' && e.session === events[0].session)) {
          const id = String(payload(result).call_id);
          if (!written.has(id)) expect(own.some((e) => e.type === 'tool.call' && payload(e).call_id === id), `orphan ${id} in the source too`).toBe(false);
        }

        // The header comes first (lowest seq), says where from and is a user message.
        const header = out[0];
        expect(header.type).toBe('message.user');
        expect(header.seq).toBeLessThan(Math.min(...events.map((e) => e.seq)));
        expect(textOf(header)).toMatch(/^\[sp relay\] This conversation was carried over from /);
        expect(textOf(header)).toContain(String(payload(events[0]).native_id));
        expect(payload(header).relay).toMatchObject({ header: true });

        // Every user text of the source is still there.
        for (const user of own.filter((e) => e.type === 'message.user')) {
          const written = out.find((e) => e.type === 'message.user' && e.seq === user.seq);
          const content = payload(user).content;
          const texts = typeof content === 'string' ? [content] : Array.isArray(content) ? content.filter(isObject).map((b) => b.text).filter((t): t is string => typeof t === 'string') : [];
          for (const text of texts) expect(textOf(written!)).toContain(text);
        }
      });
    }
  }
});

describe('same-agent relay', () => {
  for (const source of SOURCES.filter((s) => s.name === 'S1')) {
    it(`${source.agent} → ${source.agent}: every event passes through unchanged`, async () => {
      const events = await eventsOf(source);
      const { out, losses } = await relayed(events, { target: source.agent });
      expect(out.map((e) => JSON.stringify(e))).toEqual(events.map((e) => JSON.stringify(e)));
      expect(losses).toEqual([]);
    });
  }
});

describe('Edit ⇄ apply_patch on real calls', () => {
  it('a Claude Edit becomes one apply_patch hunk and the same old/new strings come back', async () => {
    const events = await eventsOf(SOURCES[0]);
    const edits = events.filter((e) => e.type === 'tool.call' && payload(e).name === 'Edit');
    expect(edits.length).toBe(5);
    const { out } = await relayed(events, { target: 'codex' });
    for (const edit of edits) {
      const [call] = out.filter((e) => e.type === 'tool.call' && e.seq === edit.seq);
      expect(payload(call).name).toBe('apply_patch');
      expect(payload(call).tool_kind).toBe('custom_tool_call');
      const patch = String(payload(call).input);
      expect(patch).toMatch(/^\*\*\* Begin Patch\n\*\*\* Update File: src\/|^\*\*\* Begin Patch\n\*\*\* Update File: test\//);
      // Back: the patch as Claude calls.
      const context = { cwd: '/home/alice/acme-api', plan: new (await import('../lib/relay/vocabulary/types.js')).PlanState() };
      const intent = VOCABULARIES.codex.parse('apply_patch', patch, context)!;
      const back = VOCABULARIES.claude.render(intent, context)!;
      expect(back).toHaveLength(1);
      const input = payload(edit).input as Json;
      expect(back[0]).toEqual({ name: 'Edit', input: { file_path: input.file_path, old_string: input.old_string, new_string: input.new_string, replace_all: false } });
    }
  });

  it('a Codex apply_patch becomes Claude Edits whose strings give the same patch back', async () => {
    const events = await eventsOf(SOURCES[5]);
    const patches = events.filter((e) => e.type === 'tool.call' && payload(e).name === 'apply_patch');
    expect(patches.length).toBeGreaterThanOrEqual(6);
    const { out } = await relayed(events, { target: 'claude' });
    const { PlanState } = await import('../lib/relay/vocabulary/types.js');
    const { parsePatch } = await import('../lib/relay/patch.js');
    for (const patch of patches) {
      const written = out.filter((e) => e.type === 'tool.call' && Math.floor(e.seq) === patch.seq);
      expect(written.length).toBeGreaterThan(0);
      const context = { cwd: '/home/bob/acme-api', plan: new PlanState() };
      const files = parsePatch(String(payload(patch).input))!;
      const calls = written.map((e) => ({ name: String(payload(e).name), input: payload(e).input }));
      // Each Edit is one hunk of an Update File, each Write an Add File, in the patch's order.
      type Hunk = { name: 'Edit'; path: string; old: string; new: string } | { name: 'Write'; path: string; content: string };
      const hunks = files.flatMap((f): Hunk[] => (f.op === 'update' ? f.hunks.map((h) => ({ name: 'Edit', path: f.path, old: h.old, new: h.new })) : f.op === 'add' ? [{ name: 'Write', path: f.path, content: f.content }] : []));
      expect(calls.map((c) => c.name)).toEqual(hunks.map((h) => h.name));
      calls.forEach((call, i) => {
        const input = call.input as Json;
        const want = hunks[i];
        expect(input.file_path).toBe(`/home/bob/acme-api/${want.path}`);
        if (want.name === 'Edit') expect([input.old_string, input.new_string]).toEqual([want.old, want.new]);
        else expect(input.content).toBe(want.content);
        // And back to a patch with the same file and hunk.
        const again = VOCABULARIES.codex.render(VOCABULARIES.claude.parse(call.name, call.input, context)!, context)!;
        const reparsed = parsePatch(String(again[0].input))!;
        expect(reparsed[0].path).toBe(want.path);
      });
    }
  });

  it('a Pi edit with several replacements is one apply_patch with a hunk each, and several Claude Edits', async () => {
    const events = await eventsOf(SOURCES[8]);
    const multi = events.find((e) => e.type === 'tool.call' && payload(e).name === 'edit' && Array.isArray((payload(e).input as Json).edits) && ((payload(e).input as Json).edits as unknown[]).length > 1)!;
    expect(multi).toBeDefined();
    const edits = (payload(multi).input as Json).edits as Array<{ oldText: string; newText: string }>;
    const toCodex = await relayed(events, { target: 'codex' });
    const patch = toCodex.out.find((e) => e.type === 'tool.call' && e.seq === multi.seq)!;
    const { parsePatch } = await import('../lib/relay/patch.js');
    const [file] = parsePatch(String(payload(patch).input))!;
    expect(file.op === 'update' && file.hunks.map((h) => [h.old, h.new])).toEqual(edits.map((e) => [e.oldText, e.newText]));
    const toClaude = await relayed(events, { target: 'claude' });
    const split = toClaude.out.filter((e) => e.type === 'tool.call' && Math.floor(e.seq) === multi.seq);
    expect(split.map((e) => [(payload(e).input as Json).old_string, (payload(e).input as Json).new_string])).toEqual(edits.map((e) => [e.oldText, e.newText]));
    // Each part has its own id and its own copy of the result, right after the parts' calls.
    const ids = split.map((e) => payload(e).call_id);
    expect(new Set(ids).size).toBe(split.length);
    for (const id of ids) expect(toClaude.out.filter((e) => e.type === 'tool.result' && payload(e).call_id === id)).toHaveLength(1);
  });

  it('a Hermes patch (replace mode) is a Claude Edit, and back', async () => {
    const events = await eventsOf(SOURCES[9]);
    const patches = events.filter((e) => e.type === 'tool.call' && payload(e).name === 'patch');
    expect(patches.length).toBeGreaterThan(0);
    const { out } = await relayed(events, { target: 'claude' });
    for (const patch of patches) {
      const input = payload(patch).input as Json;
      const [edit] = out.filter((e) => e.type === 'tool.call' && e.seq === patch.seq);
      expect(payload(edit)).toMatchObject({ name: 'Edit', input: { file_path: `/home/dave/acme-api/${String(input.path)}`, old_string: input.old_string, new_string: input.new_string } });
    }
  });
});

describe('results, thinking, images, plans', () => {
  it('Codex exec output loses its header; a failing command stays an error', async () => {
    const events = await eventsOf(SOURCES[4]);
    const { out } = await relayed(events, { target: 'claude' });
    const results = out.filter((e) => e.type === 'tool.result');
    expect(results.some((r) => textOf(r).startsWith('Chunk ID:'))).toBe(false);
    const failing = results.filter((r) => payload(r).is_error === true);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.some((r) => /\(exit code [1-9]\d*\)/.test(textOf(r)))).toBe(true);
    // `sed -n 'a,bp' FILE` became a Read of those lines.
    const read = out.find((e) => e.type === 'tool.call' && payload(e).name === 'Read')!;
    expect(payload(read).input).toMatchObject({ file_path: expect.stringMatching(/^\/home\/bob\/acme-api\//), offset: 1, limit: 80 });
  });

  it('thinking from another provider: marked text (default) or dropped, each in the ledger; same provider stays native', async () => {
    const events = await eventsOf(SOURCES[0]);
    const thinking = events.filter((e) => e.type === 'message.thinking');
    expect(thinking.length).toBe(2);
    const kept = await relayed(events, { target: 'codex' });
    expect(kept.out.some((e) => e.type === 'message.thinking')).toBe(false);
    for (const t of thinking) {
      const text = kept.out.find((e) => e.seq === t.seq)!;
      expect(text.type).toBe('message.assistant');
      expect(textOf(text)).toBe(`[thinking from claude]\n${String(payload(t).text)}`);
      expect(kept.losses).toContainEqual(expect.objectContaining({ action: 'transformed', code: 'thinking', seq: t.seq }));
    }
    expect(textOf(kept.out[0])).toContain('2 thinking block(s) as marked text');
    const dropped = await relayed(events, { target: 'codex', thinking: 'drop' });
    expect(dropped.out.some((e) => thinking.some((t) => t.seq === e.seq))).toBe(false);
    expect(dropped.losses.filter((l) => l.code === 'thinking').map((l) => l.action)).toEqual(['dropped', 'dropped']);
    // Pi continues with Anthropic's model here: Claude's signed thinking stays thinking.
    const toPi = await relayed(events, { target: 'pi' });
    expect(toPi.out.filter((e) => e.type === 'message.thinking').map((e) => payload(e).signature)).toEqual(thinking.map((t) => payload(t).signature));
  });

  it('an image in a user message stays for Codex, becomes a note with its hash for Hermes', async () => {
    const events = await eventsOf(SOURCES[1]);
    const withImage = events.find((e) => e.type === 'message.user' && Array.isArray(payload(e).content) && (payload(e).content as Json[]).some((b) => b.type === 'image'))!;
    expect(withImage).toBeDefined();
    const toCodex = await relayed(events, { target: 'codex' });
    expect((payload(toCodex.out.find((e) => e.seq === withImage.seq)!).content as Json[]).some((b) => b.type === 'image')).toBe(true);
    const toHermes = await relayed(events, { target: 'hermes' });
    const note = toHermes.out.find((e) => e.seq === withImage.seq)!;
    expect(textOf(note)).toMatch(/\[image image\/png sha256:[0-9a-f]{64}: not carried/);
    expect(toHermes.losses).toContainEqual(expect.objectContaining({ action: 'rendered', code: 'image', seq: withImage.seq }));
    expect(textOf(toHermes.out[0])).toContain('1 image(s) as notes');
  });

  it('Claude tasks become Codex update_plan with the whole plan; Pi gets the plan as text with its result', async () => {
    const events = await eventsOf(SOURCES[0]);
    const { out } = await relayed(events, { target: 'codex' });
    const plans = out.filter((e) => e.type === 'tool.call' && payload(e).name === 'update_plan');
    expect(plans).toHaveLength(9);
    expect((payload(plans[2]).input as Json).plan).toEqual([
      { step: 'Add DELETE /todos/:id handler', status: 'pending' },
      { step: 'Add a test for DELETE /todos/:id', status: 'pending' },
      { step: 'Run the test suite', status: 'pending' },
    ]);
    expect(((payload(plans[8]).input as Json).plan as Json[]).every((s) => s.status === 'completed')).toBe(true);
    const toPi = await relayed(events, { target: 'pi' });
    const rendered = toPi.out.filter((e) => e.type === 'message.assistant' && textOf(e).startsWith('[sp relay] Claude Code tool call `Task'));
    expect(rendered).toHaveLength(9);
    expect(textOf(rendered[8])).toContain('[x] Run the test suite\nResult:\nUpdated task #3 status');
    // Results of rendered calls go with them: none is left for the writer to find without its call.
    expect(toPi.losses.filter((l) => l.action === 'rendered' && l.code === 'tool-result')).toHaveLength(9);
  });

  it('a Claude subagent call is text for Codex, and its session is named in the header and the ledger', async () => {
    const events = await eventsOf(SOURCES[2]);
    const { out, losses } = await relayed(events, { target: 'codex' });
    const agentCall = events.find((e) => e.type === 'tool.call' && payload(e).name === 'Agent')!;
    expect(textOf(out.find((e) => e.seq === agentCall.seq && e.session === agentCall.session)!)).toMatch(/^\[sp relay\] Claude Code tool call `Agent`[\s\S]*Result:/);
    expect(losses).toContainEqual(expect.objectContaining({ action: 'dropped', code: 'subagent' }));
    expect(textOf(out[0])).toContain('1 subagent session(s) not written');
  });
});

describe('what the writers make of translated calls', () => {
  it('the Codex writer records a translated Edit as an apply_patch custom tool call with its custom output', async () => {
    const events = await eventsOf(SOURCES[0]);
    const { out } = await relayed(events, { target: 'codex' });
    const lines: string[] = [];
    await codex.materialize!(from(out), { home: '/nonexistent-sp-home', dryRun: true, onLine: (l) => lines.push(l) });
    const items = lines.map((l) => JSON.parse(l) as Json).filter((l) => l.type === 'response_item').map((l) => l.payload as Json);
    const patches = items.filter((i) => i.type === 'custom_tool_call');
    expect(patches.map((i) => i.name)).toEqual(['apply_patch', 'apply_patch', 'apply_patch', 'apply_patch', 'apply_patch']);
    for (const patch of patches) {
      expect(String(patch.input)).toMatch(/^\*\*\* Begin Patch\n/);
      expect(items.filter((i) => i.type === 'custom_tool_call_output' && i.call_id === patch.call_id)).toHaveLength(1);
    }
    // No Claude tool name reaches the rollout as a call.
    const names = new Set(items.filter((i) => i.type === 'function_call' || i.type === 'custom_tool_call').map((i) => String(i.name)));
    expect([...names].sort()).toEqual(['apply_patch', 'exec_command', 'update_plan']);
    // The header is the first message, not the thread's first prompt.
    const first = items.find((i) => i.type === 'message')!;
    expect(JSON.stringify(first.content)).toContain('[sp relay]');
  });

  it('the Pi writer keeps every relayed message on one path (no new roots where results went with their call)', async () => {
    const events = await eventsOf(SOURCES[0]);
    const { out } = await relayed(events, { target: 'pi' });
    const lines: string[] = [];
    await pi.materialize!(from(out), { home: '/nonexistent-sp-home', cwd: '/tmp', dryRun: true, onLine: (l) => lines.push(l) });
    const entries = lines.slice(1).map((l) => JSON.parse(l) as Json);
    expect(entries.filter((e) => e.parentId === null)).toHaveLength(1);
    // Walking up from the last entry reaches every message entry.
    const byId = new Map(entries.map((e) => [e.id, e]));
    const onPath = new Set<unknown>();
    for (let at: Json | undefined = entries[entries.length - 1]; at; at = byId.get(at.parentId)) onPath.add(at.id);
    expect(entries.filter((e) => e.type === 'message' && !onPath.has(e.id))).toEqual([]);
  });
});

