// A small mock of the Gemini API (generativelanguage v1beta) for running the real Gemini CLI offline:
//   POST /v1beta/models/<model>:streamGenerateContent?alt=sse   SSE of GenerateContentResponse
//   POST /v1beta/models/<model>:generateContent                 one GenerateContentResponse
//   POST /v1beta/models/<model>:countTokens                     {totalTokens}
// It records every request. Agent-loop requests (those that offer tools) get a short text; side
// requests that ask for JSON (responseJsonSchema / responseSchema: next-speaker checks, summaries)
// get a value of that schema. Like the real API it refuses (HTTP 400) a history whose function
// calls and responses do not pair up, turn by turn, so a broken resume fails the test.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, any>;

export interface GeminiRequest {
  method: 'streamGenerateContent' | 'generateContent' | 'countTokens';
  model: string;
  body: Json;
  /** Whether the request offers tools (the agent loop). */
  main: boolean;
  violations: string[];
}

export interface MockGemini {
  port: number;
  /** For GOOGLE_GEMINI_BASE_URL. */
  url: string;
  requests: GeminiRequest[];
  /** The contents of the first agent-loop request after `from` (an index into `requests`). */
  firstMain(from?: number): Json[] | undefined;
  close(): Promise<void>;
}

function valueFor(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as Json;
  const type = String(s.type ?? '').toLowerCase();
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries((s.properties as Json) ?? {}).map(([k, v]) => [k, valueFor(v)]));
    case 'array':
      return [];
    case 'string':
      return 'mock';
    case 'boolean':
      return false;
    case 'number':
    case 'integer':
      return 0;
    default:
      return null;
  }
}

/** Why the real API would refuse this history: calls of a model turn not answered, in order, by the next user turn. */
export function geminiViolations(contents: Json[]): string[] {
  const out: string[] = [];
  contents.forEach((content, i) => {
    const parts: Json[] = Array.isArray(content?.parts) ? content.parts : [];
    if (parts.length === 0) out.push(`contents[${i}] has no parts`);
    if (content?.role !== 'user' && content?.role !== 'model') out.push(`contents[${i}] has role ${JSON.stringify(content?.role)}`);
    const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall);
    if (content?.role === 'model' && calls.length > 0) {
      const next: Json[] = Array.isArray(contents[i + 1]?.parts) ? contents[i + 1].parts : [];
      const responses = next.filter((p) => p.functionResponse).map((p) => p.functionResponse);
      if (contents[i + 1]?.role !== 'user' || responses.length !== calls.length) {
        out.push(`contents[${i}]: ${calls.length} function call(s) answered by ${responses.length} response(s)`);
      } else {
        calls.forEach((call, j) => {
          if (call.id !== undefined && responses.every((r) => r.id !== call.id)) out.push(`contents[${i}]: call ${call.id} has no response`);
          if (responses[j] && responses[j].name !== calls[j].name && responses.every((r) => r.name !== call.name)) out.push(`contents[${i}]: call ${call.name} answered by another name`);
        });
      }
    }
    if (content?.role === 'user' && parts.some((p) => p.functionResponse)) {
      const prev: Json[] = Array.isArray(contents[i - 1]?.parts) ? contents[i - 1].parts : [];
      if (contents[i - 1]?.role !== 'model' || !prev.some((p) => p.functionCall)) out.push(`contents[${i}]: function response without a call before it`);
    }
  });
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function response(text: string): Json {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1, totalTokenCount: 13 },
    modelVersion: 'mock',
  };
}

/** Starts the mock on 127.0.0.1 and a free port; agent-loop requests are answered with `text`. */
export async function startMockGemini(text = 'OK'): Promise<MockGemini> {
  const requests: GeminiRequest[] = [];
  const server = createServer((req, res: ServerResponse) => {
    void (async () => {
      const url = req.url ?? '';
      const match = /\/models\/([^/:?]+):(streamGenerateContent|generateContent|countTokens)/.exec(url);
      const raw = req.method === 'POST' ? await readBody(req) : '';
      if (!match) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 404, message: `no route ${req.method} ${url}` } }));
        return;
      }
      let body: Json = {};
      try {
        body = raw ? (JSON.parse(raw) as Json) : {};
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 400, message: 'body is not JSON' } }));
        return;
      }
      const method = match[2] as GeminiRequest['method'];
      const contents: Json[] = Array.isArray(body.contents) ? body.contents : [];
      const main = Array.isArray(body.tools) && body.tools.length > 0;
      const violations = method === 'countTokens' ? [] : geminiViolations(contents);
      requests.push({ method, model: match[1], body, main, violations });
      if (method === 'countTokens') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: 12 }));
        return;
      }
      if (violations.length > 0) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 400, status: 'INVALID_ARGUMENT', message: violations.join('; ') } }));
        return;
      }
      const config: Json = body.generationConfig ?? {};
      const schema = config.responseJsonSchema ?? config.responseSchema;
      const reply = response(!main && schema ? JSON.stringify(valueFor(schema)) : text);
      if (method === 'generateContent') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.write(`data: ${JSON.stringify(reply)}\r\n\r\n`);
      res.end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    firstMain: (from = 0) => requests.slice(from).find((r) => r.main && r.method !== 'countTokens')?.body.contents,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
