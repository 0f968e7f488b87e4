// sp-redact's second rule-set version at the stream level: tokens used as member names, tokens
// under structural names (ids, signatures) while ids stay, a secret split between two adjacent
// events, the public profile (--public / --profile public) with its look-alikes, and --review's
// tables and NDJSON rows that never show more than a 4-character prefix. CLI tests run the
// compiled bin (npm test builds first).
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Chainer } from '../lib/core/chain.js';
import { canonicalize } from '../lib/core/jcs.js';
import type { SpEvent } from '../lib/core/event.js';
import { BUILTIN_RULES, RULESET_VERSION } from '../lib/redact/rules.js';
import { PUBLIC_RULES } from '../lib/redact/public.js';
import { loadConfig } from '../lib/redact/config.js';
import { Detector } from '../lib/redact/detector.js';
import { runBin, tempDir, withoutMarkers } from './support/streams.js';
import { FAKE, STRUCTURAL, generator } from './support/fakeSecrets.js';

const F = FAKE;
const S = STRUCTURAL;
const g = generator(11);

function chain(events: SpEvent[]): string {
  const c = new Chainer();
  return events.map((e) => canonicalize(c.chain(e)) + '\n').join('');
}

let seqs = 0;
const ev = (type: string, payload: Record<string, unknown>, session = 'sess_b'): SpEvent => ({ session, seq: seqs++, ts: 1_790_000_000 + seqs, agent: 'claude', type, payload });
const stream = (...events: SpEvent[]) => {
  const byId = new Map<string, number>();
  return chain(events.map((e) => ({ ...e, seq: (byId.set(e.session, (byId.get(e.session) ?? -1) + 1), byId.get(e.session)!) })));
};

/** sp-redact over `input`; stdout without the sp.redacted marker it closes each session with (redact-stream.test.ts covers it). */
function redact(input: string, args: string[] = []) {
  const dir = tempDir('sp-redact-breadth-');
  const r = runBin('sp-redact', args, { input, env: { SP_HOME: join(dir, 'home') } });
  return { ...r, stdout: withoutMarkers(r.stdout), dir };
}

const verifies = (text: string) => runBin('sp-verify', ['-'], { input: text }).code === 0;

describe('member names and structural values', () => {
  it('a token used as an object key is replaced in the key, and the stream still verifies', () => {
    const input = stream(ev('tool.result', { call_id: 'call_1', content: 'ok', structured: { [F.githubPat]: { scopes: ['repo'] }, ok: true } }));
    expect(verifies(input)).toBe(true);
    const r = redact(input);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain(F.githubPat);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out.payload.structured)[0]).toMatch(/^\[REDACTED:github-pat:[0-9a-f]{8}\]$/);
    expect(out.payload.structured.ok).toBe(true);
    expect(verifies(r.stdout)).toBe(true);
    expect(r.stderr).toMatch(/redacted 1 secret in 1 of 1 event: github-pat 1/);
  });

  it('a key inside a JSON text (tool arguments kept as one string) is replaced and the text still parses', () => {
    const args = JSON.stringify({ headers: { [F.slackBot]: 'x' }, n: 1 });
    const r = redact(stream(ev('tool.call', { call_id: 'c', name: 'http', input: args })));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.payload.input).not.toContain(F.slackBot);
    expect(Object.keys(JSON.parse(out.payload.input).headers)[0]).toMatch(/^\[REDACTED:slack-token:/);
    expect(verifies(r.stdout)).toBe(true);
  });

  it('restores a replaced key byte for byte from the vault', () => {
    const input = stream(ev('tool.result', { call_id: 'c', content: 'ok', structured: { [F.githubPat]: 1 } }));
    const dir = tempDir('sp-redact-breadth-vault-');
    const env = { SP_HOME: join(dir, 'home') };
    const vault = join(dir, 'v.age');
    const red = runBin('sp-redact', ['--vault', vault], { input, env });
    expect(red.code, red.stderr).toBe(0);
    const back = runBin('sp-redact', ['--restore', '--vault', vault], { input: red.stdout, env });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toBe(input);
  });

  it('a ghp_ token under `id` or `signature` is a secret; UUIDs, message ids and thinking signatures stay', () => {
    const input = stream(
      ev('tool.call', { id: F.githubPat, call_id: S.toolUseId, name: 'Bash', input: { command: 'ls' } }),
      ev('message.thinking', { text: 'hm', signature: `${F.awsKeyId}` }),
      ev('message.assistant', { content: [{ type: 'text', text: 'ok' }], message_id: S.messageId, id: S.messageId, uuid: S.uuid, request_id: S.requestId, signature: S.thinkingSignature, sha: S.gitSha }),
    );
    const r = redact(input);
    expect(r.code, r.stderr).toBe(0);
    const [a, b, c] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(a.payload.id).toMatch(/^\[REDACTED:github-pat:/);
    expect(a.payload.call_id).toBe(S.toolUseId);
    expect(b.payload.signature).toMatch(/^\[REDACTED:aws-access-key-id:/);
    expect(c.payload).toEqual(JSON.parse(input.trim().split('\n')[2]).payload); // untouched
    expect(verifies(r.stdout)).toBe(true);
  });
});

describe('a secret split across two adjacent events', () => {
  const cut = F.githubPat.length - 11;
  it('consecutive assistant text deltas: both parts are replaced, and the stream verifies', () => {
    const delta = (text: string) => ev('message.assistant', { content: [{ type: 'text', text }] });
    const input = stream(delta(`Use this one: ${F.githubPat.slice(0, cut)}`), delta(`${F.githubPat.slice(cut)} for the API.`));
    const r = redact(input);
    expect(r.code, r.stderr).toBe(0);
    const [a, b] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(a.payload.content[0].text).toMatch(/^Use this one: \[REDACTED:github-pat:[0-9a-f]{8}\]$/);
    expect(b.payload.content[0].text).toMatch(/^\[REDACTED:github-pat:[0-9a-f]{8}\] for the API\.$/);
    expect(r.stdout).not.toContain(F.githubPat.slice(4, cut));
    expect(r.stdout).not.toContain(F.githubPat.slice(cut));
    expect(verifies(r.stdout)).toBe(true);
    expect(r.stderr).toMatch(/github-pat 1/);
  });

  it('a tool call argument split in two events, and the vault puts both parts back', () => {
    const secret = F.githubPat;
    // The first part alone already looks like an assignment (GITHUB_TOKEN=ghp_7sZq…): its own finding covers it, the rest goes too.
    const input = stream(ev('tool.call', { call_id: 'c1', name: 'Bash', input: '{"command":"export GITHUB_TOKEN=' + secret.slice(0, 14) }), ev('tool.call', { call_id: 'c1', name: 'Bash', input: secret.slice(14) + '"}' }));
    const dir = tempDir('sp-redact-split-');
    const env = { SP_HOME: join(dir, 'home') };
    const vault = join(dir, 'v.age');
    const red = runBin('sp-redact', ['--vault', vault], { input, env });
    expect(red.code, red.stderr).toBe(0);
    expect(red.stdout).not.toContain(secret.slice(14));
    expect(red.stdout).toMatch(/GITHUB_TOKEN=\[REDACTED:secret-assignment:[0-9a-f]{8}\]","/);
    expect(red.stdout).toMatch(/"input":"\[REDACTED:github-pat:[0-9a-f]{8}\]\\"}"/);
    expect(verifies(red.stdout)).toBe(true);
    const back = runBin('sp-redact', ['--restore', '--vault', vault], { input: red.stdout, env });
    expect(back.stdout).toBe(input);
  });

  it('--check reports it once; events of another session or type in between break the pair', () => {
    const split = [ev('message.thinking', { text: `use ${F.githubPat.slice(0, cut)}` }), ev('message.thinking', { text: F.githubPat.slice(cut) })];
    const check = runBin('sp-redact', ['--check'], { input: stream(...split) });
    expect(check.code).toBe(1);
    expect(check.stdout.trim().split('\n')).toHaveLength(1);
    expect(check.stdout).toMatch(/seq 1: payload\.text: github-pat/);
    const apart = stream(split[0], ev('tool.result', { call_id: 'c', content: 'x' }), split[1]);
    expect(runBin('sp-redact', ['--check'], { input: apart }).code).toBe(0);
    const otherSession = stream(split[0], { ...split[1], session: 'sess_other' });
    expect(runBin('sp-redact', ['--check'], { input: otherSession }).code).toBe(0);
    // Two tool results of different calls: a value ending one is complete, not continued by the other.
    for (const second of ['c2', 'c1']) {
      // Same call or not: a value complete at the end of one result is not continued by the next one's prose.
      const calls = stream(ev('tool.result', { call_id: 'c1', content: 'DB_PASSWORD=Tr0ub4dor&4859' }), ev('tool.result', { call_id: second, content: 'The handler reads the list.' }));
      const r = runBin('sp-redact', ['--check'], { input: calls });
      expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/seq 0: payload\.content: secret-assignment$/)]);
    }
    // A name at the end of one delta, its value at the start of the next.
    const named = stream(ev('message.thinking', { text: 'export DB_PASSWORD=' }), ev('message.thinking', { text: `${F.envPassword} done` }));
    const n = redact(named);
    expect(n.stdout).not.toContain(F.envPassword);
    expect(JSON.parse(n.stdout.trim().split('\n')[1]).payload.text).toMatch(/^\[REDACTED:secret-assignment:[0-9a-f]{8}\] done$/);
  });

  it('look-alikes across a boundary stay: two halves of prose, a UUID split in two', () => {
    const t = (text: string) => ev('message.thinking', { text });
    const input = stream(t('The token is '), t('refreshed hourly.'), t(S.uuid.slice(0, 20)), t(S.uuid.slice(20)), t(`commit ${S.gitSha.slice(0, 20)}`), t(S.gitSha.slice(20)));
    const r = redact(input);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(input);
    expect(r.stderr).toMatch(/no secrets found/);
  });
});

describe('the public profile', () => {
  const detector = new Detector(loadConfig([], 'public').rules);
  const found = (text: string) => detector.scan(text).map((f) => [f.rule.id, text.slice(f.start, f.end)]);

  it('finds each kind, with its own rule id', () => {
    expect(found('cd /home/alice/acme-api && ls')).toEqual([['home-path', '/home/alice']]);
    expect(found('open /Users/bob/Library/x')).toEqual([['home-path', '/Users/bob']]);
    expect(found('type C:\\Users\\carol\\notes.txt')).toEqual([['home-path', 'C:\\Users\\carol']]);
    expect(found('alice@alices-mbp:~/acme-api$ npm test')).toEqual([['user-name', 'alice'], ['hostname', 'alices-mbp']]);
    expect(found('ssh -p 2222 deploy@build-01 uptime')).toEqual([['user-name', 'deploy'], ['hostname', 'build-01']]);
    expect(found('resolving nas.home.arpa and db01.corp')).toEqual([['hostname', 'nas.home.arpa'], ['hostname', 'db01.corp']]);
    expect(found('Author: Grace Hopper <grace@acme.io>')).toEqual([['email', 'grace@acme.io']]);
    expect(found('From 12345+grace@users.noreply.github.com')).toEqual([['email', '12345+grace@users.noreply.github.com']]);
    expect(found('connect to 10.20.30.40:5432 failed')).toEqual([['ip-address', '10.20.30.40']]);
    expect(found('inet6 fe80::1ff:fe23:4567:890a%eth0 and 2001:db8:85a3::8a2e:370:7334')).toEqual([['ip-address', 'fe80::1ff:fe23:4567:890a%eth0'], ['ip-address', '2001:db8:85a3::8a2e:370:7334']]);
    expect(found('origin  git@github.com:alice/acme-api.git (fetch)')).toEqual([['git-owner', 'alice']]);
    expect(found('see https://github.com/bob/acme-api/pull/4')).toEqual([['git-owner', 'bob']]);
    expect(found('remote: https://git.acme.dev/team-x/tools.git')).toEqual([['git-owner', 'team-x']]);
  });

  it('leaves look-alikes alone: versions, loopback, public host names, service senders, code', () => {
    for (const text of [
      'node v20.11.1.0 and version 1.2.3.4, "version": "10.0.0.1", pkg@1.2.3.4, requests==2.31.0.1',
      'listening on 127.0.0.1:3000 and 0.0.0.0:8080; mask 255.255.255.255',
      'fetch https://registry.npmjs.org/ and api.github.com',
      'Co-Authored-By: Claude <noreply@anthropic.com>',
      'std::vec::Vec and a::b and 12:30:45 and ::1',
      '/home/ is where users live; ~/acme-api is fine',
      'user@example.com writes to the docs',
      'import x from "@scope/pkg"; @decorator',
      'version 1.2.3.4 of the SDK',
    ]) {
      expect(found(text), text).toEqual([]);
    }
  });

  it('the default profile does not touch any of it', () => {
    const d = new Detector(loadConfig().rules);
    expect(d.scan('alice@laptop:~$ ssh bob@10.0.0.5; cat /home/alice/x; git@github.com:alice/r.git grace@acme.io')).toEqual([]);
  });

  it('--public: home paths become ~, the rest placeholders of their kind; the stream verifies; --profile public is the same', () => {
    const input = stream(ev('command.run', { cmd: 'cd /home/alice/acme-api && git remote -v', stdout_head: 'origin git@github.com:alice/acme-api.git\nhost 192.168.1.20 mail grace@acme.io' }));
    expect(verifies(input)).toBe(true);
    const r = redact(input, ['--public']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.payload.cmd).toBe('cd ~/acme-api && git remote -v');
    expect(out.payload.stdout_head).toMatch(/^origin git@github\.com:\[REDACTED:git-owner:[0-9a-f]{8}\]\/acme-api\.git\nhost \[REDACTED:ip-address:[0-9a-f]{8}\] mail \[REDACTED:email:[0-9a-f]{8}\]$/);
    expect(verifies(r.stdout)).toBe(true);
    const again = redact(r.stdout, ['--public']);
    expect(again.stdout).toBe(r.stdout); // a second pass changes nothing
    const same = redact(input, ['--profile', 'public']);
    const payload = (text: string) => JSON.stringify(JSON.parse(text).payload).replace(/:[0-9a-f]{8}\]/g, ']'); // another key: other tags
    expect(payload(same.stdout)).toBe(payload(r.stdout));
  });

  it('rejects an unknown profile and contradictory options: exit 2, one line, nothing written', () => {
    for (const args of [['--profile', 'everything'], ['--public', '--profile', 'default'], ['--review', '--dry-run']]) {
      const dir = tempDir('sp-redact-profile-');
      const r = runBin('sp-redact', args, { input: stream(ev('message.user', { text: 'hi' })), env: { SP_HOME: join(dir, 'home') } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^sp-redact: /);
      expect(existsSync(join(dir, 'home'))).toBe(false);
    }
  });
});

describe('--review', () => {
  const kept = `auth_header_value = "${'ab12'.repeat(4)}"`; // 16 hex characters, 2 bits each: a candidate kept
  const input = () =>
    stream(
      ev('message.user', { text: `export GITHUB_TOKEN=${F.githubPat}` }),
      ev('command.run', { command: 'mysql -u root -pS3cr3tPw! app', output: kept }),
      ev('message.user', { text: 'other session' }, 'sess_c'),
    );

  it('prints per session what would be redacted and what was kept, never more than a 4-character prefix, and writes nothing', () => {
    const dir = tempDir('sp-redact-review-');
    const env = { SP_HOME: join(dir, 'home') };
    const r = runBin('sp-redact', ['--review'], { input: input(), env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('session sess_b');
    expect(r.stdout).toMatch(/payload\.text\s+github-pat\s+\[REDACTED:github-pat:\(no key yet\)\]\s+ghp_…/);
    expect(r.stdout).toMatch(/payload\.command\s+cli-password\s+.*\s+S3…/);
    expect(r.stdout).toMatch(/kept \(below the entropy threshold\)[\s\S]*payload\.output\s+generic-secret\s+2\.00\s+ab12…/);
    expect(r.stdout).not.toContain('sess_c'); // nothing there
    for (const secret of [F.githubPat, 'S3cr3tPw!', 'ab12ab12']) expect(r.stdout + r.stderr).not.toContain(secret);
    expect(existsSync(join(dir, 'home'))).toBe(false); // no key created
  });

  it('shows the placeholders a redaction would write once the key exists; --json gives NDJSON rows; --check exits 1', () => {
    const dir = tempDir('sp-redact-review-key-');
    const env = { SP_HOME: join(dir, 'home') };
    const red = runBin('sp-redact', [], { input: input(), env });
    const placeholder = /\[REDACTED:github-pat:[0-9a-f]{8}\]/.exec(red.stdout)![0];
    const r = runBin('sp-redact', ['--review', '--json'], { input: input(), env });
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.find((x) => x.rule === 'github-pat')).toMatchObject({ kind: 'redact', session: 'sess_b', seq: 0, path: 'payload.text', placeholder, value: 'ghp_…' });
    expect(rows.find((x) => x.kind === 'kept')).toMatchObject({ rule: 'generic-secret', entropy: 2, value: 'ab12…', path: 'payload.output' });
    for (const row of rows) expect(row.value.length).toBeLessThanOrEqual(5);
    expect(runBin('sp-redact', ['--review', '--check'], { input: input(), env }).code).toBe(1);
    expect(runBin('sp-redact', ['--review', '--check'], { input: stream(ev('message.user', { text: 'clean' })), env }).code).toBe(0);
    expect(readdirSync(dir)).toEqual(['home']);
  });
});

describe('rule-set version', () => {
  it('is 2, and every public rule has an id fit for placeholders and is absent from the default set', () => {
    expect(RULESET_VERSION).toBe(2);
    for (const r of PUBLIC_RULES) {
      expect(r.id).toMatch(/^[a-z0-9][a-z0-9-]*$/);
      expect(BUILTIN_RULES.some((b) => b.id === r.id)).toBe(false);
    }
  });

  it('public rules stay linear on 1 MB near misses', () => {
    const MB = 1 << 20;
    const fill = (unit: string) => unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);
    for (const rule of PUBLIC_RULES) {
      for (const input of [fill('1.2.3.'), fill('a:b:'), fill('/home/'), fill('a@b.'), fill('git@h:'), fill('https://github.com/'), fill('ssh a@'), fill('x.local.'), g.chars(MB, '0123456789abcdef:.@/')]) {
        const start = performance.now();
        let n = 0;
        for (const _ of rule.find(input)) if (++n > 1e6) break;
        expect(performance.now() - start, `${rule.id}`).toBeLessThan(8000);
      }
    }
  });
});

describe('placeholder-looking values and hex', () => {
  const detector = new Detector(BUILTIN_RULES);
  const found = (text: string) => detector.scan(text).map((f) => text.slice(f.start, f.end));
  const hex = (n: number) => g.chars(n, '0123456789abcdef');

  it('a #, @, *, &, % or ... in front does not exempt a secret assignment', () => {
    for (const value of ['#Qx7vb2Lk', '@Zk3pass9', '*Hunter22x', '&Tr0ub4dor', '%Pw9xyz77', '...k9Fz3Lm2']) {
      expect(found(`DB_PASSWORD=${value}`), value).toEqual([value]);
      expect(found(`password: "${value}"`), value).toEqual([value]);
    }
  });

  it('references, masks and real variable names stay exempt; NAME-like values with a run of digits do not', () => {
    for (const text of ['DB_PASSWORD=#', 'DB_PASSWORD=%DB_PASSWORD%', 'password: *default_password\n', 'DB_PASSWORD=${DB_PASS}', 'DB_PASSWORD=PROD_DB_PASSWORD', 'API_TOKEN=OAUTH2_TOKEN', 'DB_PASSWORD=****', 'password: "%s"', 'password: "@Value"', 'token = "..."']) {
      expect(found(text), text).toEqual([]);
    }
    expect(found('DB_PASSWORD=AB12_CD34XY')).toEqual(['AB12_CD34XY']);
    expect(found('API_TOKEN=PROD_7731_KEY')).toEqual(['PROD_7731_KEY']);
  });

  it('hex of 32/40/64/128 digits counts under a secret-ish name, and only there', () => {
    for (const n of [32, 40, 64, 128]) {
      const h = hex(n);
      expect(found(`API_SECRET=${h}`), `${n}`).toEqual([h]);
      expect(found(`cache_key = "${h}"`), `${n}`).toEqual([h]);
      for (const text of [`commit = "${h}"`, `sha256: ${h}`, `"etag": "${h}"`, `git show ${h}`, `checksum ${h}`]) expect(found(text), text).toEqual([]);
    }
  });
});
