// The Pi adapter through the binaries (npm test builds dist/ first): sp-capture pi selectors and
// sp-materialize pi, piped as a user would run them.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBin, tempDir } from '../support/streams.js';
import { PI, S2, S3 } from './support.js';

const HOME_S3 = `${PI}corpus/S3-long/agent`;

describe('sp-capture pi', () => {
  it('--list shows the sessions of a home; --latest --cwd and --session capture one that verifies', () => {
    const list = runBin('sp-capture', ['pi', '--list', '--home', HOME_S3]);
    expect(list.code).toBe(0);
    const ref = JSON.parse(list.stdout.trim());
    expect(ref).toMatchObject({ agent: 'pi', native_id: '01a22ad6-2c3b-714c-9526-cda55a420afd', branches: 2, messages: 38, tool_calls: 19 });

    const latest = runBin('sp-capture', ['pi', '--latest', '--cwd', '/home/carol/acme-api', '--home', HOME_S3]);
    expect(latest.code, latest.stderr).toBe(0);
    const byId = runBin('sp-capture', ['pi', '--session', '01a22ad6', '--home', HOME_S3]);
    expect(byId.stdout).toBe(latest.stdout);
    const verify = runBin('sp-verify', [], { input: latest.stdout });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(latest.stdout.trim().split('\n')).toHaveLength(101);
  });

  it('reports a bad line as file:line on stderr and keeps going', () => {
    const dir = tempDir();
    const path = join(dir, 'broken.jsonl');
    writeFileSync(path, readFileSync(S2, 'utf8').replace('\n', '\n{"type":"message",\n'));
    const r = runBin('sp-capture', ['pi', '--path', path]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^sp-capture: ${path}:2: invalid JSON`));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('sp-capture pi | sp-materialize pi', () => {
  it('writes a new session, prints how to resume it, and keeps the loss ledger', () => {
    const dir = tempDir();
    const cwd = join(dir, 'project');
    mkdirSync(cwd);
    const events = runBin('sp-capture', ['pi', '--session', '01a22ad6', '--home', HOME_S3]).stdout;
    const r = runBin('sp-materialize', ['pi', '--home', join(dir, 'agent'), '--cwd', cwd, '--report', join(dir, 'report.ndjson')], { input: events });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout.trim());
    expect(Object.keys(result).slice(0, 5)).toEqual(['agent', 'session_id', 'path', 'cwd', 'resume']);
    expect(result.resume).toBe(`cd ${cwd} && PI_CODING_AGENT_DIR=${join(dir, 'agent')} pi --session ${result.path}`);
    expect(result.path.startsWith(join(dir, 'agent', 'sessions', `--${cwd.slice(1).replace(/\//g, '-')}--`))).toBe(true);
    expect(readFileSync(result.path, 'utf8').trim().split('\n')).toHaveLength(62);
    const report = readFileSync(join(dir, 'report.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(report[report.length - 1].payload).toMatchObject({ key: 'sp.materialize.result', value: { agent: 'pi', branches: 2 } });
  });

  it('--branch active drops the other branch (said on stderr); --dry-run writes nothing', () => {
    const dir = tempDir();
    const events = runBin('sp-capture', ['pi', '--path', S3]).stdout;
    const r = runBin('sp-materialize', ['pi', '--home', join(dir, 'agent'), '--cwd', dir, '--branch', 'active', '--dry-run'], { input: events });
    expect(r.code, r.stderr).toBe(0);
    const [first, ...lines] = r.stdout.trim().split('\n');
    expect(JSON.parse(first)).toMatchObject({ dry_run: true, branches: 1 });
    expect(lines).toHaveLength(56);
    expect(existsSync(join(dir, 'agent'))).toBe(false);
    expect(r.stderr).toMatch(/dropped other-branch: 6×/);
  });

  it('a missing cwd is a usage error with one clear line; --mkcwd creates it', () => {
    const dir = tempDir();
    const missing = join(dir, 'gone');
    const events = runBin('sp-capture', ['pi', '--path', S2]).stdout;
    const r = runBin('sp-materialize', ['pi', '--home', join(dir, 'agent'), '--cwd', missing], { input: events });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`sp-materialize: ${missing}: the session cwd does not exist here, and Pi refuses to resume a session whose cwd is missing ("Stored session working directory does not exist"): create it, pass --mkcwd, or pass --cwd DIR\n`);
    const ok = runBin('sp-materialize', ['pi', '--home', join(dir, 'agent'), '--cwd', missing, '--mkcwd'], { input: events });
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(missing)).toBe(true);
  });

  it('--raw | --same-id moves a session byte for byte', () => {
    const dir = tempDir();
    // A copy whose header cwd exists here (the recorded one does not).
    const lines = readFileSync(S2, 'utf8').split('\n');
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]), cwd: dir });
    const source = join(dir, S2.split('/').pop()!);
    writeFileSync(source, lines.join('\n'));
    const events = runBin('sp-capture', ['pi', '--path', source, '--raw']).stdout;
    const r = runBin('sp-materialize', ['pi', '--home', join(dir, 'agent'), '--same-id'], { input: events });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout.trim());
    expect(result).toMatchObject({ session_id: '01a22ad5-1860-75b1-a6ae-a6566d610280', written_as: 'raw' });
    expect(readFileSync(result.path)).toEqual(readFileSync(source));
  });
});
