#!/usr/bin/env node
// sp-mcp: sp as an MCP server on stdio — list, read, compile, relay, search and verify sessions from any MCP client.
// stdout is the protocol: diagnostics go to stderr. An MCP client starts it without arguments, and
// that path skips the option parser (yargs costs a noticeable part of the start-up); the adapters and
// everything heavy load at the first tool call that needs them, so the handshake is answered at once.
import { packageVersion, runCli } from '../lib/cli/cli.js';
import { EXIT_OK, EXIT_USAGE, UserError, setProgramName } from '../lib/cli/diagnostics.js';
import type { AccessFlags, AccessOptions } from '../lib/mcp/confine.js';

interface Args extends AccessFlags {
  quiet: boolean;
}

async function serve(quiet: boolean, access: AccessOptions = {}): Promise<number> {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  const { createSpServer } = await import('../lib/mcp/server.js');
  const { agentIds } = await import('../adapters/registry.js');
  const log = quiet ? () => {} : (line: string) => process.stderr.write(`sp-mcp: ${line}\n`);
  const closed = new Promise<void>((resolve) => process.stdin.once('end', resolve).once('close', resolve));
  const handle = serveStdio(
    () =>
      createSpServer({
        version: packageVersion(),
        loadRegistry: async () => (await import('../adapters/index.js')).adapters,
        agentIds,
        log,
        access,
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
    '(sp-redact rules and keyed placeholders). A caller reads only under the agent homes (--home, else the agents\' ' +
    'environment variables CLAUDE_CONFIG_DIR, CODEX_HOME …, else their defaults), the --root folders and the store; relay ' +
    'writes only under --allow-write folders (none by default: relay is then a dry run only). A path outside them is a ' +
    'tool error.',
  usage: '[options]',
  examples: [
    ['claude mcp add -s user sp -- sp-mcp', 'register it with Claude Code (reads the agent homes; relay only as a dry run)'],
    ['claude mcp add -s user sp -- sp-mcp --allow-write ~/.codex --allow-write ~/src', 'let relay write Codex sessions for projects under ~/src'],
    ['codex mcp add sp -- sp-mcp', 'register it with Codex'],
    ['sp-mcp --home claude=/tmp/x/.claude --root /tmp/exports', 'serve another Claude Code home, and let verify read files under /tmp/exports'],
  ],
  epilogue:
    'Limits per tool call: --max-bytes a file may have and a call may read from it (default 256M), --max-events ' +
    'events captured or read (default 10000), --timeout seconds of wall time (default 60); over a limit the call is a ' +
    'tool error and the server goes on. Only regular files are read (never a FIFO, device or socket). It runs until ' +
    'the client closes its stdin. The redaction key is $SP_HOME/keys/redact.key (SP_HOME defaults to ~/.sp).',
  options: (y) =>
    y
      .option('home', { type: 'string', array: true, describe: "AGENT=DIR: that agent's home (repeatable); readable, and its default home in every call" })
      .option('root', { type: 'string', array: true, describe: 'a folder anything under which a caller may read (repeatable)' })
      .option('allow-write', { type: 'string', array: true, describe: 'a folder relay may write sessions and create project folders in (repeatable; default: none)' })
      .option('store', { type: 'string', describe: 'the sp store search and verify use (default $SP_HOME/store)' })
      .option('max-bytes', { type: 'string', describe: 'largest file read, and bytes read per call: a count or 512K, 256M, 1G (default 256M)' })
      .option('max-events', { type: 'number', describe: 'events captured or read per call (default 10000)' })
      .option('timeout', { type: 'number', describe: 'seconds of wall time per call (default 60)' })
      .option('quiet', { type: 'boolean', default: false, describe: 'no diagnostics on stderr' })
      .option('json', { type: 'boolean', default: false, describe: 'accepted for symmetry: stdout is always JSON-RPC, one message per line' }) as never,
  run: async (args) => {
    const { accessFromFlags } = await import('../lib/mcp/confine.js');
    const { adapters } = await import('../adapters/index.js');
    const access = accessFromFlags(args, Object.keys(adapters), (what) => new UserError(what, undefined, EXIT_USAGE));
    return serve(args.quiet, access);
  },
});
