// sp-compile --summarizer: a model-written P2 summary from local mock servers speaking the OpenAI,
// Anthropic and Ollama APIs (and a local command), with errors, timeouts and over-long answers; the
// budget is never exceeded, the prompt and answer are recorded, secrets never reach the model, and
// the extractive summary stands in whenever the model fails.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizerConfig, isLocal, SummarizerError } from '../lib/compile/model-summary.js';
import { releaseTokenizers } from '../lib/compile/tokens.js';
import { SessionBuilder } from './support/canonical.js';
import { compileFile } from './support/compile.js';
import { runBin, writeLines } from './support/streams.js';

const SECRET = 'AKIA' + 'QWERTYUIOPASDFGH';

function session(): string {
  const b = new SessionBuilder('claude', 'sess_summarize', { cwd: '/nonexistent/sp-summarize' });
  b.user(`Deploy the API. My AWS key is ${SECRET} and the server is at /home/alice/acme-api.`);
  b.assistant('I read the deploy script first. It uses the staging profile.');
  b.user('Then fix the failing healthcheck.');
  b.assistant('The healthcheck failed because the port was 8081 instead of 8080. I changed config.yml and the check passes now.');
  return writeLines(b.events.map((e) => JSON.stringify(e)));
}

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** One mock server for the three APIs; `reply` decides each answer. */
class MockApi {
  server!: Server;
  seen: Seen[] = [];
  reply: (seen: Seen, res: ServerResponse) => void = () => undefined;
  url = '';
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const seen = { path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') };
        this.seen.push(seen);
        this.reply(seen, res);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const ANSWER = '- The user asked to deploy the API [seq 1].\n- The healthcheck failed on port 8081; config.yml now says 8080 and it passes [seq 4].';

function answerFor(provider: string, text: string): unknown {
  if (provider === 'openai') return { model: 'mock-gpt', choices: [{ message: { role: 'assistant', content: text } }], usage: { prompt_tokens: 111, completion_tokens: 22 } };
  if (provider === 'anthropic') return { model: 'mock-claude', content: [{ type: 'text', text }], usage: { input_tokens: 120, output_tokens: 25 } };
  return { model: 'mock-llama', message: { role: 'assistant', content: text }, prompt_eval_count: 130, eval_count: 27 };
}

const api = new MockApi();
beforeAll(() => api.start());
afterAll(async () => {
  await api.stop();
  releaseTokenizers();
});

const config = (provider: 'openai' | 'anthropic' | 'ollama', timeoutMs = 10_000) =>
  summarizerConfig(provider, { endpoint: api.url, model: `mock-${provider}`, timeoutMs }, { SP_SUMMARIZER_KEY: 'sk-test-key' });

const redaction = { redact: (t: string) => t.replaceAll(SECRET, '[REDACTED:aws]'), label: 'default' };

describe('the model summarizer', { timeout: 120_000 }, () => {
  for (const provider of ['openai', 'anthropic', 'ollama'] as const) {
    it(`${provider}: the answer becomes the summary section, the exchange is recorded, the input is redacted`, async () => {
      api.seen = [];
      api.reply = (seen, res) => json(res, 200, answerFor(provider, ANSWER));
      const r = await compileFile(session(), { target: 'codex', renderOnly: false, workspace: false, summarizer: config(provider), summarizerRedaction: redaction });
      expect(api.seen).toHaveLength(1);
      const seen = api.seen[0];
      expect(seen.path).toBe({ openai: '/v1/chat/completions', anthropic: '/v1/messages', ollama: '/api/chat' }[provider]);
      if (provider === 'openai') expect(seen.headers.authorization).toBe('Bearer sk-test-key');
      if (provider === 'anthropic') expect(seen.headers['x-api-key']).toBe('sk-test-key');
      const sent = JSON.stringify(seen.body);
      expect(sent).not.toContain(SECRET);
      expect(sent).toContain('[REDACTED:aws]');
      expect(sent).toContain('[seq 4] assistant: The healthcheck failed');
      const payload = r.event.payload as Record<string, any>;
      expect(payload.text).toContain('## Summary (model-written)');
      expect(payload.text).toContain('The healthcheck failed on port 8081');
      expect(payload.summarizer).toMatchObject({ provider, used: true, cut: false, local: true, redaction: 'default' });
      expect(payload.summarizer.answer).toBe(ANSWER);
      expect(payload.summarizer.prompt).toContain('[seq 1] user: Deploy the API.');
      expect(payload.summarizer.tokens.counted_by).toBe('the model');
      expect(payload.tokens).toBeLessThanOrEqual(payload.budget);
      expect(payload.items.some((i: { id: string }) => i.id === 'summary:model')).toBe(true);
    });
  }

  it('cuts an over-long answer to its share of the budget; the handoff stays within budget', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `- Point ${i}: the service restarted and the cache warmed up again after the deploy [seq 4].`).join('\n');
    api.reply = (seen, res) => json(res, 200, answerFor('openai', long));
    const r = await compileFile(session(), { target: 'codex', budget: 2000, workspace: false, summarizer: config('openai'), summarizerRedaction: redaction });
    const payload = r.event.payload as Record<string, any>;
    expect(payload.summarizer.cut).toBe(true);
    expect(payload.tokens).toBeLessThanOrEqual(2000);
    expect(payload.text).toContain('- Point 0:');
    expect(payload.text).not.toContain('- Point 399:');
  });

  for (const [name, reply, error] of [
    ['an HTTP error', (_: Seen, res: ServerResponse) => json(res, 500, { error: 'overloaded' }), /^HTTP 500/],
    ['a body that is not JSON', (_: Seen, res: ServerResponse) => res.end('<html>'), /not JSON/],
    ['an answer without text', (_: Seen, res: ServerResponse) => json(res, 200, { choices: [] }), /no text/],
    ['no answer in time', () => undefined, /no answer within 1 s/],
  ] as const) {
    it(`falls back to the extractive summary on ${name}`, async () => {
      api.reply = reply as (seen: Seen, res: ServerResponse) => void;
      const r = await compileFile(session(), { target: 'codex', workspace: false, summarizer: config('openai', 1000), summarizerRedaction: redaction });
      const payload = r.event.payload as Record<string, any>;
      expect(payload.summarizer.used).toBe(false);
      expect(payload.summarizer.error).toMatch(error);
      expect(payload.text).not.toContain('## Summary (model-written)');
      expect(payload.text).toContain('## Key excerpts');
    });
  }

  it('sp-compile --summarizer command:… runs a local command; a failing one warns and falls back', () => {
    const file = session();
    const ok = runBin('sp-compile', ['--for', 'claude', '--render', '--no-workspace', '--summarizer', `command:sed -n '$p' | cut -c1-60`, file]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('## Summary (model-written)');
    expect(ok.stdout).toContain('- Written by command: sed');
    const bad = runBin('sp-compile', ['--for', 'claude', '--render', '--no-workspace', '--summarizer', 'command:exit 3', file]);
    expect(bad.code).toBe(0);
    expect(bad.stderr.trim()).toBe('sp-compile: --summarizer: the command exited 3; the extractive summary stands in');
    expect(bad.stdout).not.toContain('## Summary (model-written)');
  });

  it('refuses specs that cannot work, before anything is read', () => {
    const r = runBin('sp-compile', ['--for', 'claude', '--summarizer', 'gpt', session()]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('sp-compile: --summarizer: unknown summarizer "gpt"; use openai, anthropic, ollama or command:<cmd>');
    expect(() => summarizerConfig('openai', { model: 'm' }, {})).toThrow(SummarizerError);
    expect(() => summarizerConfig('openai', { endpoint: 'file:///etc/passwd', model: 'm' }, { SP_SUMMARIZER_KEY: 'k' })).toThrow(/http/);
    expect(() => summarizerConfig('anthropic', { endpoint: 'https://user:pw@example.com', model: 'm' }, { SP_SUMMARIZER_KEY: 'k' })).toThrow(/not in the URL/);
    expect(() => summarizerConfig('ollama', {}, {})).toThrow(/which model/);
  });

  it('treats only loopback endpoints and commands as local (remote ones get the public profile)', () => {
    expect(isLocal(summarizerConfig('ollama', { model: 'm' }, {}))).toBe(true);
    expect(isLocal(summarizerConfig('openai', { endpoint: 'http://[::1]:8080', model: 'm' }, {}))).toBe(true);
    expect(isLocal(summarizerConfig('openai', { model: 'm' }, { OPENAI_API_KEY: 'k' }))).toBe(false);
    expect(isLocal(summarizerConfig('openai', { endpoint: 'http://127.0.0.1.evil.example', model: 'm' }, { SP_SUMMARIZER_KEY: 'k' }))).toBe(false);
  });

  it('sends a remote model the public profile: paths and the secret leave redacted, and the event says so', () => {
    // A remote endpoint that is unreachable here: the request fails, but the redaction label is recorded.
    const r = runBin('sp-compile', ['--for', 'codex', '--no-workspace', '--summarizer', 'openai', '--summarizer-model', 'm', '--summarizer-endpoint', 'https://sp-summarizer.invalid', '--summarizer-timeout', '5', session()], { env: { SP_SUMMARIZER_KEY: 'k' } });
    expect(r.code).toBe(0);
    const compiled = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(compiled.payload.summarizer).toMatchObject({ local: false, redaction: 'public', used: false });
  });
});
