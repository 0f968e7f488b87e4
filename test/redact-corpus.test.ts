// sp-redact on real captures: every Claude, Codex and Pi fixture (the real-client corpus and the
// public fixtures) captured with --raw by sp-capture. The clean corpus holds no secret, so --check
// must find none (no false positives); copies with secrets injected into prompts, tool arguments
// (also inside JSON-string arguments), tool results and thinking are redacted completely, still
// verify, and restore from the vault byte for byte.
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { root, runBin, tempDir, withoutMarkers } from './support/streams.js';
import { FAKE, STRUCTURAL, generator } from './support/fakeSecrets.js';
import { Chainer } from '../lib/core/chain.js';
import { canonicalize } from '../lib/core/jcs.js';
import type { SpEvent } from '../lib/core/event.js';

const FIXTURES = join(root, 'fixtures');

function jsonl(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...jsonl(path));
    else if (name.endsWith('.jsonl')) out.push(path);
  }
  return out.sort();
}

const AGENTS = ['claude', 'codex', 'pi'] as const;
const files = AGENTS.flatMap((agent) => jsonl(join(FIXTURES, agent)).map((path) => ({ agent, path })));

function capture(agent: string, path: string): string {
  const r = runBin('sp-capture', [agent, '--path', path, '--raw']);
  expect(r.code, `${agent} ${path}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

// What gets injected, in turn: one secret per line of text, each of a different kind.
const SNIPPETS: Array<[string, string]> = [
  [`export GITHUB_TOKEN=${FAKE.githubPat}`, FAKE.githubPat],
  [`AWS_SECRET_ACCESS_KEY=${FAKE.awsSecret}`, FAKE.awsSecret],
  [`curl -H "Authorization: Bearer ${FAKE.bearer}" https://api.acme.dev`, FAKE.bearer],
  [`DATABASE_URL=postgres://app:${FAKE.dbPassword}@db.internal/app`, FAKE.dbPassword],
  [`OPENAI_API_KEY=${FAKE.openaiProject}`, FAKE.openaiProject],
  [`client = Anthropic(api_key="${FAKE.anthropic}")`, FAKE.anthropic],
  [`cat ~/.ssh/id_ed25519\n${FAKE.opensshKey}`, FAKE.opensshKey],
  [`SLACK_BOT_TOKEN=${FAKE.slackBot}`, FAKE.slackBot],
  [`DB_PASSWORD=${FAKE.envPassword}`, FAKE.envPassword],
  [`STRIPE_SECRET_KEY=${FAKE.stripeLive}`, FAKE.stripeLive],
];

// Member names whose string values are content in the agents' native records.
const CONTENT_KEYS = new Set(['text', 'content', 'command', 'cmd', 'output', 'thinking', 'arguments', 'stdout', 'message', 'prompt', 'result', 'new_string', 'summary']);

/** Appends secrets to some content strings of each native line (inside JSON-string arguments too). */
function inject(native: string): { text: string; secrets: Set<string> } {
  let n = 0;
  const secrets = new Set<string>();
  const visit = (value: unknown, key: string | undefined): unknown => {
    if (typeof value === 'string') {
      if (value.startsWith('{') && value.endsWith('}')) {
        try {
          return JSON.stringify(visit(JSON.parse(value), key));
        } catch {
          // not JSON: plain text
        }
      }
      if (key === undefined || !CONTENT_KEYS.has(key) || value.length === 0 || n++ % 3 !== 0) return value;
      const [snippet, secret] = SNIPPETS[secrets.size % SNIPPETS.length];
      secrets.add(secret);
      return `${value}\n${snippet}\n`;
    }
    if (Array.isArray(value)) return value.map((v) => visit(v, key));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = /signature|encrypted|^id$|uuid|Id$|data/i.test(k) ? v : visit(v, k);
      return out;
    }
    return value;
  };
  const lines = native.split('\n').map((line) => {
    if (line.trim() === '') return line;
    try {
      return JSON.stringify(visit(JSON.parse(line), undefined));
    } catch {
      return line;
    }
  });
  return { text: lines.join('\n'), secrets };
}


describe('sp-redact on the captured corpus', () => {
  it('finds nothing in the clean corpus (per-rule counts: all zero), and redacting it changes no byte', () => {
    const dir = tempDir('sp-redact-corpus-');
    const all = join(dir, 'all.ndjson');
    // Each session once: the public fixtures hold some of the corpus sessions again, and a stream
    // with a session twice would not verify whatever sp-redact did.
    const seen = new Set<string>();
    const captures = files.map((f) => capture(f.agent, f.path)).filter((text) => {
      const sessions = new Set([...text.matchAll(/"session":"([^"]+)"/g)].map((m) => m[1]));
      if ([...sessions].some((id) => seen.has(id))) return false;
      for (const id of sessions) seen.add(id);
      return true;
    });
    writeFileSync(all, captures.join(''));
    const input = runBin('sp-verify', ['-q', all]);
    expect(input.code, input.stdout + input.stderr).toBe(0);
    const report = join(dir, 'report.json');
    const r = runBin('sp-redact', ['--check', '--report', report, all]);
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json.events).toBeGreaterThan(1500);
    expect(json.rules, r.stdout).toEqual({});
    expect(r.code).toBe(0);
    const red = runBin('sp-redact', [all], { env: { SP_HOME: join(dir, 'home') } });
    expect(red.code).toBe(0);
    expect(withoutMarkers(red.stdout) === readFileSync(all, 'utf8'), 'sp-redact over the clean corpus is the identity (each session gains only its closing sp.redacted marker)').toBe(true);

    // The public profile changes what identifies people (home paths, e-mails …): per-rule counts
    // are printed, and the output still verifies event by event.
    const pubReport = join(dir, 'public.json');
    const pub = runBin('sp-redact', ['--public', '--report', pubReport, all], { env: { SP_HOME: join(dir, 'home') } });
    expect(pub.code, pub.stderr).toBe(0);
    const counts = JSON.parse(readFileSync(pubReport, 'utf8')).rules as Record<string, number>;
    console.log(`sp-redact --public over ${json.events} corpus events (claude, codex, pi): ${JSON.stringify(counts)}`);
    expect(Object.keys(counts).every((rule) => ['home-path', 'user-name', 'hostname', 'email', 'ip-address', 'git-owner'].includes(rule)), JSON.stringify(counts)).toBe(true);
    expect(counts['home-path']).toBeGreaterThan(0); // the recordings ran in /home/<user>/acme-api
    expect(pub.stdout).not.toMatch(/\/home\/(?:alice|bob|carol)\//);
    const v = runBin('sp-verify', ['-'], { input: pub.stdout });
    expect(v.code, v.stdout).toBe(0);
  }, 600_000); // every fixture captured, then three passes over them

  it('look-alikes change nothing: ids, hashes, signatures, image data, integrity strings, UUIDs, base64 blobs, git SHAs, checksums', () => {
    const S = STRUCTURAL;
    const g = generator(5);
    const blob = g.bytes(900).toString('base64');
    const chainer = new Chainer();
    let seq = 0;
    const e = (type: string, payload: Record<string, unknown>): SpEvent => ({ session: 'sess_lookalike', seq: seq++, ts: 1_790_000_000 + seq, agent: 'claude', type, payload });
    const events = [
      e('message.user', { content: [{ type: 'text', text: Object.entries(S).map(([k, v]) => `${k}: ${v}`).join('\n') }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: S.pngBase64 } }] }),
      e('message.thinking', { text: `checked ${S.gitSha} and ${S.sha256Prefixed}`, signature: S.thinkingSignature, provider: 'anthropic', message_id: S.messageId }),
      e('tool.call', { call_id: S.toolUseId, name: 'Bash', input: { command: `git show ${S.gitSha} && sha256sum a | grep ${S.sha256}`, id: S.callId, uuid: S.uuidUpper } }),
      e('tool.result', { call_id: S.toolUseId, content: `"integrity": "${S.npmIntegrity}",\n"resolved": "${S.npmResolved}"\nblob ${blob}\nmd5 ${S.md5} sha512 ${S.sha512Hex}\nprevious event checksum ${S.checksum}` }),
      e('tool.result', { call_id: S.callIdCodex, content: JSON.stringify({ id: S.ulid, session: S.sessionId, encrypted_content: S.encryptedContent, checksum: S.checksum, parent: S.uuidv7, data: blob }) }),
      e('message.assistant', { content: [{ type: 'text', text: `Image: ${S.pngDataUrl}\nSession ${S.opencodeSession} / ${S.hermesSession}, pi ${S.piId}, v${S.semver} at ${S.isoTime}` }], message_id: S.messageId }),
    ];
    const input = events.map((x) => canonicalize(chainer.chain(x)) + '\n').join('');
    // The stream's own checksums, quoted in a later event, are look-alikes too.
    const checksums = input.trim().split('\n').map((l) => JSON.parse(l).checksum as string);
    const last = e('message.assistant', { content: [{ type: 'text', text: `chain so far: ${checksums.join(' ')}` }] });
    const whole = input + canonicalize(chainer.chain(last)) + '\n';
    const dir = tempDir('sp-redact-lookalike-');
    const r = runBin('sp-redact', [], { input: whole, env: { SP_HOME: join(dir, 'home') } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no secrets found in 7 events/);
    expect(withoutMarkers(r.stdout) === whole, 'look-alikes left byte for byte (the closing sp.redacted marker aside)').toBe(true);
  });

  describe.each(files.filter((f) => f.path.includes('/corpus/')).map((f) => [`${f.agent} ${basename(f.path).slice(0, 40)}`, f] as const))('%s with secrets injected', (_name, f) => {
    it('is redacted completely, verifies, and restores byte for byte', () => {
      const dir = tempDir('sp-redact-inject-');
      const env = { SP_HOME: join(dir, 'home') };
      // Keep the agent's folder layout (a Codex rollout's name holds its id; a Pi session's folder its cwd).
      const copy = join(dir, relative(FIXTURES, f.path));
      mkdirSync(join(copy, '..'), { recursive: true });
      const { text, secrets } = inject(readFileSync(f.path, 'utf8'));
      expect(secrets.size).toBeGreaterThan(0);
      writeFileSync(copy, text);
      const captured = capture(f.agent, copy);
      for (const s of secrets) expect(captured.includes(s) || captured.includes(JSON.stringify(s).slice(1, -1))).toBe(true);

      const vault = join(dir, 'v.age');
      const red = runBin('sp-redact', ['--vault', vault], { input: captured, env });
      expect(red.code, red.stderr).toBe(0);
      for (const s of secrets) {
        // Not as is, not JSON-escaped once (typed fields) or twice (raw lines, JSON-string arguments).
        for (const spelling of [s, JSON.stringify(s).slice(1, -1), JSON.stringify(JSON.stringify(s)).slice(1, -1)]) {
          expect(red.stdout.includes(spelling), `${s.slice(0, 16)} left in ${f.path}`).toBe(false);
        }
      }
      expect(red.stderr).toMatch(/redacted \d+ secrets/);
      const v = runBin('sp-verify', ['-'], { input: red.stdout });
      expect(v.code, v.stdout).toBe(0);
      // Raw native lines still parse after redaction.
      for (const line of red.stdout.split('\n').filter(Boolean)) for (const raw of JSON.parse(line).origin?.raw ?? []) expect(() => JSON.parse(raw)).not.toThrow();

      const back = runBin('sp-redact', ['--restore', '--vault', vault], { input: red.stdout, env });
      expect(back.code, back.stderr).toBe(0);
      expect(back.stdout === captured, 'restore gives back the capture byte for byte').toBe(true);
    });
  });
});
