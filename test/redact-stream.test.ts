// sp-redact on event streams: which fields are scanned and which are never touched, JSON inside
// strings and raw native lines kept byte for byte around placeholders, re-chaining, consistent
// keyed placeholders, the vault round trip, --check / --dry-run / --report / --rules, and the CLI's
// exit codes. CLI tests run the compiled bin (npm test builds first).
import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Chainer } from '../lib/core/chain.js';
import { canonicalize } from '../lib/core/jcs.js';
import type { SpEvent } from '../lib/core/event.js';
import { spawnSync } from 'node:child_process';
import { root, runBin, tempDir, chainedLines } from './support/streams.js';
import { FAKE, STRUCTURAL } from './support/fakeSecrets.js';

const F = FAKE;
const S = STRUCTURAL;
const SECRETS = [F.githubPat, F.awsKeyId, F.awsSecret, F.anthropic, F.openaiProject, F.slackBot, F.stripeLive, F.dbPassword, F.envPassword, F.rsaKey, F.jwt, F.bearer, F.npm];

/** Chained canonical lines from unchained events (one chain per session). */
function chain(events: SpEvent[]): string[] {
  const c = new Chainer();
  return events.map((e) => canonicalize(c.chain(e)));
}

const ev = (session: string, seq: number, type: string, payload: Record<string, unknown>, extra: Partial<SpEvent> = {}): SpEvent => ({
  session,
  seq,
  ts: 1_790_000_000 + seq,
  agent: 'claude',
  type,
  payload,
  ...extra,
});

/** A Claude-like native line carrying a secret in its text and structural values all around. */
function nativeLine(text: string): string {
  return JSON.stringify({
    parentUuid: S.uuid,
    isSidechain: false,
    type: 'assistant',
    message: {
      id: S.messageId,
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `Checking the env: ${text}`, signature: S.thinkingSignature },
        { type: 'tool_use', id: S.toolUseId, name: 'Bash', input: { command: `echo ${text}`, description: 'print' } },
      ],
      usage: { input_tokens: 12, output_tokens: 34 },
    },
    requestId: S.requestId,
    uuid: S.uuidv7,
    timestamp: '2026-11-30T05:06:52.123Z',
  });
}

/** Every place a secret can sit in a canonical session, plus the structural values around it. */
function sampleSession(session = 'sess_a'): SpEvent[] {
  let seq = 0;
  const e = (type: string, payload: Record<string, unknown>, extra: Partial<SpEvent> = {}) => ev(session, seq++, type, payload, extra);
  return [
    e('session.start', { native_id: S.uuid, cwd: '/home/alice/acme-api', git_head: S.gitSha, model: 'claude-opus-4-8' }),
    e('message.user', { content: [{ type: 'text', text: `deploy with GITHUB_TOKEN=${F.githubPat} please` }, { type: 'image', media_type: 'image/png', data: S.pngBase64 }] }, { origin: { agent: 'claude', native_id: S.uuid, native_uuid: S.uuidv7, native_seq: 3, raw: [nativeLine(F.githubPat)] } }),
    e('message.thinking', { text: `the key ${F.awsKeyId} is in .env`, visibility: 'visible', signature: S.thinkingSignature, provider: 'anthropic', message_id: S.messageId }),
    e('message.thinking', { text: '', visibility: 'encrypted', opaque: S.encryptedContent, provider: 'openai' }),
    e('tool.call', { call_id: S.toolUseId, name: 'Bash', input: { command: `curl -H "Authorization: Bearer ${F.bearer}" https://api.acme.dev`, env: { AWS_SECRET_ACCESS_KEY: F.awsSecret }, list: [`x-api-key: ${F.apiKeyHeader}`] }, message_id: S.messageId }),
    // Codex keeps function arguments as one JSON string.
    e('tool.call', { call_id: S.callId, name: 'shell', input: JSON.stringify({ command: ['bash', '-lc', `export ANTHROPIC_API_KEY=${F.anthropic} && npm test`], workdir: '/home/bob/acme-api' }) }),
    e('tool.result', { call_id: S.toolUseId, content: `DB_PASSWORD=${F.envPassword}\nOPENAI_API_KEY=${F.openaiProject}\n`, is_error: false, structured: { stdout: `token: ${F.slackBot}`, interrupted: false, file: { sha256: S.sha256 } } }),
    e('tool.result', { call_id: S.callId, content: [{ type: 'text', text: `cat id_rsa\n${F.rsaKey}` }, { type: 'image', media_type: 'image/png', artifact: S.sha256Prefixed }] }),
    e('command.run', { cmd: `psql postgres://app:${F.dbPassword}@db/app`, exit_code: 0, stdout_head: `Stripe key ${F.stripeLive}`, stdout_tail: `jwt ${F.jwt}`, stderr_tail: `npm ERR! token ${F.npm}` }, { derived_from: 4 }),
    e('file.edit', { path: 'src/config.js', diff: `--- a/src/config.js\n+++ b/src/config.js\n@@ -1 +1 @@\n-const key = '';\n+const key = '${F.stripeLive}';\n`, before_digest: S.sha256Prefixed, after_digest: S.checksum }),
    e('meta', { key: 'queue-operation', value: { content: `SLACK_BOT_TOKEN=${F.slackBot}` }, raw: { type: 'queue-operation', content: `GITHUB_TOKEN=${F.githubPat}`, sessionId: S.uuid } }),
    e('x.custom', { note: `Authorization: Bearer ${F.bearer}`, integrity: S.npmIntegrity, nested: [{ deep: { deeper: `ghp ${F.githubPat}` } }] }, { extension: { remark: `key ${F.awsKeyId}` } } as Partial<SpEvent>),
    e('message.assistant', { content: [{ type: 'text', text: 'Done. Nothing secret here.' }], message_id: S.messageId, model: 'claude-opus-4-8' }),
  ];
}

function setup() {
  const dir = tempDir('sp-redact-');
  const home = join(dir, 'home');
  const env = { SP_HOME: home };
  const write = (name: string, lines: string[]) => {
    const path = join(dir, name);
    writeFileSync(path, lines.map((l) => l + '\n').join(''));
    return path;
  };
  return { dir, home, env, write };
}

const lines = (text: string) => text.split('\n').filter(Boolean);
// Output events, inspected loosely: their payloads are whatever each event type carries.
const parse = (text: string) => lines(text).map((l) => JSON.parse(l) as Record<string, any>);

describe('sp-redact: fields', () => {
  const { env, write } = setup();
  const input = chain(sampleSession());
  const r = runBin('sp-redact', [write('in.ndjson', input)], { env });
  const out = parse(r.stdout);
  const before = input.map((l) => JSON.parse(l));

  it('exits 0 and leaves no secret anywhere in the output', () => {
    expect(r.code, r.stderr).toBe(0);
    for (const secret of SECRETS) expect(r.stdout.includes(secret), secret.slice(0, 12)).toBe(false);
    // Not in JSON-escaped form either (the PEM's newlines as \n).
    expect(r.stdout.includes(JSON.stringify(F.rsaKey).slice(1, 40))).toBe(false);
    expect(r.stderr).toMatch(/redacted \d+ secrets in 10 of 13 events/);
  });

  it('puts keyed placeholders in every content field', () => {
    const p = /\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]/;
    expect(out[1].payload.content[0].text).toMatch(/^deploy with GITHUB_TOKEN=\[REDACTED:github-pat:[0-9a-f]{8}\] please$/);
    expect(out[2].payload.text).toMatch(/^the key \[REDACTED:aws-access-key-id:[0-9a-f]{8}\] is in \.env$/);
    expect(out[4].payload.input.command).toMatch(/Bearer \[REDACTED:auth-header:/);
    expect(out[4].payload.input.env.AWS_SECRET_ACCESS_KEY).toMatch(/^\[REDACTED:aws-secret-access-key:[0-9a-f]{8}\]$/);
    expect(out[4].payload.input.list[0]).toMatch(/^x-api-key: \[REDACTED:api-key-header:/);
    expect(JSON.parse(out[5].payload.input).command[2]).toMatch(/^export ANTHROPIC_API_KEY=\[REDACTED:anthropic-api-key:[0-9a-f]{8}\] && npm test$/);
    expect(out[6].payload.content).toMatch(/^DB_PASSWORD=\[REDACTED:secret-assignment:[0-9a-f]{8}\]\nOPENAI_API_KEY=\[REDACTED:openai-api-key:/);
    expect(out[6].payload.structured.stdout).toMatch(/^token: \[REDACTED:slack-token:/);
    expect(out[7].payload.content[0].text).toMatch(/^cat id_rsa\n\[REDACTED:private-key:[0-9a-f]{8}\]$/);
    for (const k of ['cmd', 'stdout_head', 'stdout_tail', 'stderr_tail']) expect(out[8].payload[k], k).toMatch(p);
    expect(out[9].payload.diff).toMatch(/\+const key = '\[REDACTED:stripe-secret-key:/);
    expect(out[10].payload.value.content).toMatch(p);
    expect(out[10].payload.raw.content).toMatch(p);
    expect(out[11].payload.note).toMatch(p);
    expect(out[11].payload.nested[0].deep.deeper).toMatch(p);
    expect(out[11].extension.remark).toMatch(p);
    expect(out[12]).toEqual(before[12].checksum === out[12].checksum ? before[12] : { ...before[12], checksum: out[12].checksum });
  });

  it('never touches structural fields', () => {
    expect(out.length).toBe(before.length + 1); // the closing sp.redacted marker
    for (let i = 0; i < before.length; i++) {
      const a = before[i];
      const b = out[i];
      for (const k of ['session', 'seq', 'ts', 'agent', 'type', 'derived_from']) expect(b[k], k).toEqual(a[k]);
    }
    expect(out[0].payload).toEqual(before[0].payload);
    expect(out[1].payload.content[1]).toEqual(before[1].payload.content[1]); // image data
    expect(out[1].origin).toMatchObject({ agent: 'claude', native_id: S.uuid, native_uuid: S.uuidv7, native_seq: 3 });
    expect(out[2].payload).toMatchObject({ signature: S.thinkingSignature, provider: 'anthropic', message_id: S.messageId });
    expect(out[3].payload).toEqual(before[3].payload); // encrypted reasoning
    expect(out[4].payload.call_id).toBe(S.toolUseId);
    expect(out[6].payload.structured.file.sha256).toBe(S.sha256);
    expect(out[7].payload.content[1]).toEqual(before[7].payload.content[1]); // artifact
    expect(out[9].payload).toMatchObject({ before_digest: S.sha256Prefixed, after_digest: S.checksum, path: 'src/config.js' });
    expect(out[10].payload.raw.sessionId).toBe(S.uuid);
    expect(out[11].payload.integrity).toBe(S.npmIntegrity);
  });

  it('redacts inside a raw native line, which still parses and is otherwise byte for byte the same', () => {
    const raw = out[1].origin.raw[0] as string;
    const original = before[1].origin.raw[0] as string;
    const parsed = JSON.parse(raw);
    expect(parsed.message.content[0].signature).toBe(S.thinkingSignature);
    expect(parsed.message.content[1].id).toBe(S.toolUseId);
    expect(parsed.uuid).toBe(S.uuidv7);
    const placeholder = /\[REDACTED:github-pat:[0-9a-f]{8}\]/.exec(raw)![0];
    expect(raw.split(placeholder).join(F.githubPat)).toBe(original);
    // A JSON-string argument likewise: only the secret's span changed.
    const args = out[5].payload.input as string;
    const p2 = /\[REDACTED:anthropic-api-key:[0-9a-f]{8}\]/.exec(args)![0];
    expect(args.split(p2).join(F.anthropic)).toBe(before[5].payload.input);
  });

  it('re-chains: the output verifies', () => {
    const v = runBin('sp-verify', ['-'], { input: r.stdout });
    expect(v.code, v.stdout).toBe(0);
    // Unchanged events before the first change keep their checksums.
    expect(out[0].checksum).toBe(before[0].checksum);
  });

  it('a second pass changes nothing', () => {
    const again = runBin('sp-redact', ['-q'], { input: r.stdout, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(r.stdout);
  });
});

describe('sp-redact: placeholders', () => {
  it('same secret, same placeholder: across events, runs and sessions; another key, another placeholder', () => {
    const { env, dir, write } = setup();
    const mk = (session: string) => chain([ev(session, 0, 'message.user', { content: [{ type: 'text', text: `t=${F.githubPat}` }] }), ev(session, 1, 'tool.result', { call_id: 'c1', content: `GITHUB_TOKEN=${F.githubPat}` })]);
    const a = parse(runBin('sp-redact', ['-q', write('a.ndjson', mk('sess_a'))], { env }).stdout);
    const b = parse(runBin('sp-redact', ['-q', write('b.ndjson', mk('sess_b'))], { env }).stdout);
    const tag = (s: string) => /\[REDACTED:github-pat:([0-9a-f]{8})\]/.exec(s)![1];
    const tags = [a[0].payload.content[0].text, a[1].payload.content, b[0].payload.content[0].text, b[1].payload.content].map(tag);
    expect(new Set(tags).size).toBe(1);
    // The tag is HMAC-SHA256(key, secret), cut to 8 hex: nothing about the secret shows without the key.
    const key = Buffer.from(readFileSync(join(env.SP_HOME, 'keys', 'redact.key'), 'utf8').trim(), 'hex');
    expect(key.length).toBe(32);
    expect(tags[0]).toBe(createHmac('sha256', key).update(F.githubPat).digest('hex').slice(0, 8));
    const other = join(dir, 'other.key');
    writeFileSync(other, 'ab'.repeat(32));
    const c = parse(runBin('sp-redact', ['-q', '--key', other, join(dir, 'a.ndjson')]).stdout);
    expect(tag(c[0].payload.content[0].text)).not.toBe(tags[0]);
  });

  it('creates the key 0600 in a 0700 folder on first use', () => {
    const { env, write } = setup();
    expect(existsSync(env.SP_HOME)).toBe(false);
    runBin('sp-redact', ['-q', write('a.ndjson', chain(sampleSession()))], { env });
    expect(statSync(join(env.SP_HOME, 'keys', 'redact.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.SP_HOME, 'keys')).mode & 0o777).toBe(0o700);
  });
});

describe('sp-redact: vault', () => {
  it('--vault then --restore gives back the original stream byte for byte, chain included', () => {
    const { env, dir, write } = setup();
    // Two interleaved sessions, plus a raw line whose secret is spelled with non-standard escapes.
    const a = sampleSession('sess_a');
    const b = sampleSession('sess_b');
    const oddRaw = `{"type":"user","message":{"content":"url: https:\\/\\/${F.githubPat}@github.com\\/acme and \\u0041KIA${F.awsKeyId.slice(4)}"},"uuid":"${S.uuid}"}`;
    expect(JSON.parse(oddRaw).message.content).toContain(F.githubPat);
    b.push(ev('sess_b', b.length, 'meta', { key: 'odd' }, { origin: { agent: 'claude', native_id: 'x', raw: [oddRaw] } }));
    const mixed: SpEvent[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) mixed.push(...(a[i] ? [a[i]] : []), ...(b[i] ? [b[i]] : []));
    const original = chain(mixed).map((l) => l + '\n').join('');
    const input = join(dir, 'in.ndjson');
    writeFileSync(input, original);
    const vault = join(dir, 's.vault');
    const red = runBin('sp-redact', ['--vault', vault, input], { env });
    expect(red.code, red.stderr).toBe(0);
    for (const secret of SECRETS) expect(red.stdout.includes(secret)).toBe(false);
    expect(runBin('sp-verify', ['-q', '-'], { input: red.stdout }).code).toBe(0);
    // Encrypted at rest with age: no secret readable in the file.
    const bytes = readFileSync(vault);
    expect(bytes.subarray(0, 21).toString()).toBe('age-encryption.org/v1');
    for (const secret of SECRETS) expect(bytes.includes(Buffer.from(secret))).toBe(false);
    expect(statSync(vault).mode & 0o777).toBe(0o600);
    const back = runBin('sp-redact', ['--restore', '--vault', vault], { input: red.stdout, env });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toBe(original);
    expect(back.stderr).toMatch(/restored \d+ secrets/);
    void write;
  });

  it('opens with the age identity in $SP_HOME/keys, extends across runs, and refuses another identity', async () => {
    const { env, dir, write } = setup();
    const vault = join(dir, 'v.age');
    const one = write('one.ndjson', chain([ev('s1', 0, 'message.user', { content: [{ type: 'text', text: `GITHUB_TOKEN=${F.githubPat}` }] })]));
    const two = write('two.ndjson', chain([ev('s2', 0, 'message.user', { content: [{ type: 'text', text: `NPM_TOKEN=${F.npm}` }] })]));
    const r1 = runBin('sp-redact', ['--vault', vault, one], { env });
    const r2 = runBin('sp-redact', ['--vault', vault, two], { env });
    expect([r1.code, r2.code]).toEqual([0, 0]);
    const { Decrypter } = await import('age-encryption');
    const identity = readFileSync(join(env.SP_HOME, 'keys', 'redact-vault.key'), 'utf8');
    expect(identity).toMatch(/^# public key: age1[0-9a-z]+$/m);
    expect(statSync(join(env.SP_HOME, 'keys', 'redact-vault.key')).mode & 0o777).toBe(0o600);
    const d = new Decrypter();
    d.addIdentity(identity.split('\n').find((l) => l.startsWith('AGE-SECRET-KEY-'))!);
    const plain = JSON.parse(await d.decrypt(readFileSync(vault), 'text'));
    expect(Object.values(plain.entries).map((e: any) => e.secret).sort()).toEqual([F.githubPat, F.npm].sort());
    // Both sessions restore from the one vault.
    expect(runBin('sp-redact', ['--restore', '--vault', vault], { input: r1.stdout + r2.stdout, env }).stdout).toBe(readFileSync(one, 'utf8') + readFileSync(two, 'utf8'));
    // Without its identity the vault does not open; someone else's identity cannot open it either.
    const none = runBin('sp-redact', ['--restore', '--vault', vault], { input: r1.stdout, env: { SP_HOME: join(dir, 'other-home') } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/redact-vault\.key: no vault identity here/);
    expect(existsSync(join(dir, 'other-home'))).toBe(false);
    runBin('sp-redact', ['--vault', join(dir, 'theirs.age'), one], { env: { SP_HOME: join(dir, 'other-home') } });
    const stranger = runBin('sp-redact', ['--restore', '--vault', vault], { input: r1.stdout, env: { SP_HOME: join(dir, 'other-home') } });
    expect(stranger.code).toBe(2);
    expect(stranger.stderr).toMatch(/cannot decrypt the vault/);
  });

  it('--restore leaves placeholders it has no entry for, and says so', () => {
    const { env, dir, write } = setup();
    const vault = join(dir, 'v.age');
    runBin('sp-redact', ['--vault', vault, write('x.ndjson', chain([ev('s1', 0, 'message.user', { content: [{ type: 'text', text: `t ${F.npm}` }] })]))], { env });
    const foreign = chain([ev('s9', 0, 'message.user', { content: [{ type: 'text', text: 'was [REDACTED:github-pat:0123abcd]' }] })]).join('\n') + '\n';
    const r = runBin('sp-redact', ['--restore', '--vault', vault], { input: foreign, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(foreign);
    expect(r.stderr).toMatch(/1 placeholder not in the vault/);
  });

  it('needs an existing --vault to restore', () => {
    const r = runBin('sp-redact', ['--restore'], { input: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--restore needs --vault/);
    const { dir, env } = setup();
    const missing = runBin('sp-redact', ['--restore', '--vault', join(dir, 'nope.age')], { input: '', env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.age: no such vault/);
    expect(existsSync(env.SP_HOME)).toBe(false);
  });
});

describe('sp-redact: --check, --dry-run, --report', () => {
  it('--check lists seq, field path and rule, never the secret; exit 1; no events, no key', () => {
    const { env, write } = setup();
    const r = runBin('sp-redact', ['--check', write('in.ndjson', chain(sampleSession()))], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('in.ndjson:2: seq 1: payload.content[0].text: github-pat');
    expect(r.stdout).toMatch(/seq 1: origin\.raw\[0\]#\/message\/content\/0\/thinking: github-pat/);
    expect(r.stdout).toMatch(/seq 5: payload\.input#\/command\/2: anthropic-api-key/);
    expect(r.stdout).toMatch(/seq 4: payload\.input\.env\.AWS_SECRET_ACCESS_KEY: aws-secret-access-key/);
    for (const secret of SECRETS) expect(r.stdout.includes(secret) || r.stderr.includes(secret)).toBe(false);
    expect(r.stdout).not.toMatch(/"session"/);
    expect(r.stderr).toMatch(/^sp-redact: found \d+ secrets in 10 of 13 events: /);
    expect(existsSync(env.SP_HOME)).toBe(false);
  });

  it('--check exits 0 on a clean stream', () => {
    const r = runBin('sp-redact', ['--check', '-'], { input: chainedLines(50, { seed: 3 }).join('\n') + '\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('sp-redact: no secrets found in 50 events\n');
  });

  it('--dry-run writes no events, key or vault; --report holds counts and places, never secrets', () => {
    const { env, dir, write } = setup();
    const report = join(dir, 'r.json');
    const r = runBin('sp-redact', ['--dry-run', '--report', report, write('in.ndjson', chain(sampleSession()))], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/would redact \d+ secrets in 10 of 13 events/);
    expect(existsSync(env.SP_HOME)).toBe(false);
    const text = readFileSync(report, 'utf8');
    for (const secret of SECRETS) expect(text.includes(secret)).toBe(false);
    const json = JSON.parse(text);
    expect(json).toMatchObject({ mode: 'dry-run', events: 13, events_touched: 10, locations_truncated: false });
    expect(json.rules['github-pat']).toBeGreaterThanOrEqual(4);
    expect(json.findings).toBe(Object.values(json.rules).reduce((a: number, b: any) => a + b, 0));
    expect(json.locations).toContainEqual({ source: join(dir, 'in.ndjson'), line: 2, session: 'sess_a', seq: 1, path: 'payload.content[0].text', rule: 'github-pat' });
  });

  it('a clean stream passes through byte for byte, then one closing sp.redacted marker per session', () => {
    const input = chainedLines(200, { sessions: 2, seed: 9 }).join('\n') + '\n';
    const r = runBin('sp-redact', ['-q'], { input, env: { SP_HOME: join(tempDir(), 'h') } });
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(input)).toBe(true);
    const markers = parse(r.stdout.slice(input.length));
    expect(markers.map((m) => m.payload.key)).toEqual(['sp.redacted', 'sp.redacted']);
    expect(new Set(markers.map((m) => m.session)).size).toBe(2);
  });
});

describe('sp-redact: user rules and allowlists', () => {
  it('adds rules, disables rules, and keeps allowlisted values, regexes and paths', () => {
    const { env, dir, write } = setup();
    const acme = 'acme_live_' + 'q7'.repeat(16);
    const rules = join(dir, 'rules.json');
    writeFileSync(
      rules,
      JSON.stringify({
        rules: [{ id: 'acme-token', description: 'ACME deploy token', regex: 'acme_(?:live|test)_[a-z0-9]{32}', keywords: ['acme_'] }],
        disable: ['jwt'],
        allowlist: { values: [F.npm], regexes: ['^sk_live_'], paths: ['payload.input.command', 'origin.raw[*]#/message/content/*/input/**'] },
      }),
    );
    const input = write(
      'in.ndjson',
      chain([
        ev('s', 0, 'message.user', { content: [{ type: 'text', text: `deploy ${acme} ${F.jwt} ${F.npm} ${F.stripeLive} ${F.githubPat}` }] }),
        ev('s', 1, 'tool.call', { call_id: 'c', name: 'Bash', input: { command: `echo ${F.githubPat}`, note: `${F.githubPat}` } }, { origin: { agent: 'claude', native_id: 'n', raw: [nativeLine(F.githubPat)] } }),
      ]),
    );
    const r = runBin('sp-redact', ['-q', '--rules', rules, input], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = parse(r.stdout);
    const text = out[0].payload.content[0].text;
    expect(text).toMatch(/^deploy \[REDACTED:acme-token:[0-9a-f]{8}\] /);
    expect(text).toContain(F.jwt); // rule disabled
    expect(text).toContain(F.npm); // value allowlisted
    expect(text).toContain(F.stripeLive); // regex allowlisted
    expect(text).not.toContain(F.githubPat);
    expect(out[1].payload.input.command).toBe(`echo ${F.githubPat}`); // path allowlisted
    expect(out[1].payload.input.note).not.toContain(F.githubPat);
    const raw = JSON.parse(out[1].origin.raw[0]);
    expect(raw.message.content[1].input.command).toBe(`echo ${F.githubPat}`);
    expect(raw.message.content[0].thinking).not.toContain(F.githubPat);
    const list = runBin('sp-redact', ['--list-rules', '--rules', rules]);
    expect(list.stdout).toMatch(/^acme-token\tacme_\tACME deploy token \[/m);
    expect(list.stdout).not.toMatch(/^jwt\t/m);
  });

  it('rejects a bad rules file with exit 2 and a reason', () => {
    const { dir } = setup();
    const cases: Array<[unknown, RegExp]> = [
      [{ rules: [{ id: 'Bad Id', regex: 'x' }] }, /rules\[0\]\.id/],
      [{ rules: [{ id: 'x', regex: '(' }] }, /invalid regex/],
      [{ rules: [{ id: 'x', regex: 'a', group: 2 }] }, /capture group/],
      [{ disable: ['no-such-rule'] }, /no rule "no-such-rule"/],
      [{ allowlist: { paths: 'x' } }, /allowlist\.paths/],
      [{ typo: 1 }, /unknown member "typo"/],
      [{ rules: [{ id: 'x', regex: '(a+)+b' }] }, /backtrack catastrophically/],
      [{ rules: [{ id: 'x', regex: 'k=(\\w*-?)*;' }] }, /backtrack catastrophically/],
    ];
    mkdirSync(dir, { recursive: true });
    for (const [doc, message] of cases) {
      const path = join(dir, 'bad.json');
      writeFileSync(path, JSON.stringify(doc));
      const r = runBin('sp-redact', ['--rules', path], { input: '' });
      expect(r.code, JSON.stringify(doc)).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});

describe('sp-redact: input and chain', () => {
  it('a line that is not an event is a usage error (exit 2), named with its line', () => {
    const { env } = setup();
    const r = runBin('sp-redact', ['-q'], { input: chain(sampleSession()).slice(0, 2).join('\n') + '\n{not json\n', env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^sp-redact: stdin:3: invalid JSON/m);
  });

  it('chains an unchained stream', () => {
    const events = sampleSession().map((e) => canonicalize(e));
    const r = runBin('sp-redact', ['-q'], { input: events.join('\n') + '\n', env: setup().env });
    expect(r.code).toBe(0);
    expect(runBin('sp-verify', ['-q', '-'], { input: r.stdout }).code).toBe(0);
  });

  it('keeps a broken input chain visible, and warns when it had to re-chain over a bad line', () => {
    const { env } = setup();
    const events = sampleSession();
    const input = chain(events);
    // Tamper with seq 12 (after the secrets) and seq 0 (before them), keeping their old checksums.
    const tamper = (i: number) => {
      const e = JSON.parse(input[i]);
      e.ts += 1;
      input[i] = canonicalize(e);
    };
    tamper(0);
    tamper(12);
    const r = runBin('sp-redact', ['-q'], { input: input.join('\n') + '\n', env });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(input[0]); // unchanged, still wrong: sp-verify sees it
    const v = runBin('sp-verify', ['-'], { input: r.stdout });
    expect(v.code).toBe(1);
    expect(v.stdout).toMatch(/seq 0|:1:/);
    expect(r.stderr).toMatch(/seq 12: session sess_a: the input's checksum does not verify here/);
  });
});

describe('sp-redact: lines that are not canonical', () => {
  it('re-chains a valid but re-formatted stream (jq -c style) without warning, and the output verifies', () => {
    const { env } = setup();
    // Same content, other spelling: keys out of order and a string escape JCS would not write.
    const input = chain(sampleSession()).map((l) => {
      const e = JSON.parse(l);
      const { checksum, ...rest } = e;
      return JSON.stringify({ checksum, ...rest }).replace(/\//g, '\\/');
    });
    expect(runBin('sp-verify', ['-q', '-'], { input: input.join('\n') + '\n' }).code).toBe(0);
    const r = runBin('sp-redact', ['-q'], { input: input.join('\n') + '\n', env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(runBin('sp-verify', ['-q', '-'], { input: r.stdout }).code).toBe(0);
  });
});

describe('sp-redact: memory', () => {
  it('keeps nothing of the content it has passed: 24 MB of secret-laden events run in a 16 MB old space', () => {
    const { dir, env } = setup();
    // Every event holds a different secret inside 4 KB of text: a cache or report that kept slices
    // of the content (which pin the whole parent string in V8) would outgrow the heap cap.
    const filler = 'The handler reads the todo list from the store and returns the page. '.repeat(58);
    const c = new Chainer();
    const path = join(dir, 'big.ndjson');
    const out: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const token = 'ghp_' + (i.toString(36).padStart(6, '0') + 'Zq9Xw2Lk7Pv4Mn8Bc3Df6Gh1Jt5Ry0').slice(0, 36);
      out.push(canonicalize(c.chain(ev('sess_big', i, 'tool.result', { call_id: `c${i}`, content: `${filler}\nexport GITHUB_TOKEN=${token}\n${filler}` }))));
    }
    writeFileSync(path, out.join('\n') + '\n');
    const r = spawnSync(process.execPath, ['--max-old-space-size=16', join(root, 'dist', 'bin', 'sp-redact.js'), '-q', '--report', join(dir, 'r.json'), path], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    expect(r.status, r.stderr.slice(0, 500)).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')).rules).toEqual({ 'github-pat': 6000 });
  }, 60_000);
});

describe('sp-redact: the closing sp.redacted marker', () => {
  const { env, home, write } = setup();
  const input = chain(sampleSession());
  const r = runBin('sp-redact', ['-q', write('in.ndjson', input)], { env });
  const out = parse(r.stdout);
  const marker = out[out.length - 1];

  it('closes the session: seq after the last, its ts, chained so the stream verifies', () => {
    expect(r.code, r.stderr).toBe(0);
    expect(marker).toMatchObject({ session: 'sess_a', seq: 13, ts: 1_790_000_012, type: 'meta', actor: 'system', payload: { key: 'sp.redacted', profile: 'default' } });
    expect(marker.payload.ruleset).toMatch(/^\d+:[0-9a-f]{16}$/);
    expect(runBin('sp-verify', ['-'], { input: r.stdout }).code).toBe(0);
  });

  it('names the key by a hash, never the key itself', () => {
    const key = readFileSync(join(home, 'keys', 'redact.key'), 'utf8').trim();
    expect(marker.payload.key_id).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(r.stdout.includes(key)).toBe(false);
    expect(r.stdout.includes(key.slice(0, 16))).toBe(false);
  });

  it('run twice gives the same bytes as once (no second marker)', () => {
    const twice = runBin('sp-redact', ['-q'], { input: r.stdout, env });
    expect(twice.code).toBe(0);
    expect(twice.stdout).toBe(r.stdout);
    const clean = chainedLines(30, { sessions: 3, seed: 4 }).join('\n') + '\n';
    const once = runBin('sp-redact', ['-q'], { input: clean, env }).stdout;
    expect(runBin('sp-redact', ['-q'], { input: once, env }).stdout).toBe(once);
  });

  it('another key adds its own marker after the first (the newest says what was done last)', () => {
    const other = join(tempDir(), 'other.key');
    writeFileSync(other, 'ab'.repeat(32));
    const again = runBin('sp-redact', ['-q', '--key', other], { input: r.stdout });
    const events = parse(again.stdout);
    expect(events.length).toBe(out.length + 1);
    expect(events[events.length - 2]).toEqual(marker);
    expect(events[events.length - 1].payload.key_id).not.toBe(marker.payload.key_id);
    expect(runBin('sp-verify', ['-'], { input: again.stdout }).code).toBe(0);
  });

  it('a forged marker earns no trust: secrets after it are still redacted', () => {
    const forged = chain([
      ev('sess_f', 0, 'meta', { ...marker.payload }),
      ev('sess_f', 1, 'message.user', { content: [{ type: 'text', text: `key ${F.githubPat}` }] }),
    ]);
    const red = runBin('sp-redact', ['-q', write('forged.ndjson', forged)], { env });
    expect(red.code).toBe(0);
    expect(red.stdout.includes(F.githubPat)).toBe(false);
    expect(parse(red.stdout).map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it('--restore drops the marker: what it writes is no longer redacted', () => {
    const vault = join(tempDir(), 'v.age');
    const red = runBin('sp-redact', ['-q', '--vault', vault, write('v.ndjson', input)], { env });
    const back = runBin('sp-redact', ['-q', '--restore', '--vault', vault], { input: red.stdout, env });
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toBe(input.join('\n') + '\n');
  });
});
