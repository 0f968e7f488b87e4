// The validators the build generates (dist/lib/core/schema.validators.cjs, ajv standalone code) give
// the verdicts and the error text of the schemas compiled at run time: on every event of the recorded
// corpora and on a set of bad events. Needs the build (npm test builds first).
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalize } from '../lib/core/jcs.js';
import { compileValidator, PRECOMPILED, type EventValidator } from '../lib/core/schema.js';
import { root, runBin, writeLines } from './support/streams.js';

let compiled: EventValidator;
let generated: EventValidator;
beforeAll(async () => {
  compiled = await compileValidator();
  const dist = (await import(join(root, 'dist/lib/core/schema.js'))) as typeof import('../lib/core/schema.js');
  generated = await dist.createValidator();
});

/** Every event of the recorded corpora: the expected streams, and Claude's, Codex's and Pi's long sessions captured. */
async function corpus(): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const agent of ['pi', 'hermes']) {
    const dir = join(root, 'fixtures', agent, 'expected');
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ndjson'))) {
      for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) if (line) out.push(JSON.parse(line));
    }
  }
  const { adapters } = await import('../adapters/index.js');
  const fixtures = join(root, 'fixtures');
  for (const [agent, path] of [
    ['claude', `${fixtures}/claude/corpus/S3-long/.claude/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71.jsonl`],
    ['codex', `${fixtures}/codex/corpus/S3-long/sessions/2026/11/30/rollout-2026-11-30T05-07-12-01a22ad9-94fc-7ae2-9539-88c29f4141fc.jsonl`],
  ]) {
    const adapter = adapters[agent];
    for await (const e of adapter.capture(await adapter.open(path, {}), { raw: true })) out.push(JSON.parse(canonicalize(e)));
  }
  return out;
}

const good = () => ({ session: 'sess_1', seq: 0, ts: 1790000000.5, agent: 'claude', type: 'tool.call', payload: { call_id: 'toolu_1', name: 'Bash', input: { command: 'ls' } } });

// Envelope and payload faults of each kind the schemas check (required, type, pattern, range, enum, length).
const bad: unknown[] = [
  null, 42, 'text', [], {},
  ...['session', 'seq', 'ts', 'agent', 'type', 'payload'].map((k) => Object.fromEntries(Object.entries(good()).filter(([key]) => key !== k))),
  { ...good(), session: '' }, { ...good(), session: 'x'.repeat(300) }, { ...good(), seq: -1 }, { ...good(), seq: 1.5 }, { ...good(), seq: '0' },
  { ...good(), ts: 'yesterday' }, { ...good(), type: 'Not A Type' }, { ...good(), type: '' }, { ...good(), payload: [] }, { ...good(), payload: null },
  { ...good(), checksum: 'md5:00' }, { ...good(), agent: 7 },
  { ...good(), payload: {} }, { ...good(), payload: { call_id: 1, name: 'Bash', input: {} } }, { ...good(), payload: { call_id: 'c', name: '', input: {} } },
  { ...good(), type: 'tool.result', payload: {} }, { ...good(), type: 'message.user', payload: { text: 5 } }, { ...good(), type: 'message.assistant', payload: null },
  { ...good(), type: 'decision', payload: { what: 1 } }, { ...good(), type: 'checkpoint', payload: [] }, { ...good(), type: 'handoff', payload: 'x' }, { ...good(), type: 'meta', payload: 3 },
];

describe('generated schema validators', () => {
  it('are built next to the compiled schema module', () => {
    expect(existsSync(join(root, 'dist/lib/core', PRECOMPILED))).toBe(true);
  });

  it('give every corpus event the verdict of the run-time compile', async () => {
    const events = await corpus();
    expect(events.length).toBeGreaterThan(800);
    for (const e of events) expect(generated.validate(e)).toEqual(compiled.validate(e));
    // Corrupt one field of each event so the payload checks are exercised on real shapes too.
    let rejected = 0;
    for (const e of events as Array<Record<string, unknown>>) {
      const payload = e.payload as Record<string, unknown>;
      const key = Object.keys(payload ?? {})[0];
      if (!key) continue;
      const broken = { ...e, payload: { ...payload, [key]: { nested: [null] } } };
      const issues = compiled.validate(broken);
      expect(generated.validate(broken)).toEqual(issues);
      if (issues.length) rejected += 1;
    }
    expect(rejected).toBeGreaterThan(100);
  });

  it('give the bad events the same issues, paths and messages', () => {
    for (const e of bad) {
      const issues = compiled.validate(e);
      expect(issues, JSON.stringify(e)).not.toEqual([]);
      expect(generated.validate(e), JSON.stringify(e)).toEqual(issues);
    }
    for (const m of [{}, { session: 5 }, null]) expect(generated.validateManifest(m)).toEqual(compiled.validateManifest(m));
  });

  it('make sp-verify print the run-time compile\'s message for a bad event', () => {
    const e = { ...good(), seq: -1 };
    const r = runBin('sp-verify', ['--no-color', writeLines([JSON.stringify(e)])]);
    expect(r.code).not.toBe(0);
    const [issue] = compiled.validate(e);
    expect(r.stdout + r.stderr).toContain(issue.message);
    expect(r.stdout + r.stderr).toContain(issue.path);
  });
});
