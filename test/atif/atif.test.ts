// ATIF in and out: the per-version schemas (each fixture valid for its version, violations named by
// JSON pointer), every version the writer can write validates, hostile input (ids that would name
// paths, broken roots, unknown versions) changes nothing and is one diagnostic line, and round trips:
// every corpus session → ATIF → canonical → ATIF is the same trajectory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ATIF_VERSIONS, atifSchema, versionOf } from '../../adapters/atif/schemas.js';
import { checkTrajectory, lineIndex, lineOf } from '../../adapters/atif/validate.js';
import { FIXTURES, run } from './support.js';
import { atif } from '../../adapters/atif/index.js';
import { STUB_RESULT } from '../../adapters/atif/materialize.js';
import type { LossEntry } from '../../lib/adapter/interface.js';
import { SessionBuilder, from } from '../support/canonical.js';

const CORPUS: [string, string][] = [
  ['claude', 'fixtures/claude/corpus/S1-feature/.claude/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl'],
  ['claude', 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl'],
  ['claude', 'fixtures/claude/corpus/S3-long/.claude/projects/-home-alice-acme-api/fedfe4e3-0d75-4e8a-ae44-125dd06bbf71.jsonl'],
  ['codex', 'fixtures/codex/corpus/S1-feature/sessions/2026/11/30/rollout-2026-11-30T05-06-52-01a22ad9-47d0-73f1-b186-11146d50904a.jsonl'],
  ['codex', 'fixtures/codex/corpus/S2-debug/sessions/2026/11/30/rollout-2026-11-30T05-07-06-01a22ad9-7cda-7dc3-af4a-0f4bdf56c072.jsonl'],
  ['codex', 'fixtures/codex/corpus/S3-long/sessions/2026/11/30/rollout-2026-11-30T05-07-12-01a22ad9-94fc-7ae2-9539-88c29f4141fc.jsonl'],
  ['pi', 'fixtures/pi/corpus/S1-feature/agent/sessions/--home-carol-acme-api--/2026-11-30T05-01-52-356Z_01a22ad4-b363-77ef-ab50-931c39c72539.jsonl'],
  ['pi', 'fixtures/pi/corpus/S2-debug/agent/sessions/--home-carol-acme-api--/2026-11-30T05-02-18-208Z_01a22ad5-1860-75b1-a6ae-a6566d610280.jsonl'],
  ['pi', 'fixtures/pi/corpus/S3-long/agent/sessions/--home-carol-acme-api--/2026-11-30T05-03-28-829Z_01a22ad6-2c3b-714c-9526-cda55a420afd.jsonl'],
];

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-atif-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const dir = (name: string): string => join(work, name);
const only = (home: string): string => {
  const files = readdirSync(home).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  return join(home, files[0]);
};
const json = (path: string): Record<string, unknown> => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

describe('ATIF schemas', () => {
  it('accept every fixture as the version it declares', async () => {
    for (const fixture of FIXTURES) {
      const doc = json(fixture);
      const version = versionOf(doc.schema_version)!;
      expect(version, fixture).toBeDefined();
      expect(await checkTrajectory(doc, version), fixture).toEqual([]);
    }
  });

  it('are published as files, one per version, equal to what sp validates with (scripts/atif-schemas.mjs)', () => {
    for (const version of ATIF_VERSIONS) {
      expect(json(`schema/atif/atif-v${version}.schema.json`), version).toEqual(JSON.parse(JSON.stringify(atifSchema(version))));
    }
  });

  it('name each violation by JSON pointer, and a field a version lacks as unknown', async () => {
    const doc = json('fixtures/atif/rfc-example-v1.4.json');
    const steps = doc.steps as Record<string, unknown>[];
    steps[1].source = 'robot';
    delete (steps[2] as Record<string, unknown>).message;
    (steps[0] as Record<string, unknown>).tool_calls = [];
    doc.trajectory_id = 'v1.7 only';
    const issues = await checkTrajectory(doc, '1.4');
    expect(issues).toContainEqual(expect.objectContaining({ pointer: '/steps/1/source' }));
    expect(issues).toContainEqual(expect.objectContaining({ pointer: '/steps/2', message: expect.stringContaining('message') }));
    expect(issues).toContainEqual(expect.objectContaining({ pointer: '/steps/0', message: expect.stringContaining('only agent steps') }));
    expect(issues).toContainEqual({ pointer: '/trajectory_id', message: expect.any(String), unknown: true });
    // The same field is no violation in the version that defines it.
    expect((await checkTrajectory({ ...doc, schema_version: 'ATIF-v1.7', steps: [] }, '1.7')).filter((i) => i.pointer === '/trajectory_id')).toEqual([]);
  });

  it('apply the RFC prose rules: step ids 1, 2, 3 … and results naming a call of their step', async () => {
    const doc = json('fixtures/atif/minimal-v1.0.json');
    const steps = doc.steps as Record<string, unknown>[];
    steps[2].step_id = 7;
    ((steps[1].observation as { results: Record<string, unknown>[] }).results[0]).source_call_id = 'elsewhere';
    const issues = await checkTrajectory(doc, '1.0');
    expect(issues.map((i) => i.pointer).sort()).toEqual(['/steps/1/observation/results/0/source_call_id', '/steps/2/step_id']);
  });

  it('place a pointer on the line it starts on', () => {
    const text = readFileSync('fixtures/atif/minimal-v1.0.json', 'utf8');
    const index = lineIndex(text);
    const lines = text.split('\n');
    expect(lines[lineOf(index, '/steps/1') - 1]).toMatch(/^\s*\{$/);
    expect(lines[lineOf(index, '/steps/1/tool_calls/0/function_name') - 1]).toContain('"bash"');
    expect(lineOf(index, '/no/such/thing')).toBe(1);
  });
});

describe('sp-materialize atif', () => {
  it('writes every version, each valid for its own schema, fields a version lacks dropped and reported', async () => {
    const events = run('sp-capture', ['atif', '--path', 'fixtures/atif/terminus-v1.7.json']).stdout;
    for (const version of ATIF_VERSIONS) {
      const home = dir(`v${version}`);
      const r = run('sp-materialize', ['atif', '--home', home, '--atif-version', version], events);
      expect(r.status, r.stderr).toBe(0);
      const path = only(home);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const doc = json(path);
      expect(doc.schema_version).toBe(`ATIF-v${version}`);
      expect(await checkTrajectory(doc, version), version).toEqual([]);
      if (version !== '1.7') expect(r.stderr, version).toMatch(/dropped atif-version/);
      else expect(r.stderr).not.toMatch(/atif-version/);
    }
    // Oldest: no llm_call_count, no trajectory_id, no tool definitions.
    const oldest = json(only(dir('v1.0')));
    expect(oldest.trajectory_id).toBeUndefined();
    expect((oldest.steps as Record<string, unknown>[]).some((s) => 'llm_call_count' in s)).toBe(false);
  });

  it('refuses an unknown version: exit 2, one line, nothing written', () => {
    const events = run('sp-capture', ['atif', '--path', 'fixtures/atif/minimal-v1.0.json']).stdout;
    const home = dir('bad-version');
    const r = run('sp-materialize', ['atif', '--home', home, '--atif-version', '2.0'], events);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^sp-materialize: --atif-version: unknown ATIF version "2\.0"/)]);
    expect(existsSync(home)).toBe(false);
  });

  it('refuses a --same-id native id that would name a path outside the home: exit 2, nothing written', () => {
    for (const hostile of ['../../escaped', '/tmp/abs', 'a/b', '..', 'x\nsp-materialize: forged line']) {
      const doc = json('fixtures/atif/minimal-v1.0.json');
      doc.session_id = hostile;
      const file = join(dir('hostile-src'), 'x.json');
      rmSync(dir('hostile-src'), { recursive: true, force: true });
      mkdtempSync(join(work, 'unused-'));
      writeFileSync(join(work, 'hostile.json'), JSON.stringify(doc));
      void file;
      const events = run('sp-capture', ['atif', '--path', join(work, 'hostile.json')]);
      expect(events.status, events.stderr).toBe(0);
      const home = dir('hostile-home');
      const r = run('sp-materialize', ['atif', '--home', home, '--same-id'], events.stdout);
      expect(r.status, hostile).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines, hostile).toHaveLength(1);
      expect(lines[0]).toMatch(/^sp-materialize: --same-id: the native id .* cannot name a file/);
      expect(existsSync(home), hostile).toBe(false);
      expect(existsSync(join(work, 'escaped.json'))).toBe(false);
    }
  });

  it('refuses to overwrite a trajectory with --same-id', () => {
    const events = run('sp-capture', ['atif', '--path', 'fixtures/atif/minimal-v1.0.json']).stdout;
    const home = dir('twice');
    expect(run('sp-materialize', ['atif', '--home', home, '--same-id'], events).status).toBe(0);
    const before = readFileSync(only(home), 'utf8');
    const r = run('sp-materialize', ['atif', '--home', home, '--same-id'], events);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/exists already; not overwriting it/);
    expect(readFileSync(only(home), 'utf8')).toBe(before);
  });
});

describe('sp-capture atif on hostile input', () => {
  const attempt = (name: string, text: string): ReturnType<typeof run> => {
    const path = join(work, name);
    writeFileSync(path, text);
    return run('sp-capture', ['atif', '--path', path]);
  };

  it('an unknown version, a broken root, or not JSON: exit 2, one line naming the pointer, no events', () => {
    const cases: [string, string, RegExp][] = [
      ['v9.json', JSON.stringify({ ...json('fixtures/atif/minimal-v1.0.json'), schema_version: 'ATIF-v9.9' }), /\/schema_version is "ATIF-v9\.9"/],
      ['noagent.json', JSON.stringify({ ...json('fixtures/atif/minimal-v1.0.json'), agent: 'x' }), /not a valid ATIF v1\.0 trajectory: \/agent: must be object/],
      ['nosession.json', JSON.stringify({ ...json('fixtures/atif/minimal-v1.0.json'), session_id: undefined }), /\/session_id must be a non-empty string/],
      ['array.json', '[1,2]', /not an ATIF trajectory: the document is not a JSON object/],
      ['cut.json', '{"schema_version": "ATIF-v1.0", "steps": [', /not JSON/],
    ];
    for (const [name, text, message] of cases) {
      const r = attempt(name, text);
      expect(r.status, name).toBe(2);
      expect(r.stdout, name).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines, name).toHaveLength(1);
      expect(lines[0], name).toMatch(/^sp-capture: /);
      expect(lines[0], name).toMatch(message);
    }
  });

  it('a broken step: one file:line diagnostic with its pointers, the step kept as meta, the rest captured', () => {
    const doc = json('fixtures/atif/minimal-v1.0.json');
    (doc.steps as Record<string, unknown>[])[1].tool_calls = [{ tool_call_id: 'c1', function_name: 'bash', arguments: 'rm -rf /' }];
    const path = join(work, 'badstep.json');
    writeFileSync(path, JSON.stringify(doc, null, 2));
    const r = run('sp-capture', ['atif', '--path', path]);
    expect(r.status).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const at = readFileSync(path, 'utf8').split('\n').findIndex((l) => l.includes('"step_id": 2')) ; // the step's `{` is the line before
    expect(lines[0]).toBe(`sp-capture: ${path}:${at}: step breaks the ATIF v1.0 schema (kept as meta): /steps/1/tool_calls/0/arguments: must be object`);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    expect(events.filter((e) => e.type === 'tool.call')).toEqual([]);
    expect(events.filter((e) => e.type === 'meta' && e.payload.key === 'atif.invalid-step')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'message.user' || e.type === 'message.assistant')).toHaveLength(2);
  });

  it('an image part names a path: kept as a reference, never opened', () => {
    const doc = json('fixtures/atif/multimodal-v1.6.json');
    ((doc.steps as Record<string, unknown>[])[0].message as Record<string, unknown>[])[1] = { type: 'image', source: { media_type: 'image/png', path: '/etc/shadow' } };
    const r = attempt('img.json', JSON.stringify(doc));
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const user = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: { content: unknown[] } }).find((e) => e.type === 'message.user')!;
    expect(user.payload.content).toEqual([{ type: 'text', text: 'What does this screenshot show?' }, { type: 'image', media_type: 'image/png', url: '/etc/shadow' }]);
  });

  it('refuses --cursor: a trajectory is captured whole', () => {
    const cursor = join(work, 'cursor.json');
    const r = run('sp-capture', ['atif', '--path', 'fixtures/atif/minimal-v1.0.json', '--cursor', cursor]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/not supported for ATIF/);
    expect(r.stdout).toBe('');
  });
});

describe('round trips', () => {
  it('every corpus session → ATIF → canonical → ATIF is the same trajectory', async () => {
    for (const [agent, fixture] of CORPUS) {
      const captured = run('sp-capture', [agent, '--path', fixture]);
      expect(captured.status, `${fixture}: ${captured.stderr}`).toBe(0);
      const first = dir(`trip1-${agent}-${fixture.length}-${CORPUS.findIndex((c) => c[1] === fixture)}`);
      const w1 = run('sp-materialize', ['atif', '--home', first], captured.stdout);
      expect(w1.status, `${fixture}: ${w1.stderr}`).toBe(0);
      const a1 = only(first);
      const doc1 = json(a1);
      expect(await checkTrajectory(doc1, '1.7'), fixture).toEqual([]);
      // Written a step at a time, the file is the bytes JSON.stringify gives for the whole document.
      expect(readFileSync(a1, 'utf8'), fixture).toBe(`${JSON.stringify(doc1, null, 2)}\n`);
      expect((doc1.steps as unknown[]).length, fixture).toBeGreaterThan(2);
      expect((doc1.extra as { sp: { source_agent: string } }).sp.source_agent).toBe(agent);

      const again = run('sp-capture', ['atif', '--path', a1]);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stderr).toBe('');
      const second = dir(`trip2-${agent}-${CORPUS.findIndex((c) => c[1] === fixture)}`);
      const w2 = run('sp-materialize', ['atif', '--home', second, '--same-id'], again.stdout);
      expect(w2.status, w2.stderr).toBe(0);
      expect(w2.stderr).toMatch(/0 dropped/);
      expect(readFileSync(only(second), 'utf8'), fixture).toBe(readFileSync(a1, 'utf8'));
    }
    // Four binaries per session, nine sessions, two shared cores.
  }, 600_000);

  it('a Claude session keeps its user texts, tool calls (names as they are) and results in ATIF', () => {
    const [, fixture] = CORPUS[0];
    const events = run('sp-capture', ['claude', '--path', fixture]).stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown>; derived_from?: number });
    const home = dir('claude-view');
    expect(run('sp-materialize', ['atif', '--home', home], events.map((e) => JSON.stringify(e)).join('\n') + '\n').status).toBe(0);
    const steps = json(only(home)).steps as { source: string; message: string; tool_calls?: { tool_call_id: string; function_name: string }[]; observation?: { results: { source_call_id?: string }[] } }[];
    const calls = events.filter((e) => e.type === 'tool.call' && e.derived_from === undefined).map((e) => [e.payload.call_id, e.payload.name]);
    expect(steps.flatMap((s) => s.tool_calls ?? []).map((c) => [c.tool_call_id, c.function_name])).toEqual(calls);
    const results = events.filter((e) => e.type === 'tool.result').map((e) => e.payload.call_id);
    expect(steps.flatMap((s) => s.observation?.results ?? []).map((r) => r.source_call_id)).toEqual(results);
    const firstUser = events.find((e) => e.type === 'message.user')!.payload.content as { type: string; text?: string }[];
    expect(steps.find((s) => s.source === 'user')!.message).toBe(firstUser.filter((b) => b.type === 'text').map((b) => b.text).join('\n'));
  });

  it('the RFC-shaped fixtures survive fixture → canonical → ATIF unchanged (embedded subagent aside)', () => {
    for (const fixture of FIXTURES) {
      const events = run('sp-capture', ['atif', '--path', fixture]).stdout;
      const home = dir(`fixture-trip-${FIXTURES.indexOf(fixture)}`);
      const version = String(json(fixture).schema_version).replace('ATIF-v', '');
      const r = run('sp-materialize', ['atif', '--home', home, '--same-id', '--atif-version', version], events);
      expect(r.status, r.stderr).toBe(0);
      const source = json(fixture);
      delete source.subagent_trajectories;
      const written = json(only(home));
      if (fixture.includes('multimodal')) {
        // The image part names a file sp does not write: dropped, and the ledger says so.
        expect(r.stderr).toMatch(/dropped image/);
        ((source.steps as Record<string, unknown>[])[0]).message = 'What does this screenshot show?';
        ((source.steps as Record<string, unknown>[])[1]).message = 'A terminal with a failing test run.';
      }
      expect(written, fixture).toEqual(source);
    }
  });
});

describe('sp-materialize atif, a step at a time (the session read by position)', () => {
  // A result that comes after later steps, a result that answers no call after a user step (it
  // joins the last agent step), and a call never answered in the middle.
  function late(): SessionBuilder {
    const b = new SessionBuilder('claude');
    b.user('Start');
    b.call('toolu_a', 'Bash', { command: 'sleep 9' }, 'm1');
    b.user('Meanwhile, look at b.js');
    b.call('toolu_b', 'Read', { file_path: 'b.js' }, 'm2');
    b.result('toolu_b', 'b body');
    b.assistant('Read it.', 'm3');
    b.result('toolu_a', 'slept');
    b.call('toolu_c', 'Bash', { command: 'never' }, 'm4');
    b.user('Go on');
    b.result('toolu_zz', 'stray');
    b.assistant('Done.', 'm5');
    return b;
  }

  it('each result in the step of its call, in the order results came; the stub last, reported last; valid and as JSON.stringify writes it', async () => {
    const home = dir('late');
    const losses: LossEntry[] = [];
    const result = await atif.materialize!(from(late().events), { home, onLoss: (l) => losses.push(l) });
    const text = readFileSync(result.path, 'utf8');
    const doc = JSON.parse(text) as { steps: Array<Record<string, any>>; final_metrics: Record<string, number> };
    expect(text).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    expect(await checkTrajectory(doc, '1.7')).toEqual([]);
    expect(result.records).toBe(doc.steps.length);
    expect(doc.final_metrics.total_steps).toBe(doc.steps.length);
    expect(doc.steps.map((s) => [s.step_id, s.source, s.message])).toEqual([
      [1, 'user', 'Start'],
      [2, 'agent', ''],
      [3, 'user', 'Meanwhile, look at b.js'],
      [4, 'agent', ''],
      [5, 'agent', 'Read it.'],
      [6, 'agent', ''],
      [7, 'user', 'Go on'],
      [8, 'agent', 'Done.'],
    ]);
    expect(doc.steps[1].observation.results).toEqual([{ source_call_id: 'toolu_a', content: 'slept' }]);
    expect(doc.steps[3].observation.results).toEqual([{ source_call_id: 'toolu_b', content: 'b body' }]);
    // The stray result joined the last agent step before it (after the user step), the stub after it.
    expect(doc.steps[5].tool_calls.map((c: Record<string, unknown>) => c.tool_call_id)).toEqual(['toolu_c']);
    expect(doc.steps[5].observation.results).toEqual([{ content: 'stray' }, { source_call_id: 'toolu_c', content: STUB_RESULT, extra: { is_error: true } }]);
    const codes = losses.map((l) => l.code);
    expect(codes[codes.length - 1]).toBe('stub-result');
    expect(codes.filter((c) => c === 'stub-result')).toHaveLength(1);
  });
});
