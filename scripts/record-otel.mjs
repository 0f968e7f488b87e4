#!/usr/bin/env node
// Records real OpenTelemetry log exports from the pinned Claude Code and Codex clients, offline:
// each client runs one short session (a prompt, one tool call that reads a file, a reply) against a
// local mock model API, with its telemetry pointed at a local OTLP/HTTP receiver on 127.0.0.1 that
// appends every POST /v1/logs body (OTLP/JSON) as one line. Nothing leaves 127.0.0.1; the clients
// get a throw-away HOME. Identifying values (user/account ids, host name, the temp paths) are
// replaced by fixed fake ones, keeping the shape, so the fixtures hold nothing of this machine.
//
//   node scripts/record-otel.mjs [claude|codex ...] [--out DIR] [--raw]
//     default: both clients, into fixtures/otel/recorded/<client>-<version>.jsonl
//     --raw: do not replace identifying values (for looking at a new client version)
// Exit 0 when every client asked for exported at least one log record; 1 otherwise (one line each).
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync, inflateSync } from 'node:zlib';
import { codexConfig } from '../examples/mock-responses.mjs';

const root = new URL('..', import.meta.url).pathname;
export const VERSIONS = { claude: '2.1.332', codex: '0.171.0' };
export const PROMPT = 'Read notes.txt and tell me what it says.';
export const NOTE = 'sp otel recording: the answer is 42\n';
export const REPLY = 'notes.txt says: the answer is 42.';

// ---------- the OTLP/HTTP receiver ----------

/** A request body larger than this is refused (413) rather than held: a short session sends a few KB. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A receiver on 127.0.0.1 (port 0): every POST /v1/logs body, as one JSON text, in `lines`. */
export async function startReceiver() {
  const lines = [];
  const refused = [];
  const server = createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        refused.push(`${req.url}: a body of ${size} bytes (over ${MAX_BODY_BYTES})`);
        res.writeHead(413, { 'content-type': 'application/json' });
        return res.end('{}');
      }
      let bytes = Buffer.concat(chunks);
      const encoding = req.headers['content-encoding'];
      try {
        if (encoding === 'gzip') bytes = gunzipSync(bytes);
        else if (encoding === 'deflate') bytes = inflateSync(bytes);
      } catch {
        refused.push(`${req.url}: undecodable ${encoding} body`);
      }
      const type = String(req.headers['content-type'] ?? '');
      const path = (req.url ?? '').split('?')[0];
      if (req.method === 'POST' && path === '/v1/logs') {
        if (!type.includes('json')) refused.push(`${path}: ${type || 'no content type'} (not OTLP/JSON)`);
        else {
          try {
            lines.push(JSON.stringify(JSON.parse(bytes.toString('utf8'))));
          } catch {
            refused.push(`${path}: a body that is not JSON`);
          }
        }
      }
      // Metrics and traces are accepted and dropped: sp reads the log events.
      res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : 'application/x-protobuf' });
      res.end(type.includes('json') ? '{}' : '');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, lines, refused, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

// ---------- mock model APIs ----------

const readBody = (req) => new Promise((resolve) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let bytes = Buffer.concat(chunks);
    try {
      if (req.headers['content-encoding'] === 'gzip') bytes = gunzipSync(bytes);
      else if (req.headers['content-encoding'] === 'zstd') bytes = Buffer.alloc(0);
      resolve(JSON.parse(bytes.toString('utf8')));
    } catch {
      resolve(undefined);
    }
  });
});

/** Anthropic Messages API: the first agent-loop request gets a Read tool call, the next the reply; side requests a short text. */
async function startAnthropic(notePath) {
  let turn = 0;
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"input_tokens":100}');
    }
    if (!(req.method === 'POST' && path === '/v1/messages')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{}');
    }
    const main = Array.isArray(body?.tools) && body.tools.length > 0;
    const schema = body?.output_config?.format?.schema;
    let content;
    if (main && turn === 0) content = [{ type: 'tool_use', id: 'toolu_01SpOtelRead', name: 'Read', input: { file_path: notePath } }];
    else if (main) content = [{ type: 'text', text: REPLY }];
    else content = [{ type: 'text', text: schema ? JSON.stringify({ title: 'Read notes', isNewTopic: true }) : 'Mock side reply' }];
    if (main) turn += 1;
    const message = {
      id: `msg_spotel${turn}${main ? 'm' : 's'}`, type: 'message', role: 'assistant', model: body?.model ?? 'claude-mock', content,
      stop_reason: content[0].type === 'tool_use' ? 'tool_use' : 'end_turn', stop_sequence: null,
      usage: { input_tokens: 1200, output_tokens: 40, cache_creation_input_tokens: 300, cache_read_input_tokens: 800 },
    };
    if (!body?.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_spotel${turn}` });
      return res.end(JSON.stringify(message));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': `req_spotel${turn}` });
    const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } } });
    content.forEach((block, index) => {
      if (block.type === 'text') {
        send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
      } else {
        send('content_block_start', { index, content_block: { ...block, input: {} } });
        send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
      }
      send('content_block_stop', { index });
    });
    send('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: message.usage.output_tokens } });
    send('message_stop', {});
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

/** OpenAI Responses API for Codex: the first request gets a shell call that prints the note, the next the reply. */
async function startResponses() {
  let turn = 0;
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (!(req.method === 'POST' && (req.url ?? '').split('?')[0].endsWith('/responses'))) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{"error":{"message":"not mocked"}}');
    }
    turn += 1;
    const tools = (Array.isArray(body?.tools) ? body.tools : []).map((t) => t?.name ?? t?.type);
    let item;
    if (turn === 1) {
      // Whichever shell tool this client version offers.
      const [name, args] = tools.includes('exec_command') ? ['exec_command', { cmd: 'cat notes.txt' }] : tools.includes('shell_command') ? ['shell_command', { command: 'cat notes.txt' }] : ['shell', { command: ['cat', 'notes.txt'] }];
      item = { type: 'function_call', id: 'fc_spotel1', call_id: 'call_spotel_read', name, arguments: JSON.stringify(args), status: 'completed' };
    } else {
      item = { type: 'message', id: `msg_spotel${turn}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: REPLY, annotations: [] }] };
    }
    const id = `resp_spotel${turn}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let sequence = 0;
    const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
    send('response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
    send('response.output_item.added', { output_index: 0, item });
    send('response.output_item.done', { output_index: 0, item });
    send('response.completed', { response: { id, object: 'response', status: 'completed', output: [item], usage: { input_tokens: 2100, input_tokens_details: { cached_tokens: 1024 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 8 }, total_tokens: 2130 } } });
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

// ---------- running the clients ----------

function run(bin, args, { cwd, env, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, timedOut, stdout, stderr: stderr + String(err) });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, stdout, stderr });
    });
  });
}

export function claudeBin() {
  if (process.env.CLAUDE_BIN) return process.env.CLAUDE_BIN;
  const linked = join(root, 'node_modules', '.bin', 'claude');
  if (existsSync(linked) && statSync(linked).size > 1 << 20) return linked;
  const require = createRequire(join(root, 'package.json'));
  for (const pkg of [`@anthropic-ai/claude-code-${process.platform}-${process.arch}`, `@anthropic-ai/claude-code-${process.platform}-${process.arch}-musl`]) {
    try {
      const bin = join(dirname(require.resolve(`${pkg}/package.json`)), 'claude');
      if (existsSync(bin)) return bin;
    } catch {
      // not installed for this platform
    }
  }
  return linked;
}

export function codexBin() {
  return process.env.CODEX_BIN ?? join(root, 'node_modules', '.bin', 'codex');
}

/** A fresh work folder: home/, tmp/ and proj/ (the cwd, holding notes.txt). */
function workspace(base, name) {
  const dir = join(base, name);
  for (const sub of ['home', 'tmp', 'proj']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, 'proj', 'notes.txt'), NOTE);
  return { dir: realpathSync(dir), home: realpathSync(join(dir, 'home')), tmp: realpathSync(join(dir, 'tmp')), proj: realpathSync(join(dir, 'proj')) };
}

/** Claude Code's telemetry: on, logs only, OTLP over HTTP as JSON, prompts and tool details logged, exported every half second. */
export function claudeTelemetryEnv(port) {
  return {
    CLAUDE_CODE_ENABLE_TELEMETRY: '1',
    OTEL_LOGS_EXPORTER: 'otlp',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_LOG_USER_PROMPTS: '1',
    OTEL_LOG_TOOL_DETAILS: '1',
    OTEL_LOGS_EXPORT_INTERVAL: '500',
  };
}

/** One Claude Code session with telemetry on; the receiver's lines. */
export async function recordClaude(base, { timeoutMs = 90_000 } = {}) {
  const ws = workspace(base, 'claude');
  const receiver = await startReceiver();
  const model = await startAnthropic(join(ws.proj, 'notes.txt'));
  try {
    const env = {
      PATH: process.env.PATH,
      HOME: ws.home,
      CLAUDE_CONFIG_DIR: join(ws.home, '.claude'),
      TMPDIR: ws.tmp,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.port}`,
      ANTHROPIC_API_KEY: 'dummy',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      IS_SANDBOX: '1',
      ...claudeTelemetryEnv(receiver.port),
    };
    const result = await run(claudeBin(), ['-p', PROMPT, '--dangerously-skip-permissions', '--output-format', 'json'], { cwd: ws.proj, env, timeoutMs });
    // The client flushes its exporter on exit; a late batch may still be on its way.
    await new Promise((r) => setTimeout(r, 300));
    return { ...result, ws, lines: [...receiver.lines], refused: receiver.refused };
  } finally {
    await model.close();
    await receiver.close();
  }
}

/** Codex's telemetry: the [otel] section of config.toml, an OTLP/HTTP exporter speaking JSON, prompts logged. */
export function codexOtelConfig(port) {
  return [
    '[otel]',
    'environment = "sp-recording"',
    'log_user_prompt = true',
    `exporter = { otlp-http = { endpoint = "http://127.0.0.1:${port}/v1/logs", protocol = "json" } }`,
    '',
  ].join('\n');
}

export async function recordCodex(base, { timeoutMs = 90_000 } = {}) {
  const ws = workspace(base, 'codex');
  const receiver = await startReceiver();
  const model = await startResponses();
  try {
    const codexHome = join(ws.dir, 'codex-home');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, 'config.toml'), codexConfig(`http://127.0.0.1:${model.port}/v1`) + codexOtelConfig(receiver.port));
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: ws.home, TMPDIR: ws.tmp, CODEX_HOME: codexHome, SP_MOCK_KEY: 'sk-mock', LANG: 'C.UTF-8', TERM: 'dumb' };
    const result = await run(codexBin(), ['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', PROMPT], { cwd: ws.proj, env, timeoutMs });
    await new Promise((r) => setTimeout(r, 300));
    return { ...result, ws, lines: [...receiver.lines], refused: receiver.refused };
  } finally {
    await model.close();
    await receiver.close();
  }
}

// ---------- scrubbing ----------

/** Attributes that name a person, an account or this machine: their values become fixed fake ones. */
const FAKE = {
  'user.id': '0000000000000000000000000000000000000000000000000000000000000000',
  'user.email': 'user@example.invalid',
  'user.account_uuid': '00000000-0000-4000-8000-000000000000',
  'user.account_id': '00000000-0000-4000-8000-000000000000',
  'organization.id': '00000000-0000-4000-8000-000000000001',
  'host.name': 'sp-host',
  'host.id': 'sp-host-id',
  'os.version': '0.0.0',
  'terminal.type': 'dumb',
};

/**
 * The recorded lines with identifying values replaced: FAKE's attributes, the work folder, the real
 * home and host name wherever they appear. (Not the bare user name: Codex's root agent is `/root`.)
 */
export function scrub(lines, workDir) {
  const swaps = [[workDir, '/tmp/sp-otel'], [homedir() + '/', '/home/sp-user/'], [hostname(), 'sp-host']].filter(([from]) => from && from.length >= 3 && from !== '//');
  const walk = (value, key) => {
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value && typeof value === 'object') {
      if (typeof value.key === 'string' && value.key in FAKE && value.value && typeof value.value === 'object' && 'stringValue' in value.value) {
        return { ...value, value: { stringValue: FAKE[value.key] } };
      }
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    }
    if (typeof value === 'string') {
      let out = value;
      for (const [from, to] of swaps) out = out.split(from).join(to);
      return out;
    }
    return value;
  };
  return lines.map((line) => JSON.stringify(walk(JSON.parse(line))));
}

// ---------- command line ----------

async function main(argv) {
  const wanted = argv.filter((a) => a === 'claude' || a === 'codex');
  const outAt = argv.indexOf('--out');
  const out = outAt >= 0 ? argv[outAt + 1] : join(root, 'fixtures', 'otel', 'recorded');
  const raw = argv.includes('--raw');
  const clients = wanted.length ? wanted : ['claude', 'codex'];
  const base = mkdtempSync(join(tmpdir(), 'sp-otel-rec-'));
  chmodSync(base, 0o700);
  let failed = 0;
  try {
    mkdirSync(out, { recursive: true });
    for (const client of clients) {
      const result = client === 'claude' ? await recordClaude(base) : await recordCodex(base);
      const file = join(out, `${client === 'claude' ? 'claude-code' : 'codex'}-${VERSIONS[client]}.jsonl`);
      for (const why of result.refused) process.stderr.write(`record-otel: ${client}: refused ${why}\n`);
      if (result.lines.length === 0) {
        failed += 1;
        const said = (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' | ');
        process.stderr.write(`record-otel: ${client}: no log records reached the receiver (exit ${result.code}${result.timedOut ? ', timed out' : ''}): ${said.slice(0, 400)}\n`);
        continue;
      }
      const lines = raw ? result.lines : scrub(result.lines, result.ws.dir);
      writeFileSync(file, lines.join('\n') + '\n');
      const records = lines.reduce((n, l) => n + (JSON.parse(l).resourceLogs ?? []).flatMap((r) => r.scopeLogs ?? []).flatMap((s) => s.logRecords ?? []).length, 0);
      process.stdout.write(`${client}: ${lines.length} request(s), ${records} record(s) → ${file} (client exit ${result.code})\n`);
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return failed ? 1 : 0;
}

if (process.argv[1] && realpathSync(process.argv[1]) === new URL(import.meta.url).pathname) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (err) => {
    process.stderr.write(`record-otel: ${err?.message ?? err}\n`);
    process.exit(2);
  });
}
