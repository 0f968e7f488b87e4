#!/usr/bin/env node
// sp-verify: check canonical event streams — JSON per line, schema, seq and the hash chain.
import { isMainModule, runCli, type CliSpec } from '../lib/cli/cli.js';
import { readObjects } from '../lib/core/ndjson.js';
import { createValidator } from '../lib/core/schema.js';
import { Verifier, formatReport } from '../lib/core/verify.js';
import { EXIT_CHECK_FAILED, EXIT_OK } from '../lib/cli/diagnostics.js';
import type { StoredVerifyReport } from '../lib/store/index.js';

interface Args {
  files?: string[];
  json: boolean;
  quiet: boolean;
  schema: boolean;
  allowFragment: boolean;
  receipt?: string[];
  store?: string;
}

export const spec: CliSpec<Args> = {
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
    ['sp-verify --store ~/.sp/store', 'every stored session: log, anchors and signed manifest, pulled events against their origin\'s signed manifest (signers in $SP_HOME/keys/trusted/), and every artifact blob'],
    ['sp-verify --receipt ~/.sp/store/receipts/rcpt_….json', 'a signed handoff receipt and the handoff event it names'],
  ],
  options: (y) =>
    y
      .positional('files', { type: 'string', array: true, describe: 'event streams (NDJSON); none or - = stdin' })
      .option('json', { type: 'boolean', default: false, describe: 'print one JSON report instead of text' })
      .option('quiet', { type: 'boolean', default: false, describe: 'print nothing; only the exit status tells' })
      .option('schema', { type: 'boolean', default: true, describe: 'validate against the JSON Schemas (--no-schema skips it)' })
      .option('allow-fragment', {
        type: 'boolean',
        default: false,
        describe: 'accept sessions that start after seq 0 (an incremental capture); their first link is not checked',
      })
      .option('receipt', { type: 'string', array: true, describe: 'verify a signed handoff receipt (a .json receipt given as FILE is detected too)' })
      .option('store', { type: 'string', describe: 'verify every session stored in this store (its signatures too); store and session folders given as FILE are detected' })
      .command('$0 [files..]', false) as never,
  run: async (args, io) => {
    const validator = args.schema ? await createValidator() : undefined;
    // Stored sessions, store folders and receipts are checked with their signatures (lib/store).
    let stored: StoredVerifyReport | undefined;
    let files = args.files;
    const wantsStored = args.store !== undefined || (args.receipt?.length ?? 0) > 0 || (files ?? []).some((f) => f !== '-' && !/\.(ndjson|jsonl)$/.test(f));
    if (wantsStored) {
      const st = await import('../lib/store/index.js');
      const split = st.splitStoredInputs(files ?? []);
      split.receipts.push(...(args.receipt ?? []));
      if (args.store !== undefined) split.storeDirs.push(args.store);
      if (split.storeDirs.length + split.sessionDirs.length + split.receipts.length > 0) {
        stored = await st.verifyStoredInputs(split, st.trustedKeys(st.spHome()), validator, args.store ?? st.resolveStoreDir());
        files = split.streams;
        if (files.length === 0) {
          if (!args.quiet) io.stdout.write(args.json ? JSON.stringify(stored) + '\n' : st.formatStoredReport(stored, (await import('../lib/store/trust.js')).signerNames(st.spHome())) || 'nothing to verify\n');
          return stored.ok ? EXIT_OK : EXIT_CHECK_FAILED;
        }
      }
    }
    const inputs = io.inputs(files);
    const verifier = new Verifier({ validator, allowFragment: args.allowFragment });
    const lines = readObjects(inputs, { onBadLine: (bad) => verifier.badLine(bad.source, bad.line, bad.reason) });
    for await (const { value, line, source } of lines) verifier.push(source, line, value);
    const report = verifier.finish();
    if (!args.quiet) {
      if (args.json) io.stdout.write(JSON.stringify(stored ? { ...report, stored: stored.stored, receipts: stored.receipts, artifacts: stored.artifacts, ok: report.ok && stored.ok } : report) + '\n');
      else io.stdout.write((stored ? (await import('../lib/store/index.js')).formatStoredReport(stored, (await import('../lib/store/trust.js')).signerNames((await import('../lib/store/index.js')).spHome())) : '') + formatReport(report));
    }
    return report.ok && (stored?.ok ?? true) ? EXIT_OK : EXIT_CHECK_FAILED;
  },
};

if (isMainModule(import.meta.url)) await runCli(spec);
