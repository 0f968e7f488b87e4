// sp-capture otel: Claude Code and Codex telemetry (OTLP/JSON logs as a collector's file exporter
// writes them) as canonical sessions, in time order whatever order the batches came in; what the
// telemetry withholds stays out; and OTel in → OTel out keeps the tool spans and their durations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../atif/support.js';
import { decodeOtlpJson } from './otlp.js';

type Ev = { type: string; seq: number; ts: number; session: string; payload: Record<string, unknown> };
const parse = (out: string): Ev[] => out.trim().split('\n').map((l) => JSON.parse(l) as Ev);

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-otel-in-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('sp-capture otel', () => {
  it('Claude Code telemetry: prompt, model calls with usage, tool calls from tool_result, the reply; sorted by time', () => {
    const r = run('sp-capture', ['otel', '--path', 'fixtures/otel/claude-code-logs.jsonl']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const events = parse(r.stdout);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'message.user', 'message.assistant', 'meta', 'tool.call', 'tool.result', 'message.assistant', 'tool.call', 'tool.result', 'meta', 'message.assistant']);
    expect(events[0].payload).toMatchObject({ native_id: '5b0f6f1e-2f0c-4b8e-9d61-0c3f8a7e2b41', client: 'claude', version: '2.1.197' });
    for (let i = 1; i < events.length; i += 1) expect(events[i].ts).toBeGreaterThanOrEqual(events[i - 1].ts - 2);
    expect(events[1].payload.content).toEqual([{ type: 'text', text: 'Add a --verbose flag to the CLI and test it' }]);
    expect(events[2].payload).toMatchObject({ model: 'claude-sonnet-4-5', usage: { input_tokens: 1820, output_tokens: 96, cache_read_input_tokens: 12000, cache_creation_input_tokens: 640 } });
    expect(events[4].payload).toMatchObject({ call_id: 'toolu_01R', name: 'Read', input: { file_path: 'src/cli.ts' } });
    // The call starts its duration before the result.
    expect(events[5].ts - events[4].ts).toBeCloseTo(0.04, 3);
    expect(events[8].payload).toMatchObject({ call_id: 'toolu_01B', is_error: true, content: 'Exit code 1' });
    expect(events[9].payload.key).toBe('otel.api_error');
    expect(events[10].payload.content).toEqual([{ type: 'text', text: 'The flag is added; one test fails on Windows paths.' }]);
  });

  it('Codex telemetry: the completed responses carry the usage, the tool result its output', () => {
    const r = run('sp-capture', ['otel', '--path', 'fixtures/otel/codex-logs.jsonl']);
    expect(r.status, r.stderr).toBe(0);
    const events = parse(r.stdout);
    expect(events[0].payload).toMatchObject({ native_id: '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b', client: 'codex', model: 'gpt-5-codex' });
    const assistants = events.filter((e) => e.type === 'message.assistant');
    expect(assistants.map((e) => e.payload.usage)).toEqual([
      { input_tokens: 5120, output_tokens: 140, cached_input_tokens: 4096, reasoning_output_tokens: 64 },
      { input_tokens: 5400, output_tokens: 90, cached_input_tokens: 5120, reasoning_output_tokens: 0 },
    ]);
    const call = events.find((e) => e.type === 'tool.call')!;
    expect(call.payload).toMatchObject({ call_id: 'call_9xQ', name: 'shell', input: { command: ['bash', '-lc', 'npm run build'] } });
    expect(events.find((e) => e.type === 'tool.result')!.payload).toMatchObject({ call_id: 'call_9xQ', content: "error TS2307: Cannot find module './gen/schema.js'" });
  });

  it('a prompt the client withheld stays out: meta with its length, no made-up text', () => {
    const text = JSON.stringify({
      resourceLogs: [{ resource: { attributes: [] }, scopeLogs: [{ scope: { name: 'x' }, logRecords: [
        { timeUnixNano: '1772960400000000000', body: { stringValue: 'claude_code.user_prompt' }, attributes: [
          { key: 'event.name', value: { stringValue: 'user_prompt' } }, { key: 'session.id', value: { stringValue: 's-1' } },
          { key: 'prompt_length', value: { stringValue: '12' } }, { key: 'prompt', value: { stringValue: '<REDACTED>' } }] },
      ] }] }],
    });
    const path = join(work, 'withheld.jsonl');
    writeFileSync(path, text + '\n');
    const r = run('sp-capture', ['otel', '--path', path]);
    expect(r.status, r.stderr).toBe(0);
    const events = parse(r.stdout);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'meta']);
    expect(events[1].payload.key).toBe('otel.user_prompt');
  });

  it('hostile records: absurd times and ids are data; a line that is not JSON is one diagnostic with file:line', () => {
    const path = join(work, 'hostile.jsonl');
    const record = { timeUnixNano: '99999999999999999999999', body: { stringValue: 'codex.tool_result' }, attributes: [
      { key: 'event.name', value: { stringValue: 'codex.tool_result' } }, { key: 'conversation.id', value: { stringValue: '../../etc/passwd' } },
      { key: 'tool_name', value: { stringValue: 'shell' } }, { key: 'call_id', value: { stringValue: 'c\nforged' } }, { key: 'duration_ms', value: { stringValue: '-5' } }] };
    writeFileSync(path, JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [record] }] }] }) + '\n{"resourceLogs": [\n');
    const r = run('sp-capture', ['otel', '--path', path]);
    expect(r.status).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^sp-capture: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: not JSON \\(kept as meta\\)`));
    const events = parse(r.stdout);
    expect(events[0].payload.native_id).toBe('../../etc/passwd');
    expect(events.find((e) => e.type === 'tool.call')!.payload.call_id).toBe('c\nforged');
    expect(events.every((e) => Number.isFinite(e.ts))).toBe(true);
  });

  it('refuses --cursor: exit 2, one line, no events', () => {
    const r = run('sp-capture', ['otel', '--path', 'fixtures/otel/codex-logs.jsonl', '--cursor', join(work, 'c.json')]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('OTel in → OTel out: the Codex tool call is an execute_tool span as long as the client measured it', () => {
    const events = run('sp-capture', ['otel', '--path', 'fixtures/otel/codex-logs.jsonl']).stdout;
    const r = run('sp-export', ['otel'], events, { SP_HOME: join(work, 'sp-home') });
    expect(r.status, r.stderr).toBe(0);
    const { spans } = decodeOtlpJson(r.stdout);
    const tool = spans.find((s) => s.name === 'execute_tool shell')!;
    expect(tool.end - tool.start).toBe(1_150_000_000n);
    expect(tool.attributes['gen_ai.tool.call.id']).toBe('call_9xQ');
    expect(spans.filter((s) => s.name === 'chat gpt-5-codex').map((s) => s.attributes['gen_ai.usage.output_tokens'])).toEqual([140, 90]);
  });
});

// Exports recorded from the real clients (scripts/record-otel.mjs): a prompt, one tool call that
// reads notes.txt, the reply, against a local mock model.
describe('sp-capture otel on recorded exports', () => {
  const PROMPT = 'Read notes.txt and tell me what it says.';

  it('Claude Code 2.1.197: the prompt, both model calls with model and usage, the Read call with its input, the reply', () => {
    const r = run('sp-capture', ['otel', '--path', 'fixtures/otel/recorded/claude-code-2.1.197.jsonl']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const events = parse(r.stdout);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'message.user', 'meta', 'message.assistant', 'tool.call', 'tool.result', 'message.assistant', 'message.assistant']);
    // The version is on the resource only (service.version), not on the records.
    expect(events[0].payload).toMatchObject({ client: 'claude', version: '2.1.197', service: 'claude-code' });
    expect(events[0].payload.native_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(events[1].payload).toMatchObject({ content: [{ type: 'text', text: PROMPT }] });
    expect(events[1].payload.prompt_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(events[2].payload.key).toBe('otel.tool_decision');
    const calls = events.filter((e) => e.type === 'message.assistant' && (e.payload.content as unknown[]).length === 0);
    expect(calls.map((e) => e.payload.message_id)).toEqual(['req_spotel1', 'req_spotel2']);
    for (const call of calls) expect(call.payload).toMatchObject({ model: 'claude-opus-4-8', usage: { input_tokens: 1200, output_tokens: 40, cache_read_input_tokens: 800, cache_creation_input_tokens: 300 } });
    expect(events[4].payload).toMatchObject({ call_id: 'toolu_01SpOtelRead', name: 'Read', input: { file_path: '/tmp/sp-otel/proj/notes.txt' }, message_id: 'req_spotel1' });
    // Claude Code logs whether the tool succeeded, not its output.
    expect(events[5].payload).toMatchObject({ call_id: 'toolu_01SpOtelRead', content: '', output_logged: false });
    expect(events[5].payload.is_error).toBeUndefined();
    expect(events[7].payload).toMatchObject({ content: [{ type: 'text', text: 'notes.txt says: the answer is 42.' }], message_id: 'req_spotel2', model: 'claude-opus-4-8' });
  });

  it('Codex 0.171.0: timeUnixNano 0 falls back to the observed time; one model call per counted response.completed; the shell call with its output', () => {
    const r = run('sp-capture', ['otel', '--path', 'fixtures/otel/recorded/codex-0.171.0.jsonl']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const events = parse(r.stdout);
    expect(events[0].payload).toMatchObject({ client: 'codex', version: '0.171.0', model: 'gpt-5.5', service: 'codex_exec' });
    // Real times, not the epoch: every record has timeUnixNano "0".
    expect(events.every((e) => e.ts > 1.7e9)).toBe(true);
    const users = events.filter((e) => e.type === 'message.user');
    expect(users.map((e) => e.payload.content)).toEqual([[{ type: 'text', text: PROMPT }]]);
    // Each response.completed is logged twice (bare, then with tokens): two calls, not four.
    const assistants = events.filter((e) => e.type === 'message.assistant');
    expect(assistants.map((e) => e.payload.usage)).toEqual([
      { input_tokens: 2100, output_tokens: 30, cached_input_tokens: 1024, reasoning_output_tokens: 8 },
      { input_tokens: 2100, output_tokens: 30, cached_input_tokens: 1024, reasoning_output_tokens: 8 },
    ]);
    for (const a of assistants) expect(a.payload.model).toBe('gpt-5.5');
    const call = events.find((e) => e.type === 'tool.call')!;
    expect(call.payload).toMatchObject({ call_id: 'call_spotel_read', name: 'exec_command', input: { cmd: 'cat notes.txt' }, message_id: assistants[0].payload.message_id });
    const result = events.find((e) => e.type === 'tool.result')!;
    expect(result.payload.call_id).toBe('call_spotel_read');
    expect(result.payload.content).toContain('sp otel recording: the answer is 42');
    expect(result.payload.is_error).toBeUndefined();
    expect(events.filter((e) => e.type === 'meta').map((e) => e.payload.key)).toContain('otel.conversation_starts');
  });

  it('nothing of the recording machine is in the fixtures: fake ids, host and paths only', () => {
    for (const file of ['fixtures/otel/recorded/claude-code-2.1.197.jsonl', 'fixtures/otel/recorded/codex-0.171.0.jsonl']) {
      const text = readFileSync(file, 'utf8');
      expect(text).not.toMatch(/sp-otel-rec-/);
      const values = new Map<string, Set<string>>();
      for (const line of text.trim().split('\n')) {
        JSON.stringify(JSON.parse(line), (key, value) => {
          if (value && typeof value === 'object' && typeof value.key === 'string' && value.value?.stringValue !== undefined) {
            if (!values.has(value.key)) values.set(value.key, new Set());
            values.get(value.key)!.add(value.value.stringValue);
          }
          return value;
        });
      }
      for (const key of ['user.id', 'user.email', 'user.account_uuid', 'organization.id', 'host.name']) {
        for (const v of values.get(key) ?? []) expect(v, `${file}: ${key}`).toMatch(/^(0+|[0-]+1?|sp-host|user@example\.invalid)$/);
      }
    }
  });
});

describe('sp-capture otel: Codex response.completed', () => {
  it('only a response.completed with numeric token counts is a model call; a bare or non-numeric one is meta', () => {
    const record = (kind: string, extra: Array<[string, string]>) => ({ observedTimeUnixNano: '1772960400000000000', timeUnixNano: '0', attributes: [
      ['event.name', 'codex.sse_event'], ['conversation.id', 'c-1'], ['event.kind', kind], ...extra,
    ].map(([key, v]) => ({ key, value: { stringValue: v } })) });
    const path = join(work, 'completed.jsonl');
    writeFileSync(path, JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [
      record('response.completed', []),
      record('response.completed', [['input_token_count', 'many'], ['output_token_count', '1e999']]),
      record('response.created', [['input_token_count', '5']]),
      record('response.completed', [['input_token_count', '7'], ['output_token_count', '3']]),
    ] }] }] }) + '\n');
    const r = run('sp-capture', ['otel', '--path', path]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const events = parse(r.stdout);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'meta', 'meta', 'meta', 'message.assistant']);
    expect(events[4].payload.usage).toEqual({ input_tokens: 7, output_tokens: 3 });
    expect(events.every((e) => e.ts === 1772960400)).toBe(true);
  });
});
