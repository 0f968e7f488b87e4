// Golden tests of the Kimi CLI reader on sessions built from the client's source (test/kimi/support.ts):
// what each context line becomes, discovery through kimi.json, incremental capture of a context file
// in its session folder, broken input, and hostile homes (odd names, symbolic links, a huge line).
import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHash } from 'node:crypto';
import { kimi } from '../../adapters/kimi/index.js';
import { kimiVocabulary } from '../../adapters/kimi/vocabulary.js';
import { PlanState, type VocabularyContext } from '../../lib/relay/vocabulary/types.js';
import type { Cursor, SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll, captureRef } from '../contract/testAdapter.js';
import { CWD, LEGACY_ID, LEGACY_MTIME, MTIME, OTHER_CWD, SESSION_ID, SESSION_RECORDS, TITLE, WIRE_START, buildHome } from './support.js';

type Json = Record<string, any>;
const ofType = (events: SpEvent[], type: string) => events.filter((e) => e.type === type);
const p = (e: SpEvent): Json => e.payload as Json;
const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

const homes: string[] = [];
const fresh = () => {
  const built = buildHome();
  homes.push(built.home);
  return built;
};
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

async function list(home: string, options: { cwd?: string; details?: boolean } = {}): Promise<SessionRef[]> {
  const refs: SessionRef[] = [];
  for await (const ref of kimi.discover({ home, ...options })) refs.push(ref);
  return refs;
}

describe('kimi capture: a session in its folder', () => {
  it('maps every context line: prompts, thinking, calls with parsed arguments, results with errors, bookkeeping as meta', async () => {
    const { session } = fresh();
    const { events, diagnostics } = await captureAll(kimi, session);
    expect(diagnostics).toEqual([]);
    expect(events[0].type).toBe('session.start');
    expect(p(events[0])).toMatchObject({ native_id: SESSION_ID, cwd: CWD, title: TITLE, header: false });
    // Every line is there, in order; the start has the wire log's first time, every line the file's.
    const lines = new Set(events.map((e) => e.origin?.native_seq));
    for (let i = 1; i <= SESSION_RECORDS.length; i += 1) expect(lines.has(i), `line ${i}`).toBe(true);
    expect(events[0].ts).toBe(WIRE_START);
    expect(new Set(events.slice(1).map((e) => e.ts))).toEqual(new Set([MTIME]));

    expect(ofType(events, 'message.user').map((e) => p(e).content.map((c: Json) => c.type === 'text' ? c.text : c.type))).toEqual([
      ['The date test fails, fix it'],
      ['And this screenshot?', 'image'],
    ]);
    const image = p(ofType(events, 'message.user')[1]).content[1];
    expect(image).toEqual({ type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' });
    expect(p(ofType(events, 'message.user')[1]).native_blocks).toEqual([{ type: 'audio_url', audio_url: { url: 'https://example.com/a.mp3' } }]);

    const thinking = ofType(events, 'message.thinking');
    expect(thinking.map((e) => p(e).text)).toEqual(['Run the tests first.']);
    expect(p(thinking[0]).provider).toBe('moonshot');
    expect(p(thinking[0]).opaque).toBeUndefined();

    const calls = ofType(events, 'tool.call');
    expect(calls.map((e) => [p(e).call_id, p(e).name])).toEqual([['Shell:0', 'Shell'], ['ReadFile:1', 'ReadFile'], ['Glob:2', 'Glob'], ['StrReplaceFile:3', 'StrReplaceFile']]);
    expect(p(calls[0]).input).toEqual({ command: 'npm test', timeout: 60 });
    expect(p(calls[3]).input).toEqual({ path: 'src/date.ts', edit: { old: 'MM', new: 'mm', replace_all: true } });

    const results = ofType(events, 'tool.result');
    expect(results.map((e) => [p(e).call_id, p(e).name, p(e).is_error])).toEqual([
      ['Shell:0', 'Shell', false],
      ['ReadFile:1', 'ReadFile', false],
      ['Glob:2', 'Glob', true],
      ['StrReplaceFile:3', 'StrReplaceFile', false],
    ]);
    expect(p(results[1]).content.map((c: Json) => c.text)).toEqual(['<system>40 lines read from file starting from line 1.</system>', '1\texport const formatDate = …']);

    // An assistant message of calls only gives no empty message; the last reply is a string.
    expect(ofType(events, 'message.assistant').map((e) => p(e).content.map((c: Json) => c.text).join(''))).toEqual(['Let me run the tests.', 'Fixing the format.', 'Done: the test passes.']);

    const metas = ofType(events, 'meta').map((e) => p(e));
    expect(metas.map((m) => m.key)).toEqual(['kimi._system_prompt', 'kimi._checkpoint', 'kimi._usage', 'kimi._checkpoint', 'kimi._usage']);
    expect(metas[2].raw).toEqual({ role: '_usage', token_count: 5120 });
    // An undo point is not a compaction: no checkpoint event (a relay would drop what came before).
    expect(ofType(events, 'checkpoint')).toEqual([]);
  });

  it('keeps unparseable arguments, calls without an id, system messages and unknown roles', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-kimi-odd-'));
    homes.push(dir);
    const file = join(dir, `${SESSION_ID}.jsonl`);
    writeFileSync(file, [
      { role: 'assistant', content: [], tool_calls: [{ type: 'function', id: 'x:0', function: { name: 'Shell', arguments: '{"command": "ls"' } }, { type: 'function', function: { name: 'Shell', arguments: '{}' } }] },
      { role: 'system', content: 'be brief' },
      { role: '_future_marker', value: 1 },
      { role: 'tool', content: 'orphan without id' },
      ['not', 'an', 'object'],
    ].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { events, diagnostics } = await captureAll(kimi, file);
    const call = ofType(events, 'tool.call');
    expect(call.map((e) => [p(e).call_id, p(e).input, p(e).native_arguments])).toEqual([['x:0', {}, '{"command": "ls"']]);
    const metas = ofType(events, 'meta').map((e) => p(e).key);
    expect(metas).toEqual(['kimi.unknown-parts', 'kimi.system', 'kimi._future_marker', 'kimi.tool', 'unparseable']);
    expect(diagnostics.map((d) => d.where)).toEqual([`${file}:5`]);
  });

  it('a truncated last line is kept as meta with one file:line diagnostic', async () => {
    const { session } = fresh();
    appendFileSync(session, '{"role": "assistant", "content": "cut sh');
    const { events, diagnostics } = await captureAll(kimi, session);
    const n = SESSION_RECORDS.length + 1;
    expect(diagnostics.map((d) => d.where)).toEqual([`${session}:${n}`]);
    const last = events[events.length - 1];
    expect(last.type).toBe('meta');
    expect(p(last)).toMatchObject({ key: 'unparseable', unterminated: true });
  });

  it('captures a growing context.jsonl in its folder incrementally: the same events as one capture', async () => {
    const { session } = fresh();
    const full = readFileSync(session, 'utf8').split(/(?<=\n)/);
    writeFileSync(session, '');
    const ref = await kimi.open(session);
    expect(ref.native_id).toBe(SESSION_ID);
    let cursor: Cursor | undefined = { version: 1, agent: 'kimi', native_id: ref.native_id, sources: {}, sessions: {} };
    const all: SpEvent[] = [];
    for (const line of full) {
      appendFileSync(session, line.slice(0, 5));
      const half = await captureRef(kimi, ref, { cursor });
      cursor = half.cursor;
      all.push(...half.events);
      appendFileSync(session, line.slice(5));
      const got = await captureRef(kimi, ref, { cursor });
      cursor = got.cursor;
      all.push(...got.events);
    }
    const whole = await captureAll(kimi, session);
    const view = (e: SpEvent) => ({ seq: e.seq, type: e.type, session: e.session, payload: e.type === 'session.start' ? undefined : e.payload });
    expect(all.map(view)).toEqual(whole.events.map(view));
  });
});

describe('kimi discovery', () => {
  it('lists both layouts newest first, with the cwd kimi.json gives, the title and the first prompt', async () => {
    const { home, session, legacy } = fresh();
    // A context file moved aside by an undo, a clear or a compaction is not a session of its own.
    writeFileSync(join(dirname(session), 'context_1.jsonl'), '{"role":"user","content":"before the undo"}\n');
    const refs = await list(home, { details: true });
    expect(refs.map((r) => [r.native_id, r.path, r.cwd])).toEqual([[SESSION_ID, session, CWD], [LEGACY_ID, legacy, undefined]]);
    expect(refs[0]).toMatchObject({ title: TITLE, first_prompt: 'The date test fails, fix it', messages: 6, tool_calls: 4, mtime: MTIME, first_ts: WIRE_START, last_ts: MTIME });
    expect(refs[1]).toMatchObject({ first_prompt: 'List my notes', mtime: LEGACY_MTIME, first_ts: LEGACY_MTIME });
    expect((await list(home, { cwd: CWD })).map((r) => r.native_id)).toEqual([SESSION_ID]);
    expect(await list(home, { cwd: OTHER_CWD })).toEqual([]);
    expect((await kimi.find!(SESSION_ID.slice(0, 6), { home })).path).toBe(session);
    expect((await kimi.open(legacy)).native_id).toBe(LEGACY_ID);
    expect((await kimi.open(session)).cwd).toBe(CWD);
  });

  it('a folder that is in kimi.json under another KAOS is named <kaos>_<md5>', async () => {
    const { home } = fresh();
    writeFileSync(join(home, 'kimi.json'), JSON.stringify({ work_dirs: [{ path: CWD, kaos: 'ssh' }] }));
    const folder = join(home, 'sessions', `ssh_${md5(CWD)}`, '0b5d8f3a-1c2e-4d6f-8a9b-0c1d2e3f4a5b');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'context.jsonl'), '{"role":"user","content":"remote"}\n');
    const remote = (await list(home)).find((r) => r.native_id.startsWith('0b5d8f3a'));
    expect(remote?.cwd).toBe(CWD);
  });

  it('hostile homes: odd names are not sessions, ids with ../ find nothing, links are not followed, a huge line is read', async () => {
    const { home, session } = fresh();
    const outside = mkdtempSync(join(tmpdir(), 'sp-kimi-outside-'));
    homes.push(outside);
    const secret = join(outside, 'context.jsonl');
    writeFileSync(secret, '{"role":"user","content":"outside the home"}\n');
    const hashFolder = dirname(dirname(session));
    // A linked session folder, a linked context file, a linked work-dir folder: none is listed.
    symlinkSync(outside, join(hashFolder, '11111111-2222-4333-8444-555555555555'));
    mkdirSync(join(hashFolder, '22222222-2222-4333-8444-555555555555'));
    symlinkSync(secret, join(hashFolder, '22222222-2222-4333-8444-555555555555', 'context.jsonl'));
    symlinkSync(outside, join(home, 'sessions', 'f'.repeat(32)));
    // A wire log linked out of the home is not read for the start time.
    const wire = join(dirname(session), 'wire.jsonl');
    rmSync(wire);
    writeFileSync(join(outside, 'wire.jsonl'), '{"type":"metadata"}\n{"timestamp": 12345, "message": {}}\n');
    symlinkSync(join(outside, 'wire.jsonl'), wire);
    // Names of no session: not a UUID, a traversal-looking name, a file of another kind.
    mkdirSync(join(hashFolder, '..evil'), { recursive: true });
    writeFileSync(join(hashFolder, '..evil', 'context.jsonl'), '{"role":"user","content":"evil"}\n');
    writeFileSync(join(hashFolder, 'notes.jsonl'), '{"role":"user","content":"notes"}\n');
    // kimi.json itself hostile: a work dir that is not a string, a huge path.
    writeFileSync(join(home, 'kimi.json'), JSON.stringify({ work_dirs: [{ path: 42 }, { path: CWD }, 'junk', { path: 'x'.repeat(100_000) }] }));
    const refs = await list(home, { details: true });
    expect(refs.map((r) => r.native_id).sort()).toEqual([LEGACY_ID, SESSION_ID].sort());
    expect(refs.every((r) => !r.path.startsWith(outside))).toBe(true);
    await expect(kimi.find!(`../${SESSION_ID}`, { home })).rejects.toThrow(/no Kimi CLI session/);
    await expect(kimi.find!('..', { home })).rejects.toThrow(/no Kimi CLI session/);

    // An absurdly long line: read as one message, nothing lost, no crash.
    const long = 'y'.repeat(8 * 1024 * 1024);
    appendFileSync(session, JSON.stringify({ role: 'user', content: long }) + '\n');
    utimesSync(session, MTIME, MTIME);
    const { events, diagnostics } = await captureAll(kimi, session);
    expect(diagnostics).toEqual([]);
    expect(events[0].ts).toBe(MTIME);
    expect(p(ofType(events, 'message.user').at(-1)!).content[0].text.length).toBe(long.length);
  });

  it('a missing sessions folder is a user error naming the home variable', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'sp-kimi-empty-'));
    homes.push(empty);
    await expect(list(empty)).rejects.toThrow(/SP_KIMI_HOME/);
  });

  it('the share dir copied elsewhere keeps its sessions (no absolute path inside)', async () => {
    const { home } = fresh();
    const moved = mkdtempSync(join(tmpdir(), 'sp-kimi-moved-'));
    homes.push(moved);
    cpSync(home, moved, { recursive: true });
    expect((await list(moved)).map((r) => r.native_id)).toEqual((await list(home)).map((r) => r.native_id));
  });
});

describe('kimi vocabulary', () => {
  const ctx: VocabularyContext = { cwd: CWD, plan: new PlanState() };
  it('reads the client\'s tools as intents', () => {
    expect(kimiVocabulary.parse('Shell', { command: 'ls', timeout: 5 }, ctx)).toMatchObject({ kind: 'shell', command: 'ls', timeoutMs: 5000 });
    expect(kimiVocabulary.parse('ReadFile', { path: 'a.ts', line_offset: 3, n_lines: 9 }, ctx)).toEqual({ kind: 'read', path: 'a.ts', offset: 3, limit: 9 });
    expect(kimiVocabulary.parse('WriteFile', { path: 'a.ts', content: 'x' }, ctx)).toEqual({ kind: 'write', path: 'a.ts', content: 'x' });
    expect(kimiVocabulary.parse('WriteFile', { path: 'a.ts', content: 'x', mode: 'append' }, ctx)).toBeUndefined();
    expect(kimiVocabulary.parse('StrReplaceFile', { path: 'a.ts', edit: [{ old: 'a', new: 'b' }, { old: 'c', new: 'd', replace_all: true }] }, ctx)).toEqual({ kind: 'edit', path: 'a.ts', edits: [{ old: 'a', new: 'b', all: undefined }, { old: 'c', new: 'd', all: true }] });
    expect(kimiVocabulary.parse('Glob', { pattern: '*.ts', directory: 'src' }, ctx)).toEqual({ kind: 'search', mode: 'files', pattern: '*.ts', path: 'src' });
    expect(kimiVocabulary.parse('Grep', { pattern: 'x', glob: '*.ts' }, ctx)).toMatchObject({ kind: 'search', mode: 'content', pattern: 'x', glob: '*.ts' });
    expect(kimiVocabulary.parse('SearchWeb', { query: 'q' }, ctx)).toEqual({ kind: 'web-search', query: 'q' });
    expect(kimiVocabulary.parse('FetchURL', { url: 'https://a' }, ctx)).toEqual({ kind: 'web-fetch', urls: ['https://a'] });
    expect(kimiVocabulary.parse('SetTodoList', { todos: [{ title: 't', status: 'done' }] }, ctx)).toEqual({ kind: 'plan', items: [{ text: 't', status: 'completed' }] });
    expect(kimiVocabulary.parse('Agent', { prompt: 'p', description: 'd', subagent_type: 'coder' }, ctx)).toEqual({ kind: 'task', prompt: 'p', description: 'd' });
    expect(kimiVocabulary.parse('Think', { thought: 't' }, ctx)).toBeUndefined();
    expect(kimiVocabulary.parse('StrReplaceFile', { path: 'a.ts', edit: { old: 1 } }, ctx)).toBeUndefined();
    expect(kimiVocabulary.tools.has('Think')).toBe(true);
  });
});
