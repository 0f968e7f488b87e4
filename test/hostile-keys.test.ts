// Member names a session file may use that JavaScript objects treat specially: "__proto__" (an
// assignment sets the prototype instead of a member) and array indexes ("9", "10": listed first, in
// numeric order, whatever order they were set in). Captured, redacted, verified and written into
// another agent's session, they must come through as data, and sp's own chain must verify.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, tempDir } from './support/streams.js';

const SESSION = 'a1b2c3d4-0000-4000-8000-000000000001';
const common = { isSidechain: false, userType: 'external', cwd: '/home/alice/acme-api', sessionId: SESSION, version: '2.1.197' };
const HOSTILE_INPUT = { __proto__: { polluted: true }, constructor: 'c', '9': 'nine', '10': 'ten', '!': 'bang', path: 'notes.md' };
const records = [
  { ...common, parentUuid: null, type: 'user', uuid: 'u-1', timestamp: '2026-12-01T10:00:00.000Z', message: { role: 'user', content: 'Write the notes file.' } },
  {
    ...common,
    parentUuid: 'u-1',
    type: 'assistant',
    uuid: 'a-1',
    timestamp: '2026-12-01T10:00:01.000Z',
    message: { id: 'msg_1', role: 'assistant', model: 'claude-sonnet-4-5', type: 'message', content: [{ type: 'tool_use', id: 'toolu_01', name: 'Probe', input: 'INPUT' }], stop_reason: 'tool_use' },
  },
  { ...common, parentUuid: 'a-1', type: 'user', uuid: 'u-2', timestamp: '2026-12-01T10:00:02.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'done' }] } },
];
// JSON.stringify of an object literal would drop "__proto__" (the literal sets the prototype): the input is spliced in as text.
const hostileText = '{"__proto__":{"polluted":true},"constructor":"c","9":"nine","10":"ten","!":"bang","path":"notes.md"}';
const native = records.map((r) => JSON.stringify(r).replace('"INPUT"', hostileText)).join('\n') + '\n';

describe('member names JavaScript treats specially', () => {
  it('pass through capture, redact and verify as data, and the chain verifies', () => {
    expect(Object.keys(HOSTILE_INPUT)).not.toContain('__proto__'); // why the text is spliced
    const dir = tempDir();
    const file = join(dir, `${SESSION}.jsonl`);
    writeFileSync(file, native);
    const env = { SP_HOME: join(dir, 'sp-home') };
    const captured = runBin('sp-capture', ['claude', '--path', file], { env });
    expect(captured.stderr).toBe('');
    expect(captured.code).toBe(0);
    const call = captured.stdout.split('\n').find((line) => line.includes('"tool.call"'));
    expect(call).toBeDefined();
    const input = (JSON.parse(call!) as { payload: { input: Record<string, unknown> } }).payload.input;
    expect(Object.prototype.hasOwnProperty.call(input, '__proto__')).toBe(true);
    expect(Object.keys(input).sort()).toEqual(['!', '10', '9', '__proto__', 'constructor', 'path']);
    // The canonical (JCS) order: "!" < "10" < "9" < "__proto__" by code units.
    expect(call).toContain('{"!":"bang","10":"ten","9":"nine","__proto__":{"polluted":true},"constructor":"c","path":"notes.md"}');

    const verified = runBin('sp-verify', ['-'], { input: captured.stdout, env });
    expect(verified.stdout + verified.stderr).toMatch(/verified/);
    expect(verified.stdout + verified.stderr).not.toMatch(/not in canonical form/);
    expect(verified.code).toBe(0);
    const redacted = runBin('sp-redact', ['-q'], { input: captured.stdout, env });
    expect(redacted.code).toBe(0);
    expect(redacted.stdout).toContain('"__proto__":{"polluted":true}');
    expect(runBin('sp-verify', ['-q', '-'], { input: redacted.stdout, env }).code).toBe(0);

    // Into Codex (whose writer rebuilds tool inputs with "type" first): the member is still there.
    const home = join(dir, 'codex-home');
    const written = runBin('sp-materialize', ['codex', '-q', '--home', home, '--cwd', dir], { input: redacted.stdout, env });
    expect(written.stderr).toBe('');
    expect(written.code).toBe(0);
    const rollout = readFileSync((JSON.parse(written.stdout.trim().split('\n')[0]) as { path: string }).path, 'utf8');
    expect(rollout).toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
