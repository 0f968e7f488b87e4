// External adapters as programs (docs/external-adapters.md), through the compiled binaries: the
// example adapter examples/sp-adapter-jsonl found on PATH by sp-capture and sp-materialize, checked
// by `sp adapter test`, and hostile adapters — one claiming a file outside the home, one with a
// shell line for a resume program, one that hangs, one that floods, one printing invalid events —
// each refused with one line on stderr and exit 2 (1 for the failed contract check).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, runBin } from './support/streams.js';

type Json = Record<string, any>;
const lines = (text: string): Json[] => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json);

// One hostile program, installed under several names; its name says how it misbehaves.
const HOSTILE = `#!${process.execPath}
const { basename, join } = require('node:path');
const { existsSync, mkdirSync, readdirSync, writeFileSync } = require('node:fs');
const name = basename(process.argv[1]).slice('sp-adapter-'.length);
const reply = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
let input = '';
process.stdin.on('data', (d) => {
  input += d;
  const nl = input.indexOf('\\n');
  if (nl === -1 || globalThis.started) return;
  globalThis.started = true;
  const request = JSON.parse(input.slice(0, nl));
  if (request.op === 'describe') {
    if (name === 'hang') return setInterval(() => undefined, 60_000); // stays alive, never answers
    return reply({ type: 'result', protocol: 1, name, version: '1.0.0', home_env: 'HOSTILE_HOME', default_home: '/nonexistent-hostile', capabilities: { capture: true, materialize: true } });
  }
  if (request.op === 'list') {
    if (name === 'flood') { const junk = JSON.stringify({ type: 'session', id: 'x', path: '/x', title: 'y'.repeat(1000) }) + '\\n'; const pump = () => { while (process.stdout.write(junk)); process.stdout.once('drain', pump); }; return pump(); }
    // The sessions are the *.log files of the home (the ones materialize wrote).
    const logs = request.home && existsSync(request.home) ? readdirSync(request.home).filter((f) => f.endsWith('.log')) : [];
    for (const f of logs) reply({ type: 'session', id: f.slice(0, -4), path: join(request.home, f) });
    return reply({ type: 'result' });
  }
  if (request.op === 'capture') {
    reply({ type: 'event', event: { ts: 1, type: 'session.start', payload: { native_id: 's1' } } });
    reply({ type: 'event', event: { ts: 2, payload: { content: [{ type: 'text', text: 'no type' }] } } }); // invalid: no "type"
    return reply({ type: 'result' });
  }
  if (request.op === 'materialize') {
    process.stdin.on('end', () => {
      mkdirSync(request.home, { recursive: true });
      if (name === 'outside') {
        writeFileSync(join(request.home, 'inside.log'), 'x');
        return reply({ type: 'result', native_id: 'n1', files: ['inside.log', '../escaped.log'], resume: { argv: ['cat', 'n1'] } });
      }
      writeFileSync(join(request.home, 'n1.log'), 'x');
      const program = name === 'shell' ? 'sh -c "rm -rf ~"' : 'cat';
      reply({ type: 'result', native_id: 'n1', files: ['n1.log'], resume: { argv: [program, 'n1'] } });
    });
  }
});
`;

let work: string;
let bin: string;
let home: string;
let env: Record<string, string>;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-external-'));
  bin = join(work, 'bin');
  home = join(work, 'chats');
  mkdirSync(bin);
  mkdirSync(home);
  symlinkSync(join(root, 'examples/sp-adapter-jsonl/sp-adapter-jsonl.mjs'), join(bin, 'sp-adapter-jsonl'));
  writeFileSync(join(bin, 'hostile.cjs'), HOSTILE);
  chmodSync(join(bin, 'hostile.cjs'), 0o755);
  for (const name of ['outside', 'shell', 'hang', 'flood', 'badevents']) symlinkSync(join(bin, 'hostile.cjs'), join(bin, `sp-adapter-${name}`));
  writeFileSync(
    join(home, 'deploy-notes.jsonl'),
    [
      { role: 'user', content: 'How do I deploy the API?', ts: '2026-01-05T09:00:00Z' },
      { role: 'assistant', content: 'Run npm run deploy from the repo root.', ts: '2026-01-05T09:00:04Z' },
      { role: 'system', content: 'model: small', ts: '2026-01-05T09:00:05Z' },
    ]
      .map((m) => JSON.stringify(m))
      .join('\n') + '\nnot json\n',
  );
  // The adapters' folder first; node stays reachable for the example's `#!/usr/bin/env node`.
  env = { PATH: `${bin}:${process.env.PATH}`, JSONL_CHAT_HOME: home, SP_ADAPTER_TIMEOUT_MS: '20000' };
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The example adapter's capture of its home's latest log (taken once: each run starts two programs). */
let latest: { code: number; stdout: string; stderr: string } | undefined;
const jsonlLatest = () => (latest ??= runBin('sp-capture', ['jsonl', '--latest', '--json'], { env }));

/** stderr less the lines an adapter passed through: what sp itself said. */
const spLines = (stderr: string) => stderr.split('\n').filter((l) => l !== '' && !l.startsWith('sp-adapter-'));

/** A refusal: exit 2, exactly one line of sp's own on stderr, no stack trace. */
function expectRefused(r: { code: number; stderr: string }, pattern: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(spLines(r.stderr), r.stderr).toHaveLength(1);
  expect(spLines(r.stderr)[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
}

describe('the example adapter through PATH', () => {
  it('sp-capture jsonl --list lists the logs of its home', () => {
    const r = runBin('sp-capture', ['jsonl', '--list', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const refs = lines(r.stdout);
    expect(refs).toHaveLength(1);
    expect(refs[0]).toMatchObject({ agent: 'jsonl', native_id: 'deploy-notes', path: join(home, 'deploy-notes.jsonl'), title: 'How do I deploy the API?' });
  });

  it('sp-capture jsonl --latest gives valid chained events; a bad line is kept and reported with file:line', () => {
    const r = jsonlLatest();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`sp-adapter-jsonl: ${join(home, 'deploy-notes.jsonl')}:4: not JSON`);
    const events = lines(r.stdout);
    expect(events.map((e) => e.type)).toEqual(['session.start', 'message.user', 'message.assistant', 'meta', 'meta']);
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(events.every((e) => e.agent === 'jsonl' && e.session === events[0].session)).toBe(true);
    expect(events[4].payload).toMatchObject({ key: 'unparseable', text: 'not json' });
    const v = runBin('sp-verify', ['-'], { input: r.stdout });
    expect(v.code, v.stdout + v.stderr).toBe(0);
  });

  it('sp-materialize jsonl writes a new log under the home, and sp-capture reads it back', () => {
    const source = runBin('sp-capture', ['claude', '--path', join(root, 'fixtures/claude/corpus/S1-feature/.claude/projects/-home-alice-acme-api/e05d2652-6a94-447f-8b60-cded66e4199a.jsonl')], { env });
    expect(source.code, source.stderr).toBe(0);
    const out = join(work, 'written');
    const r = runBin('sp-materialize', ['jsonl', '--home', out, '--cwd', work], { env, input: source.stdout });
    expect(r.code, r.stderr).toBe(0);
    const result = lines(r.stdout)[0];
    expect(result.agent).toBe('jsonl');
    expect(result.path).toBe(join(out, `${result.session_id}.jsonl`));
    expect(statSync(result.path).mode & 0o777).toBe(0o600);
    expect(result.resume).toBe(`cd ${work} && JSONL_CHAT_HOME=${out} sp-adapter-jsonl --print ${result.session_id}`);
    expect(result.resume_exec).toEqual({ cwd: work, argv: ['sp-adapter-jsonl', '--print', result.session_id], env: { JSONL_CHAT_HOME: out } });
    const back = runBin('sp-capture', ['jsonl', '--path', result.path, '--json'], { env });
    expect(back.code, back.stderr).toBe(0);
    const texts = lines(back.stdout).filter((e) => e.type === 'message.user').map((e) => e.payload.content[0].text as string);
    expect(texts.length).toBeGreaterThan(0);
    // The relay's header leads, then the session's own first prompt.
    expect(texts.join('\n')).toContain(lines(source.stdout).find((e) => e.type === 'message.user' && typeof e.payload.content?.[0]?.text === 'string')!.payload.content[0].text);
  });

  it('sp adapter test passes the example adapter', () => {
    const r = runBin('sp', ['adapter', 'test', 'sp-adapter-jsonl'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows.map((l) => l.split(/\s{2,}/)[1])).toEqual(['describe', 'list: empty home', 'materialize', 'list: the written session', 'capture', 'round trip', 'unknown session']);
    expect(rows.every((l) => l.startsWith('PASS'))).toBe(true);
  });

  it('a name that is not an adapter name is never looked up', () => {
    writeFileSync(join(bin, 'sp-adapter-.._x'), '#!/bin/sh\necho ran > ' + join(work, 'ran') + '\n', { mode: 0o755 });
    const r = runBin('sp-capture', ['.._x', '--list', '--json'], { env });
    expectRefused(r, /unknown agent/);
    expect(existsSync(join(work, 'ran'))).toBe(false);
  });
});

describe('hostile adapters', () => {
  it('a written file outside the home is refused', () => {
    const out = join(work, 'outside-home');
    const r = runBin('sp-materialize', ['outside', '--home', out, '--cwd', work], { env, input: jsonlLatest().stdout });
    expectRefused(r, /^sp-materialize: .*escaped\.log: refusing to write outside the home sp named for the adapter/);
    expect(r.stdout).toBe('');
  });

  it('a resume program that is a shell line is refused', () => {
    const out = join(work, 'shell-home');
    const r = runBin('sp-materialize', ['shell', '--home', out, '--cwd', work], { env, input: jsonlLatest().stdout });
    expectRefused(r, /sp-adapter-shell materialize: "resume.argv"\[0\] must be a program name/);
    expect(r.stdout).toBe('');
  });

  it('an adapter that never answers is killed at the time limit', () => {
    const started = Date.now();
    const r = runBin('sp-capture', ['hang', '--list', '--json'], { env: { ...env, SP_ADAPTER_TIMEOUT_MS: '800' } });
    expectRefused(r, /sp-adapter-hang describe: no complete answer within 0.8 s/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('an adapter that floods its output is stopped at the size limit', () => {
    const r = runBin('sp-capture', ['flood', '--list', '--json'], { env: { ...env, SP_ADAPTER_MAX_BYTES: '200000' } });
    expectRefused(r, /sp-adapter-flood list: more than 200000 bytes of output/);
  });

  it('invalid events are refused, naming the event and the schema problem', () => {
    const badHome = join(work, 'bad-home');
    mkdirSync(badHome);
    writeFileSync(join(badHome, 's1.log'), 'x');
    const r = runBin('sp-capture', ['badevents', '--session', 's1', '--json'], { env: { ...env, HOSTILE_HOME: badHome } });
    expectRefused(r, /sp-adapter-badevents capture: event 1 is not a valid canonical event: .*type/);
  });

  it('sp adapter test fails the adapter that prints invalid events', () => {
    const r = runBin('sp', ['adapter', 'test', 'badevents'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^FAIL\s+capture\s+.*not a valid canonical event/m);
    expect(r.stdout).toMatch(/^PASS\s+describe/m);
  });
});
