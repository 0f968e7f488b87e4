// The Cursor CLI writer (experimental, unverified: no Cursor client runs here). What can be checked
// without the client is checked: the relay refuses it without --experimental; the store has the
// documented layout (content-addressed blobs, hex meta naming the root, WAL, meta.json, the
// md5(cwd) folder); our reader reads back every request and reply in order; nothing is overwritten.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { materializeCursor } from '../../adapters/cursor/materialize.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import { SessionBuilder } from '../support/canonical.js';
import { runBin } from '../support/streams.js';
import { buildStore } from './support.js';

const work = mkdtempSync(join(tmpdir(), 'sp-cursor-write-'));
const claudeSession = 'fixtures/claude/corpus/S1-feature/.claude/projects';

function claudeEvents(): string {
  const files = readdirSync(claudeSession, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl') && !f.includes('subagents'));
  const r = runBin('sp-capture', ['claude', '--path', join(claudeSession, files[0])]);
  expect(r.code, r.stderr).toBe(0);
  const path = join(work, 'claude.ndjson');
  writeFileSync(path, r.stdout);
  return path;
}

const texts = (events: Array<{ type: string; payload: { content?: Array<{ type: string; text?: string }> } }>, type: string) =>
  events.filter((e) => e.type === type).map((e) => (e.payload.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n'));

const parse = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('sp-materialize cursor', () => {
  it('writes only with --experimental, and says so', () => {
    const input = claudeEvents();
    const home = join(work, 'refused');
    const r = runBin('sp-materialize', ['cursor', input, '--home', home, '--cwd', work]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sp-materialize: writing Cursor sessions is experimental and unverified \(.*\); pass --experimental/);
    expect(existsSync(home)).toBe(false);
  });

  it('writes the documented store.db layout, which reads back request by request', () => {
    const input = claudeEvents();
    const home = join(work, 'home');
    const project = join(work, 'project');
    mkdirSync(project);
    const r = runBin('sp-materialize', ['cursor', input, '--experimental', '--home', home, '--cwd', project]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout.split('\n')[0]);
    expect(result.unverified).toMatch(/no Cursor client ran here/);
    expect(result.resume).toBe(`cd ${project} && CURSOR_HOME=${home} cursor-agent --resume ${result.session_id}`);
    const dir = join(home, 'chats', createHash('md5').update(project).digest('hex'), result.session_id);
    expect(result.path).toBe(join(dir, 'store.db'));
    expect(readdirSync(dir).sort()).toEqual(['meta.json', 'store.db']); // no -wal left, no temp
    expect(JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'))).toMatchObject({ schemaVersion: 1, hasConversation: true, cwd: project });

    const db = new Database(result.path, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const blobs = db.prepare('SELECT id, data FROM blobs').all() as Array<{ id: string; data: Buffer }>;
      for (const b of blobs) expect(createHash('sha256').update(b.data).digest('hex')).toBe(b.id); // content-addressed
      const meta = JSON.parse(Buffer.from((db.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value: string }).value, 'hex').toString('utf8'));
      expect(meta).toMatchObject({ agentId: result.session_id, mode: 'default' });
      expect(typeof meta.createdAt).toBe('number');
      expect(blobs.some((b) => b.id === meta.latestRootBlobId)).toBe(true);
      const leaves = blobs.filter((b) => b.data[0] === 0x7b).map((b) => JSON.parse(b.data.toString('utf8')));
      expect(leaves.every((l) => (l.role === 'user' || l.role === 'assistant') && l.content.length === 1 && l.content[0].type === 'text')).toBe(true);
    } finally {
      db.close();
    }

    // Our reader: the relayed session's requests in order (relay header first), every reply's text inside the written replies.
    const relayed = parse(runBin('sp-materialize', ['cursor', input, '--experimental', '--dry-run', '--home', join(work, 'dry'), '--cwd', project]).stdout);
    expect(existsSync(join(work, 'dry'))).toBe(false);
    expect(relayed[0].dry_run).toBe(true);
    const back = runBin('sp-capture', ['cursor', '--path', result.path]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toBe('');
    const events = parse(back.stdout);
    const users = texts(events, 'message.user');
    expect(users[0]).toMatch(/^\[sp relay\] This conversation was carried over from Claude Code/);
    const source = parse(readFileSync(input, 'utf8'));
    const asked = texts(source, 'message.user').filter((t) => t.trim() !== '');
    for (const text of asked) expect(users.join('\n\n')).toContain(text);
    const replies = texts(events, 'message.assistant').join('\n\n');
    for (const text of texts(source, 'message.assistant').filter((t) => t.trim() !== '')) expect(replies).toContain(text);
    // Tool calls as marked text, with their results.
    expect(replies).toMatch(/\[sp relay\] Claude Code tool call `\w+` \(carried as text\)/);
  });

  it('never replaces a chat folder made while it wrote (another writer, or one racing it): refuses, leaves it, no temp', async () => {
    const home = join(work, 'race-home');
    const project = join(work, 'race-project');
    mkdirSync(project);
    const folder = join(home, 'chats', createHash('md5').update(project).digest('hex'));
    const b = new SessionBuilder('claude');
    b.user('hello');
    b.assistant('hi', 'm1');
    async function* events() {
      yield* b.events;
    }
    let made: string | undefined;
    // The preview's lines go out after the check for the folder and before the chat takes its name:
    // the racer makes the (empty) folder the chat was about to take.
    const onLine = () => {
      if (made) return;
      const temp = readdirSync(folder).find((f) => f.startsWith('.sp-'))!;
      made = join(folder, temp.slice('.sp-'.length, '.sp-'.length + 36));
      mkdirSync(made);
    };
    const write = materializeCursor(events(), { home, cwd: project, onLine });
    await expect(write).rejects.toBeInstanceOf(UserError);
    await expect(write).rejects.toThrow(/exists already; not overwriting it/);
    expect(statSync(made!).isDirectory()).toBe(true);
    expect(readdirSync(made!)).toEqual([]); // the racer's folder, as it made it
    expect(readdirSync(folder)).toEqual([made!.slice(folder.length + 1)]); // and no temp left
  });

  it('relays a Cursor store to Cursor: requests and tool calls as text, a new chat beside the old one', () => {
    const home = join(work, 'cursor-home');
    const old = join(home, 'chats', 'x', 'c0ffee00-0000-4000-8000-000000000001', 'store.db');
    buildStore(old, { cwd: work });
    const captured = runBin('sp-capture', ['cursor', '--path', old]);
    const input = join(work, 'cursor.ndjson');
    writeFileSync(input, captured.stdout);
    const r = runBin('sp-materialize', ['cursor', input, '--experimental', '--home', home, '--cwd', work]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('rendered tool-call');
    const result = JSON.parse(r.stdout.split('\n')[0]);
    expect(result.path).not.toBe(old);
    const events = parse(runBin('sp-capture', ['cursor', '--path', result.path]).stdout);
    expect(texts(events, 'message.user')).toEqual(['list the files', 'read a.txt']);
    const replies = texts(events, 'message.assistant').join('\n');
    expect(replies).toContain('```tool-call Shell');
    expect(replies).toContain('a.txt\nb.txt');
    expect(replies).toContain('[thinking]\nI should run ls.');
    expect(replies).toContain('It says hello.');
    expect(JSON.stringify(events)).not.toContain('sp-test-secret');
  });
});
