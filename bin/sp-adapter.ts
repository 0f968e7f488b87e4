#!/usr/bin/env node
// sp-adapter: tools for external adapters (docs/external-adapters.md). `sp adapter test PROGRAM`
// runs the contract checks against an adapter program and prints a pass/fail table.
import { isAbsolute, resolve } from 'node:path';
import { runCli } from '../lib/cli/cli.js';
import { EXIT_CHECK_FAILED, EXIT_OK, UserError } from '../lib/cli/diagnostics.js';
import { ADAPTER_NAME, PROGRAM_PREFIX, findAdapterProgram } from '../lib/adapter/external.js';

interface Args {
  action: string;
  program: string;
  json: boolean;
}

/** A program named by the user: a path (with a slash), else sp-adapter-<name> or <name> on PATH. */
function programOf(given: string): string {
  if (given.includes('/')) return isAbsolute(given) ? given : resolve(given);
  const name = given.startsWith(PROGRAM_PREFIX) ? given.slice(PROGRAM_PREFIX.length) : given;
  if (!ADAPTER_NAME.test(name)) throw new UserError(`"${given}" is not an adapter name (${PROGRAM_PREFIX}<name>, <name> matching ${ADAPTER_NAME.source}) or a path`);
  const found = findAdapterProgram(name);
  if (!found) throw new UserError(`${PROGRAM_PREFIX}${name} is not on PATH`);
  return found;
}

await runCli<Args>({
  name: 'sp-adapter',
  summary:
    'Checks an external adapter (a program sp-adapter-<name> that speaks the NDJSON protocol of docs/external-adapters.md): ' +
    'it describes itself, lists, writes a reference session under a throw-away home, captures it back as valid chained events ' +
    'with the conversation intact, and refuses an unknown session. Prints one row per check; exit 1 when any fails.',
  usage: 'test PROGRAM',
  examples: [
    ['sp adapter test sp-adapter-jsonl', 'the example adapter, found on PATH'],
    ['sp adapter test ./my-adapter', 'a program not yet on PATH'],
    ['sp adapter test jsonl --json', 'the report as JSON'],
  ],
  options: (y) =>
    y
      .positional('action', { type: 'string', choices: ['test'], describe: 'what to do (test: run the contract checks)' })
      .positional('program', { type: 'string', describe: 'sp-adapter-<name>, <name>, or a path to the program' })
      .option('json', { type: 'boolean', default: false, describe: 'print the rows as one JSON array' })
      .command('$0 <action> <program>', false) as never,
  run: async (args) => {
    const program = programOf(args.program);
    const { contractCheck, formatRows } = await import('../lib/adapter/external-contract.js');
    const rows = await contractCheck(program);
    process.stdout.write(args.json ? JSON.stringify(rows) + '\n' : formatRows(rows));
    return rows.some((r) => r.status === 'fail') ? EXIT_CHECK_FAILED : EXIT_OK;
  },
});
