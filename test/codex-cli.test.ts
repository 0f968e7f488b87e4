// sp-capture codex | sp-materialize codex through the compiled binaries (npm test builds first):
// the pipeline, the result line, --report, --dry-run, --same-id refusing to overwrite, and bad input
// as one diagnostic line with exit 2.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBin } from './support/streams.js';
import { S1_HOME, S2 } from './support/codexFixtures.js';

const home = (): string => mkdtempSync(join(tmpdir(), 'sp-codex-cli-'));

describe('sp-capture codex | sp-materialize codex', () => {
  it('lists, captures and writes a new session; the report is a chained ledger', () => {
    const list = runBin('sp-capture', ['codex', '--list', '--home', S1_HOME]);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout.trim().split('\n')[0])).toMatchObject({ agent: 'codex', native_id: '01a22ad9-47d0-73f1-b186-11146d50904a', tool_calls: 11 });

    const captured = runBin('sp-capture', ['codex', '--path', S2]);
    expect(captured.code, captured.stderr).toBe(0);
    const h = home();
    const report = join(h, 'report.ndjson');
    const written = runBin('sp-materialize', ['codex', '--home', h, '--report', report], { input: captured.stdout });
    expect(written.code, written.stderr).toBe(0);
    const result = JSON.parse(written.stdout);
    expect(Object.keys(result).slice(0, 5)).toEqual(['agent', 'session_id', 'path', 'cwd', 'resume']);
    // A scratch home is named on the line, or the client would look in ~/.codex.
    expect(result.resume).toBe(`cd /home/bob/acme-api && CODEX_HOME=${h} codex resume ${result.session_id}`);
    expect(existsSync(result.path)).toBe(true);
    // Every change is on stderr (one line per kind) and in the report, which verifies.
    expect(written.stderr).toMatch(/transformed ui-echo/);
    const verified = runBin('sp-verify', [report]);
    expect(verified.code, verified.stderr + verified.stdout).toBe(0);
    const last = JSON.parse(readFileSync(report, 'utf8').trim().split('\n').pop()!);
    expect(last.payload).toMatchObject({ key: 'sp.materialize.result', value: { session_id: result.session_id } });
  });

  it('--dry-run prints the result then the lines; --same-id --raw is byte-identical and never overwrites', () => {
    const h = home();
    const raw = runBin('sp-capture', ['codex', '--path', S2, '--raw']);
    const dry = runBin('sp-materialize', ['codex', '--home', h, '--dry-run'], { input: raw.stdout });
    expect(dry.code, dry.stderr).toBe(0);
    const out = dry.stdout.trim().split('\n');
    expect(JSON.parse(out[0]).dry_run).toBe(true);
    expect(JSON.parse(out[1]).type).toBe('session_meta');
    expect(existsSync(join(h, 'sessions'))).toBe(false);

    const same = runBin('sp-materialize', ['codex', '--home', h, '--same-id'], { input: raw.stdout });
    expect(same.code, same.stderr).toBe(0);
    expect(readFileSync(JSON.parse(same.stdout).path).equals(readFileSync(S2))).toBe(true);
    const again = runBin('sp-materialize', ['codex', '--home', h, '--same-id'], { input: raw.stdout });
    expect(again.code).toBe(2);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(/exists already/);
  });

  it('bad input: one diagnostic line naming file:line, exit 2, no stack trace', () => {
    const h = home();
    const events = join(h, 'events.ndjson');
    const captured = runBin('sp-capture', ['codex', '--path', S2]).stdout.split('\n');
    writeFileSync(events, [captured[0], '{"type": broken', ...captured.slice(1)].join('\n'));
    const bad = runBin('sp-materialize', ['codex', events, '--home', h]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(new RegExp(`${events}:2: `));
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const missing = runBin('sp-capture', ['codex', '--session', 'nope', '--home', S1_HOME]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });
});
