#!/usr/bin/env node
// sp-compile: compiles a token-budgeted handoff. Not built yet (issue #8): it says so and exits 2 rather than pretending.
import { runCli } from '../lib/cli.js';
import { UserError } from '../lib/diagnostics.js';

await runCli({
  name: 'sp-compile',
  summary: 'sp-compile compiles a token-budgeted handoff. It is not built yet in this version (tracked as issue #8).',
  usage: '[options]',
  examples: [],
  options: (y) => y,
  run: () => {
    throw new UserError('not available in this version yet (issue #8)');
  },
});
