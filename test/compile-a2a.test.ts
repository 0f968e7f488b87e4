// sp-compile --format a2a: the handoff as an A2A (protocol 0.3.0) Task, validated against the
// restated schema; byte-stable; the artifact's text is the budgeted message handoff.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { CORPUS, captureFile } from './support/compile.js';
import { runBin, writeLines } from './support/streams.js';

const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'schema', 'a2a-task.schema.json'), 'utf8'));
const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);

describe('sp-compile --format a2a', { timeout: 240_000 }, () => {
  it('renders a schema-valid Task for corpus sessions, its artifact the message handoff', () => {
    for (const session of (['claude', 'codex', 'pi'] as const).map((a) => CORPUS.find((s) => s.agent === a)!)) {
      const file = captureFile(session);
      const r = runBin('sp-compile', ['--for', 'codex', '--format', 'a2a', '--render', '--no-workspace', file]);
      expect(r.code, r.stderr).toBe(0);
      const task = JSON.parse(r.stdout);
      expect(validate(task), JSON.stringify(validate.errors)).toBe(true);
      expect(task.kind).toBe('task');
      expect(task.status.state).toBe('submitted');
      const [text, data] = task.artifacts[0].parts;
      const message = runBin('sp-compile', ['--for', 'codex', '--render', '--no-workspace', file]).stdout;
      expect(text.text).toBe(message);
      expect(data.data.tokens).toBeLessThanOrEqual(data.data.budget);
      expect(data.data.items.length).toBeGreaterThan(0);
      expect(data.data.items.every((i: { seqs?: unknown }) => Array.isArray(i.seqs))).toBe(true);
      // The same input compiles to the same bytes (ids come from the content).
      expect(runBin('sp-compile', ['--for', 'codex', '--format', 'a2a', '--render', '--no-workspace', file]).stdout).toBe(r.stdout);
    }
  });

  it('carries the task in the chained context.compiled event', () => {
    const file = captureFile(CORPUS[0]);
    const r = runBin('sp-compile', ['--for', 'claude', '--format', 'a2a', '--no-workspace', file]);
    expect(r.code, r.stderr).toBe(0);
    const compiled = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(compiled.payload.format).toBe('a2a');
    expect(compiled.payload.a2a_protocol).toBe('0.3.0');
    expect(validate(JSON.parse(compiled.payload.text))).toBe(true);
    expect(runBin('sp-verify', ['-'], { input: r.stdout }).code).toBe(0);
  });

  it('the schema rejects what A2A 0.3.0 rejects', () => {
    const good = { kind: 'task', id: 't', contextId: 'c', status: { state: 'submitted' }, artifacts: [{ artifactId: 'a', parts: [{ kind: 'text', text: 'x' }] }] };
    expect(validate(good)).toBe(true);
    expect(validate({ ...good, kind: 'message' })).toBe(false);
    expect(validate({ ...good, status: { state: 'done' } })).toBe(false);
    expect(validate({ ...good, artifacts: [{ artifactId: 'a', parts: [{ kind: 'text' }] }] })).toBe(false);
    expect(validate({ ...good, contextId: undefined })).toBe(false);
  });

  it('refuses --out with a2a (it is printed, not written into a folder)', () => {
    const file = writeLines([JSON.stringify({ session: 's', seq: 0, ts: 1, agent: 'claude', type: 'session.start', payload: {} }), JSON.stringify({ session: 's', seq: 1, ts: 2, agent: 'claude', type: 'message.user', payload: { content: [{ type: 'text', text: 'hi' }] } })]);
    const r = runBin('sp-compile', ['--for', 'codex', '--format', 'a2a', '--out', '.', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sp-compile: --out: /);
  });
});
