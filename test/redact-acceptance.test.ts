// A redacted session still resumes in the real clients. Claude: the S2 corpus session (thinking with
// signatures, an image, parallel tools, errors) with secrets injected into its prompt, a tool call
// and a tool result is captured, redacted by sp-redact, materialized, and resumed by the pinned
// `claude` against our mock API. The client must resume that session and send its history: the
// placeholders in place of the secrets, and every signature, image and tool id as captured.
// Codex: the S1 session with a secret inside a JSON-string function argument; the client must send
// the argument as valid JSON with the placeholder, and the encrypted reasoning exactly as captured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { materializeClaude } from '../adapters/claude/materialize.js';
import type { SpEvent } from '../lib/core/event.js';
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

describe('a redacted corpus session in the real Codex client', () => {
  it('S1 with secrets in a JSON-string argument, a tool output and a prompt: capture → sp-redact → materialize → codex exec resume', async () => {
    const { codex } = await import('../adapters/codex/index.js');
    const { S1 } = await import('./support/codexFixtures.js');
    const { runCodexExec, writeCodexConfig } = await import('./support/codexClient.js');
    const { startMockResponses } = await import('./support/mockResponses.js');
    const secrets = [FAKE.githubPat, FAKE.anthropic, FAKE.envPassword];
    const done = { args: false, output: false, prompt: false };
    const native = readFileSync(S1, 'utf8')
      .split('\n')
      .map((line) => {
        if (!line) return line;
        const r = JSON.parse(line) as Json;
        const p = r.payload ?? {};
        if (r.type === 'response_item' && p.type === 'function_call' && p.name === 'exec_command' && !done.args) {
          const args = JSON.parse(p.arguments);
          args.cmd = `GITHUB_TOKEN=${FAKE.githubPat} ${args.cmd}`;
          p.arguments = JSON.stringify(args);
          done.args = true;
        } else if (r.type === 'response_item' && p.type === 'function_call_output' && typeof p.output === 'string' && !done.output) {
          p.output += `\nANTHROPIC_API_KEY=${FAKE.anthropic}\n`;
          done.output = true;
        } else if (r.type === 'response_item' && p.type === 'message' && p.role === 'user' && !done.prompt && Array.isArray(p.content)) {
          const text = p.content.find((c: Json) => c.type === 'input_text' && !String(c.text).startsWith('<'));
          if (text) {
            text.text += `\nDB_PASSWORD=${FAKE.envPassword}`;
            done.prompt = true;
          }
        }
        return JSON.stringify(r);
      })
      .join('\n');
    expect(done).toEqual({ args: true, output: true, prompt: true });
    const rel = S1.slice(S1.indexOf('/sessions/') + 1);
    const copy = join(work, 'codex-native', rel);
    mkdirSync(join(copy, '..'), { recursive: true });
    writeFileSync(copy, native);

    const captured = runBin('sp-capture', ['codex', '--path', copy, '--raw']);
    expect(captured.code, captured.stderr).toBe(0);
    const red = runBin('sp-redact', [], { input: captured.stdout, env: { SP_HOME: join(work, 'sp-codex') } });
    expect(red.code, red.stderr).toBe(0);
    for (const s of secrets) expect(red.stdout.includes(s)).toBe(false);
    const events = red.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as SpEvent);

    const mock = await startMockResponses('OK');
    try {
      const dir = join(work, 'codex-resume');
      const home = join(dir, 'codex-home');
      const cwd = join(dir, 'repo');
      mkdirSync(cwd, { recursive: true });
      writeCodexConfig(home, mock.baseUrl);
      const result = (await codex.materialize!(from(events), { home })) as { session_id: string; path: string };
      const written = readFileSync(result.path, 'utf8');
      for (const s of secrets) expect(written.includes(s)).toBe(false);
      const run = await runCodexExec(['resume', result.session_id, PROBE], { home, work: dir, cwd });
      expect(run.timedOut, run.stderr.slice(-600)).toBe(false);
      expect(run.code, run.stderr.slice(-600)).toBe(0);
      expect(run.threadId).toBe(result.session_id);
      const input = (mock.inputs()[0] ?? []) as Json[];
      const sent = JSON.stringify(input);
      for (const s of secrets) expect(sent.includes(s)).toBe(false);
      // The argument is still a JSON string, with the placeholder inside it.
      const call = input.find((i) => i.type === 'function_call' && String(i.arguments).includes('[REDACTED:'));
      expect(call, 'the redacted call is sent').toBeDefined();
      expect(JSON.parse(call!.arguments).cmd).toMatch(/^GITHUB_TOKEN=\[REDACTED:github-pat:[0-9a-f]{8}\] /);
      expect(sent).toMatch(/ANTHROPIC_API_KEY=\[REDACTED:anthropic-api-key:[0-9a-f]{8}\]/);
      expect(sent).toMatch(/DB_PASSWORD=\[REDACTED:secret-assignment:[0-9a-f]{8}\]/);
      // Encrypted reasoning goes back to the provider exactly as captured.
      const opaque = (text: string) =>
        text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as SpEvent).payload as Json).filter((p) => typeof p.opaque === 'string').map((p) => p.opaque as string);
      const captureOpaque = opaque(captured.stdout);
      expect(opaque(red.stdout)).toEqual(captureOpaque);
      const sentOpaque = input.filter((i) => i.type === 'reasoning' && i.encrypted_content).map((i) => i.encrypted_content as string);
      expect(sentOpaque.length).toBeGreaterThan(0);
      expect(captureOpaque).toEqual(expect.arrayContaining(sentOpaque));
    } finally {
      await mock.close();
    }
  }, 120_000);
});
