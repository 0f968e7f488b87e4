#!/usr/bin/env node
// An example external adapter for sp (docs/external-adapters.md), standalone: no sp code, only Node.
// The format it reads and writes is the simplest chat log there is: a folder of `<id>.jsonl`
// files, one message per line, {"role": "user" | "assistant" | "system", "content": "…", "ts": …}
// (ts: an ISO time or epoch seconds). Put this file on PATH as `sp-adapter-jsonl` and
//   sp-capture jsonl --list | --latest | --session ID      reads the logs under $JSONL_CHAT_HOME
//   sp-materialize jsonl < session.ndjson                   writes a new log there
// `sp-adapter-jsonl --print ID` shows a log: it stands in for the "client" a resume command runs.
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const PROTOCOL = 1;
const HOME_ENV = 'JSONL_CHAT_HOME';
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const defaultHome = () => process.env[HOME_ENV] || join(homedir(), '.jsonl-chats');
const reply = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
const fail = (message) => {
  reply({ type: 'error', message });
  process.exitCode = 1;
};

/** Epoch seconds of a `ts` field: an ISO string or a number; undefined when neither. */
function seconds(ts) {
  if (typeof ts === 'number' && Number.isFinite(ts)) return ts > 1e11 ? ts / 1000 : ts;
  if (typeof ts === 'string') {
    const ms = Date.parse(ts);
    if (!Number.isNaN(ms)) return ms / 1000;
  }
  return undefined;
}

/** The lines of a log, parsed; a line that is not a message is `{bad: reason, text}`. */
function readLog(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((text, i) => ({ text, line: i + 1 }))
    .filter(({ text }) => text.trim() !== '')
    .map(({ text, line }) => {
      try {
        const value = JSON.parse(text);
        if (value && typeof value === 'object' && typeof value.role === 'string' && typeof value.content === 'string') return { ...value, line };
        return { bad: 'not a {role, content} object', text, line };
      } catch {
        return { bad: 'not JSON', text, line };
      }
    });
}

function sessionOf(path) {
  const id = basename(path, '.jsonl');
  if (!ID.test(id)) return undefined;
  const st = statSync(path);
  if (!st.isFile()) return undefined;
  const first = readLog(path).find((m) => m.role === 'user');
  return { type: 'session', id, path, title: first ? first.content.slice(0, 80) : undefined, updated: st.mtimeMs / 1000 };
}

function list(request) {
  if (typeof request.path === 'string') {
    const session = sessionOf(request.path);
    if (session) reply(session);
  } else {
    const home = typeof request.home === 'string' ? request.home : defaultHome();
    let names = [];
    try {
      names = readdirSync(home).filter((n) => n.endsWith('.jsonl')).sort();
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
    for (const name of names) {
      const session = sessionOf(join(home, name));
      if (session) reply(session);
    }
  }
  reply({ type: 'result' });
}

function capture(request) {
  const path = typeof request.path === 'string' ? request.path : undefined;
  if (!path || !ID.test(String(request.session))) return fail('capture needs the session and its path');
  const messages = readLog(path);
  let ts = seconds(messages.find((m) => !m.bad)?.ts) ?? statSync(path).mtimeMs / 1000;
  reply({ type: 'event', event: { ts, type: 'session.start', actor: 'system', payload: { native_id: request.session } } });
  for (const m of messages) {
    ts = seconds(m.ts) ?? ts;
    const origin = { native_seq: m.line };
    if (m.bad) {
      process.stderr.write(`${path}:${m.line}: ${m.bad}\n`);
      reply({ type: 'event', event: { ts, type: 'meta', actor: 'system', origin, payload: { key: 'unparseable', text: m.text, reason: m.bad } } });
    } else if (m.role === 'user' || m.role === 'assistant') {
      const type = m.role === 'user' ? 'message.user' : 'message.assistant';
      const actor = m.role === 'user' ? 'user' : 'agent:jsonl';
      reply({ type: 'event', event: { ts, type, actor, origin, payload: { content: [{ type: 'text', text: m.content }] } } });
    } else {
      reply({ type: 'event', event: { ts, type: 'meta', actor: 'system', origin, payload: { key: `jsonl.${m.role}`, value: m.content } } });
    }
  }
  reply({ type: 'result' });
}

/** The text of a canonical message's content (text blocks only). */
function textOf(payload) {
  const content = payload && payload.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return typeof payload?.text === 'string' ? payload.text : '';
  return content.filter((b) => b && b.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('\n');
}

async function materialize(request, lines) {
  if (typeof request.home !== 'string') return fail('materialize needs a home');
  const out = [];
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const event = JSON.parse(line);
    const role = event.type === 'message.user' ? 'user' : event.type === 'message.assistant' ? 'assistant' : undefined;
    if (!role) continue;
    const content = textOf(event.payload);
    if (content !== '') out.push(JSON.stringify({ role, content, ts: new Date(event.ts * 1000).toISOString() }));
  }
  if (out.length === 0) return fail('no user or assistant messages to write');
  const id = `chat-${Date.now()}-${randomBytes(4).toString('hex')}`;
  const file = `${id}.jsonl`;
  if (!request.dry_run) {
    mkdirSync(request.home, { recursive: true, mode: 0o700 });
    // Written to a temporary name, then linked into place: the log appears whole or not at all,
    // and an existing file is never replaced (link fails if the name is taken).
    const temp = join(request.home, `.${id}.${process.pid}.tmp`);
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, out.join('\n') + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, join(request.home, file));
    } finally {
      unlinkSync(temp);
    }
  }
  reply({ type: 'result', native_id: id, files: [file], records: out.length, resume: { argv: ['sp-adapter-jsonl', '--print', id], cwd: request.cwd } });
}

async function serve() {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) return fail('no request');
  const request = JSON.parse(first.value);
  if (request.sp_adapter !== PROTOCOL) return fail(`protocol ${request.sp_adapter} is not spoken here (this adapter speaks ${PROTOCOL})`);
  switch (request.op) {
    case 'describe':
      return reply({
        type: 'result',
        protocol: PROTOCOL,
        name: 'jsonl',
        version: '0.1.0',
        display_name: 'JSONL chat log',
        home_env: HOME_ENV,
        default_home: '~/.jsonl-chats',
        capabilities: { list: true, capture: true, materialize: true },
      });
    case 'list':
      return list(request);
    case 'capture':
      return capture(request);
    case 'materialize':
      return materialize(request, { [Symbol.asyncIterator]: () => lines });
    default:
      return fail(`unknown op ${JSON.stringify(request.op)}`);
  }
}

if (process.argv[2] === '--print') {
  const id = process.argv[3] ?? '';
  if (!ID.test(id)) {
    process.stderr.write('sp-adapter-jsonl: --print ID: not a log id\n');
    process.exit(2);
  }
  for (const m of readLog(resolve(defaultHome(), `${id}.jsonl`))) if (!m.bad) process.stdout.write(`${m.role}: ${m.content}\n`);
} else {
  serve().catch((err) => fail(err instanceof Error ? err.message : String(err)));
}
