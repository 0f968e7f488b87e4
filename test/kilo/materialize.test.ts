// The Kilo Code CLI writer without the client (the real client resumes in test/acceptance/kilo.test.ts):
// Kilo's own columns, what it refuses (a database the client did not make, a --same-id that exists or
// is not Kilo's shape), that it never touches an existing session, KILO_DB, and the resume line.
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { kilo } from '../../adapters/kilo/index.js';
import { materializeKilo } from '../../adapters/kilo/materialize.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll, conversationView } from '../contract/testAdapter.js';
import { SessionBuilder } from '../support/canonical.js';
import { freshDirs } from '../support/scratch.js';
import { DB, SESSION, copyDb, locator } from './support.js';

type Json = Record<string, any>;
const fresh = freshDirs('sp-kilo-write-');
async function* from(events: SpEvent[]): AsyncGenerator<SpEvent> {
  yield* events;
}
const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

function sessionRows(db: string, id: string): { session: Json; messages: Json[]; parts: Json[]; count: number } {
  const h = new Database(db, { readonly: true });
  try {
    return {
      session: h.prepare('SELECT * FROM session WHERE id = ?').get(id) as Json,
      messages: (h.prepare('SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id').all(id) as Json[]).map((m) => ({ ...m, data: JSON.parse(m.data) })),
      parts: (h.prepare('SELECT * FROM part WHERE session_id = ? ORDER BY message_id, id').all(id) as Json[]).map((p) => ({ ...p, data: JSON.parse(p.data) })),
      count: (h.prepare('SELECT count(*) AS n FROM session').get() as { n: number }).n,
    };
  } finally {
    h.close();
  }
}

function hello(agent = 'claude'): SessionBuilder {
  const b = new SessionBuilder(agent);
  b.user('hello');
  b.assistant('hi', 'm1');
  return b;
}

describe('kilo writer', () => {
  it('writes the recording back as a new session with Kilo\'s columns, and it reads back as the same conversation', async () => {
    const dir = fresh();
    const db = copyDb(dir);
    const { events } = await captureAll(kilo, locator(DB, SESSION));
    const result = await materializeKilo(from(events), { home: dir, cwd: dir, backup: false });
    expect(result.session_id).not.toBe(SESSION);
    const { session, messages } = sessionRows(db, result.session_id);
    expect(session).toMatchObject({ version: '7.7.7', agent: 'code', directory: dir });
    // The recording's own model, in the shape 7.7.7 writes.
    expect(JSON.parse(session.model)).toEqual({ id: 'mock-model', providerID: 'mock', variant: 'default' });
    expect(messages.every((m) => m.data.agent === 'code')).toBe(true);
    expect(messages.filter((m) => m.data.role === 'assistant').every((m) => m.data.mode === 'code' && m.data.providerID === 'mock')).toBe(true);
    expect(conversationView((await captureAll(kilo, result.path)).events)).toEqual(conversationView(events));
    // The recorded session is untouched.
    expect(sessionRows(db, SESSION).messages.length).toBe(10);
  });

  it('gives another agent\'s bare model the gateway provider only for --model, and a git cwd the id cached in .git/kilo', async () => {
    const dir = fresh();
    const db = copyDb(dir);
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q'], { cwd: repo });
    writeFileSync(join(repo, '.git', 'kilo'), 'cached-project-id\n');
    const result = await materializeKilo(from(hello().events), { home: dir, cwd: repo, model: 'auto', backup: false });
    expect(result.project_id).toBe('cached-project-id');
    const { session, messages } = sessionRows(db, result.session_id);
    expect(JSON.parse(session.model)).toEqual({ id: 'auto', providerID: 'kilo', variant: 'default' });
    expect(messages[1].data).toMatchObject({ providerID: 'anthropic', modelID: 'claude-opus-4-8', agent: 'code' });
  });

  it('refuses a home without kilo.db, and a database the client did not make or migrate', async () => {
    const empty = fresh();
    await expect(materializeKilo(from(hello().events), { home: empty, cwd: empty })).rejects.toThrow(/no kilo\.db here: run the client once \(e\.g\. `kilo session list`\)/);
    const dir = fresh();
    const made = new Database(join(dir, 'kilo.db'));
    made.exec('CREATE TABLE session (id TEXT PRIMARY KEY); CREATE TABLE message (id TEXT); CREATE TABLE part (id TEXT)');
    made.close();
    await expect(materializeKilo(from(hello().events), { home: dir, cwd: dir, backup: false })).rejects.toThrow(/no project table/);
    const unmigrated = fresh();
    const db = copyDb(unmigrated);
    const h = new Database(db);
    h.exec('DELETE FROM migration');
    h.close();
    const before = sha(db);
    await expect(materializeKilo(from(hello().events), { home: unmigrated, cwd: unmigrated, backup: false })).rejects.toBeInstanceOf(UserError);
    expect(sha(db)).toBe(before);
  });

  it('--same-id: refuses the id of a session that exists (nothing written), an id not of Kilo\'s shape, and another agent\'s session', async () => {
    const dir = fresh();
    const db = copyDb(dir);
    const before = sha(db);
    const { events } = await captureAll(kilo, locator(DB, SESSION));
    await expect(materializeKilo(from(events), { home: dir, cwd: dir, sameId: true, backup: false })).rejects.toThrow(/exists already: --same-id never overwrites a session/);
    expect(sha(db)).toBe(before);
    for (const hostile of ['../../../etc/passwd', 'ses_x; rm -rf /', `${SESSION}\n`, 'ses_dc9efdf60ffec5P1gideThrRrP/../x']) {
      const b = new SessionBuilder('kilo', 'sess_hostile', { native_id: hostile, cwd: dir });
      b.user('hello');
      await expect(materializeKilo(from(b.events), { home: dir, cwd: dir, sameId: true, backup: false })).rejects.toThrow(/does not have the Kilo Code CLI session id format/);
    }
    await expect(materializeKilo(from(hello().events), { home: dir, cwd: dir, sameId: true, backup: false })).rejects.toThrow(/--same-id keeps a Kilo Code CLI session's own id; this session comes from claude/);
    expect(sha(db)).toBe(before);
    expect(sessionRows(db, SESSION).count).toBe(1);
  });

  it('keeps a recorded id with --same-id in a database that lacks it, and names `kilo --session` with XDG_DATA_HOME as the resume', async () => {
    const base = fresh();
    const data = join(base, 'share', 'kilo');
    const db = copyDb(data);
    const h = new Database(db);
    h.pragma('foreign_keys = ON');
    h.prepare('DELETE FROM session WHERE id = ?').run(SESSION);
    h.close();
    const { events } = await captureAll(kilo, locator(DB, SESSION));
    const result = await materializeKilo(from(events), { home: data, cwd: base, sameId: true, backup: false });
    expect(result.session_id).toBe(SESSION);
    expect(result.resume_exec).toEqual({ cwd: base, argv: ['kilo', '--session', SESSION], env: { XDG_DATA_HOME: join(base, 'share') } });
  });

  it('refuses a kilo.db that is a symlink out of the home, and a KILO_DB name in the data dir that is one (nothing written there)', async () => {
    const outside = copyDb(fresh());
    const before = sha(outside);
    const home = fresh();
    symlinkSync(outside, join(home, 'kilo.db'));
    await expect(materializeKilo(from(hello().events), { home, cwd: home })).rejects.toThrow(/refusing to write outside the home .*a symlink on the way leads elsewhere/);
    expect(sha(outside)).toBe(before);
    expect(readdirSync(home)).toEqual(['kilo.db']);
    // KILO_DB naming a file of the data dir is the client's own setting; that file linking out is not.
    const saved = { KILO_DB: process.env.KILO_DB, XDG_DATA_HOME: process.env.XDG_DATA_HOME };
    const base = fresh();
    mkdirSync(join(base, 'xdg', 'kilo'), { recursive: true });
    symlinkSync(outside, join(base, 'xdg', 'kilo', 'kilo-beta.db'));
    process.env.XDG_DATA_HOME = join(base, 'xdg');
    process.env.KILO_DB = 'kilo-beta.db';
    try {
      await expect(materializeKilo(from(hello().events), { cwd: base, backup: false })).rejects.toThrow(/refusing to write outside the home .*a symlink on the way leads elsewhere/);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    expect(sha(outside)).toBe(before);
  });

  it('follows KILO_DB for the default data dir only', async () => {
    const dir = fresh();
    const other = copyDb(join(dir, 'elsewhere'));
    const saved = { KILO_DB: process.env.KILO_DB, XDG_DATA_HOME: process.env.XDG_DATA_HOME };
    process.env.KILO_DB = other;
    process.env.XDG_DATA_HOME = join(dir, 'xdg');
    try {
      const result = await materializeKilo(from(hello().events), { cwd: dir, backup: false });
      expect(result.path).toBe(`${other}#${result.session_id}`);
      const given = join(dir, 'given');
      copyDb(given);
      const second = await materializeKilo(from(hello().events), { home: given, cwd: dir, backup: false });
      expect(second.path).toBe(`${join(given, 'kilo.db')}#${second.session_id}`);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
