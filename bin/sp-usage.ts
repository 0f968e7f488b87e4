#!/usr/bin/env node
// sp-usage: tokens and cost by day, week, agent, project or model, read from the agents' own
// homes (read-only) or from the store, priced with the table that ships with sp (or --prices).
import { existsSync } from 'node:fs';
import { runCli } from '../lib/cli/cli.js';
import { EXIT_OK, EXIT_USAGE, UserError, note, warn } from '../lib/cli/diagnostics.js';
import { agentIds, isAgentId, loadAdapter, unknownAgent } from '../adapters/registry.js';
import { GROUPS, loadPrices, storeEvents, usageReport, type GroupBy, type UsageRow } from '../lib/usage/usage.js';
import { COLOR_MODES, type ColorMode } from '../lib/term/color.js';

interface Args {
  agents?: string[];
  home?: string;
  store: boolean;
  'store-dir'?: string;
  by: string;
  since?: string;
  until?: string;
  json: boolean;
  prices?: string;
  color: string;
}

/** A date (YYYY-MM-DD, local midnight) or an ISO time as epoch seconds; `endOfDay` makes a bare date inclusive. */
function parseWhen(value: string, flag: string, endOfDay: boolean): number {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (day) {
    const d = new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3]) + (endOfDay ? 1 : 0));
    if (!Number.isNaN(d.getTime())) return d.getTime() / 1000;
  } else {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms) && /^\d{4}-\d{2}-\d{2}T/.test(value)) return ms / 1000;
  }
  throw new UserError(`${flag} takes a date (YYYY-MM-DD) or an ISO time, not "${value}"`, undefined, EXIT_USAGE);
}

/** Canonical events of every session under the agents' homes (read-only, as sp-capture reads them). */
async function* homeEvents(agents: string[], homeOption: string | undefined, explicit: boolean): AsyncGenerator<unknown> {
  for (const id of agents) {
    const adapter = await loadAdapter(id); // each as it is read: naming one agent loads no other
    const home = homeOption ?? adapter.defaultHome();
    if (!existsSync(home)) {
      if (explicit) throw new UserError(`no ${adapter.displayName} home here`, home, EXIT_USAGE);
      continue;
    }
    for await (const ref of adapter.discover({ home, onDiagnostic: warn })) {
      try {
        yield* adapter.capture(ref, { onDiagnostic: () => undefined });
      } catch (err) {
        // One unreadable session must not hide the others' usage.
        if (!(err instanceof UserError)) throw err;
        warn(err.where, `${err.message}; its usage is not counted`);
      }
    }
  }
}

const money = (row: UsageRow) => (row.cost !== null ? `$${row.cost.toFixed(2)}` : row.known_cost > 0 ? `$${row.known_cost.toFixed(2)}+?` : '?');

await runCli<Args>({
  name: 'sp-usage',
  summary:
    'Tokens and cost by day, week, agent, project, model or session, from the agents\' own homes (every agent sp reads whose ' +
    'records carry usage: Claude Code, Codex, Pi, Gemini, Qwen, OpenCode …) or from the store. Priced with the table shipped ' +
    'with sp (--prices FILE overrides it); a model it does not know shows its tokens and cost "?".',
  usage: '[AGENT..] [--by day|week|agent|project|model|session] [--since DATE] [--until DATE] [--store] [--json]',
  examples: [
    ['sp usage', 'every agent home on this machine, by day'],
    ['sp usage --by week --since 2026-11-01', 'weekly since November'],
    ['sp usage claude --by model', 'Claude Code only, by model'],
    ['sp usage codex --home /srv/ci/.codex --by project', 'another Codex home, by project directory'],
    ['sp usage --store --by agent --json', 'the store, by agent, as JSON lines'],
    ['sp usage --prices my-prices.json', 'your own price table (same shape as the shipped lib/usage/prices.json)'],
  ],
  epilogue:
    'Tokens: INPUT is what was not read from the cache, OUTPUT includes reasoning, CACHE READ and CACHE WRITE as the provider ' +
    'bills them. A record kept twice (a resumed or forked Claude transcript repeats its history; Claude messages are matched ' +
    'by message id and request id, as ccusage does) is counted once. Days and weeks (starting Monday) are local time (TZ).',
  options: (y) =>
    y
      .positional('agents', { type: 'string', array: true, describe: `agents to read (default: all whose home exists: ${[...agentIds].sort().join(', ')})` })
      .option('home', { type: 'string', describe: "the agent's home (with one AGENT)" })
      .option('store', { type: 'boolean', default: false, describe: 'read the store ($SP_HOME/store) instead of the agent homes' })
      .option('store-dir', { type: 'string', describe: 'with --store: another store directory' })
      .option('by', { type: 'string', default: 'day', describe: `group by ${GROUPS.join(', ')}` })
      .option('since', { type: 'string', describe: 'from this date (YYYY-MM-DD, local) or ISO time on' })
      .option('until', { type: 'string', describe: 'up to and including this date (or before this ISO time)' })
      .option('json', { type: 'boolean', default: false, describe: 'one JSON line per row (no total line), for scripts' })
      .option('prices', { type: 'string', describe: 'a price table (JSON: {"models": {NAME: {input, output, cache_read, cache_write}}}, $ per million tokens)' })
      .option('color', { type: 'string', default: 'auto', describe: 'colour: auto, always or never' })
      .command('$0 [agents..]', false) as never,
  run: async (args) => {
    if (!GROUPS.includes(args.by as GroupBy)) throw new UserError(`--by is one of ${GROUPS.join(', ')} (not "${args.by}")`, undefined, EXIT_USAGE);
    // --no-color arrives as false and a bare --color as '' (the shared flag of lib/cli/cli.ts).
    const color = (args.color as unknown) === false ? 'never' : args.color === '' ? 'always' : args.color;
    if (!COLOR_MODES.includes(color as ColorMode)) throw new UserError(`--color is auto, always or never (not "${color}")`, undefined, EXIT_USAGE);
    const agents = args.agents ?? [];
    for (const a of agents) if (!isAgentId(a)) throw unknownAgent(a);
    if (args.home !== undefined && agents.length !== 1) throw new UserError('--home goes with one AGENT', undefined, EXIT_USAGE);
    if (args.store && (agents.length > 1 || args.home !== undefined)) throw new UserError('--store reads the store: name at most one AGENT to filter it, and no --home', undefined, EXIT_USAGE);
    const since = args.since !== undefined ? parseWhen(args.since, '--since', false) : undefined;
    const until = args.until !== undefined ? parseWhen(args.until, '--until', true) : undefined;
    const prices = loadPrices(args.prices);

    let report;
    if (args.store) {
      const { Store, resolveStoreDir } = await import('../lib/store/index.js');
      const store = Store.open(resolveStoreDir(args['store-dir']), { readonly: true });
      try {
        report = await usageReport(storeEvents(store), { by: args.by as GroupBy, prices, since, until, agent: agents[0] });
      } finally {
        store.close();
      }
    } else {
      const list = agents.length > 0 ? agents : [...agentIds].sort();
      report = await usageReport(homeEvents(list, args.home, agents.length > 0), { by: args.by as GroupBy, prices, since, until });
    }

    if (args.json) {
      for (const row of report.rows) process.stdout.write(JSON.stringify({ by: report.by, ...row }) + '\n');
      return EXIT_OK;
    }
    // The table's modules (display widths): loaded after parsing, for a table only.
    const { printTable } = await import('../lib/term/listing.js');
    const { formatCount } = await import('../lib/term/table.js');
    const rows = report.rows.length > 0 ? [...report.rows, report.total] : [];
    const last = rows.length - 1;
    const columns = [
      { header: report.by.toUpperCase(), cell: (r: UsageRow) => r.key, max: args.by === 'project' || args.by === 'session' ? 40 : undefined },
      { header: 'INPUT', align: 'right' as const, cell: (r: UsageRow) => formatCount(r.input) },
      { header: 'OUTPUT', align: 'right' as const, cell: (r: UsageRow) => formatCount(r.output) },
      { header: 'CACHE READ', align: 'right' as const, cell: (r: UsageRow) => formatCount(r.cache_read) },
      { header: 'CACHE WRITE', align: 'right' as const, cell: (r: UsageRow) => formatCount(r.cache_write) },
      { header: 'TOTAL', align: 'right' as const, cell: (r: UsageRow) => formatCount(r.total) },
      { header: 'COST', align: 'right' as const, cell: money, color: (r: UsageRow) => (r.cost === null ? ('yellow' as const) : undefined) },
      { header: 'MODELS', flex: true, cell: (r: UsageRow) => (rows.indexOf(r) === last ? '' : r.models.join(', ')), color: () => 'dim' as const },
    ];
    // By model, the models column would repeat the first one.
    printTable(rows, args.by === 'model' ? columns.slice(0, -1) : columns, { color: color as ColorMode, empty: '(no usage recorded)' });
    if (report.total.cost === null) note(undefined, `"?": a model without a price in ${args.prices ?? 'the shipped table'} (--prices FILE adds it)`);
    return EXIT_OK;
  },
});
