// A small mock of the OpenAI Responses API for driving the real Codex CLI offline in tests: one
// node:http server on 127.0.0.1 (port 0), `POST …/responses` answered as a server-sent-event
// stream (response.created, output_item.added/done, response.completed — what the client needs,
// formats/codex.md §7), and every request body kept for the test to inspect.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

type Json = Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Json | undefined;
}

export interface MockResponses {
  port: number;
  baseUrl: string;
  requests: RecordedRequest[];
  /** The `input` of every model request, in order. */
  inputs(): Json[][];
  close(): Promise<void>;
}

function decode(bytes: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'gzip') return gunzipSync(bytes);
  if (encoding === 'deflate') return inflateSync(bytes);
  if (encoding === 'br') return brotliDecompressSync(bytes);
  return bytes;
}

/** Starts the mock; every model request is answered with one assistant message `reply`. */
export async function startMockResponses(reply = 'mock: done'): Promise<MockResponses> {
  const requests: RecordedRequest[] = [];
  let counter = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Json | undefined;
      try {
        body = JSON.parse(decode(Buffer.concat(chunks), req.headers['content-encoding'] as string | undefined).toString('utf8')) as Json;
      } catch {
        body = undefined;
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || !(req.url ?? '').endsWith('/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not mocked' } }));
        return;
      }
      counter += 1;
      const id = `resp_mock${counter}`;
      const item = { type: 'message', id: `msg_mock${counter}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply, annotations: [] }] };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let sequence = 0;
      const send = (type: string, data: Json): void => {
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
      };
      send('response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
      send('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
      send('response.output_text.delta', { output_index: 0, content_index: 0, item_id: item.id, delta: reply });
      send('response.output_item.done', { output_index: 0, item });
      send('response.completed', {
        response: {
          id,
          object: 'response',
          status: 'completed',
          output: [item],
          usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 105 },
        },
      });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    inputs: () =>
      requests
        .filter((r) => r.method === 'POST' && r.path.endsWith('/responses') && Array.isArray(r.body?.input))
        .map((r) => r.body!.input as Json[]),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
