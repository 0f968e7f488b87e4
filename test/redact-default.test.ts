// Redaction on by default (lib/redact/ensure.ts), stage by stage: the same placeholders as sp-redact,
// idempotent ingest, the manifest's redaction state (sticky once unredacted; absent = made before),
// push refusing what is stored unredacted (also when it came from a remote), the opt-outs, and the
// usage errors of the new options: one line, exit 2, nothing written.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Chainer } from '../lib/core/chain.js';
import type { SpEvent } from '../lib/core/event.js';
import { Store } from '../lib/store/index.js';
import { runBin, tempDir } from './support/streams.js';
import { FAKE } from './support/fakeSecrets.js';

const SECRET = FAKE.githubPat;
const PLACEHOLDER = /\[REDACTED:github-pat:[0-9a-f]{8}\]/;

function session(id: string, text: string): string {
  const c = new Chainer();
  const events: SpEvent[] = [
    { session: id, seq: 0, ts: 1_790_000_000, agent: 'claude', type: 'session.start', payload: { native_id: id.slice(5), cwd: '/tmp/project' } },
    { session: id, seq: 1, ts: 1_790_000_001, agent: 'claude', actor: 'user', type: 'message.user', payload: { content: [{ type: 'text', text }] } },
    { session: id, seq: 2, ts: 1_790_000_002, agent: 'claude', actor: 'agent:claude', type: 'message.assistant', payload: { content: [{ type: 'text', text: 'done' }] } },
  ];
  return events.map((e) => JSON.stringify(c.chain(e))).join('\n') + '\n';
}

const manifestOf = (home: string, id: string) => JSON.parse(readFileSync(join(home, 'store', 'sessions', id, 'manifest.json'), 'utf8'));
const sp = (name: string, args: string[], home: string, input?: string) => runBin(name, args, { input, env: { SP_HOME: home } });
const oneLine = (stderr: string) => expect(stderr.trim().split('\n'), stderr).toHaveLength(1);

describe('stages redact by default, with sp-redact\'s key and rules', () => {
  const home = tempDir('sp-default-');
  const stream = session('sess_d1', `deploy with GITHUB_TOKEN=${SECRET} please`);

  it('ingest stores the placeholder sp-redact gives; a second ingest adds nothing', () => {
    const first = sp('sp-sync', ['ingest'], home, stream);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/3 new events stored, 0 already stored, in 1 session .*; 1 secret redacted$/m);
    const again = sp('sp-sync', ['ingest'], home, stream);
    expect(again.stderr).toMatch(/0 new events stored, 3 already stored/);
    const stored = sp('sp-sync', ['log', 'sess_d1'], home).stdout;
    expect(stored).not.toContain(SECRET);
    const byRedact = sp('sp-redact', ['-q'], home, stream).stdout;
    expect(PLACEHOLDER.exec(stored)![0]).toBe(PLACEHOLDER.exec(byRedact)![0]);
    expect(manifestOf(home, 'sess_d1').redaction.state).toBe('redacted');
  });

  it('a redacted stream ingested again (sp-redact | sp-sync ingest) is not stored twice apart from its marker', () => {
    const redacted = sp('sp-redact', ['-q'], home, stream).stdout;
    const r = sp('sp-sync', ['ingest'], home, redacted);
    expect(r.stderr).toMatch(/1 new event stored, 3 already stored/); // only the sp.redacted marker is new
  });

  it('materialize and compile put the same placeholder in what they write', () => {
    const byRedact = PLACEHOLDER.exec(sp('sp-redact', ['-q'], home, stream).stdout)![0];
    const m = sp('sp-materialize', ['claude', '--home', join(home, 'claude'), '--cwd', home], home, stream);
    expect(m.code, m.stderr).toBe(0);
    const written = readFileSync(JSON.parse(m.stdout.split('\n')[0]).path, 'utf8');
    expect(written).not.toContain(SECRET);
    expect(written).toContain(byRedact);
    const c = sp('sp-compile', ['--for', 'codex', '--render'], home, stream);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toContain(byRedact);
  });

  it('--no-redact on compile keeps the secret (asked for)', () => {
    const c = sp('sp-compile', ['--for', 'codex', '--render', '--no-redact'], home, stream);
    expect(c.stdout).toContain(SECRET);
  });

  it('sp-capture rejects --no-redact outside --list: one line, exit 2, nothing on stdout', () => {
    const r = sp('sp-capture', ['claude', '--latest', '--no-redact', '--home', join(home, 'none')], home);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    oneLine(r.stderr);
    expect(r.stderr).toMatch(/^sp-capture: --no-redact applies to --list/);
  });
});

describe('the manifest\'s redaction state', () => {
  it('once events are stored unredacted the session stays unredacted, whatever comes after', () => {
    const home = tempDir('sp-sticky-');
    expect(sp('sp-sync', ['ingest', '--no-redact', '-q'], home, session('sess_s1', `a ${SECRET}`)).code).toBe(0);
    expect(manifestOf(home, 'sess_s1').redaction).toEqual({ state: 'unredacted' });
    const more = JSON.stringify({ session: 'sess_s1', seq: 3, ts: 1_790_000_010, agent: 'claude', actor: 'user', type: 'message.user', payload: { content: [{ type: 'text', text: 'next' }] } }) + '\n';
    expect(sp('sp-sync', ['ingest', '-q'], home, more).code).toBe(0);
    expect(manifestOf(home, 'sess_s1').redaction.state).toBe('unredacted');
  });

  it('a session stored before (no redaction member): ls marks it, push refuses it by name, nothing is sent', async () => {
    const home = tempDir('sp-old-');
    const store = Store.open(join(home, 'store'), { home });
    try {
      await store.ingest(session('sess_old1', `token ${SECRET}`).trim().split('\n').map((l) => ({ event: JSON.parse(l) })));
    } finally {
      store.close();
    }
    expect(manifestOf(home, 'sess_old1').redaction).toBeUndefined();
    const ls = sp('sp-sync', ['ls'], home);
    expect(ls.stdout).toMatch(/^sess_old1 .*\[unredacted\] token \[REDACTED:github-pat:[0-9a-f]{8}\]$/m);
    const remote = join(tempDir('sp-old-remote-'), 'r.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    expect(sp('sp-sync', ['remote', 'add', 'origin', remote], home).code).toBe(0);
    const push = sp('sp-sync', ['push'], home);
    expect(push.code).toBe(2);
    oneLine(push.stderr);
    expect(push.stderr).toContain('(sess_old1)');
    expect(readdirSync(join(remote, 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d))).toEqual([]);
    // search shows its snippet redacted even though the old store holds the secret
    const search = sp('sp-sync', ['search', 'token'], home);
    expect(search.code).toBe(0);
    expect(search.stdout).not.toContain(SECRET);
    expect(search.stdout).toMatch(PLACEHOLDER);
  });

  it('sessions pulled from a remote that holds secrets are recorded unredacted, and not pushed on', () => {
    const a = tempDir('sp-pull-a-');
    const b = tempDir('sp-pull-b-');
    const remote = join(tempDir('sp-pull-remote-'), 'r.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    expect(sp('sp-sync', ['ingest', '--no-redact', '-q'], a, session('sess_p1', `key ${SECRET}`)).code).toBe(0);
    expect(sp('sp-sync', ['remote', 'add', 'origin', remote], a).code).toBe(0);
    expect(sp('sp-sync', ['push', '--allow-unredacted', '-q'], a).code).toBe(0);
    const clone = sp('sp-sync', ['clone', `file://${remote}`, '--trust-all'], b);
    expect(clone.code, clone.stderr).toBe(0);
    expect(manifestOf(b, 'sess_p1').redaction).toEqual({ state: 'unredacted' });
    expect(sp('sp-sync', ['push'], b).code).toBe(2);
  });
});

describe('sp-sync redact', () => {
  it('usage: neither SESSION nor --all, or both: one line, exit 2, nothing written', () => {
    const home = tempDir('sp-redact-usage-');
    expect(sp('sp-sync', ['ingest', '-q', '--no-redact'], home, session('sess_u1', `t ${SECRET}`)).code).toBe(0);
    const before = readdirSync(join(home, 'store', 'sessions')).sort();
    for (const args of [['redact'], ['redact', 'sess_u1', '--all']]) {
      const r = sp('sp-sync', args, home);
      expect(r.code, args.join(' ')).toBe(2);
      oneLine(r.stderr);
      expect(r.stderr).toMatch(/^sp-sync: say which: a SESSION, or --all/);
    }
    const unknown = sp('sp-sync', ['redact', 'sess_nope'], home);
    expect(unknown.code).toBe(2);
    oneLine(unknown.stderr);
    expect(unknown.stderr).toMatch(/no stored session matches "sess_nope"/);
    expect(readdirSync(join(home, 'store', 'sessions')).sort()).toEqual(before);
  });

  it('a redacted session is left alone; an unredacted one gets one successor, which verifies', () => {
    const home = tempDir('sp-redact-one-');
    expect(sp('sp-sync', ['ingest', '-q'], home, session('sess_r1', `t ${SECRET}`)).code).toBe(0);
    expect(sp('sp-sync', ['ingest', '-q', '--no-redact'], home, session('sess_r2', `t ${SECRET}`)).code).toBe(0);
    const clean = sp('sp-sync', ['redact', 'sess_r1'], home);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toBe('');
    expect(clean.stderr).toMatch(/sess_r1: stored redacted already; nothing to do/);
    const r = sp('sp-sync', ['redact', 'sess_r2', '--json'], home);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ original: 'sess_r2', events: 4, secrets: 1 });
    const log = sp('sp-sync', ['log', out.session], home).stdout;
    expect(log).not.toContain(SECRET);
    expect(log).toMatch(PLACEHOLDER);
    expect(JSON.parse(log.trim().split('\n').pop()!)).toMatchObject({ type: 'session.fork', payload: { from_session: 'sess_r2', to_session: out.session } });
    expect(sp('sp-verify', ['--store', join(home, 'store')], home).code).toBe(0);
    const all = sp('sp-sync', ['ls', '--all', '--json'], home).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; deleted: boolean });
    expect(all.find((s) => s.id === 'sess_r2')).toMatchObject({ deleted: true, redaction: 'unredacted' });
    expect(all.find((s) => s.id === out.session)).toMatchObject({ deleted: false, redaction: 'redacted', parent: 'sess_r2' });
    expect(sp('sp-sync', ['ls'], home).stdout).not.toContain('sess_r2');
    expect(existsSync(join(home, 'store', 'sessions', 'sess_r2', 'events.jsonl'))).toBe(true); // never edited in place
  });
});
