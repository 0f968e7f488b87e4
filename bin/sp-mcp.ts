#!/usr/bin/env node
// sp-mcp: sp as an MCP server on stdio — list, read, compile, relay, search and verify sessions from any MCP client.
// stdout is the protocol: diagnostics go to stderr. An MCP client starts it without arguments, and
// that path skips the option parser (yargs costs a noticeable part of the start-up); the adapters and
// everything heavy load at the first tool call that needs them, so the handshake is answered at once.
import { packageVersion, runCli } from '../lib/cli.js';
import { EXIT_OK, setProgramName } from '../lib/diagnostics.js';

interface Args {
  quiet: boolean;
}

async function serve(quiet: boolean): Promise<number> {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  const { createSpServer } = await import('../lib/mcp/server.js');
  const log = quiet ? () => {} : (line: string) => process.stderr.write(`sp-mcp: ${line}\n`);
  const closed = new Promise<void>((resolve) => process.stdin.once('end', resolve).once('close', resolve));
  const handle = serveStdio(
    () =>
      createSpServer({
        version: packageVersion(),
        loadRegistry: async () => (await import('../adapters/index.js')).adapters,
        log,
      }),
    { onerror: (err) => log(err.message) },
  );
  await closed;
  await handle.close();
  return EXIT_OK;
}

if (process.argv.length === 2) {
  setProgramName('sp-mcp');
  process.exit(await serve(false));
}

await runCli<Args>({
  name: 'sp-mcp',
  summary:
    'Serves sp to MCP clients (Claude Code, Codex, Hermes, any other) over stdio. Tools: list_sessions, get_session ' +
    '(brief | events | full, paginated), compile_context (a token-budgeted handoff), relay (a new session of another agent ' +
    'and its resume command, with the loss ledger), search (the sp store), verify. Everything it returns is redacted ' +
    '(sp-redact rules and keyed placeholders). Agent homes come from the tool arguments, else the agents\' environment ' +
    'variables (CLAUDE_CONFIG_DIR, CODEX_HOME …), else their defaults.',
  usage: '[options]',
  examples: [
    ['claude mcp add -s user sp -- sp-mcp', 'register it with Claude Code'],
    ['codex mcp add sp -- sp-mcp', 'register it with Codex'],
    ['CLAUDE_CONFIG_DIR=/tmp/x/.claude sp-mcp', 'serve the sessions of another Claude Code home'],
  ],
  epilogue: 'It runs until the client closes its stdin. The redaction key is $SP_HOME/keys/redact.key (SP_HOME defaults to ~/.sp).',
  options: (y) => y.option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'no diagnostics on stderr' }) as never,
  run: (args) => serve(args.quiet),
});
