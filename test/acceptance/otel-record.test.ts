// Acceptance with the real client: the pinned Claude Code (@anthropic-ai/claude-code) runs one short
// session against a local mock Anthropic API with its telemetry on (OTLP/HTTP JSON logs to a local
// receiver), exactly as scripts/record-otel.mjs records the fixtures; `sp-capture otel` must then
// give the prompt, the model calls and the Read tool call with its input as canonical events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../atif/support.js';
// @ts-expect-error: a plain ES module without declarations.
import { PROMPT, REPLY, VERSIONS, claudeBin, recordClaude } from '../../scripts/record-otel.mjs';

type Ev = { type: string; ts: number; payload: Record<string, unknown> };

/** Why the client cannot run here, or undefined when it can. */
function unavailable(): string | undefined {
  const bin = claudeBin() as string;
  if (!existsSync(bin)) return `the Claude Code client is not installed (${bin}); run npm install or set CLAUDE_BIN`;
  const home = mkdtempSync(join(tmpdir(), 'sp-otel-version-'));
  try {
    const r = spawnSync(bin, ['--version'], { env: { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), DISABLE_AUTOUPDATER: '1' }, encoding: 'utf8', timeout: 30_000 });
    if (r.status !== 0) return `the Claude Code client does not run here: ${(r.stderr || String(r.error ?? '')).trim().split('\n')[0]}`;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return undefined;
}
const skipReason = unavailable();

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-otel-record-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('otel acceptance: a fresh Claude Code session recorded with telemetry on is captured by sp-capture otel', () => {
  it('the prompt, the model calls and the Read tool call come through', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const recorded = await recordClaude(work, { timeoutMs: 60_000 });
    expect(recorded.timedOut, recorded.stderr).toBe(false);
    expect(recorded.code, recorded.stderr).toBe(0);
    // The client spoke OTLP/JSON to /v1/logs: nothing was refused, something arrived.
    expect(recorded.refused).toEqual([]);
    expect(recorded.lines.length).toBeGreaterThan(0);
    const file = join(work, 'claude-otel.jsonl');
    writeFileSync(file, recorded.lines.join('\n') + '\n');

    const r = run('sp-capture', ['otel', '--path', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Ev);
    expect(events[0]).toMatchObject({ type: 'session.start', payload: { client: 'claude', version: VERSIONS.claude } });
    expect(events.filter((e) => e.type === 'message.user').map((e) => e.payload.content)).toEqual([[{ type: 'text', text: PROMPT }]]);
    const call = events.find((e) => e.type === 'tool.call');
    expect(call?.payload).toMatchObject({ call_id: 'toolu_01SpOtelRead', name: 'Read', input: { file_path: join(recorded.ws.proj, 'notes.txt') } });
    expect(events.find((e) => e.type === 'tool.result')?.payload).toMatchObject({ call_id: 'toolu_01SpOtelRead' });
    const calls = events.filter((e) => e.type === 'message.assistant' && (e.payload.content as unknown[]).length === 0);
    expect(calls.length).toBe(2);
    for (const c of calls) expect((c.payload.usage as Record<string, number>).input_tokens).toBe(1200);
    expect(events.some((e) => e.type === 'message.assistant' && JSON.stringify(e.payload.content).includes(REPLY))).toBe(true);
  }, 120_000);
});
