// A small stand-in for Augment's backend (the "tenant" Auggie talks to instead of a model vendor),
// for running the real client offline (docs/formats/auggie.md §1). `AUGMENT_SESSION_AUTH` with this
// server's URL as `tenantURL` points the client here. It answers:
//   POST /get-models                         one model, empty feature flags (the client refuses to
//                                            start a turn without a models list and a default model)
//   POST /settings/get-mcp-*-configs         nothing configured
//   POST /agents/list-remote-tools           no remote tools (`{tools: []}`; `{}` makes it report an error)
//   POST /chat-stream                        newline-delimited JSON chunks: the next scripted turn
//                                            (texts and tool calls), else a short text
// and records every request body, so tests assert what history reached the "model".
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, any>;

export const MOCK_MODEL = 'mock-augment-model';

/** One piece of a scripted answer: a text, or a tool call the client runs and answers in its next request. */
export type AnswerPart = { text: string } | { tool: { id: string; name: string; input: Json } };

export interface AugmentRequest {
  path: string;
  body: Json;
}

export interface MockAugment {
  url: string;
  /** Every request, in order. */
  requests: AugmentRequest[];
  /** The `/chat-stream` bodies only. */
  chats(): Json[];
  /** `/report-error` bodies: the client reporting a failure it met. */
  errors(): Json[];
  close(): Promise<void>;
}

/** The environment that points the client at the mock without a login. */
export function augmentAuth(url: string): string {
  return JSON.stringify({ accessToken: 'mock-token', tenantURL: url, scopes: ['email'] });
}

function modelsAnswer(): Json {
  return {
    default_model: MOCK_MODEL,
    models: [{ name: MOCK_MODEL, suggested_prefix_char_count: 4096, suggested_suffix_char_count: 4096 }],
    feature_flags: {},
    languages: [],
    user_tier: 'PROFESSIONAL_TIER',
    user: { id: 'mock-user', email: 'user@example.com' },
  };
}

function nodes(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((n): n is Json => typeof n === 'object' && n !== null) : [];
}

function toolUses(exchange: Json | undefined): string[] {
  return nodes(exchange?.response_nodes).filter((n) => n.type === 5).map((n) => String(n.tool_use?.tool_use_id));
}

function toolResults(requestNodes: unknown): string[] {
  return nodes(requestNodes).filter((n) => n.type === 1).map((n) => String(n.tool_result_node?.tool_use_id));
}

/**
 * Why a model API behind the tenant would refuse this history: a tool use not answered by the next
 * request, a tool result answering no tool use of the exchange before it, a request with nothing in it.
 */
export function historyViolations(body: Json): string[] {
  const out: string[] = [];
  const history = nodes(body.chat_history);
  const requests = [...history.map((h) => h.request_nodes), body.nodes];
  requests.forEach((request, i) => {
    const asked = i > 0 ? toolUses(history[i - 1]) : [];
    const answered = toolResults(request);
    for (const id of answered) if (!asked.includes(id)) out.push(`request ${i}: tool result ${id} answers no tool use of the exchange before`);
    for (const id of asked) if (!answered.includes(id)) out.push(`request ${i}: tool use ${id} is not answered`);
    const said = nodes(request).some((n) => (n.type === 0 && String(n.text_node?.content ?? '').trim() !== '') || n.type === 1);
    if (!said) out.push(`request ${i}: neither text nor tool results`);
  });
  return out;
}

/** A scripted turn as the chunks `/chat-stream` streams: node type 0 is text, type 5 a tool use. */
export function chunksOf(parts: AnswerPart[]): Json[] {
  const chunks: Json[] = [];
  parts.forEach((part, id) => {
    if ('text' in part) chunks.push({ text: part.text, nodes: [{ id, type: 0, content: part.text }] });
    else chunks.push({ text: '', nodes: [{ id, type: 5, content: '', tool_use: { tool_use_id: part.tool.id, tool_name: part.tool.name, input_json: JSON.stringify(part.tool.input) } }] });
  });
  const calls = parts.some((p) => 'tool' in p);
  // stop_reason: 1 a finished answer, 3 the model waits for tool results.
  chunks[chunks.length - 1] = { ...chunks[chunks.length - 1], stop_reason: calls ? 3 : 1 };
  return chunks;
}

/**
 * Starts the mock on a free loopback port. `script` is consumed one turn per `/chat-stream`
 * request; once it is used up every request is answered with `fallback`.
 */
export async function startMockAugment(script: AnswerPart[][] = [], fallback = 'OK'): Promise<MockAugment> {
  const requests: AugmentRequest[] = [];
  const queue = [...script];
  const answer = (path: string, body: Json, res: ServerResponse): void => {
    if (path === '/chat-stream') {
      const parts = queue.shift() ?? [{ text: fallback }];
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(chunksOf(parts).map((c) => JSON.stringify(c)).join('\n') + '\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (path === '/get-models') res.end(JSON.stringify(modelsAnswer()));
    else if (path === '/agents/list-remote-tools') res.end(JSON.stringify({ tools: [] }));
    else res.end('{}');
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').replace(/^\/+/, '/').split('?')[0];
      let body: Json = {};
      try {
        const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        if (value && typeof value === 'object') body = value as Json;
      } catch {
        body = { unparsed: Buffer.concat(chunks).toString('utf8') };
      }
      requests.push({ path, body });
      answer(path, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    chats: () => requests.filter((r) => r.path === '/chat-stream').map((r) => r.body),
    errors: () => requests.filter((r) => r.path === '/report-error').map((r) => r.body),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
