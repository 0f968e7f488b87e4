// The Claude Code writer on hand-built canonical events: layout, the resume-safety pass, ids,
// compaction, same-id moves, never overwriting, dry runs, and the slug of the project folder.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createHash } from 'node:crypto';
import {
  STUB_RESULT,
  materializeClaude,
  type ClaudeLossEntry,
  type ClaudeMaterializeOptions,
} from '../adapters/claude/materialize.js';
import { DEFAULT_MODEL } from '../adapters/claude/paths.js';
import { javaStringHash, projectSlug } from '../lib/formats/claude-code/slug.js';
import { UserError } from '../lib/cli/diagnostics.js';
import type { SpEvent } from '../lib/core/event.js';
import { shellQuote } from '../lib/write/writer.js';
import { claude } from '../adapters/claude/index.js';
import { captureAll } from './contract/testAdapter.js';
import { SessionBuilder, from } from './support/canonical.js';
import { blocksOf, conversationItems, readTranscript, transcriptProblems, type Line } from './support/transcript.js';

function workDir(): { home: string; cwd: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sp-mat-'));
  const cwd = join(dir, 'project');
  mkdirSync(cwd);
  return { home: join(dir, 'home'), cwd };
}

async function write(events: SpEvent[], options: ClaudeMaterializeOptions = {}) {
  const dirs = workDir();
  const losses: ClaudeLossEntry[] = [];
  const result = await materializeClaude(from(events), {
    home: dirs.home,
    cwd: dirs.cwd,
    ...options,
    onLoss: (e) => losses.push(e as ClaudeLossEntry),
  });
  const lines = options.dryRun ? [] : readTranscript(result.path);
  return { result, lines, losses, ...dirs };
}

function ok(lines: Line[], result: { session_id: string; cwd: string }): void {
  expect(transcriptProblems(lines, { sessionId: result.session_id, cwd: result.cwd })).toEqual([]);
}

const codes = (losses: ClaudeLossEntry[]) => losses.map((l) => `${l.action}:${l.code}`);

describe('project folder slug', () => {
  it('replaces every UTF-16 code unit outside [A-Za-z0-9] with a dash (formats §1 example)', () => {
    expect(projectSlug('/home/alice/my_proj.v2 é')).toBe('-home-alice-my-proj-v2--');
    expect(projectSlug('/home/alice/acme-api')).toBe('-home-alice-acme-api');
    expect(projectSlug('/tmp/😀')).toBe('-tmp---'); // an emoji is two code units
  });

  it('hashes like Java String.hashCode (32-bit wrap, UTF-16 units)', () => {
    expect(javaStringHash('')).toBe(0);
    expect(javaStringHash('hello')).toBe(99162322);
    expect(javaStringHash('Aa')).toBe(javaStringHash('BB'));
    expect(javaStringHash('polygenelubricants')).toBe(-2147483648); // the one value whose abs stays negative in Java
  });

  it('cuts slugs over 200 characters and appends base-36 of |hash(path)|', () => {
    const long = '/tmp/' + 'a'.repeat(250);
    const slug = projectSlug(long);
    expect(slug.length).toBeGreaterThan(200);
    expect(slug.slice(0, 200)).toBe(long.replace(/[^A-Za-z0-9]/g, '-').slice(0, 200));
    expect(slug.slice(200)).toBe('-' + Math.abs(javaStringHash(long)).toString(36));
    expect(projectSlug('/' + 'b'.repeat(199))).toBe('-' + 'b'.repeat(199)); // exactly 200: no suffix
    // The hash is of the path, not of the slug: paths that slug alike get different folders.
    expect(projectSlug('/x/' + 'c'.repeat(210))).not.toBe(projectSlug('/x.' + 'c'.repeat(210)));
    // polygenelubricants: |INT_MIN| is 2^31 in JavaScript, which the client (JavaScript) uses too.
    expect(projectSlug('/' + 'd'.repeat(200) + 'polygenelubricants').endsWith('-' + Math.abs(javaStringHash('/' + 'd'.repeat(200) + 'polygenelubricants')).toString(36))).toBe(true);
  });
});

describe('sp-materialize claude: layout', () => {
  it('writes a native-looking transcript with fresh ids, grouped messages and a final last-prompt', async () => {
    const b = new SessionBuilder();
    b.user('Add a DELETE endpoint.');
    b.thinking('Look at the routes first.', { provider: 'anthropic', signature: 'sig-abc', message_id: 'msg_1' });
    b.assistant('Reading the routes.', 'msg_1', { model: 'claude-opus-4-8', stop_reason: 'tool_use', usage: { input_tokens: 5, output_tokens: 7 } });
    b.call('toolu_A', 'Read', { file_path: 'src/a.js' }, 'msg_1');
    b.result('toolu_A', '1\tconst a = 1;', { structured: { type: 'text', file: { filePath: 'src/a.js' } } });
    b.assistant('Done.', 'msg_2', { model: 'claude-opus-4-8', stop_reason: 'end_turn' });
    b.user('Thanks');
    const { result, lines, losses } = await write(b.events);
    ok(lines, result);
    expect(losses).toEqual([]);
    expect(result).toMatchObject({ agent: 'claude', records: lines.length, written_as: 'rebuilt', changes: { dropped: 0, stubbed: 0, transformed: 0 } });
    expect(result.path).toBe(join(result.path, '..', `${result.session_id}.jsonl`));
    expect(result.path).toContain(join('projects', projectSlug(result.cwd)));
    expect(result.resume).toBe(`cd ${result.cwd} && CLAUDE_CONFIG_DIR=${result.resume_exec!.env.CLAUDE_CONFIG_DIR} claude --resume ${result.session_id}`);
    expect(result.path.startsWith(`${result.resume_exec!.env.CLAUDE_CONFIG_DIR}/projects/`)).toBe(true);
    expect(result.session_id).not.toBe('11111111-2222-4333-8444-555555555555');
    expect(conversationItems(lines)).toEqual([
      'user:text:Add a DELETE endpoint.',
      'thinking:Look at the routes first.',
      'assistant:text:Reading the routes.',
      'tool_use:toolu_A',
      'tool_result:toolu_A',
      'assistant:text:Done.',
      'user:text:Thanks',
    ]);
    const assistants = lines.filter((l) => l.type === 'assistant');
    expect(assistants.slice(0, 3).map((l) => l.message.id)).toEqual(['msg_1', 'msg_1', 'msg_1']);
    expect(assistants[0].message).toMatchObject({ model: 'claude-opus-4-8', stop_reason: 'tool_use', usage: { input_tokens: 5, output_tokens: 7 } });
    expect(assistants[0].message.content[0]).toEqual({ type: 'thinking', thinking: 'Look at the routes first.', signature: 'sig-abc' });
    const resultLine = lines.find((l) => blocksOf(l).some((x) => x.type === 'tool_result'))!;
    expect(resultLine.toolUseResult).toEqual({ type: 'text', file: { filePath: 'src/a.js' } });
    expect(resultLine.sourceToolAssistantUUID).toBe(resultLine.parentUuid);
    expect(lines[0].message.content).toBe('Add a DELETE endpoint.'); // a prompt is a plain string, as the client writes it
    expect(lines.at(-1)).toMatchObject({ type: 'last-prompt', lastPrompt: 'Thanks', sessionId: result.session_id });
    expect(readdirSync(join(result.path, '..'))).toEqual([`${result.session_id}.jsonl`]); // no temp file left
  });

  it('puts parallel results after the whole message, each parented to its own tool_use line (§2.4)', async () => {
    const b = new SessionBuilder();
    b.user('read both');
    b.call('toolu_1', 'Read', { file_path: 'a' }, 'm');
    b.call('toolu_2', 'Read', { file_path: 'b' }, 'm');
    b.result('toolu_1', 'A');
    b.result('toolu_2', 'B');
    b.assistant('both read', 'm2');
    const { result, lines } = await write(b.events);
    ok(lines, result);
    const [u, a1, a2, r1, r2, next] = lines;
    expect([u.type, a1.type, a2.type, r1.type, r2.type, next.type]).toEqual(['user', 'assistant', 'assistant', 'user', 'user', 'assistant']);
    expect(a2.parentUuid).toBe(a1.uuid);
    expect(r1.parentUuid).toBe(a1.uuid);
    expect(r2.parentUuid).toBe(a2.uuid);
    expect(next.parentUuid).toBe(r2.uuid);
  });

  it('keeps one message when a result arrives between blocks of the same message id, and splits id-less messages at results', async () => {
    const b = new SessionBuilder('pi');
    b.user('go');
    b.call('c1', 'bash', { command: 'ls' }, 'same');
    b.result('c1', 'x');
    b.call('c2', 'bash', { command: 'pwd' }, 'same');
    b.result('c2', 'y');
    // no message ids: text + call form one message; the text after the result is a new one
    b.assistant('first', undefined, { model: 'gpt-5' });
    b.call('c3', 'bash', { command: 'id' });
    b.result('c3', 'z');
    b.assistant('second', undefined, { model: 'gpt-5' });
    const { result, lines } = await write(b.events);
    ok(lines, result);
    const ids = lines.filter((l) => l.type === 'assistant').map((l) => l.message.id);
    expect(ids[0]).toBe('same');
    expect(ids[1]).toBe('same');
    expect(ids[2]).toBe(ids[3]);
    expect(ids[4]).not.toBe(ids[3]);
    expect(conversationItems(lines)).toEqual([
      'user:text:go', 'tool_use:c1', 'tool_use:c2', 'tool_result:c1', 'tool_result:c2',
      'assistant:text:first', 'tool_use:c3', 'tool_result:c3', 'assistant:text:second',
    ]);
  });

  it('gives a message id that comes back later a new id (the client would merge the two messages)', async () => {
    const b = new SessionBuilder();
    b.user('one');
    b.assistant('a', 'dup');
    b.user('two');
    b.assistant('b', 'dup');
    const { result, lines } = await write(b.events);
    ok(lines, result);
    const ids = lines.filter((l) => l.type === 'assistant').map((l) => l.message.id);
    expect(ids[0]).toBe('dup');
    expect(ids[1]).not.toBe('dup');
  });

  it('skips derived events and writes titles with the new session id', async () => {
    const b = new SessionBuilder();
    b.meta('claude.ai-title', { type: 'ai-title', aiTitle: 'Old title', sessionId: 'old' });
    b.user('edit it');
    const call = b.call('toolu_E', 'Edit', { file_path: 'a', old_string: 'x', new_string: 'y' }, 'm');
    b.result('toolu_E', 'ok');
    b.add('file.edit', { path: 'a', diff: '-x\n+y' }, { derived_from: call.seq });
    b.add('command.run', { cmd: 'ls' }, { derived_from: call.seq });
    b.meta('claude.custom-title', { type: 'custom-title', customTitle: 'Renamed', sessionId: 'old' });
    const { result, lines, losses } = await write(b.events);
    ok(lines, result);
    expect(losses).toEqual([]);
    expect(lines.filter((l) => l.type === 'ai-title')).toEqual([{ type: 'ai-title', aiTitle: 'Old title', sessionId: result.session_id }]);
    expect(lines.filter((l) => l.type === 'custom-title')).toEqual([{ type: 'custom-title', customTitle: 'Renamed', sessionId: result.session_id }]);
    expect(conversationItems(lines)).toEqual(['user:text:edit it', 'tool_use:toolu_E', 'tool_result:toolu_E']);
  });

  it('writes images as base64 sources, inlines artifacts, and reports an image it cannot find', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sp-art-'));
    const bytes = Buffer.from('fake png bytes');
    const hex = createHash('sha256').update(bytes).digest('hex');
    writeFileSync(join(dir, hex), bytes);
    const b = new SessionBuilder();
    b.add('message.user', {
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' },
        { type: 'image', media_type: 'image/png', artifact: `sha256:${hex}` },
        { type: 'image', media_type: 'image/jpeg', artifact: `sha256:${'0'.repeat(64)}` },
      ],
    });
    const { result, lines, losses } = await write(b.events, { artifactsDir: dir });
    ok(lines, result);
    expect(lines[0].message.content).toEqual([
      { type: 'text', text: 'look' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: bytes.toString('base64') } },
      { type: 'text', text: `[image image/jpeg not available: sha256:${'0'.repeat(64)}]` },
    ]);
    expect(codes(losses)).toEqual(['transformed:image']);
  });

  it('writes a compiled handoff context as the opening user message', async () => {
    const b = new SessionBuilder('codex', 'sess_c', { model: 'gpt-5' });
    b.add('context.compiled', { target: 'claude', tokens: 12, text: '# Handoff\nContinue the DELETE endpoint.' });
    const { result, lines } = await write(b.events);
    ok(lines, result);
    expect(lines[0].message.content).toBe('# Handoff\nContinue the DELETE endpoint.');
    expect(lines[0].version).toBe('2.1.332'); // a foreign session's version is not a Claude version
  });
});

describe('sp-materialize claude: branches', () => {
  // u1 → a1 → u2 → a2 (abandoned), then a rewind: u3 follows a1 → a3 (the active leaf).
  function branched(): { b: SessionBuilder; abandoned: SpEvent[] } {
    const b = new SessionBuilder('pi', 'sess_b', { model: 'claude-sonnet-4-5' });
    b.user('u1');
    const a1 = b.assistant('a1', 'm1');
    const u2 = b.user('u2 abandoned');
    const a2 = b.assistant('a2 abandoned', 'm2');
    b.add('message.user', { content: [{ type: 'text', text: 'u3' }] }, { parent_seq: a1.seq });
    b.assistant('a3', 'm3');
    return { b, abandoned: [u2, a2] };
  }

  it('keeps every branch as a tree whose last line is the active leaf (default)', async () => {
    const { b } = branched();
    const { result, lines } = await write(b.events);
    ok(lines, result);
    expect(result.branches).toBe(1);
    const byText = new Map(lines.filter((l) => l.message).map((l) => [blocksOf(l)[0].text, l]));
    expect(byText.get('u3')!.parentUuid).toBe(byText.get('a1')!.uuid);
    expect(byText.get('u2 abandoned')!.parentUuid).toBe(byText.get('a1')!.uuid);
    // The client walks up from the last line: u1, a1, u3, a3.
    const path: string[] = [];
    const byUuid = new Map(lines.filter((l) => l.uuid).map((l) => [l.uuid, l]));
    for (let l = lines.filter((x) => x.uuid).at(-1); l; l = byUuid.get(l.parentUuid)) path.unshift(blocksOf(l)[0].text);
    expect(path).toEqual(['u1', 'a1', 'u3', 'a3']);
  });

  it('--branch active writes only the path to the active leaf and reports the rest', async () => {
    const { b, abandoned } = branched();
    const { result, lines, losses } = await write(b.events, { branch: 'active' });
    ok(lines, result);
    expect(conversationItems(lines)).toEqual(['user:text:u1', 'assistant:text:a1', 'user:text:u3', 'assistant:text:a3']);
    expect(losses.map((l) => [l.code, l.seq])).toEqual(abandoned.map((e) => ['other-branch', e.seq]));
    expect(result.branches).toBeUndefined();
  });
});

describe('sp-materialize claude: native fields', () => {
  it("restores the line, message and block fields Claude's capture kept, never the old chain or session", async () => {
    const b = new SessionBuilder();
    b.user('hi', { extra: { promptId: 'p-1', permissionMode: 'bypassPermissions', sessionId: 'old', parentUuid: 'gone', slug: 'plan-slug', uuid: 'u-old' } });
    b.call('toolu_1', 'Edit', { file_path: 'a' }, 'm1', {
      extra: { requestId: 'req_1' },
      message_extra: { stop_sequence: null, stop_details: null, container: null },
      block_extra: { caller: { type: 'direct' } },
    });
    b.result('toolu_1', 'ok', { block_extra: { cache_note: 1 }, extra: { sourceToolAssistantUUID: 'old-line', promptId: 'p-1' } });
    const { result, lines } = await write(b.events);
    ok(lines, result);
    const [user, use, res] = lines;
    expect(user).toMatchObject({ promptId: 'p-1', permissionMode: 'bypassPermissions', sessionId: result.session_id });
    expect(user.slug).toBeUndefined();
    expect(user.parentUuid).toBeNull();
    expect(user.uuid).not.toBe('u-old');
    expect(use.requestId).toBe('req_1');
    expect(use.message).toMatchObject({ stop_details: null, container: null });
    expect(use.message.content[0]).toEqual({ caller: { type: 'direct' }, type: 'tool_use', id: 'toolu_1', name: 'Edit', input: { file_path: 'a' } });
    expect(res.message.content[0]).toMatchObject({ cache_note: 1, tool_use_id: 'toolu_1' });
    expect(res.sourceToolAssistantUUID).toBe(use.uuid);
  });

  it("does not carry another agent's extra fields into Claude lines", async () => {
    const b = new SessionBuilder('codex', 's', { model: 'gpt-5' });
    b.user('hi', { extra: { turn_id: 't1' } });
    const { lines } = await write(b.events);
    expect(lines[0].turn_id).toBeUndefined();
  });
});

describe('sp-materialize claude: resume-safety pass', () => {
  it('stubs an unanswered tool_use and drops an orphan or duplicate tool_result, reporting each', async () => {
    const b = new SessionBuilder();
    b.user('go');
    const unanswered = b.call('toolu_lost', 'Bash', { command: 'sleep 100' }, 'm');
    b.user('never mind');
    const orphan = b.result('toolu_nobody', 'stray');
    b.assistant('ok', 'm2');
    b.call('toolu_twice', 'Bash', { command: 'ls' }, 'm3');
    b.result('toolu_twice', 'first');
    const duplicate = b.result('toolu_twice', 'second');
    const { result, lines, losses } = await write(b.events);
    ok(lines, result);
    const stub = lines.find((l) => blocksOf(l)[0]?.tool_use_id === 'toolu_lost')!;
    expect(blocksOf(stub)[0]).toEqual({ tool_use_id: 'toolu_lost', type: 'tool_result', content: STUB_RESULT, is_error: true });
    expect(conversationItems(lines)).toEqual([
      'user:text:go', 'tool_use:toolu_lost', 'tool_result:toolu_lost', 'user:text:never mind',
      'assistant:text:ok', 'tool_use:toolu_twice', 'tool_result:toolu_twice',
    ]);
    expect(JSON.stringify(lines)).not.toContain('stray');
    expect(JSON.stringify(lines)).not.toContain('second');
    expect(losses.map((l) => [l.action, l.code, l.seq])).toEqual([
      ['stubbed', 'stub-result', unanswered.seq],
      ['dropped', 'orphan-result', orphan.seq],
      ['dropped', 'orphan-result', duplicate.seq],
    ]);
    expect(losses[2].reason).toContain('a second result');
    expect(result.changes).toEqual({ dropped: 2, stubbed: 1, transformed: 0 });
  });

  it('places a result that arrives late right after its call', async () => {
    const b = new SessionBuilder('hermes');
    b.user('go');
    b.call('c1', 'terminal', { command: 'ls' }, 'm1');
    b.assistant('meanwhile', 'm2', { model: 'x' });
    b.result('c1', 'late');
    const { result, lines } = await write(b.events);
    ok(lines, result);
    expect(conversationItems(lines)).toEqual(['user:text:go', 'tool_use:c1', 'tool_result:c1', 'assistant:text:meanwhile']);
  });

  it('makes tool ids [A-Za-z0-9_-] and unique, the same for the call and its result', async () => {
    const b = new SessionBuilder('opencode');
    b.user('go');
    const odd = b.call('fc:1/x y', 'bash', { command: 'ls' }, 'm1');
    b.result('fc:1/x y', 'one');
    const clash = b.call('fc_1_x_y', 'bash', { command: 'pwd' }, 'm2');
    b.result('fc_1_x_y', 'two');
    const again = b.call('call_0', 'bash', {}, 'm3');
    b.result('call_0', 'three');
    const reused = b.call('call_0', 'bash', {}, 'm4'); // agents that number calls per turn reuse ids
    b.result('call_0', 'four');
    const { result, lines, losses } = await write(b.events);
    ok(lines, result);
    const uses = lines.flatMap(blocksOf).filter((x) => x.type === 'tool_use').map((x) => x.id);
    expect(uses).toEqual(['fc_1_x_y', 'fc_1_x_y_2', 'call_0', 'call_0_2']);
    const results = lines.flatMap(blocksOf).filter((x) => x.type === 'tool_result').map((x) => [x.tool_use_id, x.content]);
    expect(results).toEqual([['fc_1_x_y', 'one'], ['fc_1_x_y_2', 'two'], ['call_0', 'three'], ['call_0_2', 'four']]);
    expect(losses.map((l) => [l.code, l.seq])).toEqual([['tool-id', odd.seq], ['tool-id', clash.seq], ['tool-id', reused.seq]]);
    expect(again.seq).toBeLessThan(reused.seq);
  });

  it('writes reasoning without an Anthropic signature as text, keeps signed and redacted Claude thinking', async () => {
    const b = new SessionBuilder('codex', 'sess_x', { model: 'gpt-5' });
    b.user('think');
    const foreign = b.thinking('I should list files.', { provider: 'openai', message_id: 'r1' });
    b.assistant('Listing.', 'r1', { model: 'gpt-5' });
    const encrypted = b.thinking('', { provider: 'openai', visibility: 'encrypted', opaque: 'gAAAA', message_id: 'r2' });
    b.assistant('Next.', 'r2', { model: 'gpt-5' });
    const unsigned = b.thinking('claude but unsigned', { provider: 'anthropic', message_id: 'r3' });
    b.thinking('signed', { provider: 'anthropic', signature: 'EqQBCk', message_id: 'r3' });
    b.thinking('', { provider: 'anthropic', visibility: 'redacted', opaque: 'EmwKAh', message_id: 'r3' });
    b.assistant('Done.', 'r3', { model: 'claude-opus-4-8' });
    const { result, lines, losses } = await write(b.events);
    ok(lines, result);
    const blocks = lines.filter((l) => l.type === 'assistant').map((l) => l.message.content[0]);
    expect(blocks).toEqual([
      { type: 'text', text: '[reasoning]\nI should list files.' },
      { type: 'text', text: 'Listing.' },
      { type: 'text', text: 'Next.' },
      { type: 'text', text: '[reasoning]\nclaude but unsigned' },
      { type: 'thinking', thinking: 'signed', signature: 'EqQBCk' },
      { type: 'redacted_thinking', data: 'EmwKAh' },
      { type: 'text', text: 'Done.' },
    ]);
    expect(losses.map((l) => [l.action, l.code, l.seq])).toEqual([
      ['transformed', 'foreign-thinking', foreign.seq],
      ['dropped', 'foreign-thinking', encrypted.seq],
      ['transformed', 'foreign-thinking', unsigned.seq],
    ]);
  });

  it('skips empty messages and blank text blocks', async () => {
    const b = new SessionBuilder();
    b.user('real');
    const emptyUser = b.add('message.user', { content: [{ type: 'text', text: '   ' }] });
    const emptyAssistant = b.add('message.assistant', { content: [], message_id: 'e', model: 'm' });
    b.add('message.assistant', { content: [{ type: 'text', text: '' }, { type: 'text', text: 'kept' }], message_id: 'k', model: 'm' });
    const { result, lines, losses } = await write(b.events);
    ok(lines, result);
    expect(conversationItems(lines)).toEqual(['user:text:real', 'assistant:text:kept']);
    expect(losses.map((l) => [l.action, l.code, l.seq])).toEqual([
      ['dropped', 'empty-text', emptyUser.seq],
      ['dropped', 'empty-message', emptyUser.seq],
      ['dropped', 'empty-message', emptyAssistant.seq],
      ['dropped', 'empty-text', emptyAssistant.seq + 1],
    ]);
  });

  it('fills a missing model from the previous message, the session, or the stated default', async () => {
    const b = new SessionBuilder('pi', 'sess_p', { model: undefined });
    b.user('a');
    b.assistant('no model yet', 'm1');
    b.assistant('own model', 'm2', { model: 'claude-haiku-4-5' });
    b.assistant('after it', 'm3');
    const { result, lines, losses } = await write(b.events);
    ok(lines, result);
    expect(lines.filter((l) => l.type === 'assistant').map((l) => l.message.model)).toEqual([DEFAULT_MODEL, 'claude-haiku-4-5', 'claude-haiku-4-5']);
    expect(codes(losses)).toEqual(['stubbed:model', 'stubbed:model']);
    const withSession = await write(new SessionBuilder('pi', 's', { model: 'claude-opus-4-8' }).events.concat([
      { session: 's', seq: 1, ts: 1_764_480_010, agent: 'pi', type: 'message.user', payload: { content: [{ type: 'text', text: 'x' }] } },
      { session: 's', seq: 2, ts: 1_764_480_011, agent: 'pi', type: 'message.assistant', payload: { content: [{ type: 'text', text: 'y' }] } },
    ]), { model: 'claude-sonnet-4-5' });
    expect(withSession.lines.find((l) => l.type === 'assistant')!.message.model).toBe('claude-opus-4-8');
    expect(withSession.result.resume).toMatch(/ --model claude-sonnet-4-5$/);
  });

  it('with --no-safety writes ids and unpaired tools as they are', async () => {
    const b = new SessionBuilder();
    b.user('go');
    b.call('fc:1', 'Bash', {}, 'm');
    b.result('nobody', 'stray');
    const { lines, losses } = await write(b.events, { safety: false });
    expect(lines.flatMap(blocksOf).filter((x) => x.type === 'tool_use').map((x) => x.id)).toEqual(['fc:1']);
    expect(lines.flatMap(blocksOf).filter((x) => x.type === 'tool_result').map((x) => x.tool_use_id)).toEqual(['nobody']);
    expect(losses).toEqual([]);
  });

  it('reports what it does not write: other sessions, meta without a Claude record, unknown types', async () => {
    const b = new SessionBuilder('codex', 'sess_main', { model: 'gpt-5' });
    b.user('hi');
    const plan = b.add('decision', { decision: 'keep the store' });
    const foreignMeta = b.meta('codex.turn_context', { type: 'turn_context' });
    b.assistant('hello', 'm', { model: 'gpt-5' });
    const child: SpEvent = { session: 'sess_child', seq: 0, ts: 1_764_480_100, agent: 'codex', type: 'session.start', payload: { native_id: 'child-1', cwd: '/tmp/child' } };
    const { result, lines, losses } = await write([...b.events, child]);
    ok(lines, result);
    expect(losses.map((l) => [l.action, l.code, l.seq])).toEqual([
      ['dropped', 'child-session', undefined],
      ['dropped', 'no-claude-record', plan.seq],
      ['dropped', 'foreign-meta', foreignMeta.seq],
    ]);
    expect(losses[0].reason).toContain('child-1');
    // --session picks the other one
    const picked = await write([...b.events, child, { ...child, seq: 1, type: 'message.user', payload: { content: [{ type: 'text', text: 'child says' }] } }], { session: 'child-1' });
    expect(conversationItems(picked.lines)).toEqual(['user:text:child says']);
  });
});

describe('sp-materialize claude: compaction', () => {
  function compacted(): { b: SessionBuilder; preservedText: string } {
    const b = new SessionBuilder();
    b.user('before compaction', {});
    b.assistant('old answer', 'm_old');
    b.events.at(-1)!.origin = { agent: 'claude', native_id: 'n', native_uuid: 'keep-me' };
    b.call('toolu_old', 'Bash', { command: 'ls' }, 'm_old2');
    b.result('toolu_old', 'files');
    b.meta('claude.system.compact_boundary', {
      type: 'system', subtype: 'compact_boundary', parentUuid: null, logicalParentUuid: 'x', content: 'Conversation compacted',
      compactMetadata: { trigger: 'manual', preTokens: 100, preservedSegment: { headUuid: 'keep-me', anchorUuid: 'summary-uuid', tailUuid: 'keep-me' },
        preservedMessages: { anchorUuid: 'summary-uuid', uuids: ['keep-me'], allUuids: ['keep-me'] } },
    });
    b.user('This session is being continued… Summary: we listed files.', { compact_summary: true });
    b.user('<local-command-caveat>Caveat</local-command-caveat>', { is_meta: true });
    b.user('after compaction');
    b.assistant('new answer', 'm_new');
    return { b, preservedText: 'old answer' };
  }

  it('writes a boundary (parent null), the summary, the preserved segment again, then the rest', async () => {
    const { b } = compacted();
    const { result, lines, losses } = await write(b.events);
    ok(lines, result);
    const at = lines.findIndex((l) => l.type === 'system' && l.subtype === 'compact_boundary');
    const boundary = lines[at];
    expect(boundary.parentUuid).toBeNull();
    expect(boundary.logicalParentUuid).toBe(lines[at - 1].uuid);
    expect(boundary.compactMetadata).toEqual({ trigger: 'manual', preTokens: 100 });
    expect(conversationItems(lines.slice(at))).toEqual([
      'user:text:This session is being continued… Summary: we listed files.',
      'assistant:text:old answer',
      'user:text:<local-command-caveat>Caveat</local-command-caveat>',
      'user:text:after compaction',
      'assistant:text:new answer',
    ]);
    expect(lines[at + 1]).toMatchObject({ isCompactSummary: true, isVisibleInTranscriptOnly: true, parentUuid: boundary.uuid });
    expect(lines[at + 2].message.id).not.toBe('m_old'); // the copy must not merge with the original
    expect(lines[at + 3].isMeta).toBe(true);
    expect(lines.at(-1)!.lastPrompt).toBe('after compaction');
    expect(codes(losses)).toEqual(['transformed:compaction']);
  });
});

describe('sp-materialize claude: --same-id, never overwrite, dry run', () => {
  const NATIVE = '11111111-2222-4333-8444-555555555555';

  function rawSession(): { events: SpEvent[]; file: string } {
    const lines = [
      `{"type":"ai-title","aiTitle":"T","sessionId":"${NATIVE}"}`,
      `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-01-01T10:00:00.000Z","sessionId":"${NATIVE}"}`,
      `{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","model":"claude-opus-4-8","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},"uuid":"u2","timestamp":"2026-01-01T10:00:01.000Z"}`,
      `{"parentUuid":"u2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]},"uuid":"u3","timestamp":"2026-01-01T10:00:02.000Z","toolUseResult":{"stdout":"x"}}`,
      `{"type":"last-prompt","lastPrompt":"hi","leafUuid":"u3","sessionId":"${NATIVE}"}`,
    ];
    const origin = (n: number, raw?: boolean, uuid?: string) => ({ agent: 'claude', native_id: NATIVE, native_seq: n, ...(uuid ? { native_uuid: uuid } : {}), path: '/x.jsonl', ...(raw ? { raw: [lines[n - 1]] } : {}) });
    const base = { session: 'sess_raw', agent: 'claude' };
    const events: SpEvent[] = [
      { ...base, seq: 0, ts: 1, type: 'session.start', payload: { native_id: NATIVE, cwd: '/x' }, origin: origin(1) },
      { ...base, seq: 1, ts: 1, type: 'meta', payload: { key: 'claude.ai-title', raw: JSON.parse(lines[0]) }, origin: origin(1, true) },
      { ...base, seq: 2, ts: 2, type: 'message.user', payload: { content: [{ type: 'text', text: 'hi' }] }, origin: origin(2, true, 'u1') },
      { ...base, seq: 3, ts: 3, type: 'tool.call', payload: { call_id: 'toolu_1', name: 'Bash', input: {}, message_id: 'm1', model: 'claude-opus-4-8' }, origin: origin(3, true, 'u2') },
      // capture may regroup: the result's event comes before a derived one and is ordered by seq, not line
      { ...base, seq: 4, ts: 4, type: 'tool.result', payload: { call_id: 'toolu_1', content: 'x', structured: { stdout: 'x' } }, origin: origin(4, true, 'u3') },
      { ...base, seq: 5, ts: 4, type: 'command.run', payload: { cmd: '' }, derived_from: 3, origin: origin(4) },
      { ...base, seq: 6, ts: 5, type: 'meta', payload: { key: 'claude.last-prompt', raw: JSON.parse(lines[4]) }, origin: origin(5, true) },
    ];
    return { events, file: lines.join('\n') + '\n' };
  }

  it('writes the captured raw lines byte for byte under the original id', async () => {
    const { events, file } = rawSession();
    const { result } = await write(events, { sameId: true });
    expect(result.session_id).toBe(NATIVE);
    expect(result.written_as).toBe('raw');
    expect(readFileSync(result.path, 'utf8')).toBe(file);
  });

  it('keeps a missing final newline, and rebuilds when a line is missing from the capture', async () => {
    const { events, file } = rawSession();
    events[0].payload.raw_final_newline = false;
    const result = await materializeClaude(from(events), { ...workDir(), sameId: true });
    expect(readFileSync(result.path, 'utf8')).toBe(file.slice(0, -1));
    const gap = rawSession().events.filter((e) => e.seq !== 1); // the title line was not captured
    const rebuilt = await write(gap, { sameId: true });
    expect(rebuilt.result.written_as).toBe('rebuilt');
  });

  it('rebuilds with the original session id and line uuids when lines are missing from the capture', async () => {
    const { events } = rawSession();
    for (const e of events) if (e.origin) delete e.origin.raw;
    const { result, lines } = await write(events, { sameId: true });
    expect(result.written_as).toBe('rebuilt');
    ok(lines, result);
    expect(lines.filter((l) => l.uuid).map((l) => l.uuid)).toEqual(['u1', 'u2', 'u3']);
    expect(lines.every((l) => l.sessionId === undefined || l.sessionId === NATIVE)).toBe(true);
  });

  it('refuses to overwrite an existing session (exit 2) and leaves it untouched', async () => {
    const { events } = rawSession();
    const first = await write(events, { sameId: true });
    const path = first.result.path;
    writeFileSync(path, 'precious\n');
    const again = materializeClaude(from(events), { home: first.home, cwd: first.cwd, sameId: true });
    await expect(again).rejects.toThrow(UserError);
    await expect(materializeClaude(from(events), { home: first.home, cwd: first.cwd, sameId: true })).rejects.toMatchObject({
      exitCode: 2,
      where: path,
      message: expect.stringContaining('never overwrites'),
    });
    expect(readFileSync(path, 'utf8')).toBe('precious\n');
  });

  it('refuses --same-id for a session of another agent', async () => {
    const b = new SessionBuilder('codex');
    b.user('x');
    await expect(write(b.events, { sameId: true })).rejects.toThrow(/comes from codex/);
  });

  it('dry run: computes the lines, writes nothing', async () => {
    const b = new SessionBuilder();
    b.user('hi');
    b.assistant('hello', 'm');
    const preview: string[] = [];
    const { result, home } = await write(b.events, { dryRun: true, onLine: (l) => preview.push(l) });
    expect(result.dry_run).toBe(true);
    expect(existsSync(result.path)).toBe(false);
    expect(existsSync(home)).toBe(false);
    expect(preview.map((l) => JSON.parse(l).type)).toEqual(['user', 'assistant', 'last-prompt']);
    expect(result.records).toBe(3);
  });

  it('needs a cwd, and says so', async () => {
    const b = new SessionBuilder('pi', 's', { cwd: undefined });
    b.user('x');
    await expect(materializeClaude(from(b.events), { home: '/nonexistent' })).rejects.toThrow(/pass --cwd/);
  });

  it('quotes the cwd of the resume command only when it must', () => {
    expect(shellQuote('/home/alice/acme-api')).toBe('/home/alice/acme-api');
    expect(shellQuote("/tmp/it's here")).toBe(`'/tmp/it'\\''s here'`);
  });
});

describe('sp-materialize claude: every Claude fixture, captured', () => {
  const F = new URL('../fixtures/claude/', import.meta.url).pathname;
  const corpus = (scenario: string, id: string) => `${F}corpus/${scenario}/.claude/projects/-home-alice-acme-api/${id}.jsonl`;
  const S1 = corpus('S1-feature', 'e05d2652-6a94-447f-8b60-cded66e4199a');
  const S2 = corpus('S2-debug', '9a1dc580-54f5-46ea-bece-7461fb46da3a');
  const S3 = corpus('S3-long', 'fedfe4e3-0d75-4e8a-ae44-125dd06bbf71');
  const STAGE0 = `${F}public/agent-sessions/Resources/Fixtures/stage0/agents/claude/`;
  const PUBLIC = [
    `${STAGE0}small.jsonl`, `${STAGE0}large.jsonl`, `${STAGE0}schema_drift.jsonl`,
    `${STAGE0}subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl`,
    `${F}public/claude-code-log/test/test_data/dag_compact_after_rewind.jsonl`,
    `${F}public/transession/tests/fixtures/claude_current_sample.jsonl`,
    `${F}public/session-bridge/tests/fixtures/claude_pending.jsonl`,
    `${F}corpus/S3-long/.claude/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71/subagents/agent-a4fb297860875671f.jsonl`,
  ];
  /** Loss codes of records that only the old session needs. */
  const BOOKKEEPING = new Set(['queue-operation', 'file-history-snapshot', 'last-prompt', 'mode', 'child-session']);

  it.each([['S1-feature', S1], ['S2-debug', S2], ['S3-long', S3]])('%s: a well-formed transcript holding the whole conversation', async (_name, path) => {
    const { events } = await captureAll(claude, path);
    const { result, lines, losses } = await write(events);
    ok(lines, result);
    expect(result.branches).toBeUndefined();
    // Only bookkeeping records of the old session are left out; the compaction is the one change.
    expect(losses.filter((l) => !BOOKKEEPING.has(l.code)).map((l) => l.code)).toEqual(path === S3 ? ['compaction'] : []);
    // The conversation, in order; after a compaction the preserved segment comes again.
    const main = events.filter((e) => e.session === events[0].session && e.derived_from === undefined);
    const want: string[] = [];
    for (const e of main) {
      const p = e.payload as Record<string, any>;
      if (e.type === 'message.user' || e.type === 'message.assistant') for (const b of p.content) if (b.type === 'text') want.push(`${e.type === 'message.user' ? 'user' : 'assistant'}:text:${b.text}`);
      if (e.type === 'tool.call') want.push(`tool_use:${p.call_id}`);
      if (e.type === 'message.thinking') want.push(`thinking:${p.text}`);
    }
    const got = conversationItems(lines).filter((i) => !i.startsWith('tool_result:') && !i.startsWith('user:image'));
    expect(path === S3 ? [...new Set(got)] : got).toEqual(want);
    // Every thinking block keeps its signature; every image its bytes.
    const thinking = lines.flatMap(blocksOf).filter((b) => b.type === 'thinking');
    expect(thinking.every((b) => typeof b.signature === 'string' && b.signature.length > 20)).toBe(true);
    if (path === S2) expect(lines.flatMap(blocksOf).filter((b) => b.type === 'image').map((b) => b.source.type)).toEqual(['base64']);
  });

  it.each([['S1-feature', S1], ['S2-debug', S2], ['S3-long', S3]])('%s: --same-id from a --raw capture is byte-identical', async (_name, path) => {
    const { events } = await captureAll(claude, path, { raw: true });
    const { result } = await write(events, { sameId: true });
    expect(result.written_as).toBe('raw');
    expect(result.path.endsWith(`/${basename(path)}`)).toBe(true);
    expect(readFileSync(result.path)).toEqual(readFileSync(path));
  });

  it.each(PUBLIC.map((p) => [basename(p), p]))('public %s: captured and written as a well-formed transcript', async (_name, path) => {
    const { events } = await captureAll(claude, path);
    const { result, lines } = await write(events);
    // A source line with parentUuid null in mid-file (a new root) stays one.
    const roots = events.some((e) => e.parent_seq === null && e.type !== 'meta');
    expect(transcriptProblems(lines, { sessionId: result.session_id, cwd: result.cwd, allowRoots: roots })).toEqual([]);
  });
});
