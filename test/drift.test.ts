// The drift watch's logic without the network (scripts/drift.mjs): a fake registry answer, a fresh
// recording with a record type and a field no fixture has, and checks that pass or fail on the
// newest and the pinned client. The real run (npm run drift) installs and runs the clients.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../adapters/index.js';
import { drift, exitCodeOf, fixtureRecordFiles, freshRecordFiles, renderPins, jsonlFiles, newShapes, recordFiles, renderMarkdown, renderTable, scriptsAllowed, shapesOfDocument, shapesOfFiles, shapesOfText, type CheckResult } from '../scripts/drift.mjs';
import { installLauncher } from '../scripts/clients.mjs';
import { DRIFT_SOURCES, DRIFT_TARGETS, WRITE_TARGETS, recorderOf } from './support/driftTargets.js';
import { TARGETS } from './support/matrix.js';

const CLAUDE_S2 = resolve('fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api/9a1dc580-54f5-46ea-bece-7461fb46da3a.jsonl');
let dir: string;
let fresh: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sp-drift-test-'));
  // A "fresh recording": a real transcript with a record type no fixture has, and a new field on a known type.
  const lines = readFileSync(CLAUDE_S2, 'utf8').trimEnd().split('\n');
  const user = JSON.parse(lines.find((l) => JSON.parse(l).type === 'user')!) as Record<string, unknown>;
  lines.push(JSON.stringify({ type: 'worktree-snapshot', sessionId: user.sessionId, paths: ['src'] }));
  lines.push(JSON.stringify({ ...user, uuid: 'u-new', worktreeLease: 'w1' }));
  fresh = join(dir, 'fresh.jsonl');
  writeFileSync(fresh, lines.join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pass = (agent: string, targets = ['claude', 'codex', 'pi']): CheckResult => ({ agent, read_ok: true, read_reason: '', fresh_files: ['fresh.jsonl'], targets: targets.map((target) => ({ target, ok: true, reason: '', ms: 1 })), ms: 1 });
const failOn = (result: CheckResult, target: string, reason = 'exit 1: unknown field'): CheckResult => ({ ...result, targets: result.targets.map((t) => (t.target === target ? { ...t, ok: false, reason } : t)) });

/** A run over the real registry with the network replaced: claude has a newer release, the others are at their pins. */
async function run(checks: { newest: CheckResult; pinned?: CheckResult }, only = ['claude', 'codex']) {
  const calls: string[] = [];
  const rows = await drift({
    adapters,
    only,
    view: (pkg) => (pkg === '@anthropic-ai/claude-code' ? '9.9.9' : adapters[Object.keys(adapters).find((id) => adapters[id]!.client?.package === pkg)!]!.client!.pinned),
    install: (client, version) => {
      calls.push(`install ${client.package}@${version}`);
      return `/scratch/${client.bin}`;
    },
    check: async (agent, bins, which) => {
      calls.push(`check ${agent} ${which} ${bins[agent] ?? 'pinned'}`);
      return which === 'newest' ? checks.newest : checks.pinned ?? checks.newest;
    },
    fixturesOf: (agent) => jsonlFiles(resolve('fixtures', agent)),
    freshOf: () => [fresh],
    checkedAt: '2026-12-02',
  });
  return { rows, calls };
}

describe('drift: record shapes', () => {
  it('names the record types and fields a fresh recording has and the fixtures never had', () => {
    const known = shapesOfFiles(jsonlFiles(resolve('fixtures/claude')));
    expect(known.types.has('user')).toBe(true);
    const found = newShapes(shapesOfFiles([fresh]), known);
    expect(found.types).toEqual(['worktree-snapshot']);
    expect(found.fields).toEqual(['user.worktreeLease']); // the new type's own fields are not listed again
    // Nested payload types are told apart (Codex: response_item/function_call …); lines that are not JSON are skipped.
    const codex = shapesOfText('{"type":"response_item","payload":{"type":"function_call","name":"x"}}\nnot json\n');
    expect([...codex.types]).toEqual(['response_item/function_call']);
    expect(codex.fields.has('response_item/function_call.payload.name')).toBe(true);
  });
});

describe('drift: the run, the table and the exit code', () => {
  it('a newer release that reads and resumes: the table names the new type and field; exit 0', async () => {
    const { rows, calls } = await run({ newest: pass('claude') });
    expect(calls).toEqual(['install @anthropic-ai/claude-code@9.9.9', 'check claude newest /scratch/claude']);
    const [claude, codex] = rows;
    expect(claude).toMatchObject({ agent: 'claude', pinned: adapters.claude!.client!.pinned, newest: '9.9.9', status: 'checked', read_ok: true, write_resume_ok: true, new_types: ['worktree-snapshot'], new_fields: ['user.worktreeLease'], regressions: [] });
    expect(codex).toMatchObject({ agent: 'codex', status: 'same', read_ok: null });
    const table = renderTable(rows);
    expect(table).toMatch(/^agent\s+pinned\s+newest\s+read ok\s+new record types \/ fields\s+write\+resume ok\n/);
    expect(table).toContain('type worktree-snapshot, user.worktreeLease');
    expect(table).toMatch(/codex\s+\S+\s+\S+ \(= pinned\)/);
    expect(renderMarkdown(rows).split('\n')[2]).toContain('| type worktree-snapshot, user.worktreeLease | yes (3/3) |');
    expect(exitCodeOf(rows)).toBe(0);
  });

  it('a resume that fails on the newest and passes on the pinned client is a regression: exit 1', async () => {
    const { rows, calls } = await run({ newest: failOn(pass('claude'), 'codex'), pinned: pass('claude') });
    expect(calls).toContain('check claude pinned pinned'); // the pinned run had no override for claude
    expect(rows[0]!.regressions).toEqual(['codex: exit 1: unknown field']);
    expect(renderTable(rows)).toContain('NO (2/3; failed: codex) REGRESSION');
    expect(exitCodeOf(rows)).toBe(1);
  });

  it('a failure the pinned client shares is a known gap, not drift: exit 0', async () => {
    const broken = failOn(pass('claude'), 'pi', 'the client timed out');
    const { rows } = await run({ newest: broken, pinned: broken });
    expect(rows[0]).toMatchObject({ write_resume_ok: false, regressions: [] });
    expect(exitCodeOf(rows)).toBe(0);
  });

  it('a read that fails on the newest (0 turns) and passes on the pinned is a regression', async () => {
    const unread: CheckResult = { ...pass('claude', []), read_ok: false, read_reason: 'the probe turn is not among the 3 events read' };
    const { rows } = await run({ newest: unread, pinned: pass('claude') });
    expect(rows[0]).toMatchObject({ read_ok: false, write_resume_ok: false });
    expect(rows[0]!.regressions[0]).toMatch(/^read: the probe turn/);
    expect(exitCodeOf(rows)).toBe(1);
  });

  it('targets the budget did not reach are neither failures nor regressions', async () => {
    const partial = failOn(pass('claude'), 'pi', 'not checked: the time budget ran out');
    const { rows } = await run({ newest: partial, pinned: pass('claude') });
    expect(rows[0]).toMatchObject({ write_resume_ok: true, regressions: [] });
    expect(renderTable(rows)).toContain('yes (2/3; not reached in the budget: pi)');
  });

  it('--force checks clients at their pin: with node_modules when it holds the pin, else a scratch copy', async () => {
    const calls: string[] = [];
    const pinnedOf = (pkg: string) => Object.values(adapters).find((a) => a.client?.package === pkg)!.client!.pinned;
    const rows = await drift({
      adapters,
      only: ['claude', 'codex'],
      force: true,
      view: pinnedOf,
      // node_modules still holds an older Claude Code (the pin was bumped, not yet reinstalled).
      installed: (pkg) => (pkg === '@anthropic-ai/claude-code' ? '0.0.1' : pinnedOf(pkg)),
      install: (client, version) => {
        calls.push(`install ${client.package}@${version}`);
        return `/scratch/${client.bin}`;
      },
      check: async (agent, bins) => {
        calls.push(`check ${agent} ${bins[agent] ?? 'node_modules'}`);
        return pass(agent);
      },
      fixturesOf: () => [],
      freshOf: () => [],
    });
    expect(calls).toEqual([`install @anthropic-ai/claude-code@${adapters.claude!.client!.pinned}`, 'check claude /scratch/claude', 'check codex node_modules']);
    expect(rows.map((r) => r.status)).toEqual(['checked', 'checked']);
  });

  it('at the pin a failure is a known gap, and an agent without a recorder is said so: neither is a regression', async () => {
    const pinnedOf = (pkg: string) => Object.values(adapters).find((a) => a.client?.package === pkg)!.client!.pinned;
    const rows = await drift({
      adapters,
      only: ['codex', 'qoder'],
      force: true,
      view: pinnedOf,
      installed: pinnedOf,
      install: () => '',
      check: async (agent) =>
        agent === 'qoder'
          ? { agent, no_recorder: true, read_ok: false, read_reason: 'no recorder: qoder is not a relay target', fresh_files: [], targets: [], ms: 0 }
          : { ...failOn(pass(agent), 'pi', 'exit 1'), read_ok: false, read_reason: 'the probe turn is not among the 0 events read' },
      fixturesOf: () => [],
      freshOf: () => [],
    });
    expect(rows.map((r) => [r.agent, r.status, r.regressions])).toEqual([['codex', 'checked', []], ['qoder', 'no recorder', []]]);
    expect(renderTable(rows)).toMatch(/qoder\s+\S+\s+\S+ \(= pinned\)\s+-\s+-\s+-/);
    expect(exitCodeOf(rows)).toBe(0);
  });

  it('a newest release that cannot be installed here: without --force an error row; with --force the pinned client is checked and the row says why', async () => {
    const pinnedOf = (pkg: string) => Object.values(adapters).find((a) => a.client?.package === pkg)!.client!.pinned;
    const setup = (force: boolean, calls: string[]) =>
      drift({
        adapters,
        only: ['kilo'],
        force,
        view: (pkg) => `${pinnedOf(pkg)}-next`,
        installed: pinnedOf,
        install: () => {
          throw new Error('@kilocode/cli-linux-x64@~7.8.0: no release of this minor on the registry');
        },
        check: async (agent, bins, which) => {
          calls.push(`check ${agent} ${which} ${bins[agent] ?? 'pinned'}`);
          return pass(agent);
        },
        fixturesOf: () => [],
        freshOf: () => [],
      });
    const plain: string[] = [];
    const [error] = await setup(false, plain);
    expect(error).toMatchObject({ status: 'error', notes: [expect.stringContaining('no release of this minor')] });
    expect(plain).toEqual([]);
    const forced: string[] = [];
    const [row] = await setup(true, forced);
    expect(forced).toEqual(['check kilo pinned pinned']);
    expect(row).toMatchObject({ status: 'checked', read_ok: true, write_resume_ok: true, regressions: [] });
    expect(row!.notes[0]).toMatch(/^the newest \(\S+-next\) cannot be installed here, so the pinned \S+ was checked: .*no release of this minor/);
    expect(exitCodeOf([row!])).toBe(0);
  });

  it('a registry that does not answer: an error row per client, exit 2; an unknown --only name is refused', async () => {
    const rows = await drift({ adapters, only: ['claude'], view: () => { throw new Error('npm view: ETIMEDOUT'); }, install: () => '', check: async () => pass('claude'), fixturesOf: () => [], freshOf: () => [] });
    expect(rows[0]).toMatchObject({ status: 'error', notes: ['npm view: ETIMEDOUT'] });
    expect(exitCodeOf(rows)).toBe(2);
    await expect(drift({ adapters, only: ['nosuch'], install: () => '', check: async () => pass('x'), fixturesOf: () => [], freshOf: () => [] })).rejects.toThrow(/no adapter with a real client named nosuch/);
  });

  it('the README pins table is written from a saved run: pinned, newest with the date, the outcome', async () => {
    const { rows } = await run({ newest: pass('claude') });
    const pins = renderPins({ checked_at: '2026-12-02T06:00:00.000Z', rows }).split('\n');
    expect(pins[2]).toBe(`| claude | \`@anthropic-ai/claude-code\` | ${adapters.claude!.client!.pinned} | 9.9.9 (2026-12-02) | read ok; write+resume ok (3/3 targets); new record types: worktree-snapshot |`);
    expect(pins[3]).toMatch(/^\| codex \| `@openai\/codex` \| (\S+) \| \1 \(2026-12-02\) \| the pinned version is the newest \|$/);
    const saved = join(dir, 'drift.json');
    writeFileSync(saved, JSON.stringify({ checked_at: '2026-12-02T06:00:00.000Z', rows }));
    const r = spawnSync(process.execPath, ['scripts/drift.mjs', '--pins-from', saved], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[2]).toBe(pins[2]);
  });

  it('the script refuses bad arguments with one line and exit 2', () => {
    for (const args of [['--only'], ['--budget', '0'], ['--frobnicate'], ['--pins-from', '/nonexistent/drift.json']]) {
      const r = spawnSync(process.execPath, ['scripts/drift.mjs', ...args], { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^drift: .+\n$/);
    }
  });
});

describe('drift: recorders for Cline, Droid, Continue, Auggie and Kilo (test/support/driftTargets.ts)', () => {
  const NEW = ['auggie', 'cline', 'continue', 'droid', 'kilo'];

  it('each has a recorder (a writer target and a session its client recorded); the relay matrix keeps its eight targets', async () => {
    expect(TARGETS).toHaveLength(8);
    expect(WRITE_TARGETS.map((t) => t.id)).toEqual([...TARGETS.map((t) => t.id), 'cline', 'droid', 'continue', 'auggie', 'kilo']);
    for (const agent of NEW) {
      const recorder = recorderOf(agent);
      expect(recorder?.target.id, agent).toBe(agent);
      expect(recorder?.source.agent, agent).toBe(agent);
      // The source is a real recording: sp reads a conversation out of it.
      const events = await recorder!.source.capture();
      expect(events.filter((e) => e.type === 'message.user').length, agent).toBeGreaterThan(0);
      expect(events.filter((e) => e.type === 'message.assistant').length, agent).toBeGreaterThan(0);
      // Its home is made inside the place it is given.
      const place = recorder!.target.prepare(join(dir, `place-${agent}`));
      expect(String(place.options.home).startsWith(join(dir, `place-${agent}`))).toBe(true);
    }
    expect(DRIFT_SOURCES.map((s) => s.agent).sort()).toEqual(NEW);
    expect(DRIFT_TARGETS.map((t) => t.id).sort()).toEqual(NEW);
    expect(recorderOf('qoder')).toBeUndefined();
  });

  it('a run with newer releases of all four: a row each with its read, new shapes and write+resume; none says "no recorder"', async () => {
    const calls: string[] = [];
    const bump = (version: string) => version.replace(/\d+$/, (n) => String(Number(n) + 1));
    const pinnedOf = (pkg: string) => Object.values(adapters).find((a) => a.client?.package === pkg)!.client!.pinned;
    const targets = WRITE_TARGETS.map((t) => t.id);
    const rows = await drift({
      adapters,
      only: NEW,
      view: (pkg) => bump(pinnedOf(pkg)),
      installed: () => undefined,
      install: (client, version) => {
        calls.push(`install ${client.package}@${version}`);
        return `/scratch/${client.bin}`;
      },
      check: async (agent, bins, which) => {
        calls.push(`check ${agent} ${which} ${bins[agent]}`);
        return pass(agent, targets);
      },
      // Droid keeps JSON lines; the others one JSON document per session.
      fixturesOf: (agent) => fixtureRecordFiles(resolve('fixtures', agent)),
      freshOf: (agent) => fixtureRecordFiles(resolve('fixtures', agent)).slice(0, 1),
      checkedAt: '2026-12-02',
    });
    expect(calls.filter((c) => c.startsWith('install'))).toEqual(NEW.map((agent) => `install ${adapters[agent]!.client!.package}@${bump(adapters[agent]!.client!.pinned)}`));
    expect(calls.filter((c) => c.startsWith('check'))).toEqual(NEW.map((agent) => `check ${agent} newest /scratch/${adapters[agent]!.client!.bin}`));
    expect(rows.map((r) => [r.agent, r.status, r.read_ok, r.write_resume_ok, r.new_types, r.new_fields])).toEqual(NEW.map((agent) => [agent, 'checked', true, true, [], []]));
    const table = renderTable(rows);
    for (const agent of NEW) expect(table).toMatch(new RegExp(`^${agent}\\s+${adapters[agent]!.client!.pinned.replace(/\./g, '\\.')}\\s+\\S+\\s+yes\\s+none\\s+yes \\(${targets.length}/${targets.length}\\)$`, 'm'));
    expect(table).not.toContain('no recorder');
  });

  it('a JSON document session is scanned as records: a new field on an item and a new list are named', () => {
    const [cline] = fixtureRecordFiles(resolve('fixtures/cline')).filter((f) => f.endsWith('.messages.json'));
    const known = shapesOfFiles(fixtureRecordFiles(resolve('fixtures/cline')));
    expect(known.types.has('(document *.messages).messages[]')).toBe(true);
    const doc = JSON.parse(readFileSync(cline!, 'utf8'));
    doc.messages.push({ ...doc.messages[0], cacheHint: 'x' });
    doc.checkpoints = [{ type: 'checkpoint', hash: 'abc' }];
    const fresh = shapesOfDocument(JSON.stringify(doc), undefined, '/x/1796999999999_abcde.messages.json');
    expect(newShapes(fresh, known)).toEqual({ types: ['(document *.messages).checkpoints[]/checkpoint'], fields: ['(document *.messages).checkpoints', '(document *.messages).messages[].cacheHint'] });
    // JSON lines win where an agent has them (Droid's settings documents are not its records).
    expect(fixtureRecordFiles(resolve('fixtures/droid')).every((f) => f.endsWith('.jsonl'))).toBe(true);
    expect(recordFiles(['a/s.json', 'b/t.jsonl'])).toEqual(['b/t.jsonl']);
    expect(shapesOfDocument('not json').types.size).toBe(0);
    // What a check saw Cline write: its session folder's documents, not the log and settings beside them.
    const seen = { ...pass('cline'), session_dir: 'home/.cline/data/sessions/1_a', fresh_files: ['home/.cline/data/logs/hooks.jsonl', 'home/.cline/data/sessions/1_a/1_a.json', 'home/.cline/data/sessions/1_a/1_a.messages.json', 'home/.cline/data/settings/providers.json'] };
    expect(freshRecordFiles(seen)).toEqual(['home/.cline/data/sessions/1_a/1_a.json', 'home/.cline/data/sessions/1_a/1_a.messages.json']);
    expect(freshRecordFiles({ ...pass('droid'), fresh_files: ['home/.factory/settings.json', 'home/.factory/sessions/p/s.jsonl'] })).toEqual(['home/.factory/sessions/p/s.jsonl']);
  });
});

describe('drift: installing a launcher whose platform binary is a package of its own (scripts/clients.mjs installLauncher)', () => {
  /** A fake npm: writes the launcher (naming its per-platform packages) and whichever of those the registry "has". */
  function fakeNpm(prefix: string, has: Record<string, string>, calls: string[][]) {
    return (args: string[]) => {
      calls.push(args);
      const write = (name: string, manifest: object) => {
        mkdirSync(join(prefix, 'node_modules', name), { recursive: true });
        writeFileSync(join(prefix, 'node_modules', name, 'package.json'), JSON.stringify(manifest));
      };
      write('@factory/cli', { version: '0.230.4', optionalDependencies: { '@factory/cli-linux-x64': '0.230.4', '@factory/cli-darwin-arm64': '0.230.4' } });
      mkdirSync(join(prefix, 'node_modules', '.bin'), { recursive: true });
      writeFileSync(join(prefix, 'node_modules', '.bin', 'droid'), '');
      for (const spec of args.filter((a) => a.includes('@~'))) {
        const name = spec.slice(0, spec.lastIndexOf('@'));
        // npm's own words: its last line only points at a log file.
        if (!has[name]) return { ok: false, output: `npm error code ETARGET\nnpm error notarget No matching version found for ${spec}.\nnpm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log\n` };
        write(name, { version: has[name] });
      }
      return { ok: true, output: '' };
    };
  }
  const client = { package: '@factory/cli', bin: 'droid' };

  it("adds the nearest patch release of this platform's binary when the exact one did not come, and says so", () => {
    const prefix = join(dir, 'launcher-1');
    const calls: string[][] = [];
    const got = installLauncher(prefix, client, '0.230.4', { platform: 'linux-x64', npm: fakeNpm(prefix, { '@factory/cli-linux-x64': '0.230.6' }, calls) });
    expect(got.bin).toBe(join(prefix, 'node_modules', '.bin', 'droid'));
    expect(calls.map((c) => c.filter((a) => a.startsWith('@')))).toEqual([['@factory/cli@0.230.4'], ['@factory/cli@0.230.4', '@factory/cli-linux-x64@~0.230.0']]);
    expect(calls[0]).toContain('--ignore-scripts');
    expect(got.notes).toEqual(['@factory/cli@0.230.4: its @factory/cli-linux-x64@0.230.4 is not on the registry; took 0.230.6, the nearest patch release']);
    expect(existsSync(join(prefix, 'node_modules', '@factory/cli-darwin-arm64'))).toBe(false);
  });

  it('a registry without any release of that minor version: one line naming the package and npm\'s reason', () => {
    const prefix = join(dir, 'launcher-2');
    expect(() => installLauncher(prefix, client, '0.230.4', { platform: 'linux-x64', ignoreScripts: false, npm: fakeNpm(prefix, {}, []) })).toThrow(
      /^@factory\/cli-linux-x64@~0\.230\.0: npm install failed: code ETARGET; notarget No matching version found for @factory\/cli-linux-x64@~0\.230\.0\.$/,
    );
  });

  it('install scripts run only for devDependencies package.json allows them for (fetched clients never)', () => {
    const manifest = { devDependencies: { a: '1', b: '1' }, allowScripts: { b: false } };
    expect([scriptsAllowed('a', manifest), scriptsAllowed('b', manifest), scriptsAllowed('cline', manifest)]).toEqual([true, false, false]);
    expect(scriptsAllowed('@factory/cli')).toBe(false);
  });
});
