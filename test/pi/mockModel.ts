// A small mock of the two model APIs Pi talks to, for running the real client offline:
//   POST /v1/messages          Anthropic Messages (SSE when `stream`, else JSON)
//   POST /v1/chat/completions  OpenAI Chat Completions (SSE when `stream`, else JSON)
// It records every request and answers with a short text. Like a real API it rejects (HTTP 400) a
// request that breaks the tool-call pairing rules, so a resumed history that a provider would
// refuse fails the test instead of passing silently.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, any>;

export interface ModelRequest {
  api: 'anthropic' | 'openai';
  body: Json;
  /** Why a real API would reject this request (empty when it would not). */
  violations: string[];
}

export interface MockModel {
  port: number;
  /** Base URL for an `anthropic-messages` provider (the SDK adds /v1/messages). */
  anthropicUrl: string;
  /** Base URL for an `openai-completions` provider (the SDK adds /chat/completions). */
  openaiUrl: string;
  requests: ModelRequest[];
  close(): Promise<void>;
}

const TOOL_ID = /^[A-Za-z0-9_-]+$/;

function blocks(content: unknown): Json[] {
  return Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content }] : [];
}

/** Anthropic's rules: tool_result blocks answer exactly the tool_use blocks of the message before. */
export function anthropicViolations(messages: Json[]): string[] {
  const out: string[] = [];
  if (messages[0]?.role !== 'user') out.push('first message is not a user message');
  messages.forEach((m, i) => {
    const content = blocks(m.content);
    for (const b of content) if (b.type === 'text' && String(b.text ?? '').trim() === '') out.push(`message ${i}: empty text block`);
    const uses = m.role === 'assistant' ? content.filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : [];
    for (const id of uses) if (!TOOL_ID.test(id)) out.push(`message ${i}: tool_use id ${id} has characters Anthropic rejects`);
    const results = m.role === 'user' ? content.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)) : [];
    if (results.length > 0) {
      const before = messages[i - 1];
      const asked = before?.role === 'assistant' ? blocks(before.content).filter((b) => b.type === 'tool_use').map((b) => String(b.id)) : [];
      for (const id of results) if (!asked.includes(id)) out.push(`message ${i}: tool_result ${id} answers no tool_use of the message before`);
    }
    if (uses.length > 0) {
      const next = messages[i + 1];
      const answered = next?.role === 'user' ? blocks(next.content).filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)) : [];
      for (const id of uses) if (!answered.includes(id)) out.push(`message ${i}: tool_use ${id} has no tool_result right after it`);
    }
  });
  return out;
}

/** OpenAI's rules: each assistant tool call is answered by a `tool` message before anything else. */
export function openaiViolations(messages: Json[]): string[] {
  const out: string[] = [];
  let open: string[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      if (!open.includes(String(m.tool_call_id))) out.push(`message ${i}: tool result ${m.tool_call_id} answers no open call`);
      open = open.filter((id) => id !== m.tool_call_id);
      return;
    }
    if (open.length > 0) out.push(`message ${i}: calls ${open.join(', ')} unanswered`);
    open = m.role === 'assistant' && Array.isArray(m.tool_calls) ? m.tool_calls.map((c: Json) => String(c.id)) : [];
  });
  return out;
}

function sse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

function anthropicReply(res: ServerResponse, body: Json, text: string): void {
  const message = { id: 'msg_mock0001', type: 'message', role: 'assistant', model: body.model, content: [] as Json[], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content: [{ type: 'text', text }], stop_reason: 'end_turn' }));
    return;
  }
  sse(res);
  const send = (type: string, data: Json) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', { message });
  send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  send('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
  send('content_block_stop', { index: 0 });
  send('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } });
  send('message_stop', {});
  res.end();
}

function openaiReply(res: ServerResponse, body: Json, text: string): void {
  const base = { id: 'chatcmpl-mock0001', created: Math.floor(Date.now() / 1000), model: body.model };
  const usage = { prompt_tokens: 12, completion_tokens: 1, total_tokens: 13 };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage }));
    return;
  }
  sse(res);
  const send = (data: Json) => res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...data })}\n\n`);
  send({ choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] });
  send({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  send({ choices: [], usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the mock on 127.0.0.1 and a free port; every model request is answered with `text`. */
export async function startMockModel(text = 'OK'): Promise<MockModel> {
  const requests: ModelRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const url = (req.url ?? '').split('?')[0];
      const raw = req.method === 'POST' ? await readBody(req) : '';
      let body: Json = {};
      try {
        body = raw ? (JSON.parse(raw) as Json) : {};
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'body is not JSON' } }));
        return;
      }
      const api = url.endsWith('/messages') ? 'anthropic' : url.endsWith('/chat/completions') ? 'openai' : undefined;
      if (req.method !== 'POST' || !api) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${url}` } }));
        return;
      }
      const messages: Json[] = Array.isArray(body.messages) ? body.messages : [];
      const violations = api === 'anthropic' ? anthropicViolations(messages) : openaiViolations(messages);
      requests.push({ api, body, violations });
      if (violations.length > 0) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: violations.join('; ') } }));
        return;
      }
      if (api === 'anthropic') anthropicReply(res, body, text);
      else openaiReply(res, body, text);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    anthropicUrl: `http://127.0.0.1:${port}`,
    openaiUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
