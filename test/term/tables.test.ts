// The listings on a terminal: sp-capture --list, sp-sync ls and sp-sync search print aligned
// tables when stdout is a terminal (a real pseudo-terminal through script(1), or SP_FORCE_TTY=1)
// and exactly what they printed before when piped; sp-capture refuses to dump events on a terminal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { root, runBin, tempDir } from '../support/streams.js';
import { FAKE } from '../support/fakeSecrets.js';
import { displayWidth } from '../../lib/term/width.js';

let work: string;
let home: string;
let env: Record<string, string>;
const tty = { SP_FORCE_TTY: '1', COLUMNS: '60', NO_COLOR: '1' };

beforeAll(() => {
  work = tempDir('sp-tables-');
  home = join(work, 'claude');
  for (const s of ['S1-feature', 'S2-debug']) cpSync(join(root, 'fixtures/claude/corpus', s, '.claude'), home, { recursive: true });
  env = { SP_HOME: join(work, 'sp'), SP_FORCE_TTY: '', COLUMNS: '', NO_COLOR: '', FORCE_COLOR: '' };
  const events = runBin('sp-capture', ['claude', '--all', '--home', home], { env }).stdout;
  const start = (id: string, title: string) => JSON.stringify({ session: id, seq: 0, ts: 1796015000, agent: 'claude', type: 'session.start', payload: { native_id: id, title } });
  const hostile = start('sess_' + 'ab'.repeat(16), `deploy \x1b]0;pwned\x07\x1b[2J with ${FAKE.githubPat}`) + '\n';
  expect(runBin('sp-sync', ['ingest', '-q'], { env, input: events + hostile }).code).toBe(0);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('sp-capture --list', () => {
  it('a table on a terminal: aligned, cut to the width (CJK too), short ids; NDJSON when piped, as before', () => {
    const table = runBin('sp-capture', ['claude', '--list', '--home', home], { env: { ...env, ...tty } });
    expect(table.code).toBe(0);
    const rows = lines(table.stdout);
    expect(rows[0]).toMatch(/^WHEN +ID +MSGS +TOOLS +CWD +TITLE$/);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(60);
    expect(table.stdout).toContain('9a1dc580 ');
    expect(table.stdout).toMatch(/修复.*…/);
    expect(table.stdout).not.toContain('{');
    const piped = runBin('sp-capture', ['claude', '--list', '--home', home], { env });
    const json = runBin('sp-capture', ['claude', '--list', '--home', home, '--json'], { env: { ...env, ...tty } });
    expect(json.stdout).toBe(piped.stdout);
    expect(lines(piped.stdout).map((l) => (JSON.parse(l) as { native_id: string }).native_id)).toHaveLength(2);
  });

  it('capturing onto a terminal prints a note pointing at sp show, not thousands of JSON lines; --json prints them', () => {
    const refused = runBin('sp-capture', ['claude', '--latest', '--home', home], { env: { ...env, ...tty } });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^sp-capture: stdout is a terminal: .*`sp show claude --latest`.*--json/);
    const forced = runBin('sp-capture', ['claude', '--latest', '--home', home, '--json'], { env: { ...env, ...tty } });
    const piped = runBin('sp-capture', ['claude', '--latest', '--home', home], { env });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toBe(piped.stdout);
    expect(lines(piped.stdout).length).toBeGreaterThan(40);
  });

  it.runIf(spawnSync('script', ['--version']).status === 0)('on a real pseudo-terminal: a coloured table', () => {
    const cmd = `${process.execPath} ${join(root, 'dist/bin/sp-capture.js')} claude --list --home ${home}`;
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { env: { ...process.env, ...env, COLUMNS: '90' }, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('\x1b[1mWHEN');
    expect(r.stdout).toContain('e05d2652');
    expect(r.stdout).not.toContain('"native_id"');
  });
});

describe('sp-sync ls and search', () => {
  it('ls: a table on a terminal, the same plain lines as before when piped, hostile titles tamed', () => {
    const table = runBin('sp-sync', ['ls'], { env: { ...env, ...tty, COLUMNS: '80' } });
    expect(table.code).toBe(0);
    const rows = lines(table.stdout);
    expect(rows[0]).toMatch(/^WHEN +SESSION +AGENT +EVENTS +OWNER +TITLE$/);
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(80);
    expect(table.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
    expect(table.stdout).not.toContain(FAKE.githubPat);
    const piped = runBin('sp-sync', ['ls'], { env });
    for (const line of lines(piped.stdout)) expect(line).toMatch(/^sess_[0-9a-f]{32}  claude +\d+  \d{4}-\d\d-\d\d \d\d:\d\d  /);
    expect(lines(piped.stdout)).toHaveLength(3);
    const json = runBin('sp-sync', ['ls', '--json'], { env: { ...env, ...tty } });
    expect(lines(json.stdout).map((l) => (JSON.parse(l) as { id: string }).id)).toHaveLength(3);
  });

  it('status: a table on a terminal (session, owner, remote, state), NDJSON rows when piped', () => {
    const table = runBin('sp-sync', ['status'], { env: { ...env, ...tty, COLUMNS: '100' } });
    expect(table.code).toBe(0);
    const rows = lines(table.stdout);
    expect(rows[0]).toMatch(/^SESSION +EVENTS +OWNER +REMOTE +AHEAD +BEHIND +WAITING +STATE$/);
    expect(rows.slice(1).every((r) => /\(none\) +in sync$/.test(r))).toBe(true);
    expect(rows.length).toBe(4);
    const piped = runBin('sp-sync', ['status'], { env });
    expect(lines(piped.stdout).map((l) => JSON.parse(l).in_sync)).toEqual([true, true, true]);
  });

  it('search: a table on a terminal, "SESSION  seq N  TYPE: snippet" lines when piped', () => {
    const table = runBin('sp-sync', ['search', 'todos', '--limit', '3'], { env: { ...env, ...tty } });
    expect(table.code).toBe(0);
    expect(lines(table.stdout)[0]).toMatch(/^WHEN +SESSION +SEQ +TYPE +MATCH$/);
    expect(lines(table.stdout)).toHaveLength(4);
    const piped = runBin('sp-sync', ['search', 'todos', '--limit', '3'], { env });
    for (const line of lines(piped.stdout)) expect(line).toMatch(/^sess_[0-9a-f]{32}  seq \d+  [a-z.]+: /);
    const none = runBin('sp-sync', ['search', 'zzqqxxnothing'], { env: { ...env, ...tty } });
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('(no matches)\n');
  });
});
