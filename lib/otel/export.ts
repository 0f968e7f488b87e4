// `sp-export otel`: sessions → one OTLP/JSON trace request, written to a file (or stdout) or sent
// to an OTLP/HTTP receiver (`POST <endpoint>/v1/traces`, application/json). Content goes out only
// with `content`, and then always redacted with sp-redact's rules and keyed placeholders first.
import type { SpEvent } from '../core/event.js';
import { UserError, EXIT_CHECK_FAILED } from '../cli/diagnostics.js';
import { tracesRequest, type OtlpTraceRequest, type TraceOptions } from './traces.js';

/** Events grouped by session, each in seq order. */
export function bySession(events: SpEvent[]): SpEvent[][] {
  const map = new Map<string, SpEvent[]>();
  for (const event of events) {
    const list = map.get(event.session) ?? [];
    list.push(event);
    map.set(event.session, list);
  }
  return [...map.values()].map((list) => [...list].sort((a, b) => a.seq - b.seq));
}

/** Copies of the events with every secret in their strings replaced by its sp-redact placeholder. */
export async function redactEvents(events: SpEvent[]): Promise<SpEvent[]> {
  const { loadConfig } = await import('../redact/config.js');
  const { Detector } = await import('../redact/detector.js');
  const { Placeholders, loadRedactKey } = await import('../redact/keys.js');
  const { Scanner, applyHits, walkEvent } = await import('../redact/walker.js');
  const config = loadConfig();
  const scanner = new Scanner(new Detector(config.rules, { values: config.allowValues, regexes: config.allowRegexes }));
  const placeholders = new Placeholders(await loadRedactKey());
  return events.map((event) => {
    const copy = JSON.parse(JSON.stringify(event)) as SpEvent;
    walkEvent(copy, (text, key) => {
      const hits = scanner.scanString(text, key);
      return hits.length > 0 ? applyHits(text, hits, placeholders) : undefined;
    });
    return copy;
  });
}

export async function buildTraces(events: SpEvent[], options: TraceOptions): Promise<OtlpTraceRequest> {
  const input = options.content ? await redactEvents(events) : events;
  return tracesRequest(bySession(input), options);
}

/** The traces URL of an OTLP/HTTP endpoint (`http://host:4318` → `…/v1/traces`; a full `/v1/traces` URL stays). */
export function tracesUrl(endpoint: string): URL {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new UserError(`not a URL: ${JSON.stringify(endpoint.slice(0, 200))}`, '--endpoint');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UserError(`only http and https endpoints are supported, not ${url.protocol}`, '--endpoint');
  if (url.username || url.password) throw new UserError('credentials in the URL are not sent; use --header "Authorization: …"', '--endpoint');
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url;
}

/** Sends one request; a UserError naming the endpoint when it cannot be delivered or is refused. */
export async function sendTraces(endpoint: string, request: OtlpTraceRequest, headers: Record<string, string> = {}, timeoutMs = 30_000): Promise<{ status: number; rejected: number }> {
  const url = tracesUrl(endpoint);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    throw new UserError(`cannot send: ${cause}`, url.origin + url.pathname);
  }
  const body = await response.text().catch(() => '');
  if (!response.ok) throw new UserError(`the receiver refused the traces: HTTP ${response.status}`, url.origin + url.pathname, EXIT_CHECK_FAILED);
  let rejected = 0;
  try {
    const parsed = JSON.parse(body) as { partialSuccess?: { rejectedSpans?: string | number; errorMessage?: string } };
    rejected = Number(parsed.partialSuccess?.rejectedSpans ?? 0);
    if (rejected > 0) throw new UserError(`the receiver rejected ${rejected} span(s)${parsed.partialSuccess?.errorMessage ? `: ${parsed.partialSuccess.errorMessage}` : ''}`, url.origin + url.pathname, EXIT_CHECK_FAILED);
  } catch (err) {
    if (err instanceof UserError) throw err;
    // An empty or non-JSON body is a full success (OTLP/HTTP allows an empty 200).
  }
  return { status: response.status, rejected };
}
