#!/usr/bin/env node
// bench/hermes.mjs [--messages 100000] [--sessions 1050] [--runs 3]
// sp-capture hermes on a generated state.db with Hermes's v25 schema (FTS triggers included),
// shaped like the throughput run in formats/hermes.md §12: ~100k messages over 1,050 sessions, 50
// of them compression children, turns of user → assistant (reasoning, 1–2 tool calls) → tool
// results → answer. Measured end to end through the binary (open, read, map, chain, write NDJSON
// to /dev/null): `--all` over the whole database (goal < 1 s), one 100k-message session (memory
// must stay flat: peak RSS next to the 1k-message one), and a bare `SELECT *` over the same rows
// with better-sqlite3 as the baseline, given as a ratio. The databases are cached in bench/out/.
import { parseArgs } from 'node:util';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { best, measure, outDir, root, sizeMb, table } from './lib.mjs';

// Not strict: bench/run.mjs passes every bench the same arguments.
const { values } = parseArgs({ strict: false, options: { messages: { type: 'string', default: '100000' }, sessions: { type: 'string', default: '1050' }, runs: { type: 'string', default: '3' } } });
const total = Number(values.messages);
const sessions = Number(values.sessions);
const runs = Number(values.runs);
const capture = join(root, 'dist', 'bin', 'sp-capture.js');

process.env.SQLITE_USE_URI = '1';
const { default: Database } = await import('better-sqlite3');
const { FRESH_SCHEMA } = await import('../dist/adapters/hermes/schema.js');

const words = 'the route handler parses the id and answers with json while tests cover the error paths of every endpoint'.split(' ');
function text(n, seed) {
  let out = '';
  for (let i = 0; out.length < n; i += 1) out += words[(seed * 7 + i * 13) % words.length] + (i % 11 === 10 ? '.\n' : ' ');
  return out;
}

/** A database of `count` messages over `nSessions` sessions (every 21st a compression child of the one before). */
function generate(path, count, nSessions) {
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

function cached(name, count, nSessions) {
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

const many = cached('hermes-many', total, sessions);
const one = cached('hermes-one', total, 1);
const small = cached('hermes-small', 1000, 1);
const baseline = join(outDir, 'hermes-baseline.mjs');
writeFileSync(
  baseline,
  `process.env.SQLITE_USE_URI = '1';\nconst { default: D } = await import(${JSON.stringify(join(root, 'node_modules', 'better-sqlite3', 'lib', 'index.js'))});\n` +
    `const db = new D('file:' + process.argv[2] + '?immutable=1', { readonly: true });\nlet n = 0;\nfor (const row of db.prepare('SELECT * FROM messages ORDER BY session_id, id').iterate()) { n += row.content ? row.content.length : 0; }\nconsole.log(n);\n`,
);
// The adapter alone, in process: the events without chaining and NDJSON (what lib/chain.ts adds).
const adapterOnly = join(outDir, 'hermes-adapter-only.mjs');
writeFileSync(
  adapterOnly,
  `const { hermes } = await import(${JSON.stringify(join(root, 'dist', 'adapters', 'hermes', 'index.js'))});\n` +
    `let n = 0;\nconst refs = [];\nfor await (const ref of hermes.discover({ home: process.argv[2] })) refs.push(ref);\n` +
    `for (const ref of refs) for await (const e of hermes.capture(ref)) n += 1;\nconsole.log(n);\n`,
);
const oneId = new Database(`file:${one.path}?immutable=1`, { readonly: true }).prepare('SELECT id FROM sessions').get().id;
const smallId = new Database(`file:${small.path}?immutable=1`, { readonly: true }).prepare('SELECT id FROM sessions').get().id;

const bare = await best(runs, () => measure(process.execPath, [baseline, many.path]));
const adapter = await best(runs, () => measure(process.execPath, [adapterOnly, many.home]));
const all = await best(runs, () => measure(process.execPath, [capture, 'hermes', '--all', '--home', many.home]));
const single = await best(runs, () => measure(process.execPath, [capture, 'hermes', '--session', oneId, '--home', one.home]));
const little = await best(runs, () => measure(process.execPath, [capture, 'hermes', '--session', smallId, '--home', small.home]));
const list = await best(runs, () => measure(process.execPath, [capture, 'hermes', '--list', '--home', many.home]));
for (const r of [adapter, all, single, little, list]) if (r.code !== 0) throw new Error(`sp-capture failed: ${r.stderr}`);

const row = (name, r) => [name, r.seconds.toFixed(2), (total / r.seconds).toFixed(0), r.rssMb.toFixed(0), (bare.seconds / r.seconds).toFixed(2)];
console.log(`hermes: ${total} messages, ${sessions} sessions, ${sizeMb(many.path).toFixed(0)} MB state.db (best of ${runs})`);
console.log(
  table([
    ['pass', 'seconds', 'messages/s', 'peak RSS MB', 'ratio to bare'],
    row('bare SELECT * (better-sqlite3)', bare),
    row(`adapter only, all sessions (no chain/NDJSON)`, adapter),
    row(`sp-capture --all (${sessions} sessions)`, all),
    row('sp-capture --session (one 100k session)', single),
    ['sp-capture --list', list.seconds.toFixed(2), '', list.rssMb.toFixed(0), ''],
  ]),
);
console.log(`goal: --all < 1 s → ${all.seconds.toFixed(2)} s ${all.seconds < 1 ? 'met' : 'NOT met'}`);
console.log(`memory: one 1k-message session ${little.rssMb.toFixed(0)} MB, one 100k-message session ${single.rssMb.toFixed(0)} MB (flat: ${single.rssMb < little.rssMb * 2 ? 'yes' : 'NO'})`);
