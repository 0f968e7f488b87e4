// A small mock of the Anthropic Messages API for running the real Claude Code client offline.
// It records every request and answers the way the client expects: `HEAD /` (connectivity probe),
// `POST /v1/messages[?beta=true]` as an SSE stream (the client always streams) or plain JSON,
// `POST /v1/messages/count_tokens`. Main-loop requests (those that carry `tools`) get "OK.";
// side requests get a short text, or a value of the JSON schema they ask for (title generation).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  /** `main` = an agent-loop request (has tools); `side` = any other model call. */
  kind: 'main' | 'side' | 'count_tokens' | 'probe' | 'other';
  body: unknown;
}

export interface MockAnthropic {
  port: number;
  url: string;
  requests: RecordedRequest[];
  /** The body of the first agent-loop request: what the client sends as the resumed history. */
  firstMain(): { messages: AnthropicMessage[]; [key: string]: unknown } | undefined;
  close(): Promise<void>;
}

export interface AnthropicMessage {
  role: string;
  content: string | Array<Record<string, unknown>>;
}

type Json = Record<string, unknown>;

function valueFor(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as Json;
  switch (s.type) {
    case 'object':
      return Object.fromEntries(Object.entries((s.properties as Json) ?? {}).map(([k, v]) => [k, valueFor(v)]));
    case 'array':
      return [];
    case 'string':
      return Array.isArray(s.enum) ? s.enum[0] : 'Mock title';
    case 'boolean':
      return false;
    case 'number':
    case 'integer':
      return 0;
    default:
      return null;
  }
}

let counter = 0;
function id(prefix: string): string {
  counter += 1;
  return `${prefix}_mock${Date.now().toString(36)}${counter.toString(36)}`;
}

function reply(body: Json, main: boolean): Json {
  const format = (body.output_config as Json | undefined)?.format as Json | undefined;
  const text = format?.schema ? JSON.stringify(valueFor(format.schema)) : main ? 'OK.' : 'Mock reply.';
  return {
    id: id('msg'),
    type: 'message',
    role: 'assistant',
    model: typeof body.model === 'string' ? body.model : 'claude-mock',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

/** The documented event sequence of a streamed message with text blocks. */
function stream(res: ServerResponse, message: Json): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': id('req') });
  const send = (type: string, data: Json): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  const blocks = message.content as Array<{ text: string }>;
  send('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...(message.usage as Json), output_tokens: 0 } } });
  blocks.forEach((block, index) => {
    send('content_block_start', { index, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    send('content_block_stop', { index });
  });
  send('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 2 } });
  send('message_stop', {});
  res.end();
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': id('req') });
  res.end(JSON.stringify(value));
}

export async function startMockAnthropic(): Promise<MockAnthropic> {
  const requests: RecordedRequest[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse, text: string): void => {
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const record = (kind: RecordedRequest['kind']): void => {
      requests.push({ method, url: req.url ?? '/', kind, body });
    };
    if (method === 'HEAD') {
      record('probe');
      res.writeHead(200);
      res.end();
    } else if (method === 'POST' && path === '/v1/messages/count_tokens') {
      record('count_tokens');
      json(res, { input_tokens: 100 });
    } else if (method === 'POST' && path === '/v1/messages' && body && typeof body === 'object') {
      const b = body as Json;
      const main = Array.isArray(b.tools) && b.tools.length > 0;
      record(main ? 'main' : 'side');
      const message = reply(b, main);
      if (b.stream === true) stream(res, message);
      else json(res, message);
    } else {
      record('other');
      json(res, {});
    }
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    firstMain: () => requests.find((r) => r.kind === 'main')?.body as ReturnType<MockAnthropic['firstMain']>,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
