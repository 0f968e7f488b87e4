// sp-materialize pi: what the client needs in every written file, the tree round trip (same parent
// structure, same active leaf), branched foreign sources, --branch active, the resume-safety pass
// with its loss ledger, the cwd rule, --same-id (byte-identical from --raw), --dry-run, --model.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pi } from '../../adapters/pi/index.js';
import { claude } from '../../adapters/claude/index.js';
import { materializePi, STUB_RESULT, type PiLossEntry, type PiMaterializeOptions } from '../../adapters/pi/materialize.js';
import { cwdFolder } from '../../adapters/pi/paths.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { SessionBuilder, from } from '../support/canonical.js';
import { tempDir } from '../support/streams.js';
import { ALL, BEFORE_COMPACTION, CORPUS, LARGE_SESSION, OPENCLAW, S1, S2, S3, activePath, name, readEntries } from './support.js';

type Entry = Record<string, any>;

const CLAUDE_REWIND = new URL('../../fixtures/claude/public/claude-code-log/test/test_data/dag_compact_after_rewind.jsonl', import.meta.url).pathname;

async function write(events: SpEvent[], options: PiMaterializeOptions = {}): Promise<{ result: Awaited<ReturnType<typeof materializePi>>; entries: Entry[]; text: string; losses: PiLossEntry[] }> {
  const home = options.home ?? tempDir('sp-pi-home-');
  const losses: PiLossEntry[] = [];
  // Never the session's own cwd by default: it names a folder of the recording machine.
  const cwd = 'cwd' in options ? options.cwd : tempDir('sp-pi-cwd-');
  const result = await materializePi(from(events), { ...options, cwd, home, onLoss: (l) => losses.push(l as PiLossEntry) });
  const text = options.dryRun ? '' : readFileSync(result.path, 'utf8');
  return { result, entries: options.dryRun ? [] : readEntries(result.path), text, losses };
}

/** Checks the rules formats/pi.md gives a writer; returns the problems found. */
function problems(entries: Entry[], text: string): string[] {
  const out: string[] = [];
  const header = entries[0];
  if (header.type !== 'session' || header.version !== 3 || typeof header.id !== 'string' || typeof header.cwd !== 'string' || typeof header.timestamp !== 'string') out.push('bad header');
  if (Buffer.byteLength(text.split('\n')[0]) > 500) out.push('header over 500 bytes');
  const ids = new Set<string>();
  for (const e of entries.slice(1)) {
    if (!/^[0-9a-f]{8}$/.test(e.id)) out.push(`id ${e.id} is not 8 hex`);
    if (ids.has(e.id)) out.push(`duplicate id ${e.id}`);
    ids.add(e.id);
    if (typeof e.timestamp !== 'string') out.push(`${e.id}: no timestamp`);
  }
  for (const e of entries.slice(1)) if (e.parentId !== null && !ids.has(e.parentId)) out.push(`${e.id}: parent ${e.parentId} missing`);
  for (const e of entries.slice(1)) {
    if (e.type !== 'message') continue;
    const m = e.message;
    if (m.role === 'assistant') {
      if (!Array.isArray(m.content)) out.push(`${e.id}: assistant content not an array`);
      for (const k of ['api', 'provider', 'model', 'stopReason']) if (typeof m[k] !== 'string') out.push(`${e.id}: assistant without ${k}`);
      for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'totalTokens']) if (typeof m.usage?.[k] !== 'number') out.push(`${e.id}: usage.${k}`);
      for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'total']) if (typeof m.usage?.cost?.[k] !== 'number') out.push(`${e.id}: usage.cost.${k}`);
      if (typeof m.timestamp !== 'number') out.push(`${e.id}: assistant timestamp`);
    }
    if (m.role === 'toolResult') {
      if (!Array.isArray(m.content)) out.push(`${e.id}: toolResult content not an array`);
      for (const k of ['toolCallId', 'toolName']) if (typeof m[k] !== 'string') out.push(`${e.id}: toolResult without ${k}`);
      if (typeof m.isError !== 'boolean') out.push(`${e.id}: toolResult without isError`);
    }
    if (m.role === 'user' && !Array.isArray(m.content)) out.push(`${e.id}: user content not an array`);
  }
  return out;
}

/** Every replayed tool call on the active path is answered right after its message, in order. */
function pairingProblems(entries: Entry[]): string[] {
  const out: string[] = [];
  const path = activePath(entries);
  for (let i = 0; i < path.length; i += 1) {
    const m = path[i].message;
    if (path[i].type !== 'message' || m?.role !== 'assistant' || ['error', 'aborted'].includes(m.stopReason)) continue;
    const calls = m.content.filter((b: Entry) => b.type === 'toolCall').map((b: Entry) => b.id);
    const answered: string[] = [];
    for (let j = i + 1; j < path.length && path[j].message?.role === 'toolResult'; j += 1) answered.push(path[j].message.toolCallId);
    if (calls.some((c: string) => !answered.includes(c))) out.push(`${path[i].id}: calls ${calls.join(',')} answered by ${answered.join(',')}`);
    if (answered.some((a) => !calls.includes(a))) out.push(`${path[i].id}: results for other calls ${answered.join(',')}`);
  }
  return out;
}

describe('materialize: what the client needs, for every fixture', () => {
  for (const fixture of ALL) {
    it(name(fixture), async () => {
      const { events } = await captureAll(pi, fixture);
      const { result, entries, text } = await write(events);
      expect(problems(entries, text)).toEqual([]);
      expect(pairingProblems(entries)).toEqual([]);
      expect(result.path).toContain(`/sessions/${cwdFolder(result.cwd)}/`);
      expect(result.path.endsWith(`_${result.session_id}.jsonl`)).toBe(true);
      expect(result.resume).toBe(`cd ${result.cwd} && PI_CODING_AGENT_DIR=${result.resume_exec!.env.PI_CODING_AGENT_DIR} pi --session ${result.path}`);
      expect(entries[entries.length - 1].id).toBe(result.leaf_id);
      expect(entries[0].id).toBe(result.session_id);
      expect(result.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });
  }
});

/** The tree as positions: entry i's parent is entry parent[i] (-1 for a root). */
function shape(entries: Entry[]): number[] {
  const body = entries.filter((e) => e.type !== 'session');
  const index = new Map(body.map((e, i) => [e.id, i]));
  return body.map((e) => (e.parentId === null || !index.has(e.parentId) ? -1 : index.get(e.parentId)!));
}

describe('materialize: the tree round trip', () => {
  for (const fixture of [S1, S2, S3]) {
    it(`Pi → canonical → Pi keeps the parent structure, the entries and the active leaf (${name(fixture)})`, async () => {
      const source = readEntries(fixture);
      const { events } = await captureAll(pi, fixture);
      const { entries } = await write(events);
      expect(shape(entries)).toEqual(shape(source));
      // Same entries apart from ids (and the header): the client sees the same session.
      const strip = (e: Entry) => {
        const { id: _i, parentId: _p, targetId: _t, fromId: _f, firstKeptEntryId: _k, ...rest } = e;
        return rest;
      };
      expect(entries.slice(1).map(strip)).toEqual(source.slice(1).map(strip));
      // The active branch: the same entries, in the same order.
      const ids = (list: Entry[]) => new Map(list.filter((e) => e.type !== 'session').map((e, i) => [e.id, i]));
      const sourceIdx = ids(source);
      const writtenIdx = ids(entries);
      expect(activePath(entries).map((e) => writtenIdx.get(e.id))).toEqual(activePath(source).map((e) => sourceIdx.get(e.id)));
    });
  }

  it('maps the compaction\'s firstKeptEntryId and the branch summary\'s fromId to the new ids', async () => {
    const source = readEntries(S3);
    const { events } = await captureAll(pi, S3);
    const { entries } = await write(events);
    const at = (list: Entry[], id: string) => list.findIndex((e) => e.id === id);
    const sourceCompaction = source.find((e) => e.type === 'compaction')!;
    const compaction = entries.find((e) => e.type === 'compaction')!;
    expect(at(entries, compaction.firstKeptEntryId)).toBe(at(source, sourceCompaction.firstKeptEntryId));
    const sourceSummary = source.find((e) => e.type === 'branch_summary')!;
    const summary = entries.find((e) => e.type === 'branch_summary')!;
    expect(at(entries, summary.fromId)).toBe(at(source, sourceSummary.fromId));
  });

  it('--branch active writes only the path to the active leaf (S3: the abandoned branch goes)', async () => {
    const source = readEntries(S3);
    const { events } = await captureAll(pi, S3);
    const { entries, result, losses } = await write(events, { branch: 'active' });
    expect(entries.length - 1).toBe(activePath(source).length);
    expect(result.branches).toBe(1);
    expect(activePath(entries)).toHaveLength(entries.length - 1);
    expect(losses.filter((l) => l.code === 'other-branch')).toHaveLength(source.length - 1 - activePath(source).length);
    const texts = JSON.stringify(entries);
    expect(texts).not.toContain('Should we move the store to SQLite now?');
    expect(texts).toContain('Let\'s not do SQLite for now.');
  });

  it('writes a branched canonical session (a Claude rewind) as a Pi tree with two branches, the active one last', async () => {
    const b = new SessionBuilder('claude', 'sess_rewind', { cwd: '/tmp' });
    const u1 = b.user('U1: start');
    b.assistant('A1: first answer', 'msg_1');
    b.user('U2: abandoned question');
    b.assistant('A2: abandoned answer', 'msg_2');
    // The user rewound to A1 and asked again: the new prompt's parent is A1.
    b.add('message.user', { content: [{ type: 'text', text: 'U3: the question again' }] }, { parent_seq: u1.seq + 1 });
    b.assistant('A3: the kept answer', 'msg_3');
    const { entries, result } = await write(b.events);
    expect(result.branches).toBe(2);
    const text = (e: Entry) => e.message.content.map((c: Entry) => c.text).join('');
    expect(entries.slice(1).map(text)).toEqual(['U1: start', 'A1: first answer', 'U2: abandoned question', 'A2: abandoned answer', 'U3: the question again', 'A3: the kept answer']);
    expect(shape(entries)).toEqual([-1, 0, 1, 2, 1, 4]);
    expect(activePath(entries).map(text)).toEqual(['U1: start', 'A1: first answer', 'U3: the question again', 'A3: the kept answer']);
    for (const e of entries.slice(1).filter((x) => x.message.role === 'assistant')) {
      expect(e.message).toMatchObject({ api: 'anthropic-messages', provider: 'anthropic', model: 'claude-opus-4-8', stopReason: 'stop' });
    }
  });

  it('writes a real Claude Code transcript with a rewind (claude-code-log DAG) as a Pi tree with two branches', async () => {
    const { events } = await captureAll(claude, CLAUDE_REWIND);
    const { entries, result } = await write(events);
    expect(problems(entries, readFileSync(result.path, 'utf8'))).toEqual([]);
    const byText = (t: string) => entries.find((e) => e.type === 'message' && JSON.stringify(e.message.content).includes(t))!;
    const ready = byText('Ready');
    // The rewind: both attempts hang from the same assistant entry.
    expect(byText('First attempt').parentId).toBe(ready.id);
    expect(byText('Second attempt').parentId).toBe(ready.id);
    expect(byText('Keep going').parentId).toBe(byText('Second answer').id);
    // The compaction cut (the client sends only what follows its summary) starts a new root; the leaf ends the file.
    const path = activePath(entries).map((e) => e.message.content[0].text as string);
    expect(path[0]).toMatch(/^This session is being continued/);
    expect(path.slice(1)).toEqual(['After compaction', 'Final answer']);
    expect(entries[entries.length - 1].id).toBe(byText('Final answer').id);
    expect(result.branches).toBe(3);
  });

  it('links a parent named later in the file (the client links by id) and breaks a parent loop', async () => {
    const dir = tempDir();
    const path = join(dir, 'forward.jsonl');
    const m = (id: string, parentId: string | null, role: string, text: string) => ({ type: 'message', id, parentId, timestamp: '2026-01-01T00:00:01.000Z', message: role === 'user' ? { role, content: [{ type: 'text', text }] } : { role, content: [{ type: 'text', text }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: {}, stopReason: 'stop' } });
    const lines = [
      { type: 'session', version: 3, id: 'fwd', timestamp: '2026-01-01T00:00:00.000Z', cwd: dir },
      m('c2', 'c1', 'assistant', 'child written before its parent'),
      m('c1', null, 'user', 'parent'),
      m('x1', 'x2', 'user', 'loop a'),
      m('x2', 'x1', 'assistant', 'loop b'),
    ];
    writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const { events } = await captureAll(pi, path);
    const { entries, losses } = await write(events);
    const byText = (t: string) => entries.find((e) => e.message?.content[0].text === t)!;
    expect(byText('child written before its parent').parentId).toBe(byText('parent').id);
    expect(losses.map((l) => l.code)).toEqual(['cycle']);
    expect(activePath(entries).length).toBeGreaterThan(0);
  });

  it('puts the active branch last when the source wrote it first', async () => {
    const b = new SessionBuilder('claude', 'sess_order', { cwd: '/tmp' });
    const u1 = b.user('root');
    b.assistant('a', 'm1');
    b.add('message.user', { content: [{ type: 'text', text: 'other' }] }, { parent_seq: u1.seq + 1 });
    b.assistant('other answer', 'm2');
    // The last event continues the first branch: it is the leaf.
    b.add('message.user', { content: [{ type: 'text', text: 'leaf' }] }, { parent_seq: u1.seq + 1 });
    const { entries } = await write(b.events);
    const text = (e: Entry) => e.message.content[0].text;
    expect(text(entries[entries.length - 1])).toBe('leaf');
    expect(activePath(entries).map(text)).toEqual(['root', 'a', 'leaf']);
  });
});

describe('materialize: the resume-safety pass', () => {
  it('stubs an unanswered call, drops an orphan result, makes ids valid for Anthropic, and reports each', async () => {
    const b = new SessionBuilder('codex', 'sess_safety', { cwd: '/tmp', model: 'claude-sonnet-4-5' });
    b.user('go');
    b.call('call_1|fc_abc', 'bash', { command: 'ls' }, 'm1');
    b.result('call_1|fc_abc', 'README.md');
    b.call('call_2', 'read', { path: 'x' }, 'm2');
    b.user('stop that');
    b.result('call_zzz', 'orphan output');
    b.assistant('ok', 'm3');
    const { entries, losses } = await write(b.events);
    expect(pairingProblems(entries)).toEqual([]);
    const calls = entries.flatMap((e) => (e.message?.role === 'assistant' ? e.message.content.filter((c: Entry) => c.type === 'toolCall') : []));
    expect(calls.map((c: Entry) => c.id)).toEqual(['call_1_fc_abc', 'call_2']);
    const results = entries.filter((e) => e.message?.role === 'toolResult').map((e) => e.message);
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([['call_1_fc_abc', false], ['call_2', true]]);
    expect(results[1].content[0].text).toBe(STUB_RESULT);
    expect(JSON.stringify(entries)).not.toContain('orphan output');
    expect(losses.map((l) => `${l.action} ${l.code}`).sort()).toEqual(['dropped orphan-result', 'stubbed stub-result', 'transformed tool-id']);
    // The stub sits between the call and the user message that followed it.
    const text = (e: Entry) => (e.message.content[0]?.text ?? '') as string;
    expect(activePath(entries).map((e) => e.message.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'toolResult', 'user', 'assistant']);
    expect(text(activePath(entries)[5])).toBe('stop that');
  });

  it('keeps thinking signatures only for the provider that made them', async () => {
    const b = new SessionBuilder('claude', 'sess_sig', { cwd: '/tmp' });
    b.user('think');
    b.thinking('claude thought', { signature: 'sig-anthropic', provider: 'anthropic', message_id: 'm1' });
    b.assistant('answer', 'm1');
    b.user('again');
    b.add('message.thinking', { text: 'openai thought', visibility: 'visible', signature: 'reasoning_content', provider: 'openai', message_id: 'm2', model: 'claude-opus-4-8' });
    b.assistant('answer 2', 'm2');
    const { entries, losses } = await write(b.events);
    const thinking = entries.flatMap((e) => (e.message?.role === 'assistant' ? e.message.content.filter((c: Entry) => c.type === 'thinking') : []));
    expect(thinking).toEqual([
      { type: 'thinking', thinking: 'claude thought', thinkingSignature: 'sig-anthropic' },
      { type: 'thinking', thinking: 'openai thought' },
    ]);
    expect(losses.map((l) => l.code)).toEqual(['signature']);
  });

  it('results of parallel calls (Claude\'s DAG: each result hangs from its own call line) become one chain', async () => {
    const b = new SessionBuilder('claude', 'sess_parallel', { cwd: '/tmp' });
    b.user('read both');
    const a = b.call('toolu_a', 'Read', { file_path: 'a' }, 'm1');
    const c = b.call('toolu_b', 'Read', { file_path: 'b' }, 'm1');
    b.result('toolu_a', 'A', { name: 'Read' });
    (b.events[b.events.length - 1] as SpEvent).parent_seq = a.seq;
    b.result('toolu_b', 'B', { name: 'Read' });
    (b.events[b.events.length - 1] as SpEvent).parent_seq = c.seq;
    b.assistant('both read', 'm2');
    const { entries, losses } = await write(b.events);
    expect(losses).toEqual([]);
    expect(shape(entries)).toEqual([-1, 0, 1, 2, 3]);
    expect(pairingProblems(entries)).toEqual([]);
  });

  it('drops results whose call is in an aborted turn (the client never replays that turn)', async () => {
    const { events } = await captureAll(pi, LARGE_SESSION);
    const { entries, losses } = await write(events);
    expect(pairingProblems(entries)).toEqual([]);
    // The source has no such results and answers every replayed call: nothing to stub or drop.
    expect(losses.filter((l) => l.action !== 'transformed')).toEqual([]);
  });

  it('moves a result that the source put elsewhere back after its call (openclaw: parents are call ids)', async () => {
    const { events } = await captureAll(pi, OPENCLAW);
    const { entries, losses } = await write(events);
    expect(pairingProblems(entries)).toEqual([]);
    expect(losses.map((l) => l.code)).toEqual(['result-moved', 'result-moved']);
  });

  it('stubs the unanswered call before the compaction in the 2.4 MB v1 session', async () => {
    const { events } = await captureAll(pi, BEFORE_COMPACTION);
    const { entries, losses } = await write(events);
    expect(losses.map((l) => `${l.action} ${l.code}`)).toEqual(['stubbed stub-result']);
    expect(pairingProblems(entries)).toEqual([]);
    // v1 → v3: one linear chain; each compaction keeps from the same entry as the client's migration.
    const source = readEntries(BEFORE_COMPACTION);
    const compactions = entries.filter((e) => e.type === 'compaction');
    const sourceCompactions = source.filter((e) => e.type === 'compaction');
    for (let i = 0; i < 2; i += 1) {
      const kept = entries.find((e) => e.id === compactions[i].firstKeptEntryId)!;
      expect(kept.message.content).toEqual(source[sourceCompactions[i].firstKeptEntryIndex].message.content);
    }
  });
});

describe('materialize: options', () => {
  it('refuses a cwd that does not exist, and --mkcwd creates it', async () => {
    const { events } = await captureAll(pi, S1);
    const missing = join(tempDir(), 'not', 'here');
    await expect(write(events, { cwd: missing })).rejects.toThrow(/does not exist here.*--mkcwd/);
    await expect(write(events, { cwd: missing })).rejects.toBeInstanceOf(UserError);
    const { result } = await write(events, { cwd: missing, mkcwd: true });
    expect(statSync(missing).isDirectory()).toBe(true);
    expect(result.cwd).toBe(missing);
    expect(readEntries(result.path)[0].cwd).toBe(missing);
  });

  it('--same-id from a --raw capture writes the file byte for byte (v1 and v3), and never overwrites', async () => {
    for (const fixture of [S2, S3, LARGE_SESSION]) {
      // A copy whose header names a cwd that exists here (byte identity needs the header's own cwd).
      const cwd = tempDir();
      const lines = readFileSync(fixture, 'utf8').split('\n');
      lines[0] = JSON.stringify({ ...JSON.parse(lines[0]), cwd });
      const copy = join(tempDir(), fixture.split('/').pop()!);
      writeFileSync(copy, lines.join('\n'));
      const { events } = await captureAll(pi, copy, { raw: true });
      const home = tempDir();
      const { result, text } = await write(events, { sameId: true, home, cwd: undefined });
      expect(result.written_as, name(fixture)).toBe('raw');
      expect(text).toBe(readFileSync(copy, 'utf8'));
      // The client's own file name is kept; a name of another shape becomes `<created>_<id>.jsonl`.
      const own = copy.split('/').pop()!;
      expect(result.path.split('/').pop()).toBe(own.endsWith(`_${result.session_id}.jsonl`) ? own : `2025-11-20T23-33-50-805Z_${result.session_id}.jsonl`);
      await expect(write(events, { sameId: true, home, cwd: undefined })).rejects.toThrow(/exists already/);
    }
  });

  it('--same-id without raw lines rebuilds with the native ids', async () => {
    const { events } = await captureAll(pi, S3);
    const { result, entries } = await write(events, { sameId: true });
    expect(result.written_as).toBe('rebuilt');
    expect(entries.map((e) => e.id)).toEqual(readEntries(S3).map((e) => e.id));
    expect(entries.map((e) => e.parentId)).toEqual(readEntries(S3).map((e) => e.parentId));
  });

  it('inlines images stored by a capture --artifacts again, and says so when the store is not given', async () => {
    const store = tempDir();
    const { events } = await captureAll(pi, S2, { artifactsDir: store });
    const original = readEntries(S2)[3].message.content.find((b: Entry) => b.type === 'image');
    const withStore = await write(events, { artifactsDir: store });
    expect(withStore.entries[3].message.content.find((b: Entry) => b.type === 'image')).toEqual(original);
    expect(withStore.losses).toEqual([]);
    const without = await write(events);
    expect(without.entries[3].message.content.some((b: Entry) => b.type === 'image')).toBe(false);
    expect(without.losses.map((l) => l.code)).toEqual(['image']);
  });

  it('--same-id refuses another agent\'s session', async () => {
    const b = new SessionBuilder('claude', 'sess_x', { cwd: '/tmp' });
    b.user('hi');
    await expect(write(b.events, { sameId: true })).rejects.toThrow(/comes from claude/);
  });

  it('--dry-run writes nothing and hands over every line', async () => {
    const { events } = await captureAll(pi, S1);
    const home = tempDir();
    const lines: string[] = [];
    const { result } = await write(events, { home, dryRun: true, onLine: (l) => lines.push(l) });
    expect(result.dry_run).toBe(true);
    expect(existsSync(result.path)).toBe(false);
    expect(readdirSync(home)).toEqual([]);
    expect(lines).toHaveLength(21);
    expect(JSON.parse(lines[0])).toMatchObject({ type: 'session', version: 3, id: result.session_id });
  });

  it('--model: foreign messages without a model get it, and the client continues with it', async () => {
    const b = new SessionBuilder('codex', 'sess_m', { cwd: '/tmp', model: undefined });
    b.user('hi');
    b.assistant('hello', 'm1');
    const { entries } = await write(b.events, { model: 'openai/gpt-5.5' });
    expect(entries[2].message).toMatchObject({ api: 'openai-responses', provider: 'openai', model: 'gpt-5.5' });
    // Already the last model on the path: no model_change needed.
    expect(entries).toHaveLength(3);

    const { events } = await captureAll(pi, S1);
    const switched = await write(events, { model: 'anthropic/claude-opus-4-5' });
    const last = switched.entries[switched.entries.length - 1];
    expect(last).toMatchObject({ type: 'model_change', provider: 'anthropic', modelId: 'claude-opus-4-5' });
    expect(last.parentId).toBe(switched.entries[switched.entries.length - 2].id);
    // History keeps the model that wrote it.
    expect(switched.entries.filter((e) => e.message?.role === 'assistant').every((e) => e.message.model === 'claude-sonnet-4-5')).toBe(true);
  });

  it('gives another agent\'s titled session a name (session_info after the leaf), and adds none to a Pi session', async () => {
    const b = new SessionBuilder('claude', 'sess_title', { cwd: '/tmp', title: 'Add a DELETE endpoint' });
    b.user('hi');
    b.assistant('hello', 'm1');
    const { entries, result } = await write(b.events);
    expect(entries[entries.length - 1]).toMatchObject({ type: 'session_info', name: 'Add a DELETE endpoint', parentId: entries[entries.length - 2].id });
    expect(result.leaf_id).toBe(entries[entries.length - 1].id);
    const { events } = await captureAll(pi, S1);
    expect((await write(events)).entries.filter((e) => e.type === 'session_info')).toEqual([]);
  });

  it('writes each corpus session under the escaped folder of its cwd, the header under 500 bytes', async () => {
    for (const fixture of CORPUS) {
      const { events } = await captureAll(pi, fixture);
      const cwd = join(tempDir(), 'a b:c');
      mkdirSync(cwd);
      const { result, text } = await write(events, { cwd });
      expect(result.path).toContain(`/sessions/--${cwd.slice(1).replace(/[/:]/g, '-')}--/`);
      expect(Buffer.byteLength(text.split('\n')[0])).toBeLessThan(500);
    }
  });
});
