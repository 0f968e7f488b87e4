#!/usr/bin/env node
// sp-export: canonical sessions in formats other tools read. `otel`: OTLP/JSON traces following the
// OpenTelemetry GenAI semantic conventions (lib/otel), to a file or an OTLP/HTTP receiver.
import { packageVersion, runCli } from '../lib/cli.js';
import { EXIT_OK, UserError, warn } from '../lib/diagnostics.js';
import { isEventLike, type SpEvent } from '../lib/event.js';
import { inputsFrom, readObjects } from '../lib/ndjson.js';
import type { Argv } from 'yargs';

interface Args {
  _: (string | number)[];
  files?: string[];
  out?: string;
  endpoint?: string;
  header?: string[];
  content: boolean;
  timeout: number;
}

async function readEvents(files: string[] | undefined): Promise<SpEvent[]> {
  const events: SpEvent[] = [];
  for await (const { value, line, source } of readObjects(inputsFrom(files), { strict: true })) {
    const where = `${source}:${line.number}`;
    if (!isEventLike(value) || typeof value.type !== 'string' || typeof value.session !== 'string') throw new UserError('not a canonical event: no "type" or "session"', where);
    if (typeof value.seq !== 'number' || typeof value.ts !== 'number' || !Number.isFinite(value.ts)) throw new UserError('not a canonical event: "seq" and "ts" must be numbers', where);
    events.push(value);
  }
  return events;
}

/** `Name: value` → a header entry; names as RFC 9110 allows, values without line breaks. */
function parseHeaders(list: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const at = item.indexOf(':');
    const name = at > 0 ? item.slice(0, at).trim() : '';
    const value = at > 0 ? item.slice(at + 1).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(value)) throw new UserError(`not a header "Name: value": ${JSON.stringify(item.slice(0, 80))}`, '--header');
    out[name] = value;
  }
  return out;
}

await runCli<Args>({
  name: 'sp-export',
  summary:
    'Writes canonical sessions in formats other tools read. otel: OTLP/JSON traces following the OpenTelemetry GenAI ' +
    'semantic conventions, one trace per session: an invoke_agent span per turn, a chat span per model call (with token ' +
    'usage) and an execute_tool span per tool call (timed from the call to its result), for Jaeger, Grafana Tempo, Phoenix, ' +
    'Langfuse or any OTLP/HTTP receiver. Message content is left out unless --content, and then redacted with sp-redact\'s rules.',
  usage: 'otel [FILE..] [--out FILE | --endpoint URL]',
  examples: [
    ['sp-capture claude --latest | sp-export otel --out trace.json', 'one session as an OTLP/JSON trace file'],
    ['sp-capture claude --all | sp-export otel --endpoint http://127.0.0.1:4318', 'every session to a local collector, Jaeger or Phoenix (OTLP/HTTP)'],
    ['sp-export otel events.ndjson --content --endpoint http://127.0.0.1:4318', 'with prompts, replies and tool output (redacted)'],
    ['sp-export otel events.ndjson --endpoint https://otel.example/ --header "Authorization: Bearer $TOKEN"', 'a receiver that wants a header'],
  ],
  options: (y) =>
    (y
      .command('otel [files..]', 'sessions as OTLP/JSON traces (GenAI semantic conventions)', (b: Argv) =>
        b
          .positional('files', { type: 'string', array: true, describe: 'event streams (NDJSON); none or - = stdin' })
          .option('out', { alias: 'o', type: 'string', describe: 'write the OTLP/JSON request here (default: stdout, unless --endpoint)' })
          .option('endpoint', { type: 'string', describe: 'send to this OTLP/HTTP receiver (e.g. http://127.0.0.1:4318; /v1/traces is added)' })
          .option('header', { type: 'string', array: true, describe: 'an HTTP header for --endpoint, "Name: value" (repeatable)' })
          .option('content', { type: 'boolean', default: false, describe: 'include message content (prompts, replies, tool arguments and results), redacted' })
          .option('timeout', { type: 'number', default: 30, describe: 'seconds to wait for the receiver' }),
      )
      .demandCommand(1, 'say which format (otel)')
      .strictCommands()) as unknown as Argv<Args>,
  run: async (args) => {
    if (String(args._[0]) !== 'otel') throw new UserError(`unknown format "${String(args._[0])}"; formats: otel`);
    if (args.out !== undefined && args.endpoint !== undefined) throw new UserError('give --out or --endpoint, not both');
    if (!(args.timeout > 0)) throw new UserError('must be a positive number of seconds', '--timeout');
    const headers = parseHeaders(args.header);
    const events = await readEvents(args.files);
    if (events.length === 0) throw new UserError('no events in the input');
    const { buildTraces, sendTraces } = await import('../lib/otel/export.js');
    const request = await buildTraces(events, { content: args.content, version: packageVersion() });
    const spans = request.resourceSpans.reduce((n, r) => n + r.scopeSpans[0].spans.length, 0);
    if (args.endpoint !== undefined) {
      await sendTraces(args.endpoint, request, headers, args.timeout * 1000);
      warn('otel', `sent ${request.resourceSpans.length} trace(s), ${spans} span(s) to ${new URL(args.endpoint).origin}`);
    } else if (args.out !== undefined) {
      const { writeFileSync } = await import('node:fs');
      try {
        writeFileSync(args.out, JSON.stringify(request) + '\n', { mode: 0o600 });
      } catch (err) {
        throw new UserError(`cannot write: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, args.out);
      }
      warn('otel', `wrote ${request.resourceSpans.length} trace(s), ${spans} span(s)`);
    } else {
      process.stdout.write(JSON.stringify(request) + '\n');
    }
    return EXIT_OK;
  },
});
