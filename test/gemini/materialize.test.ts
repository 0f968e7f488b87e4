// The Gemini CLI writer: file name and metadata (import-time lastUpdated, so the 30-day clean-up
// keeps it), each tool result written once (in toolCalls[].result only), text the client would
// skip made safe, stubs for unanswered calls, and project registration by new files only.
import { describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gemini } from '../../adapters/gemini/index.js';
import { baseSlug, projectSlugFor } from '../../adapters/gemini/project.js';
import type { GeminiMaterializeResult } from '../../adapters/gemini/materialize.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import { SessionBuilder, from } from '../support/canonical.js';
import { HOME } from './support.js';

type Json = Record<string, any>;
const records = (path: string): Json[] => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Json);

function session(): SessionBuilder {
  const b = new SessionBuilder('claude');
  b.user('Fix the test');
  b.thinking('Look first.', { signature: 'sig' });
  b.assistant('Reading.', 'm1');
  b.call('toolu_1', 'Read', { file_path: 'a.js' }, 'm1');
  b.call('toolu_2', 'Bash', { command: 'npm test' }, 'm1');
  b.result('toolu_1', 'line 1');
  b.result('toolu_2', 'Exit code 1', { is_error: true });
  b.assistant('Fixed.', 'm2');
  b.user('/compact now');
  b.call('toolu_3', 'Bash', { command: 'ls' }, 'm3');
  return b;
}

describe('gemini writer', () => {
  it('a new session file the client lists: metadata first with import times, messages typed user/gemini, each result once', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sp-gemini-write-'));
    const losses: LossEntry[] = [];
    const before = Date.now();
    const result = (await gemini.materialize!(from(session().events), { home, cwd: '/tmp/sp-test-project', onLoss: (l) => losses.push(l) })) as GeminiMaterializeResult;
    expect(basename(result.path)).toMatch(new RegExp(`^session-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-${result.session_id.slice(0, 8)}\\.jsonl$`));
    expect(result.path).toBe(join(home, 'tmp', 'sp-test-project', 'chats', basename(result.path)));
    const [meta, ...messages] = records(result.path);
    expect(meta).toMatchObject({ sessionId: result.session_id, kind: 'main' });
    expect(meta.projectHash).toMatch(/^[0-9a-f]{64}$/);
    for (const t of [meta.startTime, meta.lastUpdated]) expect(Date.parse(t)).toBeGreaterThanOrEqual(before - 1000);
    expect(messages.map((m) => m.type)).toEqual(['user', 'gemini', 'gemini', 'user', 'gemini']);
    expect(messages.every((m) => typeof m.id === 'string')).toBe(true);
    // No user functionResponse message: results only in toolCalls[].result.
    expect(JSON.stringify(messages.filter((m) => m.type === 'user'))).not.toContain('functionResponse');
    const step = messages[1];
    expect(step).toMatchObject({ content: 'Reading.', model: 'gemini-2.5-pro', thoughts: [{ description: 'Look first.' }] });
    expect(step.toolCalls.map((c: Json) => c.id)).toEqual(['Read__toolu_1', 'Bash__toolu_2']);
    expect(step.toolCalls[1]).toMatchObject({ status: 'error', result: [{ functionResponse: { id: 'Bash__toolu_2', name: 'Bash', response: { error: 'Exit code 1' } } }] });
    // A text the client would skip as a slash command is sent.
    expect(messages[3].content[0].text).toBe('\u200b/compact now');
    expect(messages[4].toolCalls[0]).toMatchObject({ id: 'Bash__toolu_3', status: 'error' });
    expect(losses.map((l) => l.code)).toEqual(expect.arrayContaining(['slash-text', 'stub-result', 'reasoning-text']));
    // Registered by a new marker only; no projects.json written.
    expect(result.registered).toBe(true);
    expect(readFileSync(join(home, 'tmp', 'sp-test-project', '.project_root'), 'utf8')).toBe('/tmp/sp-test-project');
    expect(existsSync(join(home, 'projects.json'))).toBe(false);
  });

  it('an existing registration is used as is; the user’s projects.json and markers stay byte-identical', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sp-gemini-home-'));
    cpSync(HOME, home, { recursive: true });
    const projects = readFileSync(join(home, 'projects.json'));
    const marker = readFileSync(join(home, 'tmp', 'acme-api', '.project_root'));
    const result = (await gemini.materialize!(from(session().events), { home, cwd: '/home/erin/acme-api' })) as GeminiMaterializeResult;
    expect(result).toMatchObject({ slug: 'acme-api', registered: false });
    expect(result.path.startsWith(join(home, 'tmp', 'acme-api', 'chats'))).toBe(true);
    expect(readFileSync(join(home, 'projects.json'))).toEqual(projects);
    expect(readFileSync(join(home, 'tmp', 'acme-api', '.project_root'))).toEqual(marker);
  });

  it('a slug another project owns is not taken: the client’s -1 suffix', () => {
    const home = mkdtempSync(join(tmpdir(), 'sp-gemini-slug-'));
    mkdirSync(join(home, 'tmp', 'acme-api'), { recursive: true });
    writeFileSync(join(home, 'tmp', 'acme-api', '.project_root'), '/elsewhere/acme-api');
    expect(projectSlugFor(home, '/home/x/acme-api')).toEqual({ slug: 'acme-api-1', register: true });
    expect(projectSlugFor(home, '/elsewhere/acme-api')).toEqual({ slug: 'acme-api', register: false });
    expect(baseSlug('/home/x/My Project!')).toBe('my-project');
    expect(baseSlug('/')).toBe('project');
  });
});

describe('gemini writer, a new project folder', () => {
  it('never replaces a project folder made while it wrote (the client, another writer): refuses, leaves it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sp-gemini-race-'));
    const slugDir = join(home, 'tmp', 'sp-race-project');
    let made = false;
    // The session's lines are written into the staged folder: meanwhile the racer makes the (empty)
    // project folder the staged one was about to take.
    const onLine = () => {
      if (!made) mkdirSync(slugDir);
      made = true;
    };
    await expect(gemini.materialize!(from(session().events), { home, cwd: '/tmp/sp-race-project', onLine })).rejects.toThrow(/the project folder appeared while writing/);
    expect(readdirSync(slugDir)).toEqual([]);
    expect(readdirSync(join(home, 'tmp'))).toEqual(['sp-race-project']); // no staging folder left
  });
});

describe('gemini writer --same-id', () => {
  it('keeps the session id of a Gemini session and refuses a second file of it', async () => {
    const { captureAll } = await import('../contract/testAdapter.js');
    const { FAILING } = await import('./support.js');
    const home = mkdtempSync(join(tmpdir(), 'sp-gemini-sameid-'));
    const { events } = await captureAll(gemini, FAILING);
    const first = await gemini.materialize!(from(events), { home, cwd: '/tmp/sp-same', sameId: true });
    expect(first.session_id).toBe('3b7eba0a-dab7-4a58-9689-f21016edd73f');
    await expect(gemini.materialize!(from(events), { home, cwd: '/tmp/sp-same', sameId: true })).rejects.toThrow(/second file/);
  });
});

describe('gemini writer, one turn at a time (the session read by position)', () => {
  // A result that comes after later turns (read ahead into its step), a call never answered in the
  // middle (stubbed there, reported last), and a result that answers no call after a user turn.
  function late(): SessionBuilder {
    const b = new SessionBuilder('claude');
    b.user('Start');
    b.call('toolu_a', 'Bash', { command: 'sleep 9' }, 'm1');
    b.user('Meanwhile, look at b.js');
    b.call('toolu_b', 'Read', { file_path: 'b.js' }, 'm2');
    b.result('toolu_b', 'b body');
    b.assistant('Read it.', 'm3');
    b.result('toolu_a', 'slept');
    b.call('toolu_c', 'Bash', { command: 'never' }, 'm4');
    b.user('Go on');
    b.result('toolu_zz', 'stray');
    b.assistant('Done.', 'm5');
    return b;
  }

  it('a result after later turns lands in its own step; a stub mid-session; stubs reported after every other change', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sp-gemini-late-'));
    const losses: LossEntry[] = [];
    const result = (await gemini.materialize!(from(late().events), { home, cwd: '/tmp/sp-test-late', onLoss: (l) => losses.push(l) })) as GeminiMaterializeResult;
    const [, ...messages] = records(result.path);
    expect(result.records).toBe(messages.length + 1);
    expect(messages.map((m) => m.type)).toEqual(['user', 'gemini', 'user', 'gemini', 'gemini', 'user', 'user', 'gemini']);
    expect(messages[1].toolCalls[0]).toMatchObject({ id: 'Bash__toolu_a', status: 'success', result: [{ functionResponse: { response: { output: 'slept' } } }] });
    expect(messages[3].toolCalls[0]).toMatchObject({ id: 'Read__toolu_b', result: [{ functionResponse: { response: { output: 'b body' } } }] });
    expect(messages[4]).toMatchObject({ content: 'Read it.', toolCalls: [{ id: 'Bash__toolu_c', status: 'error' }] });
    expect(messages[6].content[0].text).toBe('[tool result toolu_zz]\nstray');
    const codes = losses.map((l) => l.code);
    expect(codes.filter((c) => c === 'stub-result')).toHaveLength(1);
    expect(codes.indexOf('stub-result')).toBeGreaterThan(codes.findIndex((c) => c.includes('orphan')));
    expect(codes[codes.length - 1]).toBe('stub-result');
  });

  it('a session with no user message: exit 2 and nothing written, not even the project marker', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sp-gemini-none-'));
    mkdirSync(join(home, 'tmp', 'sp-test-none'), { recursive: true });
    const b = new SessionBuilder('claude');
    b.assistant('Alone.', 'm1');
    await expect(gemini.materialize!(from(b.events), { home, cwd: '/tmp/sp-test-none' })).rejects.toThrow(/no user message/);
    expect(existsSync(join(home, 'tmp', 'sp-test-none', '.project_root'))).toBe(false);
    expect(existsSync(join(home, 'tmp', 'sp-test-none', 'chats')) ? readdirSync(join(home, 'tmp', 'sp-test-none', 'chats')) : []).toEqual([]);
  });
});
