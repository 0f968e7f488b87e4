// Incremental capture while another process writes, as a running Hermes does: a writer process
// inserts rows in small BEGIN IMMEDIATE transactions on a WAL copy (its connection stays open, so
// the -wal and -shm are live), while capture runs again and again with a cursor. Every row must
// come out exactly once, in order, and the stream must equal a single capture afterwards.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { hermes } from '../../adapters/hermes/index.js';
import type { Cursor } from '../../lib/adapter/interface.js';
import { UserError } from '../../lib/cli/diagnostics.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll, captureRef, incrementalView } from '../contract/testAdapter.js';
import { Database, ROOT, S1, copyDb, locator } from './support.js';
import { join } from 'node:path';

const LIVE = '20261130_090000_abcdef';

/** A copy with an empty live session the writer fills. */
function liveCopy(): string {
  const db = copyDb();
  const h = new Database(db);
  h.prepare("INSERT INTO sessions (id, source, model, started_at, cwd, title) VALUES (?, 'cli', 'anthropic/claude-sonnet-4.6', 1796020000, '/home/dave/acme-api', 'live')").run(LIVE);
  h.close();
  return db;
}

/** A writer process: `turns` turns (user, assistant with a call, tool result), 1–3 rows per transaction. */
function writer(db: string, turns: number): Promise<number> {
  const script = `
    const D = require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))});
    const db = new D(${JSON.stringify(db)});
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare('INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, tool_name, timestamp) VALUES (?,?,?,?,?,?,?)');
    let t = 1796020000;
    const rows = [];
    for (let i = 0; i < ${turns}; i++) {
      rows.push(['user', 'turn ' + i, null, null, null]);
      rows.push(['assistant', 'running ' + i, JSON.stringify([{ id: 'call_' + i, type: 'function', function: { name: 'terminal', arguments: JSON.stringify({ command: 'echo ' + i }) } }]), null, null]);
      rows.push(['tool', JSON.stringify({ output: String(i), exit_code: 0, error: null }), null, 'call_' + i, 'terminal']);
    }
    let at = 0;
    const step = () => {
      if (at >= rows.length) { db.close(); process.exit(0); }
      const n = 1 + Math.floor(Math.random() * 3);
      db.exec('BEGIN IMMEDIATE');
      for (const r of rows.slice(at, at + n)) insert.run(${JSON.stringify(LIVE)}, r[0], r[1], r[2], r[3], r[4], t += 0.01);
      db.exec('COMMIT');
      at += n;
      setTimeout(step, Math.random() * 8);
    };
    step();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
}

describe('incremental capture', () => {
  it('a concurrent writer: every new row exactly once, and the same stream as one capture', async () => {
    const db = liveCopy();
    const ref = await hermes.open(locator(db, LIVE));
    let cursor: Cursor = { version: 1, agent: 'hermes', native_id: LIVE, sources: {}, sessions: {} };
    const all: SpEvent[] = [];
    let finished = false;
    const done = writer(db, 60).then((code) => {
      finished = true;
      return code;
    });
    let runs = 0;
    while (!finished) {
      const got = await captureRef(hermes, ref, { cursor });
      cursor = got.cursor!;
      all.push(...got.events);
      runs += 1;
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await done).toBe(0);
    const last = await captureRef(hermes, ref, { cursor });
    all.push(...last.events);
    expect(runs).toBeGreaterThan(3);

    const rowIds = all.filter((e) => e.type.startsWith('message.') || e.type === 'tool.call' || e.type === 'tool.result').map((e) => e.origin!.native_seq!);
    const distinct = [...new Set(rowIds)];
    expect(distinct).toHaveLength(180);
    expect(distinct).toEqual([...distinct].sort((a, b) => a - b));
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i));
    const full = await captureAll(hermes, locator(db, LIVE));
    expect(all.map(incrementalView)).toEqual(full.events.map(incrementalView));
    expect(all.filter((e) => e.type === 'command.run')).toHaveLength(60);
    // Nothing new: nothing out.
    expect((await captureRef(hermes, ref, { cursor: last.cursor })).events).toEqual([]);
  }, 60_000);

  it('rows archived after they came out (in-place compaction), the end, a reopen: each reported once', async () => {
    const db = copyDb();
    const ref = await hermes.open(locator(db, S1));
    const first = await captureRef(hermes, ref, { cursor: { version: 1, agent: 'hermes', native_id: S1, sources: {}, sessions: {} } });
    expect(first.events.filter((e) => e.type === 'session.end')).toHaveLength(1);
    // Hermes compacts in place: the live rows become archived, the compacted set is appended.
    const h = new Database(db);
    h.prepare('UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ? AND id BETWEEN 2 AND 17').run(S1);
    h.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'assistant', '[CONTEXT COMPACTION — REFERENCE ONLY] summary', 1796015800)").run(S1);
    h.prepare("UPDATE sessions SET ended_at = NULL, end_reason = NULL, title = 'renamed' WHERE id = ?").run(S1);
    h.close();
    const second = await captureRef(hermes, ref, { cursor: first.cursor });
    const keys = second.events.map((e) => (e.type === 'meta' ? (e.payload as any).key : e.type));
    expect(keys).toEqual(['hermes.messages.archived', 'message.assistant', 'hermes.session.update', 'hermes.session.reopened']);
    expect((second.events[0].payload as any).value).toMatchObject({ rows: [[2, 17]], count: 16, compacted: true });
    expect((second.events[2].payload as any).value).toEqual({ title: 'renamed' });
    expect(second.events[0].seq).toBe(first.events.length);
    // Ended again: one session.end; nothing else repeats.
    const h2 = new Database(db);
    h2.prepare("UPDATE sessions SET ended_at = 1796015900, end_reason = 'cli_close' WHERE id = ?").run(S1);
    h2.close();
    const third = await captureRef(hermes, ref, { cursor: second.cursor });
    expect(third.events.map((e) => e.type)).toEqual(['meta', 'session.end']);
    expect((await captureRef(hermes, ref, { cursor: third.cursor })).events).toEqual([]);
  });

  it('a deleted or rewritten session is reported, not mis-read', async () => {
    const db = copyDb();
    const ref = await hermes.open(locator(db, S1));
    const first = await captureRef(hermes, ref, { cursor: { version: 1, agent: 'hermes', native_id: S1, sources: {}, sessions: {} } });
    const h = new Database(db);
    h.prepare("UPDATE messages SET content = 'rewritten' WHERE id = 25").run();
    h.close();
    await expect(captureRef(hermes, ref, { cursor: first.cursor })).rejects.toThrow(/row 25 of session .* is not the row the cursor consumed/);
    const h2 = new Database(db);
    h2.pragma('foreign_keys = OFF');
    h2.prepare('DELETE FROM messages WHERE session_id = ?').run(S1);
    h2.prepare('DELETE FROM session_model_usage WHERE session_id = ?').run(S1);
    h2.prepare('DELETE FROM sessions WHERE id = ?').run(S1);
    h2.close();
    const err = await captureRef(hermes, ref, { cursor: first.cursor }).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    // A cursor of another database is refused too.
    const other = copyDb();
    const moved = await hermes.open(locator(other, S1));
    await expect(captureRef(hermes, moved, { cursor: first.cursor })).rejects.toThrow(/another database/);
  });
});
