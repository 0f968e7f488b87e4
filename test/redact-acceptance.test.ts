// A redacted session still resumes in the real client: the Claude S2 corpus session (thinking with
// signatures, an image, parallel tools, errors) with secrets injected into its prompt, a tool call
// and a tool result is captured, redacted by sp-redact, materialized, and resumed by the pinned
// `claude` against our mock API. The client must resume that session and send its history: the
// placeholders in place of the secrets, and every signature, image and tool id as captured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { materializeClaude } from '../adapters/claude/materialize.js';
import type { SpEvent } from '../lib/event.js';
import { from } from './support/canonical.js';
import { runClaude } from './support/claudeClient.js';
import { startMockAnthropic } from './support/mockAnthropic.js';
import { root, runBin } from './support/streams.js';
import { FAKE } from './support/fakeSecrets.js';

const SESSION = '9a1dc580-54f5-46ea-bece-7461fb46da3a';
const FIXTURE = join(root, 'fixtures/claude/corpus/S2-debug/.claude/projects/-home-alice-acme-api', `${SESSION}.jsonl`);
const PROBE = 'SP-ACCEPTANCE-PROBE: reply OK';
type Json = Record<string, any>;

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sp-redact-acceptance-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The fixture with a secret in the first prompt, in the first Bash command and in the first tool result. */
function injected(): string {
  const done = { prompt: false, command: false, result: false };
  return readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .map((line) => {
      if (!line) return line;
      const r = JSON.parse(line) as Json;
      const content = r.message?.content;
      if (r.type === 'user' && !done.prompt && Array.isArray(content)) {
        const text = content.find((b: Json) => b.type === 'text');
        if (text) {
          text.text += `\nexport GITHUB_TOKEN=${FAKE.githubPat}`;
          done.prompt = true;
        }
      }
      if (r.type === 'assistant' && !done.command && Array.isArray(content)) {
        const use = content.find((b: Json) => b.type === 'tool_use' && b.name === 'Bash');
        if (use) {
          use.input.command = `AWS_SECRET_ACCESS_KEY=${FAKE.awsSecret} ${use.input.command}`;
          done.command = true;
        }
      }
      if (r.type === 'user' && !done.result && Array.isArray(content)) {
        const result = content.find((b: Json) => b.type === 'tool_result' && typeof b.content === 'string');
        if (result) {
          result.content += `\nDATABASE_URL=postgres://app:${FAKE.dbPassword}@db/app`;
          if (typeof r.toolUseResult?.stdout === 'string') r.toolUseResult.stdout += `\nDATABASE_URL=postgres://app:${FAKE.dbPassword}@db/app`;
          done.result = true;
        }
      }
      return JSON.stringify(r);
    })
    .join('\n');
}

describe('a redacted corpus session in the real Claude Code client', () => {
  it('S2-debug with secrets: capture → sp-redact → materialize → claude --resume sends the redacted history', async () => {
    const native = join(work, 'native', `${SESSION}.jsonl`);
    mkdirSync(join(native, '..'), { recursive: true });
    writeFileSync(native, injected());
    const captured = runBin('sp-capture', ['claude', '--path', native, '--raw']);
    expect(captured.code, captured.stderr).toBe(0);
    for (const s of [FAKE.githubPat, FAKE.awsSecret, FAKE.dbPassword]) expect(captured.stdout).toContain(s);

    const red = runBin('sp-redact', [], { input: captured.stdout, env: { SP_HOME: join(work, 'sp') } });
    expect(red.code, red.stderr).toBe(0);
    const events = red.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as SpEvent);
    const before = captured.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as SpEvent);

    const base = join(work, 'resume');
    const cwd = join(base, 'project');
    mkdirSync(cwd, { recursive: true });
    const home = join(base, 'home');
    const result = await materializeClaude(from(events), { home: join(home, '.claude'), cwd: realpathSync(cwd) });
    const written = readFileSync(result.path, 'utf8');
    for (const s of [FAKE.githubPat, FAKE.awsSecret, FAKE.dbPassword]) expect(written.includes(s)).toBe(false);

    const mock = await startMockAnthropic();
    let messages: Json[] = [];
    let run;
    try {
      run = await runClaude(['-p', PROBE, '--resume', result.session_id, '--dangerously-skip-permissions', '--output-format', 'json'], {
        cwd: realpathSync(cwd),
        home,
        port: mock.port,
        timeoutMs: 60_000,
      });
      messages = (mock.firstMain()?.messages ?? []) as Json[];
    } finally {
      await mock.close();
    }
    expect(run.timedOut, 'client hung').toBe(false);
    expect(run.code, run.stderr || run.stdout).toBe(0);
    expect(JSON.parse(run.stdout).session_id).toBe(result.session_id);

    const sent = JSON.stringify(messages);
    for (const s of [FAKE.githubPat, FAKE.awsSecret, FAKE.dbPassword]) expect(sent.includes(s)).toBe(false);
    expect(sent).toMatch(/GITHUB_TOKEN=\[REDACTED:github-pat:[0-9a-f]{8}\]/);
    expect(sent).toMatch(/AWS_SECRET_ACCESS_KEY=\[REDACTED:aws-secret-access-key:[0-9a-f]{8}\]/);
    expect(sent).toMatch(/postgres:\/\/app:\[REDACTED:url-credentials:[0-9a-f]{8}\]@db/);

    // What redaction must not touch arrives exactly as captured: thinking signatures, images, tool ids.
    const blocks = messages.flatMap((m) => (typeof m.content === 'string' ? [] : (m.content as Json[])));
    const signatures = blocks.filter((b) => b.type === 'thinking').map((b) => b.signature);
    const captureSignatures = before.filter((e) => e.type === 'message.thinking').map((e) => (e.payload as Json).signature).filter(Boolean);
    expect(captureSignatures.length).toBeGreaterThan(0);
    expect(signatures).toEqual(expect.arrayContaining(captureSignatures));
    const images = blocks.filter((b) => b.type === 'image').map((b) => b.source?.data);
    const captureImages = before.flatMap((e) => (e.type === 'message.user' ? ((e.payload as Json).content as Json[]) : [])).filter((b) => b.type === 'image').map((b) => b.data);
    expect(captureImages.length).toBeGreaterThan(0);
    expect(images).toEqual(expect.arrayContaining(captureImages));
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id);
    expect(uses).toEqual(expect.arrayContaining(before.filter((e) => e.type === 'tool.call').map((e) => (e.payload as Json).call_id)));
  }, 120_000);
});
