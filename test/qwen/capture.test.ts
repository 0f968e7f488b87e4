// Golden tests of the Qwen Code capture on every fixture (fixtures/qwen/README.md) and of the writer:
// counts per type, errors, thoughts, system records as meta, the rewound branch and fragments of the
// public fixture; a written session is one linear chain the client accepts (cwd, ids, roles).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { qwen } from '../../adapters/qwen/index.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureAll } from '../contract/testAdapter.js';
import { SessionBuilder, from } from '../support/canonical.js';
import { ALL, FAILING, FEATURE, PUBLIC_BRANCH } from './support.js';

type Json = Record<string, any>;

function counts(events: SpEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) out[e.type] = (out[e.type] ?? 0) + 1;
  return out;
}
const of = (events: SpEvent[], type: string): Json[] => events.filter((e) => e.type === type).map((e) => e.payload as Json);
const records = (path: string): Json[] => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Json);

describe('qwen capture: golden counts per fixture', () => {
  const golden: Array<[string, Record<string, number>]> = [
    [FEATURE, { 'session.start': 1, meta: 16, 'message.user': 2, 'message.thinking': 2, 'message.assistant': 3, 'tool.call': 6, 'tool.result': 6 }],
    [FAILING, { 'session.start': 1, meta: 10, 'message.user': 2, 'message.thinking': 1, 'message.assistant': 3, 'tool.call': 3, 'tool.result': 3 }],
    [PUBLIC_BRANCH, { 'session.start': 1, meta: 4, 'message.user': 2, 'message.thinking': 1, 'message.assistant': 2, 'tool.call': 1 }],
  ];
  for (const [file, expected] of golden) {
    it(file.split('/').pop()!, async () => {
      const { events, diagnostics } = await captureAll(qwen, file);
      expect(diagnostics).toEqual([]);
      expect(counts(events)).toEqual(expected);
    });
  }
  it('covers every fixture', () => expect(golden.map(([f]) => f).sort()).toEqual([...ALL].sort()));
});

describe('qwen capture: what the records carry', () => {
  it('feature: envelope in session.start, calls paired with results, system records whole', async () => {
    const { events } = await captureAll(qwen, FEATURE);
    expect(events[0].payload).toMatchObject({ native_id: '5b9fc1a9-155a-439a-92db-56b55ac98811', cwd: '/home/frank/acme-api', version: '0.24.4', model: 'qwen3-coder-plus' });
    const calls = of(events, 'tool.call');
    expect(calls.map((c) => c.name)).toEqual(['todo_write', 'read_file', 'edit', 'write_file', 'run_shell_command', 'todo_write']);
    expect(of(events, 'tool.result').map((r) => r.call_id)).toEqual(calls.map((c) => c.call_id));
    const telemetry = events.filter((e) => e.type === 'meta' && (e.payload as Json).key === 'qwen.system.ui_telemetry');
    expect(telemetry.length).toBeGreaterThan(5);
    expect((telemetry[0].payload as Json).raw.systemPayload).toBeDefined();
    expect(of(events, 'message.thinking')[0].text).toBe('I should look at the current routes module before editing it.');
  });

  it('failing: the lint failure and the missing file are errors, with toolCallResult kept', async () => {
    const { events } = await captureAll(qwen, FAILING);
    const results = of(events, 'tool.result');
    expect(results.filter((r) => r.is_error === true)).toHaveLength(2);
    expect(results[0].content).toContain('Exit Code: 1');
    expect(results[0].structured.toolCallResult.status).toBe('error');
    expect(results.some((r) => r.structured?.toolCallResult?.errorType === 'file_not_found')).toBe(true);
  });

  it('public: the rewind makes a branch back to the first prompt; fragments of one uuid continue each other', async () => {
    const { events } = await captureAll(qwen, PUBLIC_BRANCH);
    const first = events.find((e) => e.type === 'message.user')!;
    const rewind = events.find((e) => e.type === 'meta' && (e.payload as Json).key === 'qwen.system.rewind')!;
    expect(rewind.parent_seq).toBe(first.seq);
    const thinking = events.find((e) => e.type === 'message.thinking')!;
    const call = events.find((e) => e.type === 'tool.call')!;
    expect(call.seq).toBe(thinking.seq + 1);
    expect(call.parent_seq).toBeUndefined();
    expect((call.payload as Json).message_id).toBe((thinking.payload as Json).message_id);
  });
});

describe('qwen writer', () => {
  it('writes one linear chain the client accepts: cwd on every record, roles user/model, matching call ids, stubs for unanswered calls', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sp-qwen-write-'));
    const b = new SessionBuilder('claude');
    b.user('Run the tests');
    b.thinking('They may fail.', { signature: 'sig' });
    b.assistant('Running them.', 'm1');
    b.call('toolu_1', 'Bash', { command: 'npm test' }, 'm1');
    b.result('toolu_1', 'ok 1');
    b.call('toolu_2', 'Read', { file_path: 'a.js' }, 'm2');
    b.user('Stop.');
    const losses: LossEntry[] = [];
    const result = await qwen.materialize!(from(b.events), { home, cwd: '/tmp/sp-test-project', onLoss: (l) => losses.push(l) });
    expect(result.path).toBe(join(home, 'projects', '-tmp-sp-test-project', 'chats', `${result.session_id}.jsonl`));
    const lines = records(result.path);
    expect(lines.map((r) => r.type)).toEqual(['user', 'assistant', 'tool_result', 'assistant', 'tool_result', 'user']);
    expect(lines[0].parentUuid).toBeNull();
    lines.forEach((r, i) => {
      expect(r.cwd).toBe('/tmp/sp-test-project');
      expect(r.sessionId).toBe(result.session_id);
      if (i > 0) expect(r.parentUuid).toBe(lines[i - 1].uuid);
      expect(['user', 'model']).toContain(r.message.role);
    });
    expect(lines[1].message.parts).toEqual([
      { text: 'They may fail.', thought: true },
      { text: 'Running them.' },
      { functionCall: { id: 'toolu_1', name: 'Bash', args: { command: 'npm test' } } },
    ]);
    expect(lines[2].message.parts[0].functionResponse).toEqual({ id: 'toolu_1', name: 'Bash', response: { output: 'ok 1' } });
    expect(lines[4].message.parts[0].functionResponse.id).toBe('toolu_2');
    expect(lines[4].toolCallResult.status).toBe('error');
    expect(losses.map((l) => l.code)).toContain('stub-result');
  });

  it('the public branch: only the active path is written, the abandoned branch reported', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sp-qwen-branch-'));
    const { events } = await captureAll(qwen, PUBLIC_BRANCH);
    const losses: LossEntry[] = [];
    const result = await qwen.materialize!(from(events), { home, cwd: home, onLoss: (l) => losses.push(l) });
    const text = readFileSync(result.path, 'utf8');
    expect(text).toContain('Continue from the rewound branch.');
    expect(text).not.toContain('Discarded branch answer.');
    expect(losses.find((l) => l.code === 'other-branch')).toBeDefined();
  });
});
