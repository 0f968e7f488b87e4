#!/usr/bin/env node
// sp-sync: ingests into the store and syncs it. Not built yet (issue #10): it says so and exits 2 rather than pretending.
import { runCli } from '../lib/cli.js';
import { UserError } from '../lib/diagnostics.js';

await runCli({
  name: 'sp-sync',
  summary: 'sp-sync ingests into the store and syncs it. It is not built yet in this version (tracked as issue #10).',
  usage: '[options]',
  examples: [],
  options: (y) => y,
  run: () => {
    throw new UserError('not available in this version yet (issue #10)');
  },
});
