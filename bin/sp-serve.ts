#!/usr/bin/env node
// sp-serve: the sessions of every agent and of the store in a local web app (lib/serve).
import { existsSync } from 'node:fs';
import { runCli, writeJsonLine } from '../lib/cli/cli.js';
import { EXIT_OK, EXIT_USAGE, UserError, warn } from '../lib/cli/diagnostics.js';
import type { AccessFlags } from '../lib/mcp/confine.js';

interface Args extends AccessFlags {
  port?: number;
  host: string;
  quiet: boolean;
  json: boolean;
}

const DEFAULT_PORT = 7420;

await runCli<Args>({
  name: 'sp-serve',
  summary:
    'A local web app over your sessions: every session of every agent home and of the sp store, filtered by agent, ' +
    'project and date, searched (titles, first prompts, and the store\'s full-text index); a session page (turns, tool ' +
    'calls and results, diffs, images, thinking, the branch tree, the hash-chain status, signatures and receipts); a relay ' +
    'page that previews a relay to another agent next to its ledger and writes it on confirmation (only with --allow-write); ' +
    'a compile page with the handoff linked back to its events. Binds 127.0.0.1 only; the URL it prints holds a random ' +
    'token every request needs. Everything shown is redacted.',
  usage: '[options]',
  examples: [
    ['sp serve', 'read-only, on http://127.0.0.1:7420 (open the URL it prints)'],
    ['sp serve --allow-write ~/.codex --allow-write ~/src', 'let the relay page write Codex sessions for projects under ~/src'],
    ['sp serve --home claude=/tmp/x/.claude --port 0', 'another Claude Code home, on a free port'],
  ],
  epilogue:
    'What it reads and writes follows sp-mcp\'s rules: the agent homes (--home, else the agents\' environment variables, ' +
    'else their defaults), --root folders and the store; relays are written only under --allow-write folders. It runs until ' +
    'interrupted (Ctrl-C).',
  options: (y) =>
    y
      .option('port', { type: 'number', describe: 'the port on 127.0.0.1 (0: a free one; default: serve.port of sp config, else 7420)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'only 127.0.0.1 (or localhost): the app is never served to other machines' })
      .option('home', { type: 'string', array: true, describe: "AGENT=DIR: that agent's home (repeatable)" })
      .option('root', { type: 'string', array: true, describe: 'a folder anything under which may be read (repeatable)' })
      .option('allow-write', { type: 'string', array: true, describe: 'a folder relays may write sessions and create project folders in (repeatable; default: none, read-only)' })
      .option('store', { type: 'string', describe: 'the sp store (default $SP_HOME/store)' })
      .option('max-events', { type: 'number', describe: 'events one page may read (default 100000)' })
      .option('timeout', { type: 'number', describe: 'seconds one request may take (default 120)' })
      .option('quiet', { type: 'boolean', default: false, describe: 'print only the URL' })
      .option('json', { type: 'boolean', default: false, describe: 'the start line as JSON: {"url", "port", "mode"}' }) as never,
  run: async (args) => {
    if (args.host !== '127.0.0.1' && args.host !== 'localhost') throw new UserError(`--host ${args.host}: sp serve binds 127.0.0.1 only (sessions hold what you pasted into agents)`, undefined, EXIT_USAGE);
    if (args.port !== undefined && (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535)) throw new UserError(`--port takes 0–65535, got ${args.port}`, undefined, EXIT_USAGE);
    // No --port: sp config's serve.port (SP_SERVE_PORT, .sp.toml, $SP_HOME/config.toml), else 7420.
    const { pick } = await import('../lib/cli/config.js');
    const port = pick<number>('serve.port', args.port) ?? DEFAULT_PORT;
    const { accessFromFlags } = await import('../lib/mcp/confine.js');
    const { adapters } = await import('../adapters/index.js');
    const access = accessFromFlags(args, Object.keys(adapters), (what) => new UserError(what, undefined, EXIT_USAGE));
    // A page is a whole session: more events and time than one MCP call gets.
    access.limits = { maxEvents: 100_000, timeoutMs: 120_000, ...access.limits };
    const { Redactor } = await import('../lib/redact/ensure.js');
    const { createModel } = await import('../lib/serve/model.js');
    const { startServer } = await import('../lib/serve/http.js');
    const { webAsset } = await import('../lib/serve/page.js');
    webAsset('app.js'); // a missing bundle is said at start-up, not at the first page
    const log = args.quiet ? () => {} : (line: string) => warn(undefined, line);
    // Each problem once, and none for an agent that is simply not installed (its home is missing).
    const said = new Set<string>();
    const onDiagnostic = (where: string, what: string) => {
      const line = `${where}: ${what.split(/: | \(/, 1)[0]}`;
      if (args.quiet || said.has(line) || (where.startsWith('/') && !existsSync(where))) return;
      said.add(line);
      warn(where, what.split(/: | \(/, 1)[0]);
    };
    const model = await createModel(adapters, access, { redactor: await Redactor.load(), onDiagnostic });
    let running;
    try {
      running = await startServer({ model, port, log });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new UserError(`cannot listen on 127.0.0.1:${port}: ${code ?? (err as Error).message}${code === 'EADDRINUSE' ? ' (another program uses it: --port 0 picks a free one)' : ''}`, undefined, EXIT_USAGE);
    }
    if (args.json) writeJsonLine({ url: running.url, port: Number(new URL(running.url).port), mode: model.writable ? 'read-write' : 'read-only' });
    else process.stdout.write(`${running.url}\n`);
    if (!args.quiet) warn(undefined, `serving ${model.writable ? 'read-write (relays under --allow-write)' : 'read-only'}; Ctrl-C stops it`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await running.close();
    return EXIT_OK;
  },
});
