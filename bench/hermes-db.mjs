// Hermes state.db files for the benchmarks, with Hermes's v25 schema (FTS triggers included),
// shaped like the throughput run in docs/formats/hermes.md §12: sessions of turns user → assistant
// (reasoning, 1–2 tool calls) → tool results → answer, every 21st session a compression child of
// the one before. Cached in bench/out/<name>/state.db.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { outDir } from './lib.mjs';

process.env.SQLITE_USE_URI = '1';
const { default: Database } = await import('better-sqlite3');
const { FRESH_SCHEMA } = await import('../dist/adapters/hermes/schema.js');
export { Database };

const words = 'the route handler parses the id and answers with json while tests cover the error paths of every endpoint'.split(' ');
function text(n, seed) {
  let out = '';
  for (let i = 0; out.length < n; i += 1) out += words[(seed * 7 + i * 13) % words.length] + (i % 11 === 10 ? '.\n' : ' ');
  return out;
}

/** A database of `count` messages over `nSessions` sessions (every 21st a compression child of the one before). */
export function generate(path, count, nSessions) {
  mkdirSync(join(path, '..'), { recursive: true });
  rmSync(path, { force: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(FRESH_SCHEMA);
  const insertSession = db.prepare("INSERT INTO sessions (id, source, model, parent_session_id, started_at, ended_at, end_reason, message_count, tool_call_count, cwd, title) VALUES (?, 'cli', 'anthropic/claude-sonnet-4.6', ?, ?, ?, ?, ?, ?, '/home/dave/acme-api', ?)");
  const finish = db.prepare('UPDATE sessions SET ended_at = ?, end_reason = ?, message_count = ?, tool_call_count = ? WHERE id = ?');
  const insert = db.prepare('INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason, reasoning, reasoning_content) VALUES (?,?,?,?,?,?,?,?,?,?)');
  let made = 0;
  let t = 1796000000;
  db.transaction(() => {
    for (let s = 0; s < nSessions; s += 1) {
      const id = `20261130_${String(100000 + s).slice(1)}_${(s * 2654435761 >>> 0).toString(16).slice(-6).padStart(6, '0')}`;
      const child = s % 21 === 20;
      const parent = child ? `20261130_${String(100000 + s - 1).slice(1)}_${((s - 1) * 2654435761 >>> 0).toString(16).slice(-6).padStart(6, '0')}` : null;
      const want = Math.round((count - made) / (nSessions - s));
      let rows = 0;
      let calls = 0;
      const start = (t += 1);
      insertSession.run(id, parent, start, null, null, 0, 0, `bench session ${s}`);
      for (let turn = 0; rows < want; turn += 1) {
        insert.run(id, 'user', text(80 + (turn % 5) * 40, turn), null, null, null, (t += 0.5), null, null, null);
        rows += 1;
        const n = 1 + (turn % 2);
        const list = [];
        for (let k = 0; k < n; k += 1) list.push({ id: `toolu_${s}_${turn}_${k}`, call_id: `toolu_${s}_${turn}_${k}`, response_item_id: `fc_toolu_${s}_${turn}_${k}`, type: 'function', function: { name: k === 0 ? 'terminal' : 'read_file', arguments: JSON.stringify(k === 0 ? { command: 'npm test' } : { path: 'src/routes/todos.js' }) } });
        const why = text(120, turn + 1);
        insert.run(id, 'assistant', turn % 3 === 0 ? '' : text(60, turn + 2), null, JSON.stringify(list), null, (t += 0.5), 'tool_calls', why, why);
        rows += 1;
        calls += n;
        for (const call of list) {
          const body = call.function.name === 'terminal' ? JSON.stringify({ output: text(900, turn + 3), exit_code: 0, error: null }) : JSON.stringify({ content: text(1400, turn + 4), total_lines: 40 });
          insert.run(id, 'tool', body, call.id, null, call.function.name, (t += 0.5), null, null, null);
          rows += 1;
        }
        insert.run(id, 'assistant', text(300, turn + 5), null, null, null, (t += 0.5), 'stop', null, null);
        rows += 1;
      }
      made += rows;
      finish.run(t, child || s % 21 !== 19 ? 'cli_close' : 'compression', rows, calls, id);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return made;
}

export function cached(name, count, nSessions) {
  const home = join(outDir, name);
  const path = join(home, 'state.db');
  const stamp = join(home, `.made-${count}-${nSessions}`);
  if (!existsSync(stamp)) {
    process.stderr.write(`generating ${path} (${count} messages, ${nSessions} sessions)…\n`);
    generate(path, count, nSessions);
    writeFileSync(stamp, '');
  }
  return { home, path };
}

