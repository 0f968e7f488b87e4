// sp-export otel: our OTLP/JSON decoded with the official OpenTelemetry protobuf types (span names,
// parentage, attributes, durations), sent to a local OTLP/HTTP receiver that decodes it the same
// way, content only with --content and then redacted, and hostile arguments refused with one line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../atif/support.js';
import { decodeOtlpJson, type DecodedSpan } from './otlp.js';

const CLAUDE = 'fixtures/claude/corpus/S1-feature/.claude/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl';
const CODEX = 'fixtures/codex/corpus/S2-debug/sessions/2026/11/30/rollout-2026-11-30T05-07-06-01a22ad9-7cda-7dc3-af4a-0f4bdf56c072.jsonl';
const SECRET = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

let work: string;
let env: Record<string, string>;
const capture = (agent: string, path: string): string => {
  const r = run('sp-capture', [agent, '--path', path]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};
const events = (ndjson: string): { type: string; seq: number; ts: number; session: string; payload: Record<string, unknown>; derived_from?: number }[] =>
  ndjson.trim().split('\n').map((l) => JSON.parse(l));

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-otel-'));
  // The redaction key is made under SP_HOME on first use: a private one for the test.
  env = { SP_HOME: join(work, 'sp-home') };
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function byName(spans: DecodedSpan[], prefix: string): DecodedSpan[] {
  return spans.filter((s) => s.name.startsWith(prefix));
}

describe('sp-export otel → OTLP/JSON, decoded with the OpenTelemetry protobuf types', () => {
  it('a Claude session: one trace, invoke_agent per turn, chat spans with usage, execute_tool per call under its turn', () => {
    const ndjson = capture('claude', CLAUDE);
    const source = events(ndjson);
    const r = run('sp-export', ['otel'], ndjson, env);
    expect(r.status, r.stderr).toBe(0);
    const { resources, spans } = decodeOtlpJson(r.stdout);
    expect(resources).toHaveLength(1);
    expect(resources[0]['service.name']).toBe('sp');
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);

    const turns = byName(spans, 'invoke_agent ');
    const userTurns = source.filter((e) => e.type === 'message.user' && (e.payload.content as { type: string; text?: string }[]).some((b) => b.type === 'text' && b.text));
    expect(turns.length).toBe(userTurns.length);
    for (const t of turns) {
      expect(t.parentSpanId).toBe('');
      expect(t.attributes['gen_ai.operation.name']).toBe('invoke_agent');
      expect(t.attributes['gen_ai.agent.name']).toBe('claude');
      expect(t.attributes['gen_ai.conversation.id']).toBe('e05d2652-6a94-447f-8b60-cded66e4199a');
      expect(t.end >= t.start).toBe(true);
    }
    const turnIds = new Set(turns.map((t) => t.spanId));

    const tools = byName(spans, 'execute_tool ');
    const calls = source.filter((e) => e.type === 'tool.call' && e.derived_from === undefined);
    expect(tools.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(calls.map((c) => c.payload.call_id));
    for (const [i, s] of tools.entries()) {
      expect(s.name).toBe(`execute_tool ${String(calls[i].payload.name)}`);
      expect(turnIds.has(s.parentSpanId), s.name).toBe(true);
      expect(s.attributes['gen_ai.operation.name']).toBe('execute_tool');
      expect(s.attributes['gen_ai.tool.type']).toBe('function');
      // Timed from the call to its result.
      const result = source.find((e) => e.type === 'tool.result' && e.payload.call_id === calls[i].payload.call_id)!;
      expect(s.end - s.start).toBe(BigInt(Math.round(result.ts * 1000) - Math.round(calls[i].ts * 1000)) * 1_000_000n);
    }
    expect(tools.some((s) => s.end > s.start)).toBe(true);

    const chats = byName(spans, 'chat');
    expect(chats.length).toBeGreaterThan(0);
    for (const c of chats) {
      expect(turnIds.has(c.parentSpanId)).toBe(true);
      expect(c.kind).toBe(3);
      expect(c.attributes['gen_ai.operation.name']).toBe('chat');
      expect(c.attributes['gen_ai.request.model']).toMatch(/^claude-/);
    }
    expect(chats.some((c) => typeof c.attributes['gen_ai.usage.input_tokens'] === 'number' && typeof c.attributes['gen_ai.usage.output_tokens'] === 'number')).toBe(true);
    // No content without --content.
    for (const s of spans) for (const key of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result']) expect(s.attributes[key]).toBeUndefined();
  });

  it('several sessions in one input: one trace each; the same input gives the same ids', () => {
    const ndjson = capture('claude', CLAUDE) + capture('codex', CODEX);
    const a = decodeOtlpJson(run('sp-export', ['otel'], ndjson, env).stdout);
    const b = decodeOtlpJson(run('sp-export', ['otel'], ndjson, env).stdout);
    expect(a.resources.map((r) => r['sp.agent'])).toEqual(['claude', 'codex']);
    expect(new Set(a.spans.map((s) => s.traceId)).size).toBe(2);
    expect(a.spans.map((s) => s.spanId)).toEqual(b.spans.map((s) => s.spanId));
    expect(byName(a.spans, 'execute_tool ').length).toBeGreaterThan(0);
  });

  it('--content adds prompts, replies, arguments and results, with secrets redacted; without it no text leaves', () => {
    const list = events(capture('claude', CLAUDE));
    const user = list.find((e) => e.type === 'message.user')!;
    (user.payload.content as { type: string; text: string }[])[0].text += ` my token is ${SECRET}`;
    const ndjson = list.map((e) => JSON.stringify(e)).join('\n') + '\n';

    const plain = run('sp-export', ['otel'], ndjson, env);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).not.toContain(SECRET);
    expect(plain.stdout).not.toContain('my token is');

    const full = run('sp-export', ['otel', '--content'], ndjson, env);
    expect(full.status, full.stderr).toBe(0);
    expect(full.stdout).not.toContain(SECRET);
    const { spans } = decodeOtlpJson(full.stdout);
    const first = byName(spans, 'invoke_agent ')[0];
    const input = JSON.parse(String(first.attributes['gen_ai.input.messages'])) as { role: string; parts: { type: string; content: string }[] }[];
    expect(input[0].role).toBe('user');
    expect(input[0].parts[0].content).toMatch(/my token is \[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]/);
    expect(byName(spans, 'execute_tool ').every((s) => typeof s.attributes['gen_ai.tool.call.arguments'] === 'string')).toBe(true);
    expect(byName(spans, 'chat').some((s) => typeof s.attributes['gen_ai.output.messages'] === 'string')).toBe(true);
  });

  it('--out writes a private file that decodes the same', () => {
    const ndjson = capture('atif', 'fixtures/atif/terminus-v1.7.json');
    const out = join(work, 'trace.json');
    const r = run('sp-export', ['otel', '--out', out], ndjson, env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    // The embedded subagent trajectory is a session of its own: its own trace.
    expect(r.stderr.trim()).toBe('sp-export: otel: wrote 2 trace(s), 8 span(s)');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const { spans } = decodeOtlpJson(readFileSync(out, 'utf8'));
    const [main] = [...new Set(spans.map((s) => s.traceId))];
    expect(spans.filter((s) => s.traceId === main).map((s) => s.name)).toEqual(['invoke_agent atif', 'chat gpt-5-mini', 'execute_tool bash', 'chat gpt-5-mini', 'execute_tool bash', 'chat gpt-5-mini']);
    // The fixture's timestamps give the durations: the first chat span runs from the prompt (10:00:01) to the reply (10:00:04).
    expect(spans[1].end - spans[1].start).toBe(3_000_000_000n);
  });
});

describe('sp-export otel --endpoint: a local OTLP/HTTP receiver', () => {
  let server: Server;
  let url: string;
  const received: { path: string; type: string; body: string }[] = [];
  let reply: { status: number; body: string } = { status: 200, body: '{}' };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', type: String(req.headers['content-type']), body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(reply.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** The binary, run without blocking this process (the receiver lives here). */
  const exportTo = (args: string[], input: string): Promise<{ status: number | null; stderr: string; stdout: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['dist/bin/sp-export.js', 'otel', ...args], { env: { ...process.env, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
      child.stdin.end(input);
    });

  it('POSTs /v1/traces as JSON; the receiver decodes the spans with their parentage', async () => {
    received.length = 0;
    reply = { status: 200, body: '{}' };
    const ndjson = capture('codex', CODEX);
    const r = await exportTo(['--endpoint', url], ndjson);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.trim()).toMatch(/^sp-export: otel: sent 1 trace\(s\), \d+ span\(s\) to http:\/\/127\.0\.0\.1:\d+$/);
    expect(received).toHaveLength(1);
    expect(received[0].path).toBe('/v1/traces');
    expect(received[0].type).toBe('application/json');
    const { spans } = decodeOtlpJson(received[0].body);
    const turns = new Set(byName(spans, 'invoke_agent codex').map((s) => s.spanId));
    expect(turns.size).toBeGreaterThan(0);
    const tools = byName(spans, 'execute_tool ');
    expect(tools.length).toBeGreaterThan(0);
    for (const s of [...tools, ...byName(spans, 'chat')]) expect(turns.has(s.parentSpanId), s.name).toBe(true);
  });

  it('a refusing receiver: exit 1 and one line; a rejected span count too', async () => {
    reply = { status: 400, body: '{"code":3}' };
    const ndjson = capture('atif', 'fixtures/atif/minimal-v1.0.json');
    const refused = await exportTo(['--endpoint', url], ndjson);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([`sp-export: ${url}/v1/traces: the receiver refused the traces: HTTP 400`]);
    reply = { status: 200, body: '{"partialSuccess":{"rejectedSpans":"2","errorMessage":"bad span"}}' };
    const partial = await exportTo(['--endpoint', url], ndjson);
    expect(partial.status).toBe(1);
    expect(partial.stderr.trim().split('\n')).toEqual([`sp-export: ${url}/v1/traces: the receiver rejected 2 span(s): bad span`]);
  });

  it('no receiver listening: exit 2, one line', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await exportTo(['--endpoint', `http://127.0.0.1:${port}`], capture('atif', 'fixtures/atif/minimal-v1.0.json'));
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`sp-export: http://127.0.0.1:${port}/v1/traces: cannot send: ECONNREFUSED`]);
  });
});

describe('sp-export on hostile arguments and input', () => {
  const ndjson = (): string => capture('atif', 'fixtures/atif/minimal-v1.0.json');
  it('refuses other URL schemes, credentials in the URL, header injection, --out with --endpoint: exit 2, one line, nothing sent or written', () => {
    const out = join(work, 'never.json');
    const cases: [string[], RegExp][] = [
      [['--endpoint', 'file:///etc/passwd'], /--endpoint: only http and https endpoints are supported, not file:/],
      [['--endpoint', 'http://user:pw@127.0.0.1:9/'], /--endpoint: credentials in the URL are not sent/],
      [['--endpoint', 'http://127.0.0.1:9', '--header', 'X-A: 1\r\nX-Injected: 2'], /--header: not a header "Name: value"/],
      [['--endpoint', 'http://127.0.0.1:9', '--out', out], /give --out or --endpoint, not both/],
      [['--endpoint', 'not a url'], /--endpoint: not a URL/],
    ];
    for (const [args, message] of cases) {
      const r = run('sp-export', ['otel', ...args], ndjson(), env);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines, args.join(' ')).toHaveLength(1);
      expect(lines[0]).toMatch(/^sp-export: /);
      expect(lines[0]).toMatch(message);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('a line that is not an event: exit 2 naming stdin:line, nothing written', () => {
    const out = join(work, 'bad.json');
    const r = run('sp-export', ['otel', '--out', out], ndjson() + '{"type":"x"}\n', env);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^sp-export: .*:\d+: not a canonical event/)]);
    expect(existsSync(out)).toBe(false);
  });

  it('an unknown format: exit 2', () => {
    const input = join(work, 'in.ndjson');
    writeFileSync(input, ndjson());
    const r = run('sp-export', ['html', input], undefined, env);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
  });
});
