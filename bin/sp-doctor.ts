#!/usr/bin/env node
// sp-doctor: checks this machine's sp state — permissions under $SP_HOME, keys, trusted signers, remotes, the store, stale locks and temp files, agent clients — and says how to fix each finding.
import { runCli } from '../lib/cli/cli.js';
import { EXIT_CHECK_FAILED, EXIT_OK, warn } from '../lib/cli/diagnostics.js';

interface Args {
  fix: boolean;
  json: boolean;
  quiet: boolean;
  agents: boolean;
  store?: string;
}

await runCli<Args>({
  name: 'sp-doctor',
  summary:
    'Checks this machine\'s sp state and prints one line per finding with the command that fixes it: permissions of $SP_HOME ' +
    'and everything under it (folders 0700, files 0600), the key pair, trusted signers, remotes, the store\'s integrity, ' +
    'stale locks and temp files, and the agent clients on PATH. --fix applies the safe fixes (chmod, removing stale locks and temp files).',
  usage: '[options]',
  examples: [
    ['sp doctor', 'what is wrong, and how to fix it'],
    ['sp doctor --fix', 'apply the safe fixes; exit 1 only if something remains'],
    ['sp doctor --json | jq -c \'select(.status == "problem")\'', 'findings as NDJSON'],
  ],
  options: (y) =>
    y
      .option('fix', { type: 'boolean', default: false, describe: 'apply the safe fixes (chmod, remove stale locks and temp files of dead processes)' })
      .option('json', { type: 'boolean', default: false, describe: 'one JSON finding per line' })
      .option('quiet', { type: 'boolean', default: false, describe: 'print only problems' })
      .option('agents', { type: 'boolean', default: true, describe: 'look for agent clients on PATH and ask their versions (--no-agents skips it)' })
      .option('store', { type: 'string', describe: 'the store directory (default $SP_HOME/store)' }) as never,
  run: async (args) => {
    // Loaded after parsing (--help, --version and usage errors do without): the checks ask every adapter.
    await import('../adapters/index.js');
    const { applySafeFixes, diagnose, findingJson, formatFinding } = await import('../lib/ops/doctor.js');
    const { createValidator } = await import('../lib/core/schema.js');
    const { resolveStoreDir, spHome } = await import('../lib/store/paths.js');
    const findings = await diagnose({ home: spHome(), store: resolveStoreDir(args.store), agents: args.agents, validator: await createValidator() });
    if (args.fix) applySafeFixes(findings);
    for (const f of findings) {
      if (args.quiet && f.status !== 'problem') continue;
      process.stdout.write((args.json ? findingJson(f) : formatFinding(f)) + '\n');
    }
    const problems = findings.filter((f) => f.status === 'problem');
    const fixed = findings.filter((f) => f.status === 'fixed').length;
    if (!args.json && !args.quiet) {
      const safe = problems.filter((f) => f.safe).length;
      warn(undefined, `${problems.length} problem${problems.length === 1 ? '' : 's'}${fixed ? `, ${fixed} fixed` : ''}${safe ? ` (${safe} fixable with --fix)` : ''}`);
    }
    return problems.length > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
  },
});
