// The Continue CLI writer: the client's own shapes, the shared index appended to (backed up, other
// entries kept), never overwriting, and ids and paths from events treated as hostile data.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { continueCli } from '../../adapters/continue/index.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { captureAll } from '../contract/testAdapter.js';
import { SessionBuilder, from } from '../support/canonical.js';
import { HOME, SUMMARY, readDocument } from './support.js';

const root = mkdtempSync(join(tmpdir(), 'sp-continue-write-'));
let n = 0;
const scratch = (): string => mkdtempSync(join(root, `${n++}-`));
afterAll(() => rmSync(root, { recursive: true, force: true }));
type Json = Record<string, any>;

/** A home holding the recorded index, as the client left it. */
function homeWithIndex(): string {
  const home = scratch();
  mkdirSync(join(home, 'sessions'));
  writeFileSync(join(home, 'sessions', 'sessions.json'), readFileSync(join(HOME, 'sessions', 'sessions.json')));
  return home;
}

const shape = (item: Json) => [item.message.role, item.message.content, (item.message.toolCalls ?? []).map((c: Json) => [c.id, c.function.name, JSON.parse(c.function.arguments)]), (item.toolCallStates ?? []).map((s: Json) => [s.toolCallId, s.status, s.output.map((o: Json) => o.content)])];

describe('continue materialize', () => {
  it('writes the client shapes and appends to the index: the entries it did not make kept, a backup first', async () => {
    const home = homeWithIndex();
    const indexBefore = readFileSync(join(home, 'sessions', 'sessions.json'), 'utf8');
    const { events } = await captureAll(continueCli, SUMMARY);
    const losses: LossEntry[] = [];
    const result = (await continueCli.materialize!(from(events), { home, cwd: home, onLoss: (l) => losses.push(l) })) as Json;
    expect(result.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(result.resume).toContain(`cn --fork ${result.session_id}`);
    expect(result.resume).toContain(`CONTINUE_GLOBAL_DIR=${home}`);
    const doc = readDocument(result.path);
    const source = readDocument(SUMMARY);
    expect(doc).toMatchObject({ sessionId: result.session_id, workspaceDirectory: home, title: 'Summarize notes.txt into summary.md' });
    expect(doc.history.map(shape)).toEqual(source.history.map(shape));
    expect(doc.history[0].editorState).toBe(doc.history[0].message.content);
    expect(statSync(result.path).mode & 0o777).toBe(0o600);
    expect(losses.filter((l) => l.action !== 'carried')).toEqual([]);
    const index = JSON.parse(readFileSync(join(home, 'sessions', 'sessions.json'), 'utf8'));
    expect(index.slice(0, 2)).toEqual(JSON.parse(indexBefore));
    expect(index[2]).toMatchObject({ sessionId: result.session_id, title: doc.title, workspaceDirectory: home, messageCount: 8 });
    expect(readFileSync(result.registered.backup, 'utf8')).toBe(indexBefore);
    // --same-id keeps the id, but not one the index names already (a stale entry is never doubled).
    await expect(continueCli.materialize!(from(events), { home, cwd: home, sameId: true })).rejects.toThrow(/names 8423ddad-9e4b-4db6-b258-7339d2cd6a68 already/);
    expect(existsSync(join(home, 'sessions', '8423ddad-9e4b-4db6-b258-7339d2cd6a68.json'))).toBe(false);
    const fresh = scratch();
    const same = await continueCli.materialize!(from(events), { home: fresh, cwd: fresh, sameId: true });
    expect(same.session_id).toBe('8423ddad-9e4b-4db6-b258-7339d2cd6a68');
    const indexNow = readFileSync(join(fresh, 'sessions', 'sessions.json'), 'utf8');
    const sessionNow = readFileSync(same.path, 'utf8');
    // A second write of it is refused and changes nothing.
    await expect(continueCli.materialize!(from(events), { home: fresh, cwd: fresh, sameId: true })).rejects.toThrow(/exists already/);
    expect(readFileSync(join(fresh, 'sessions', 'sessions.json'), 'utf8')).toBe(indexNow);
    expect(readFileSync(same.path, 'utf8')).toBe(sessionNow);
    expect(readdirSync(join(home, 'sessions')).filter((f) => f.includes('sp-backup'))).toHaveLength(1);
  });

  it('a broken index refuses the write and leaves no session behind; a missing one is created', async () => {
    const home = scratch();
    mkdirSync(join(home, 'sessions'));
    writeFileSync(join(home, 'sessions', 'sessions.json'), '[{"sessionId": "cut');
    const b = new SessionBuilder('claude', 'c1', { cwd: home });
    b.user('hello');
    b.assistant('hi', 'msg_1');
    await expect(continueCli.materialize!(from(b.events), { home, cwd: home })).rejects.toThrow(/not JSON/);
    expect(readdirSync(join(home, 'sessions'))).toEqual(['sessions.json']);
    writeFileSync(join(home, 'sessions', 'sessions.json'), '{"not": "a list"}');
    await expect(continueCli.materialize!(from(b.events), { home, cwd: home })).rejects.toThrow(/not a JSON list/);
    expect(readdirSync(join(home, 'sessions'))).toEqual(['sessions.json']);
    const fresh = scratch();
    const result = await continueCli.materialize!(from(b.events), { home: fresh, cwd: fresh });
    expect(JSON.parse(readFileSync(join(fresh, 'sessions', 'sessions.json'), 'utf8')).map((e: Json) => e.sessionId)).toEqual([result.session_id]);
    expect(statSync(join(fresh, 'sessions')).mode & 0o777).toBe(0o700);
    // A dry run writes nothing.
    const dry = scratch();
    await continueCli.materialize!(from(b.events), { home: dry, cwd: dry, dryRun: true });
    expect(readdirSync(dry)).toEqual([]);
  });

  it('a native id that would climb out of the home is refused with --same-id, and nothing is written', async () => {
    const home = scratch();
    for (const evil of ['../../escape', '8423ddad-9e4b-4db6-b258-7339d2cd6a68/../../x', '/tmp/abs', '8423DDAD-9E4B-4DB6-B258-7339D2CD6A68']) {
      const b = new SessionBuilder('continue', 'sess_evil', { native_id: evil, cwd: home });
      b.user('hello');
      b.assistant('hi', 'msg_1');
      await expect(continueCli.materialize!(from(b.events), { home, cwd: home, sameId: true })).rejects.toBeInstanceOf(UserError);
    }
    expect(existsSync(join(home, 'sessions'))).toBe(false);
    expect(readdirSync(root).some((name) => name.startsWith('escape'))).toBe(false);
  });

  it('a sessions folder that is a symlink out of the home is refused', async () => {
    const home = scratch();
    const elsewhere = scratch();
    symlinkSync(elsewhere, join(home, 'sessions'));
    const b = new SessionBuilder('claude', 'c1', { cwd: home });
    b.user('hello');
    await expect(continueCli.materialize!(from(b.events), { home, cwd: home })).rejects.toThrow(/outside the home/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('from another agent: reasoning dropped and reported, tool ids made valid, text after a call starts a new item, stubs for unanswered calls', async () => {
    const home = scratch();
    const b = new SessionBuilder('claude', 'sess_other', { cwd: home });
    b.user('Fix it.');
    b.thinking('Look first.');
    b.call('bad id!', 'Bash', { command: 'ls' }, 'msg_1');
    b.result('bad id!', 'a.txt');
    b.call('toolu_2', 'Read', { file_path: '/p/a.txt' }, 'msg_2');
    b.assistant('Done.', 'msg_3');
    const losses: LossEntry[] = [];
    const result = await continueCli.materialize!(from(b.events as SpEvent[]), { home, cwd: home, onLoss: (l) => losses.push(l) });
    const doc = readDocument(result.path);
    expect(doc.history[0]).toEqual({ message: { role: 'user', content: 'Fix it.' }, contextItems: [], editorState: 'Fix it.' });
    const call = doc.history[1].message.toolCalls[0];
    expect(call.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(doc.history[1].toolCallStates[0]).toMatchObject({ toolCallId: call.id, status: 'done', parsedArgs: { command: 'ls' }, output: [{ content: 'a.txt' }] });
    expect(doc.history[2].message.toolCalls[0].id).toBe('toolu_2');
    expect(doc.history[2].toolCallStates[0].status).toBe('errored');
    expect(doc.history[3].message).toEqual({ role: 'assistant', content: 'Done.' });
    expect(losses.map((l) => l.code)).toEqual(expect.arrayContaining(['reasoning', 'tool-id']));
    expect(losses.some((l) => l.action === 'stubbed')).toBe(true);
  });
});
