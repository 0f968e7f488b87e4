// The Hermes adapter through the binaries (npm test builds dist/ first): sp-capture hermes selectors,
// cursors and diagnostics; sp-capture hermes | sp-materialize hermes.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { root, runBin } from '../support/streams.js';
import { CORPUS_DB, Database, S1, S2, S3_CHILD, S3_PARENT, copyDb, tempDir } from './support.js';

const HOME = dirname(CORPUS_DB);
const lines = (text: string) => text.trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));

describe('sp-capture hermes', () => {
  it('--list, --latest, --session (prefix, <id>+), --path <db>#<id> and a bare database path', () => {
    const list = runBin('sp-capture', ['hermes', '--list', '--home', HOME]);
    expect(list.code, list.stderr).toBe(0);
    expect(lines(list.stdout).map((r) => r.native_id)).toEqual([S3_CHILD, S3_PARENT, '20261130_051641_564346', S2, S1]);

    const latest = runBin('sp-capture', ['hermes', '--latest', '--cwd', '/home/dave/acme-api', '--home', HOME]);
    expect(latest.code, latest.stderr).toBe(0);
    expect(lines(latest.stdout)[0].payload.native_id).toBe(S3_CHILD);
    expect(runBin('sp-verify', [], { input: latest.stdout }).code).toBe(0);

    const byPrefix = runBin('sp-capture', ['hermes', '--session', '20261130_051619', '--home', HOME]);
    const byPath = runBin('sp-capture', ['hermes', '--path', `${CORPUS_DB}#${S1}`]);
    expect(byPrefix.stdout).toBe(byPath.stdout);
    expect(lines(byPath.stdout)[0].payload.native_id).toBe(S1);
    expect(lines(runBin('sp-capture', ['hermes', '--path', CORPUS_DB]).stdout)[0].payload.native_id).toBe(S3_CHILD);

    const chain = runBin('sp-capture', ['hermes', '--session', `${S3_CHILD}+`, '--home', HOME]);
    expect(lines(chain.stdout).filter((e) => e.type === 'session.start').map((e) => e.payload.native_id)).toEqual([S3_PARENT, S3_CHILD]);
    expect(runBin('sp-verify', [], { input: chain.stdout }).code).toBe(0);
  });

  it('bad input: one line naming the file, exit 2, no stack trace; a broken row: one line naming the db and row, exit 0', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.txt'), 'just some text '.repeat(20));
    for (const args of [['--path', join(dir, 'notes.txt')], ['--list', '--home', join(dir, 'missing')], ['--list', '--home', dir], ['--session', 'nope', '--home', HOME]]) {
      const r = runBin('sp-capture', ['hermes', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^sp-capture: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const db = copyDb();
    const h = new Database(db);
    const id = Number(h.prepare("INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES (?, 'assistant', 'text', '[{\"id\": ', 1796015796)").run(S1).lastInsertRowid);
    h.close();
    const r = runBin('sp-capture', ['hermes', '--path', `${db}#${S1}`]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^sp-capture: ${db.replace(/[.]/g, '\\.')}:${id}: tool_calls is not valid JSON`));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('--cursor: the second run prints only rows added since, continuing the chain', () => {
    const db = copyDb();
    const home = dirname(db);
    const cursor = join(tempDir(), 'hermes.cursor');
    const first = runBin('sp-capture', ['hermes', '--all', '--home', home, '--cursor', cursor]);
    expect(first.code, first.stderr).toBe(0);
    expect(runBin('sp-capture', ['hermes', '--all', '--home', home, '--cursor', cursor]).stdout).toBe('');
    const h = new Database(db);
    h.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'one more thing', 1796015799)").run(S2);
    h.close();
    const second = runBin('sp-capture', ['hermes', '--all', '--home', home, '--cursor', cursor]);
    expect(lines(second.stdout).map((e) => e.type)).toEqual(['message.user']);
    expect(runBin('sp-verify', [], { input: first.stdout + second.stdout }).code).toBe(0);
  });
});

describe('sp-capture hermes --follow', () => {
  it('emits rows and sessions that another process writes', async () => {
    const db = copyDb();
    const child = spawn(process.execPath, [join(root, 'dist', 'bin', 'sp-capture.js'), 'hermes', '--all', '--home', dirname(db), '--follow'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    // Only complete lines: a chunk may end inside one.
    const complete = () => lines(out.slice(0, out.lastIndexOf('\n') + 1));
    const until = async (test: () => boolean, what: string) => {
      for (const started = Date.now(); !test(); ) {
        if (Date.now() - started > 25_000 || child.exitCode !== null) throw new Error(`${what}: not in time (exit ${child.exitCode}); ${out.length} bytes so far; stderr: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await until(() => complete().filter((e) => e.type === 'session.start').length === 5, 'the first capture');
      const h = new Database(db);
      h.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'followed row', 1796015900)").run(S2);
      h.prepare("INSERT INTO sessions (id, source, started_at) VALUES ('20261130_090000_aaaaaa', 'cli', 1796020000)").run();
      h.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20261130_090000_aaaaaa', 'user', 'a new session', 1796020001)").run();
      h.close();
      await until(() => out.includes('a new session') && out.includes('followed row'), 'the new rows');
    } finally {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    expect(runBin('sp-verify', [], { input: out.slice(0, out.lastIndexOf('\n') + 1) }).code).toBe(0);
  }, 90_000);
});

describe('sp-capture hermes | sp-materialize hermes', () => {
  it('writes a new session, prints how to resume it, keeps the ledger; --dry-run writes nothing', () => {
    const captured = runBin('sp-capture', ['hermes', '--session', S1, '--home', HOME]).stdout;
    const home = join(tempDir(), 'new-home');
    const report = join(tempDir(), 'ledger.ndjson');
    const dry = runBin('sp-materialize', ['hermes', '--home', home, '--dry-run'], { input: captured });
    expect(dry.code, dry.stderr).toBe(0);
    expect(existsSync(home)).toBe(false);
    const [head, ...rows] = lines(dry.stdout);
    expect(head.dry_run).toBe(true);
    expect(rows).toHaveLength(26);

    const r = runBin('sp-materialize', ['hermes', '--home', home, '--report', report], { input: captured });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ agent: 'hermes', path: join(home, 'state.db'), resume: `HERMES_HOME=${home} hermes --resume ${result.session_id}` }); // a home that is not the default is named
    expect(runBin('sp-verify', [report]).code).toBe(0);
    expect(readFileSync(report, 'utf8')).toContain('sp.materialize.result');

    // Into the corpus copy: a backup first, unless --no-backup.
    const db = copyDb();
    const into = JSON.parse(runBin('sp-materialize', ['hermes', '--home', dirname(db)], { input: captured }).stdout);
    expect(existsSync(into.backup)).toBe(true);
    const plain = JSON.parse(runBin('sp-materialize', ['hermes', '--home', dirname(db), '--no-backup'], { input: captured }).stdout);
    expect(plain.backup).toBeUndefined();
    const back = runBin('sp-capture', ['hermes', '--session', plain.session_id, '--home', dirname(db)]);
    expect(lines(back.stdout).filter((e) => e.type === 'tool.call')).toHaveLength(12);
  });
});
