// A small local stand-in for the OpenAI Responses API, so the real Codex CLI can run offline:
// one node:http server on 127.0.0.1 (port 0). `POST …/responses` is answered as a server-sent-event
// stream (response.created, output_item.added/done, response.completed — what the client needs),
// and every request body is kept so the caller can see which history the client sent.
// Used by the demo (examples/demo.mjs) and by the acceptance tests (test/acceptance/codex.test.ts).
import { createServer } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

function decode(bytes, encoding) {
  if (encoding === 'gzip') return gunzipSync(bytes);
  if (encoding === 'deflate') return inflateSync(bytes);
  if (encoding === 'br') return brotliDecompressSync(bytes);
  return bytes;
}

/**
 * Starts the mock; every model request is answered with one assistant message `reply`.
 * @param {string} [reply]
 */
export async function startMockResponses(reply = 'mock: done') {
  /** @type {Array<{method: string, path: string, headers: object, body: any}>} */
  const requests = [];
  let counter = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let body;
      try {
        body = JSON.parse(decode(Buffer.concat(chunks), req.headers['content-encoding']).toString('utf8'));
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
      const send = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
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
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    /** The `input` of every model request, in order. */
    inputs: () => requests.filter((r) => r.method === 'POST' && r.path.endsWith('/responses') && Array.isArray(r.body?.input)).map((r) => r.body.input),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** config.toml lines that route a Codex home's model to the mock at `baseUrl` (no updates, no analytics, no retries). */
export function codexConfig(baseUrl, model = 'gpt-5.5') {
  return [
    `model = "${model}"`,
    'model_provider = "mock"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "${baseUrl}"`,
    'wire_api = "responses"',
    'env_key = "SP_MOCK_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n');
}
