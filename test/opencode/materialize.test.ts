// The OpenCode writer without the client: what it refuses, what it writes (ids, times, states, the
// project row), the backup, dry runs, and that a failed write leaves the database as it was.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { opencode } from '../../adapters/opencode/index.js';
import { materializeOpenCode } from '../../adapters/opencode/materialize.js';
import { projectOf } from '../../lib/formats/opencode/write.js';
import { IdMaker, idTime } from '../../lib/formats/opencode/ids.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll, conversationView } from '../contract/testAdapter.js';
import { SessionBuilder } from '../support/canonical.js';
import { freshDirs } from '../support/scratch.js';
import { DB, FAILING, FEATURE, copyDb, locator } from './support.js';

type Json = Record<string, any>;
const fresh = freshDirs('sp-opencode-write-');
async function* from(events: SpEvent[]): AsyncGenerator<SpEvent> {
  yield* events;
}
const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

function sessionRows(db: string, id: string): { session: Json; messages: Json[]; parts: Json[] } {
  const h = new Database(db, { readonly: true });
  try {
    return {
      session: h.prepare('SELECT * FROM session WHERE id = ?').get(id) as Json,
      messages: (h.prepare('SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id').all(id) as Json[]).map((m) => ({ ...m, data: JSON.parse(m.data) })),
      parts: (h.prepare('SELECT * FROM part WHERE session_id = ? ORDER BY message_id, id').all(id) as Json[]).map((p) => ({ ...p, data: JSON.parse(p.data) })),
    };
  } finally {
    h.close();
  }
}

describe('opencode ids', () => {
  it('ascend in the order they are made, encode the time, and session ids descend', () => {
    const ids = new IdMaker();
    const made = [ids.next('msg', 1796016900502), ids.next('prt', 1796016900502), ids.next('prt', 1796016900400), ids.next('msg', 1796016900503)];
    expect(made.map((id) => id.slice(4))).toEqual([...made.map((id) => id.slice(4))].sort());
    expect(made[0]).toMatch(/^msg_22af30996001[0-9A-Za-z]{14}$/);
    expect(idTime(made[0])! % 2 ** 36).toBe(1796016900502 % 2 ** 36);
    const sessions = new IdMaker();
    const older = sessions.next('ses', 1796016900348);
    expect(older).toMatch(/^ses_dd50cf703ffe/);
    expect(new IdMaker().next('ses', 1796016900348 + 5000) < older).toBe(true);
  });
});

describe('opencode writer', () => {
  it('writes a corpus session as new rows: ascending times and ids, complete tool states, a global project row for a plain folder', async () => {
    const dir = fresh();
    const db = copyDb(dir);
    const cwd = join(dir, 'project');
    mkdirSync(cwd);
    const { events } = await captureAll(opencode, locator(DB, FEATURE));
    const result = await materializeOpenCode(from(events), { home: dir, cwd });
    expect(result.project_id).toBe('global');
    expect(existsSync(result.backup!)).toBe(true);
    const { session, messages, parts } = sessionRows(db, result.session_id);
    expect(session).toMatchObject({ project_id: 'global', directory: cwd, version: '1.18.33' });
    expect(result.session_id).toMatch(/^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    const times = messages.map((m) => m.time_created);
    expect(new Set(times).size).toBe(times.length);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(Math.max(...times)).toBeLessThan(Date.now());
    expect(messages.map((m) => m.id)).toEqual([...messages.map((m) => m.id)].sort());
    for (const part of parts.filter((p) => p.data.type === 'tool')) {
      expect(['completed', 'error']).toContain(part.data.state.status);
      expect(part.data.state.time).toMatchObject({ start: expect.any(Number), end: expect.any(Number) });
      if (part.data.state.status === 'completed') expect(typeof part.data.state.output).toBe('string');
    }
    const h = new Database(db, { readonly: true });
    expect(h.prepare("SELECT worktree FROM project WHERE id = 'global'").get()).toEqual({ worktree: '/' });
    h.close();
    // And it reads back as the same conversation.
    expect(conversationView((await captureAll(opencode, result.path)).events)).toEqual(conversationView(events));
  });

  it('gives a git cwd the project id the client computes: its first root commit', () => {
    const repo = join(fresh(), 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
    git('init', '-q');
    git('commit', '-q', '--allow-empty', '-m', 'root');
    const root = git('rev-parse', 'HEAD');
    git('commit', '-q', '--allow-empty', '-m', 'next');
    expect(projectOf(repo, 'opencode')).toMatchObject({ id: root, vcs: 'git' });
  });

  it('keeps Anthropic signatures and the provider of an OpenCode source; another agent\'s turns get a provider from the model name', async () => {
    const dir = fresh();
    const db = copyDb(dir);
    const { events } = await captureAll(opencode, locator(DB, FAILING));
    const same = await materializeOpenCode(from(events), { home: dir, cwd: dir });
    const rows = sessionRows(db, same.session_id);
    expect(rows.parts.filter((p) => p.data.type === 'reasoning').map((p) => p.data.metadata?.anthropic?.signature)).toEqual(['sig-zh-1', 'sig-zh-2']);
    expect(new Set(rows.messages.filter((m) => m.data.role === 'assistant').map((m) => `${m.data.providerID}/${m.data.modelID}`))).toEqual(new Set(['mock-anthropic/mock-claude']));
    expect(rows.messages.filter((m) => m.data.role === 'user').every((m) => m.data.model?.providerID === 'mock-anthropic')).toBe(true);
    const b = new SessionBuilder('claude');
    b.user('hello');
    b.assistant('hi', 'm1');
    const other = await materializeOpenCode(from(b.events), { home: dir, cwd: dir });
    const o = sessionRows(db, other.session_id);
    expect(o.messages[1].data).toMatchObject({ providerID: 'anthropic', modelID: 'claude-opus-4-8', parentID: o.messages[0].id });
    expect(o.messages[0].data.model).toBeUndefined();
  });

  it('stubs a call without a result, drops an orphan result, and reports both', async () => {
    const dir = fresh();
    const db = copyDb(dir);
    const b = new SessionBuilder('claude');
    b.user('run it');
    b.add('tool.call', { call_id: 'toolu_1', name: 'Bash', input: { command: 'ls' }, model: 'claude-opus-4-8' });
    b.add('tool.result', { call_id: 'toolu_zzz', content: 'stray' });
    const losses: LossEntry[] = [];
    const result = await materializeOpenCode(from(b.events), { home: dir, cwd: dir, onLoss: (l) => losses.push(l) });
    expect(losses.map((l) => l.code)).toEqual(expect.arrayContaining(['stub-result', 'orphan-result']));
    const tool = sessionRows(db, result.session_id).parts.find((p) => p.data.type === 'tool')!;
    expect(tool.data.state.status).toBe('error');
  });

  it('refuses a home without a client-made database, a --same-id that exists, and writes nothing in a dry run', async () => {
    const b = new SessionBuilder('claude');
    b.user('hello');
    await expect(materializeOpenCode(from(b.events), { home: fresh(), cwd: '/tmp' })).rejects.toBeInstanceOf(UserError);
    const dir = fresh();
    const db = copyDb(dir);
    const before = sha(db);
    const lines: string[] = [];
    const dry = await materializeOpenCode(from(b.events), { home: dir, cwd: '/tmp', dryRun: true, onLine: (l) => lines.push(l) });
    expect(dry.dry_run).toBe(true);
    expect(lines.length).toBe(dry.records);
    expect(sha(db)).toBe(before);
    const { events } = await captureAll(opencode, locator(DB, FAILING));
    // The copy holds the corpus session already: --same-id refuses, and the transaction left nothing behind.
    await expect(materializeOpenCode(from(events), { home: dir, cwd: '/tmp', sameId: true, backup: false })).rejects.toThrow(/exists already/);
    expect(sha(db)).toBe(before);
  });

  it('refuses a database that is a symlink out of the home (nothing written there, a dry run neither); a linked home, or a link inside it, is written', async () => {
    const b = new SessionBuilder('claude');
    b.user('hello');
    b.assistant('hi', 'm1');
    // The attack: the home's opencode.db (a home from an archive, a shared folder) links to a database elsewhere.
    const outside = copyDb(fresh());
    const before = sha(outside);
    const home = fresh();
    symlinkSync(outside, join(home, 'opencode.db'));
    for (const dryRun of [false, true]) {
      await expect(materializeOpenCode(from(b.events), { home, cwd: home, dryRun })).rejects.toThrow(/refusing to write outside the home .*a symlink on the way leads elsewhere/);
    }
    expect(sha(outside)).toBe(before);
    expect(readdirSync(dirname(outside))).toEqual(['opencode.db']); // no backup, no journal beside it
    expect(readdirSync(home)).toEqual(['opencode.db']);
    // The user's own links: the data dir moved and linked back, and opencode.db naming a file of the home.
    const real = fresh();
    copyDb(real);
    const linked = join(fresh(), 'opencode');
    symlinkSync(real, linked);
    const moved = await materializeOpenCode(from(b.events), { home: linked, cwd: real });
    expect(sessionRows(join(real, 'opencode.db'), moved.session_id).messages).toHaveLength(2);
    const inside = fresh();
    renameSync(copyDb(inside), join(inside, 'stable.db'));
    symlinkSync('stable.db', join(inside, 'opencode.db'));
    const within = await materializeOpenCode(from(b.events), { home: inside, cwd: inside });
    expect(sessionRows(join(inside, 'stable.db'), within.session_id).messages).toHaveLength(2);
  });
});
