#!/usr/bin/env node
// sp-export: canonical sessions in formats other tools read. `otel`: OTLP/JSON traces following the
// OpenTelemetry GenAI semantic conventions (lib/otel), to a file or an OTLP/HTTP receiver. `html`: one
// session as one self-contained web page, redacted, optionally encrypted (lib/serve).
import { packageVersion, runCli, writeJsonLine } from '../lib/cli/cli.js';
import { EXIT_OK, UserError, note } from '../lib/cli/diagnostics.js';
import { isEventLike, type SpEvent } from '../lib/core/event.js';
import { inputsFrom, readObjects } from '../lib/core/ndjson.js';
import type { Argv } from 'yargs';

interface Args {
  _: (string | number)[];
  files?: string[];
  session?: string;
  file?: string;
  agent?: string;
  home?: string[];
  store?: string;
  public: boolean;
  encrypt: boolean;
  out?: string;
  endpoint?: string;
  header?: string[];
  content?: boolean;
  timeout?: number;
  json: boolean;
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

/** `sp-export html`: one session as one HTML file, redacted, optionally encrypted. */
async function exportHtmlCommand(args: Args): Promise<number> {
  // `sp export html - < events.ndjson`: the events on stdin.
  if ((args.session === '-' || (args.session === '' && process.argv.includes('-'))) && args.file === undefined) args = { ...args, session: undefined, file: '-' };
  if ((args.session === undefined) === (args.file === undefined)) throw new UserError('name a session, or give --file with its events (not both)');
  let passphrase: string | undefined;
  if (args.encrypt) {
    const { askPassphrase } = await import('../lib/serve/export.js');
    passphrase = process.env.SP_EXPORT_PASSPHRASE ?? (await askPassphrase());
    if ([...passphrase].length < 8) throw new UserError('the passphrase is shorter than 8 characters');
  }
  const { adapters } = await import('../adapters/index.js');
  const homes: Record<string, string> = {};
  for (const value of args.home ?? []) {
    const at = value.indexOf('=');
    if (at <= 0 || !Object.prototype.hasOwnProperty.call(adapters, value.slice(0, at))) throw new UserError(`--home takes AGENT=DIR with a known agent, got "${value}"`);
    homes[value.slice(0, at)] = value.slice(at + 1);
  }
  if (args.agent !== undefined && !Object.prototype.hasOwnProperty.call(adapters, args.agent)) throw new UserError(`unknown agent "${args.agent}"`, '--agent');
  let events: SpEvent[] | undefined;
  if (args.file !== undefined) {
    events = await readEvents([args.file]);
    if (events.length === 0) throw new UserError('no events in the input', args.file);
    const sessions = new Set(events.map((e) => e.session));
    if (sessions.size > 1) throw new UserError(`holds ${sessions.size} sessions: export one (e.g. jq -c 'select(.session == "…")')`, args.file);
  }
  const { exportHtml } = await import('../lib/serve/export.js');
  const result = await exportHtml({ registry: adapters, session: args.session, events, agent: args.agent, homes, store: args.store, profile: args.public ? 'public' : 'default', passphrase });
  if (args.out !== undefined) {
    const { createFileAtomic } = await import('../lib/fs/atomic.js');
    createFileAtomic(args.out, [result.html]);
  } else if (!args.json) process.stdout.write(result.html);
  if (args.json) {
    // The page itself rides in the line only when it is not written to a file.
    writeJsonLine({ format: 'html', session: result.session ?? null, events: result.events, profile: args.public ? 'public' : 'default', encrypted: passphrase !== undefined, out: args.out ?? null, ...(args.out === undefined ? { html: result.html } : {}) });
  }
  note('html', `${result.events} events of ${result.session ?? 'the session'}, redacted (${args.public ? 'public' : 'default'} profile)${passphrase !== undefined ? ', encrypted' : ''}`);
  return EXIT_OK;
}

await runCli<Args>({
  name: 'sp-export',
  summary:
    'Writes canonical sessions in formats other tools read. otel: OTLP/JSON traces following the OpenTelemetry GenAI ' +
    'semantic conventions, one trace per session: an invoke_agent span per turn, a chat span per model call (with token ' +
    'usage) and an execute_tool span per tool call (timed from the call to its result), for Jaeger, Grafana Tempo, Phoenix, ' +
    'Langfuse or any OTLP/HTTP receiver. Message content is left out unless --content, and then redacted with sp-redact\'s rules. ' +
    'html: one session as one self-contained HTML file (the session page of sp serve; no network), redacted (--public: the ' +
    'public profile too), optionally encrypted with a passphrase the page asks for (--encrypt: PBKDF2-SHA256, AES-256-GCM).',
  usage: 'otel [FILE..] [--out FILE | --endpoint URL] | html SESSION [--public] [--encrypt] [--out FILE]',
  examples: [
    ['sp-capture claude --latest | sp-export otel --out trace.json', 'one session as an OTLP/JSON trace file'],
    ['sp-capture claude --all | sp-export otel --endpoint http://127.0.0.1:4318', 'every session to a local collector, Jaeger or Phoenix (OTLP/HTTP)'],
    ['sp-export otel events.ndjson --content --endpoint http://127.0.0.1:4318', 'with prompts, replies and tool output (redacted)'],
    ['sp-export otel events.ndjson --endpoint https://otel.example/ --header "Authorization: Bearer $TOKEN"', 'a receiver that wants a header'],
    ['sp export html e05d2652 > session.html', 'a session (any agent, or the store) as one HTML file, redacted'],
    ['sp export html e05d2652 --public --out share.html', 'also without home paths, user and host names, e-mails, IPs'],
    ['SP_EXPORT_PASSPHRASE=… sp export html --file events.ndjson --encrypt > s.html', 'events from a file, encrypted (the page asks for the passphrase)'],
  ],
  epilogue:
    '--json: one line on stdout saying what was exported (format, counts, where it went); html without --out carries the ' +
    'page in its "html" field; otel without --out or --endpoint prints the OTLP/JSON request, one line, as it always does.',
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
      .command('html [session]', 'one session as a self-contained HTML page', (b: Argv) =>
        b
          .positional('session', { type: 'string', describe: 'a native session id (or a unique prefix), a canonical sess_… id, or a stored session id' })
          .option('file', { type: 'string', describe: 'read the session from this file of canonical events instead (SESSION - reads them from stdin)' })
          .option('agent', { type: 'string', describe: 'look for SESSION in this agent only' })
          .option('home', { type: 'string', array: true, describe: "AGENT=DIR: that agent's home (repeatable)" })
          .option('store', { type: 'string', describe: 'the sp store (default $SP_HOME/store)' })
          .option('public', { type: 'boolean', default: false, describe: 'the public profile: also home paths, user and host names, e-mail and IP addresses, git owners' })
          .option('encrypt', { type: 'boolean', default: false, describe: 'encrypt the session with a passphrase (SP_EXPORT_PASSPHRASE, else asked on the terminal; never an option)' })
          .option('out', { alias: 'o', type: 'string', describe: 'write the page here (a new file; default: stdout)' }),
      )
      .demandCommand(1, 'say which format (otel, html)')
      .strictCommands()) as unknown as Argv<Args>,
  run: async (args) => {
    if (String(args._[0]) === 'html') return exportHtmlCommand(args);
    if (String(args._[0]) !== 'otel') throw new UserError(`unknown format "${String(args._[0])}"; formats: otel, html`);
    if (args.out !== undefined && args.endpoint !== undefined) throw new UserError('give --out or --endpoint, not both');
    if (!(args.timeout! > 0)) throw new UserError('must be a positive number of seconds', '--timeout');
    const headers = parseHeaders(args.header);
    const events = await readEvents(args.files);
    if (events.length === 0) throw new UserError('no events in the input');
    const { buildTraces, sendTraces } = await import('../lib/otel/export.js');
    const request = await buildTraces(events, { content: args.content === true, version: packageVersion() });
    const spans = request.resourceSpans.reduce((n, r) => n + r.scopeSpans[0].spans.length, 0);
    if (args.endpoint !== undefined) {
      await sendTraces(args.endpoint, request, headers, args.timeout! * 1000);
      if (args.json) writeJsonLine({ format: 'otel', traces: request.resourceSpans.length, spans, endpoint: new URL(args.endpoint).origin });
      note('otel', `sent ${request.resourceSpans.length} trace(s), ${spans} span(s) to ${new URL(args.endpoint).origin}`);
    } else if (args.out !== undefined) {
      const { writeFileSync } = await import('node:fs');
      try {
        writeFileSync(args.out, JSON.stringify(request) + '\n', { mode: 0o600 });
      } catch (err) {
        throw new UserError(`cannot write: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, args.out);
      }
      if (args.json) writeJsonLine({ format: 'otel', traces: request.resourceSpans.length, spans, out: args.out });
      note('otel', `wrote ${request.resourceSpans.length} trace(s), ${spans} span(s)`);
    } else {
      process.stdout.write(JSON.stringify(request) + '\n');
    }
    return EXIT_OK;
  },
});
