// Writers keep memory bounded (issue #19 item 4, issue #22): `sp-materialize <agent>` on a large
// generated session under a heap smaller than the session's text. A writer that buffers the session
// (an array of events, or of its output lines) runs out of heap and exits non-zero; one that streams
// or spools writes every record. Not timed: the heap cap is the check. The events are few and large
// (messages, thinking and results with ~16 KB of text each): what the relay and the writers keep per event (a few numbers, the
// ledger's row) is small, what they must not keep is the events' text. A control keeps the check
// honest: the same writer under a heap far smaller than what it reads at once must fail here.
import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Chainer } from '../lib/core/chain.js';
import { isObject } from '../lib/core/json.js';
import { workSessionEvents } from '../adapters/claude/synthetic.js';
import { openForWrite } from '../lib/capture/sqlite.js';
import { runBin, tempDir } from './support/streams.js';

// 10k events, ~3,800 of them with ~16 KB of text: ~60 MB of NDJSON: held in memory the text alone is more than the 48 MB heap.
const EVENTS = 10_000;
const PAD = 16_000;
const HEAP_MB = 48;

let dir: string;
let input: string;
let messages = 0;
let users = 0;

beforeAll(() => {
  dir = tempDir('sp-writers-memory-');
  input = join(dir, 'session.ndjson');
  const fd = openSync(input, 'w');
  const chainer = new Chainer();
  let buffer = '';
  let n = 0;
  for (const event of workSessionEvents({ events: EVENTS, seed: 22 })) {
    if (event.type === 'message.user' || event.type === 'message.assistant') messages += 1;
    if (event.type === 'message.user') users += 1;
    // Message text made large (distinct per event, so nothing dedupes it).
    const payload = isObject(event.payload) ? event.payload : {};
    const padding = (): string => `\n${`line ${(n += 1)} of the padding, so the session is large. `.repeat(Math.ceil(PAD / 48))}`;
    const content = payload.content;
    if (Array.isArray(content) && isObject(content[0]) && typeof content[0].text === 'string') content[0].text += padding();
    else if (typeof content === 'string') payload.content = content + padding();
    else if (typeof payload.text === 'string') payload.text += padding();
    buffer += `${JSON.stringify(chainer.chain(event))}\n`;
    if (buffer.length >= 1 << 20) {
      writeSync(fd, buffer);
      buffer = '';
    }
  }
  writeSync(fd, buffer);
  closeSync(fd);
}, 60_000);

// The session and the homes written (~60 MB each writer) go with the file.
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// OpenCode writes into a database its client made and migrated: a copy of the recorded one (as bench/writers.mjs does).
const OPENCODE_DB = join(import.meta.dirname, '..', 'fixtures/opencode/corpus/.local/share/opencode/opencode.db');

/** Runs the writer under the heap cap (with `extra` arguments); returns its exit, stderr and result line. */
function run(agent: string, heapMb = HEAP_MB): { code: number; stderr: string; result?: Record<string, unknown> } {
  const home = join(dir, `home-${agent}-${heapMb}`);
  mkdirSync(home);
  if (agent === 'opencode') copyFileSync(OPENCODE_DB, join(home, 'opencode.db'));
  const r = runBin('sp-materialize', [agent, input, '--home', agent === 'droid' ? join(home, '.factory') : home, '--cwd', dir, '--quiet', '--no-redact', '--experimental'], { env: { NODE_OPTIONS: `--max-old-space-size=${heapMb}` } });
  return { code: r.code, stderr: r.stderr, result: r.code === 0 ? (JSON.parse(r.stdout.trim().split('\n')[0]) as Record<string, unknown>) : undefined };
}

/** Rows of one session in a database the writer wrote (Hermes: messages; OpenCode: messages and parts). */
async function rowsIn(db: string, session: string, tables: string[]): Promise<number> {
  const handle = await openForWrite(db, false);
  try {
    return tables.reduce((n, table) => n + (handle.prepare(`SELECT count(*) AS n FROM ${table} WHERE session_id = ?`).get(session) as { n: number }).n, 0);
  } finally {
    handle.close();
  }
}

/** Turns of an Aider history: runs of `#### ` lines (user) and the reply text between them. */
function aiderTurns(text: string): number {
  let turns = 0;
  let role: 'user' | 'assistant' | undefined;
  // The first five lines are the header and the import note.
  for (const line of text.split('\n').slice(5)) {
    const now = line.startsWith('#### ') ? 'user' : line.trim() === '' ? role : 'assistant';
    if (now !== role) turns += 1;
    role = now;
  }
  return turns;
}

/** The records of a document writer's list (Cline's messages, Continue's history, Auggie's exchanges). */
const LIST: Record<string, string> = { cline: 'messages', continue: 'history', auggie: 'chatHistory' };

/** Runs the writer under the heap cap; returns its result line and the records it wrote (lines of its file, items of its document, or rows of its database). */
async function materialize(agent: string): Promise<{ result: Record<string, unknown>; lines: number }> {
  const r = run(agent);
  expect(r.code, r.stderr.slice(-500)).toBe(0);
  const result = r.result!;
  // The session row is a record of its own.
  if (agent === 'opencode') return { result, lines: 1 + (await rowsIn(String(result.path).split('#')[0], String(result.session_id), ['message', 'part'])) };
  if (agent === 'hermes') return { result, lines: 1 + (await rowsIn(String(result.path), String(result.session_id), ['messages'])) };
  if (agent === 'cursor') {
    // Every blob, and the meta row naming the root.
    const handle = await openForWrite(String(result.path), false);
    try {
      return { result, lines: (handle.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n + (handle.prepare('SELECT count(*) AS n FROM meta').get() as { n: number }).n };
    } finally {
      handle.close();
    }
  }
  const text = readFileSync(String(result.path), 'utf8');
  // An ATIF trajectory is one document: its records are its steps.
  if (agent === 'atif') return { result, lines: (JSON.parse(text) as { steps: unknown[] }).steps.length };
  if (agent === 'aider') return { result, lines: aiderTurns(text) };
  if (LIST[agent]) return { result, lines: (JSON.parse(text) as Record<string, unknown[]>)[LIST[agent]].length };
  return { result, lines: text.split('\n').filter((line) => line !== '').length };
}

describe(`writers under a ${HEAP_MB} MB heap on a ~60 MB session`, () => {
  it('the input is large enough that holding it would not fit', () => {
    expect(statSync(input).size).toBeGreaterThan(HEAP_MB * 1024 * 1024);
  });

  it('control: a heap far too small for even a few hundred events at once runs out (the check can fail)', () => {
    const r = run('copilot', 6);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/heap|memory/i);
  }, 120_000);

  for (const agent of ['claude', 'codex', 'copilot', 'opencode', 'hermes', 'gemini', 'qwen', 'pi']) {
    it(`${agent}: succeeds and writes every record`, async () => {
      const { result, lines } = await materialize(agent);
      expect(result.records).toBe(lines);
      // Every user and assistant message is at least one record (Codex: one response item each).
      expect(lines).toBeGreaterThan(messages);
    }, 120_000);
  }

  it('atif: succeeds and writes every step', async () => {
    const { result, lines } = await materialize('atif');
    expect(result.records).toBe(lines);
    // Every user message is a step, and every API message of the agent one more (messages with calls only share one).
    expect(lines).toBeGreaterThan(messages / 2);
  }, 120_000);
  // Writers of merged turns (Aider, Cursor: one text turn per run of a role) and of documents.
  for (const agent of ['aider', 'cursor', 'cline', 'droid', 'continue', 'auggie']) {
    it(`${agent}: succeeds and writes every record`, async () => {
      const { result, lines } = await materialize(agent);
      expect(result.records).toBe(lines);
      // At least a record per user message (and the answers between them).
      expect(lines).toBeGreaterThan(users);
    }, 180_000);
  }
});
