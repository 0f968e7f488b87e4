// sp serve's HTTP side: Node's http module on 127.0.0.1 only. Every request carries the random
// token the start-up URL holds (the first request trades `?token=` for an HttpOnly SameSite=Strict
// cookie, or a script sends X-SP-Token); the Host header must name this server (a DNS-rebinding
// page has another); a write must come from this origin as JSON. Pages get a strict
// Content-Security-Policy (scripts and styles from this server only, images from it or data:).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolInputError } from '../mcp/pipeline.js';
import { keyFrom, RequestError, type SessionModel } from './model.js';
import { webAsset, servedPage } from './page.js';

export const SERVE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** The cookie's name carries the port: cookies are not kept per port, and two servers must not overwrite each other's. */
const cookieName = (port: number) => `sp_token_${port}`;
/** The largest request body read (a relay request is a few hundred bytes). */
const MAX_BODY = 64 * 1024;

export interface ServeOptions {
  model: SessionModel;
  port: number;
  /** Given for tests; random (32 bytes, base64url) otherwise. */
  token?: string;
  log?: (line: string) => void;
}

export interface RunningServer {
  server: Server;
  port: number;
  token: string;
  url: string;
  close(): Promise<void>;
}

const LOOPBACK = '127.0.0.1';

function sameToken(given: string | undefined, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieToken(req: IncomingMessage, port: number): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === cookieName(port)) return part.slice(at + 1).trim();
  }
  return undefined;
}

function send(res: ServerResponse, status: number, body: string | Buffer, type: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Content-Security-Policy': SERVE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
    ...extra,
  });
  res.end(body);
}

const json = (res: ServerResponse, status: number, value: unknown) => send(res, status, JSON.stringify(value), 'application/json; charset=utf-8');
const problem = (res: ServerResponse, status: number, message: string) => json(res, status, { error: message });

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new RequestError('the request body is too large', 413);
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RequestError('the request body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RequestError('the request body is not a JSON object');
  return value as Record<string, unknown>;
}

function numberParam(params: URLSearchParams, name: string): number | undefined {
  const v = params.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new RequestError(`"${name}" is not a number`);
  return n;
}

function stringParam(params: URLSearchParams, name: string, max = 500): string | undefined {
  const v = params.get(name);
  if (v === null || v === '') return undefined;
  if (v.length > max || v.includes('\0')) throw new RequestError(`"${name}" is too long or holds a NUL byte`);
  return v;
}

/** Starts the server on 127.0.0.1; resolves once it listens. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const log = options.log ?? (() => {});
  const { model } = options;
  let port = options.port;
  const hosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const origins = () => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // DNS rebinding: a page on evil.example resolved to 127.0.0.1 sends Host: evil.example.
    if (!hosts().has(String(req.headers.host ?? ''))) return problem(res, 421, 'wrong Host: this server answers only to 127.0.0.1 and localhost on its own port');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      return problem(res, 400, 'not a URL');
    }
    const given = url.searchParams.get('token');
    if (url.pathname === '/' && given !== null) {
      if (!sameToken(given, token)) return problem(res, 403, 'wrong token: open the URL sp serve printed');
      // The token leaves the address bar (and history) at once: from here on it is a cookie scripts cannot read.
      res.writeHead(303, { Location: '/', 'Set-Cookie': `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
      return void res.end();
    }
    const header = req.headers['x-sp-token'];
    if (!sameToken(cookieToken(req, port), token) && !sameToken(typeof header === 'string' ? header : undefined, token)) {
      return problem(res, 401, 'no token: open the URL sp serve printed (it holds ?token=…)');
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (url.pathname === '/') return send(res, 200, servedPage(), 'text/html; charset=utf-8');
      if (url.pathname === '/app.js') return send(res, 200, webAsset('app.js'), 'text/javascript; charset=utf-8');
      if (url.pathname === '/app.css') return send(res, 200, webAsset('app.css'), 'text/css; charset=utf-8');
      const p = url.searchParams;
      switch (url.pathname) {
        case '/api/sessions':
          return json(res, 200, await model.list({ agent: stringParam(p, 'agent', 40), project: stringParam(p, 'project'), since: numberParam(p, 'since'), until: numberParam(p, 'until'), q: stringParam(p, 'q') }));
        case '/api/session':
          return json(res, 200, await model.session(keyFrom(p)));
        case '/api/artifact': {
          const bytes = await model.artifact(stringParam(p, 'ref', 80) ?? '');
          // Served as an opaque download type unless it is an image type a browser shows as such.
          const type = /^image\/(png|jpeg|gif|webp)$/.test(p.get('type') ?? '') ? p.get('type')! : 'application/octet-stream';
          return send(res, 200, bytes, type);
        }
        case '/api/usage':
          return json(res, 200, await model.usage(stringParam(p, 'by', 20) ?? 'day', stringParam(p, 'source', 20) ?? 'agents'));
        case '/api/compile':
          return json(res, 200, await model.compile(keyFrom(p), stringParam(p, 'target', 40) ?? 'markdown', numberParam(p, 'budget')));
        case '/api/relay':
          return json(res, 200, await model.relay(keyFrom(p), { target: stringParam(p, 'target', 40) ?? '', cwd: stringParam(p, 'cwd', 4096), mode: stringParam(p, 'mode', 20) }));
        default:
          return problem(res, 404, `no such page: ${url.pathname.slice(0, 100)}`);
      }
    }
    if (req.method === 'POST' && url.pathname === '/api/relay') {
      // A write comes from this page only: its own Origin, as JSON (a cross-site form cannot send that).
      if (!origins().has(String(req.headers.origin ?? ''))) return problem(res, 403, 'cross-origin write refused');
      if (!/^application\/json\b/.test(String(req.headers['content-type'] ?? ''))) return problem(res, 415, 'a write is a JSON request');
      if (!model.writable) return problem(res, 403, 'this server is read-only: start sp serve with --allow-write DIR to write relays there');
      const body = await readBody(req);
      const key = keyFrom(body);
      const str = (name: string) => (typeof body[name] === 'string' && body[name] !== '' ? (body[name] as string) : undefined);
      return json(res, 200, await model.relay(key, { target: str('target') ?? '', cwd: str('cwd'), mode: str('mode'), mkcwd: body.mkcwd === true, write: true }));
    }
    return problem(res, 405, `${String(req.method).slice(0, 10)} is not allowed here`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof RequestError) return problem(res, err.status, err.message);
      // A path outside the roots, a limit: the confinement's own words, as a refusal.
      if (err instanceof ToolInputError) return problem(res, 403, err.message);
      const e = err as NodeJS.ErrnoException;
      log(`${req.method} ${(req.url ?? '').split('?')[0]}: ${e?.message ?? String(err)}`);
      problem(res, 500, `internal error: ${e?.code ?? e?.message ?? 'unknown'}`);
    });
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port, LOOPBACK, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    token,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
