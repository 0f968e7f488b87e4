#!/usr/bin/env node
// sp-show: a session as a conversation on the terminal, from an agent's home, a file of canonical
// events, stdin or the store. Redacted by default: what reaches a screen does not show secrets.
import { runCli } from '../lib/cli/cli.js';
import { EXIT_OK, EXIT_USAGE, UserError, note, warn } from '../lib/cli/diagnostics.js';
import { agentIds, isAgentId, loadAdapter } from '../adapters/registry.js';
import { COLOR_MODES, type ColorMode } from '../lib/term/color.js';

interface Args {
  source?: string;
  session?: string;
  path?: string;
  latest: boolean;
  cwd?: string;
  home?: string;
  store: boolean;
  'store-dir'?: string;
  full: boolean;
  tools: boolean;
  since?: number;
  width?: number;
  color: string;
  pager: boolean;
  redact: boolean;
  json: boolean;
}

/** The events to show, as read, and where artifacts (images stored by sha256) may be found. */
async function readInput(args: Args): Promise<{ events: unknown[]; artifacts?: string; bad: number }> {
  const source = args.source;
  const selector = args.session !== undefined || args.path !== undefined || args.latest;
  if (source !== undefined && isAgentId(source) && !args.store) {
    // Only the adapter named: showing one session loads no other.
    const adapter = await loadAdapter(source);
    const chosen = [args.session !== undefined && '--session', args.path !== undefined && '--path', args.latest && '--latest'].filter(Boolean);
    if (chosen.length !== 1) throw new UserError(`say which ${adapter.displayName} session: one of --session ID, --path FILE or --latest`, undefined, EXIT_USAGE);
    // The same resolver as sp-capture and sp-mcp (lib/ops): a native id, a unique prefix, a canonical id.
    const { resolveSessions } = await import('../lib/ops/resolve.js');
    const selector = args.path !== undefined ? { path: args.path } : args.session !== undefined ? { session: args.session } : { latest: true, cwd: args.cwd };
    const [{ ref }] = await resolveSessions(selector, { registry: { [adapter.id]: adapter }, agent: adapter.id, home: args.home, onDiagnostic: warn });
    const events: unknown[] = [];
    for await (const event of adapter.capture(ref, { onDiagnostic: warn })) events.push(event);
    return { events, bad: 0 };
  }
  if (selector) throw new UserError('--session, --path and --latest go with an agent name (sp show claude --latest)', undefined, EXIT_USAGE);
  if (args.store || (source !== undefined && /^sess_[0-9a-f]{6,}/.test(source) && !(await exists(source)))) {
    if (source === undefined) throw new UserError('--store needs a session id (sp-sync ls lists them)', undefined, EXIT_USAGE);
    const { Store, resolveStoreDir } = await import('../lib/store/index.js');
    const dir = resolveStoreDir(args['store-dir']);
    const store = Store.open(dir, { readonly: true });
    try {
      const id = store.resolveSession(source);
      const events: unknown[] = [];
      for await (const event of store.events(id, { since: args.since })) events.push(event);
      return { events, artifacts: `${store.dir}/artifacts`, bad: 0 };
    } finally {
      store.close();
    }
  }
  if (source === undefined && process.stdin.isTTY) throw new UserError('say what to show: AGENT --latest, a file of events, - for stdin, or --store SESSION (see --help)', undefined, EXIT_USAGE);
  const { describeBadLine, inputsFrom, readObjects } = await import('../lib/core/ndjson.js');
  const events: unknown[] = [];
  let bad = 0;
  const onBadLine = (line: Parameters<typeof describeBadLine>[0]) => {
    bad += 1;
    warn(`${line.source}:${line.line.number}`, `${describeBadLine(line)}; skipped`);
  };
  for await (const { value, line, source: name } of readObjects(inputsFrom(source === undefined || source === '-' ? undefined : [source]), { onBadLine })) {
    const e = value as Record<string, unknown>;
    if (typeof e.type !== 'string' || typeof e.seq !== 'number' || typeof e.session !== 'string') {
      bad += 1;
      warn(`${name}:${line.number}`, 'not a canonical event (a native session file? sp show AGENT --path FILE reads those); skipped');
      continue;
    }
    events.push(value);
  }
  return { events, bad };
}

async function exists(path: string): Promise<boolean> {
  const { existsSync } = await import('node:fs');
  return existsSync(path);
}

await runCli<Args>({
  name: 'sp-show',
  summary:
    'Shows a session as a conversation: user and assistant turns wrapped to the terminal, each tool call on one line with the ' +
    'first lines of its result and its exit status, diffs coloured, thinking folded, images as [image W×H type], branches ' +
    'marked, redaction placeholders highlighted. Paged through $PAGER (default less -FRX) when taller than the screen.',
  usage: '[AGENT (--session ID | --latest | --path FILE) | FILE | - | --store SESSION] [options]',
  examples: [
    ['sp show claude --latest', "this home's newest Claude Code session"],
    ['sp show codex --session 01a22ad9', 'one Codex session by id (a unique prefix is enough)'],
    ['sp show session.ndjson --tools', 'only the tool calls of a captured session'],
    ['sp-capture pi --latest | sp show -', 'canonical events from stdin'],
    ['sp show --store sess_3f2a', 'a stored session (sp-sync ls lists them)'],
    ['sp show claude --latest --since 40 --full --no-pager', 'from seq 40 on, thinking and results unfolded, no pager'],
  ],
  epilogue:
    'Shown redacted with sp-redact\'s rules and key unless --no-redact. Colour: --color=auto (a terminal, unless NO_COLOR is ' +
    'set; FORCE_COLOR forces it), always or never. Width: COLUMNS or the terminal, or --width. The pager: $SP_PAGER, else ' +
    '$PAGER, else less -FRX; an empty value or "cat" turns it off, as does --no-pager.',
  options: (y) =>
    y
      .positional('source', { type: 'string', describe: `an agent (${[...agentIds].sort().join(', ')}), a file of canonical events, - for stdin, or with --store a session id` })
      .option('session', { type: 'string', describe: "with an agent: the session with this native id (or a unique prefix)" })
      .option('path', { type: 'string', describe: "with an agent: the session in this native file" })
      .option('latest', { type: 'boolean', default: false, describe: "with an agent: the newest session" })
      .option('cwd', { type: 'string', describe: "with --latest: the newest of this project directory's sessions" })
      .option('home', { type: 'string', describe: "the agent's home (overrides its environment variable)" })
      .option('store', { type: 'boolean', default: false, describe: 'SOURCE is a session of the store ($SP_HOME/store; a unique prefix is enough)' })
      .option('store-dir', { type: 'string', describe: 'with --store: another store directory' })
      .option('full', { type: 'boolean', default: false, describe: 'thinking unfolded, whole tool results and diffs' })
      .option('tools', { type: 'boolean', default: false, describe: 'only the tool calls, with their results and diffs' })
      .option('since', { type: 'number', describe: 'only events from this seq on' })
      .option('width', { type: 'number', describe: 'render for this many columns (default: the terminal, or 80)' })
      .option('color', { type: 'string', default: 'auto', describe: 'colour: auto, always or never' })
      .option('pager', { type: 'boolean', default: true, describe: 'page long output (--no-pager: write it straight out)' })
      .option('json', { type: 'boolean', default: false, describe: 'the events (redacted, from --since on) as NDJSON instead of the conversation; no pager' })
      .option('redact', { type: 'boolean', default: true, describe: "show it redacted with sp-redact's rules and key (--no-redact: as it is)" })
      .command('$0 [source]', false) as never,
  run: async (args) => {
    // yargs reads a lone "-" positional as `true` (or "" when typed as a string): it means stdin.
    if ((args.source as unknown) === true || args.source === '') args.source = '-';
    // --no-color arrives as false and a bare --color as '' (the shared flag of lib/cli/cli.ts).
    const color = (args.color as unknown) === false ? 'never' : args.color === '' ? 'always' : args.color;
    if (!COLOR_MODES.includes(color as ColorMode)) throw new UserError(`--color is auto, always or never (not "${color}")`, undefined, EXIT_USAGE);
    if (args.since !== undefined && (!Number.isSafeInteger(args.since) || args.since < 0)) throw new UserError('--since takes a seq (a whole number ≥ 0)', undefined, EXIT_USAGE);
    if (args.width !== undefined && (!Number.isSafeInteger(args.width) || args.width < 20 || args.width > 1000)) throw new UserError('--width takes a number of columns from 20 to 1000', undefined, EXIT_USAGE);
    const { events, artifacts, bad } = await readInput(args);
    if (args.redact) {
      const { Redactor } = await import('../lib/redact/ensure.js');
      const redactor = await Redactor.load();
      for (const event of events) if (typeof event === 'object' && event !== null) redactor.redactEvent(event as never);
    } else {
      warn(undefined, 'shown unredacted (--no-redact)');
    }
    if (args.json) {
      // The events as read and redacted, one per line: what a script wants instead of the rendering.
      const { NdjsonWriter } = await import('../lib/core/ndjson.js');
      const writer = new NdjsonWriter(process.stdout);
      for (const event of events) {
        const e = event as { seq?: number };
        if (args.since === undefined || (typeof e.seq === 'number' && e.seq >= args.since)) await writer.write(event);
      }
      await writer.end();
      if (events.length === 0) note(args.source ?? 'stdin', 'no events to show');
      return bad > 0 ? EXIT_USAGE : EXIT_OK;
    }
    // The renderer and the terminal helpers: loaded after parsing (--help and --version do without).
    const { palette, wantsColor } = await import('../lib/term/color.js');
    const { stdoutIsTTY, terminalHeight, terminalWidth } = await import('../lib/term/terminal.js');
    const { page } = await import('../lib/term/pager.js');
    const { renderSessions } = await import('../lib/show/render.js');
    const tty = stdoutIsTTY();
    let artifactHead: ((ref: string) => Buffer | undefined) | undefined;
    if (artifacts !== undefined) {
      const { readArtifactForWriter } = await import('../lib/core/artifacts.js');
      artifactHead = (ref) => {
        const read = readArtifactForWriter(artifacts, ref);
        return read.ok ? read.bytes : undefined;
      };
    }
    const text = renderSessions(events, {
      width: args.width ?? terminalWidth(),
      palette: palette(wantsColor({ mode: color as ColorMode, isTTY: tty })),
      full: args.full,
      toolsOnly: args.tools,
      since: args.since,
      artifactHead,
    });
    if (events.length === 0) note(args.source ?? 'stdin', 'no events to show');
    await page(text, { isTTY: tty, noPager: !args.pager, rows: terminalHeight() });
    return bad > 0 ? EXIT_USAGE : EXIT_OK;
  },
});
