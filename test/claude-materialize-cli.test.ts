// `sp-materialize claude` as a command: strict input, the result line, dry runs, the report, the
// stderr summary, refusing to overwrite, and the whole pipe from sp-capture.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { canonicalize } from '../lib/core/jcs.js';
import { Chainer } from '../lib/core/chain.js';
import { SessionBuilder } from './support/canonical.js';
import { root, runBin, tempDir } from './support/streams.js';
import { readTranscript, transcriptProblems } from './support/transcript.js';

function eventsFile(events: object[], dir = tempDir()): string {
  const chainer = new Chainer();
  const path = join(dir, 'events.ndjson');
  writeFileSync(path, events.map((e) => canonicalize(chainer.chain(e as never))).join('\n') + '\n');
  return path;
}

function session(): SessionBuilder {
  const b = new SessionBuilder();
  b.user('List the files.');
  b.call('toolu_1', 'Bash', { command: 'ls' }, 'm1');
  b.call('toolu_2', 'Bash', { command: 'pwd' }, 'm1'); // never answered
  b.result('toolu_1', 'README.md');
  b.result('toolu_ghost', 'stray'); // answers nothing
  b.assistant('Done.', 'm2');
  return b;
}

function dirs(): { home: string; cwd: string } {
  const base = tempDir('sp-mat-cli-');
  mkdirSync(join(base, 'project'));
  return { home: join(base, 'home'), cwd: join(base, 'project') };
}

describe('sp-materialize claude (command)', () => {
  it('writes the session, prints one JSON line, summarizes the changes on stderr and keeps the ledger in --report', () => {
    const { home, cwd } = dirs();
    const report = join(home, '..', 'losses.ndjson');
    const r = runBin('sp-materialize', ['claude', eventsFile(session().events), '--home', home, '--cwd', cwd, '--report', report]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]);
    expect(Object.keys(result)).toEqual(expect.arrayContaining(['agent', 'session_id', 'path', 'cwd', 'resume', 'records']));
    expect(result).toMatchObject({ agent: 'claude', cwd, resume: `cd ${cwd} && CLAUDE_CONFIG_DIR=${home} claude --resume ${result.session_id}`, changes: { stubbed: 1, dropped: 1, transformed: 0 } });
    expect(transcriptProblems(readTranscript(result.path), { sessionId: result.session_id, cwd })).toEqual([]);
    expect(r.stderr).toMatch(/^sp-materialize: stubbed stub-result: 1× — seq \d+: tool_use toolu_2 \(Bash\) had no result/m);
    expect(r.stderr).toMatch(/^sp-materialize: dropped orphan-result: 1× — seq \d+: tool_result "toolu_ghost" dropped/m);

    // The ledger: canonical meta events of the new session, chained: one row per source event, then the result.
    const ledger = readFileSync(report, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const events = session().events;
    expect(ledger.map((e) => e.payload.key)).toEqual([...events.map(() => 'sp.materialize.ledger'), 'sp.materialize.result']);
    expect(ledger.slice(0, -1).map((e) => e.payload.value.seq)).toEqual(events.map((e) => e.seq));
    expect(ledger.slice(0, -1).map((e) => e.payload.value.action).filter((a) => a !== 'carried').sort()).toEqual(['dropped', 'stubbed']);
    expect(ledger.at(-1).payload.value.session_id).toBe(result.session_id);
    const verify = runBin('sp-verify', [report]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  it('reads stdin; a bad line stops it with stdin:LINE and exit 2, writing nothing', () => {
    const { home, cwd } = dirs();
    const good = readFileSync(eventsFile(session().events), 'utf8').split('\n')[0];
    const bad = runBin('sp-materialize', ['claude', '--home', home, '--cwd', cwd], { input: `${good}\n{"broken":\n` });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^sp-materialize: stdin:2: invalid JSON/);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    const notEvent = runBin('sp-materialize', ['claude', '--home', home, '--cwd', cwd], { input: `${good}\n{"type":"x"}\n` });
    expect(notEvent.code).toBe(2);
    expect(notEvent.stderr).toBe('sp-materialize: stdin:2: not a canonical event: no "session"\n');
    expect(existsSync(home)).toBe(false);
    const empty = runBin('sp-materialize', ['claude', '--home', home, '--cwd', cwd], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('sp-materialize: no events in the input\n');
  });

  it('--dry-run prints the result and every line it would write, and writes nothing', () => {
    const { home, cwd } = dirs();
    const r = runBin('sp-materialize', ['claude', eventsFile(session().events), '--home', home, '--cwd', cwd, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const [first, ...rest] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(first).toMatchObject({ agent: 'claude', dry_run: true, records: rest.length });
    expect(transcriptProblems(rest, { sessionId: first.session_id, cwd })).toEqual([]);
    expect(existsSync(home)).toBe(false);
  });

  it('--same-id refuses an existing session with exit 2 and a clear message', () => {
    const { home, cwd } = dirs();
    const file = eventsFile(session().events);
    const first = runBin('sp-materialize', ['claude', file, '--home', home, '--cwd', cwd, '--same-id']);
    expect(first.code, first.stderr).toBe(0);
    const path = JSON.parse(first.stdout).path;
    const before = readFileSync(path);
    const again = runBin('sp-materialize', ['claude', file, '--home', home, '--cwd', cwd, '--same-id']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`sp-materialize: ${path}: exists already: --same-id never overwrites a session`);
    expect(readFileSync(path)).toEqual(before);
  });

  it('--branch active writes only the active path; --mkcwd creates the project directory', () => {
    const b = new SessionBuilder();
    b.user('first');
    const a1 = b.assistant('answer one', 'm1');
    b.user('abandoned');
    b.assistant('abandoned answer', 'm2');
    b.add('message.user', { content: [{ type: 'text', text: 'again' }], string_content: true }, { parent_seq: a1.seq });
    const base = tempDir('sp-mat-cli-');
    const cwd = join(base, 'not', 'yet');
    const r = runBin('sp-materialize', ['claude', eventsFile(b.events), '--home', join(base, 'home'), '--cwd', cwd, '--branch', 'active', '--mkcwd']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(cwd)).toBe(true);
    const result = JSON.parse(r.stdout);
    const texts = readTranscript(result.path).filter((l) => l.message).map((l) => (typeof l.message.content === 'string' ? l.message.content : l.message.content[0].text));
    expect(texts).toEqual(['first', 'answer one', 'again']);
    expect(r.stderr).toMatch(/^sp-materialize: dropped other-branch: 2× — seq \d+: not on the active branch/m);
  });

  it('names unknown agents and needs one', () => {
    expect(runBin('sp-materialize', ['nosuch'], { input: '' }).stderr).toMatch(/unknown agent "nosuch"; known agents: .*claude/);
    expect(runBin('sp-materialize', [], { input: '' }).code).toBe(2);
  });

  it('takes sp-capture output through a pipe (--raw --same-id: the very file)', () => {
    const S1 = join(root, 'fixtures/claude/corpus/S1-feature/.claude/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl');
    const { home, cwd } = dirs();
    const node = process.execPath;
    const bin = (name: string) => join(root, 'dist', 'bin', `${name}.js`);
    const pipe = (materialize: string) =>
      spawnSync('bash', ['-o', 'pipefail', '-c', `"${node}" "${bin('sp-capture')}" claude --path "${S1}" --raw | "${node}" "${bin('sp-materialize')}" claude ${materialize}`], { encoding: 'utf8' });
    const copy = pipe(`--home "${home}" --cwd "${cwd}"`);
    expect(copy.status, copy.stderr).toBe(0);
    const fresh = JSON.parse(copy.stdout);
    expect(transcriptProblems(readTranscript(fresh.path), { sessionId: fresh.session_id, cwd })).toEqual([]);
    const moved = pipe(`--home "${home}" --cwd "${cwd}" --same-id`);
    expect(moved.status, moved.stderr).toBe(0);
    expect(readFileSync(JSON.parse(moved.stdout).path)).toEqual(readFileSync(S1));
    expect(readdirSync(join(home, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'))).sort()).toEqual([`${fresh.session_id}.jsonl`, 'e05d2652-6a94-447f-8b60-cded66e4199a.jsonl'].sort());
  });
});
