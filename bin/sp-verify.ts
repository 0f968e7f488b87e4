#!/usr/bin/env node
// sp-verify: check canonical event streams — JSON per line, schema, seq and the hash chain.
import { runCli } from '../lib/cli.js';
import { inputsFrom, readObjects } from '../lib/ndjson.js';
import { createValidator } from '../lib/schema.js';
import { Verifier, formatReport } from '../lib/verify.js';
import { EXIT_CHECK_FAILED, EXIT_OK } from '../lib/diagnostics.js';

interface Args {
  files?: string[];
  json: boolean;
  quiet: boolean;
  schema: boolean;
  allowFragment: boolean;
}

await runCli<Args>({
  name: 'sp-verify',
  summary:
    'Verifies canonical event streams: every line is a JSON event that matches the schema, seq runs 0,1,2… per session ' +
    'without gaps or duplicates, and the hash chain is intact. Names the first damaged line of each session and the kind ' +
    'of damage (modified, inserted, deleted, reordered, truncated). Sessions may be interleaved in one stream.',
  usage: '[FILE..]',
  examples: [
    ['sp-capture claude --latest | sp-verify', 'verify a capture as it streams'],
    ['sp-verify session.ndjson other.ndjson', 'verify files (- reads stdin)'],
    ['sp-verify --json events.ndjson | jq .sessions', 'one machine-readable report'],
    ['sp-capture claude --cursor c.json | sp-verify --allow-fragment', 'an incremental capture starts after seq 0'],
  ],
  options: (y) =>
    y
      .positional('files', { type: 'string', array: true, describe: 'event streams (NDJSON); none or - = stdin' })
      .option('json', { type: 'boolean', default: false, describe: 'print one JSON report instead of text' })
      .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing; only the exit status tells' })
      .option('schema', { type: 'boolean', default: true, describe: 'validate against the JSON Schemas (--no-schema skips it)' })
      .option('allow-fragment', {
        type: 'boolean',
        default: false,
        describe: 'accept sessions that start after seq 0 (an incremental capture); their first link is not checked',
      })
      .command('$0 [files..]', false) as never,
  run: async (args) => {
    const inputs = inputsFrom(args.files);
    const validator = args.schema ? await createValidator() : undefined;
    const verifier = new Verifier({ validator, allowFragment: args.allowFragment });
    const lines = readObjects(inputs, { onBadLine: (bad) => verifier.badLine(bad.source, bad.line, bad.reason) });
    for await (const { value, line, source } of lines) verifier.push(source, line, value);
    const report = verifier.finish();
    if (!args.quiet) process.stdout.write(args.json ? JSON.stringify(report) + '\n' : formatReport(report));
    return report.ok ? EXIT_OK : EXIT_CHECK_FAILED;
  },
});
