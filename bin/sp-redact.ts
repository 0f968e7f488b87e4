#!/usr/bin/env node
// sp-redact: removes secrets from event streams. Not built yet (issue #7): it says so and exits 2 rather than pretending.
import { runCli } from '../lib/cli.js';
import { UserError } from '../lib/diagnostics.js';

await runCli({
  name: 'sp-redact',
  summary: 'sp-redact removes secrets from event streams. It is not built yet in this version (tracked as issue #7).',
  usage: '[options]',
  examples: [],
  options: (y) => y,
  run: () => {
    throw new UserError('not available in this version yet (issue #7)');
  },
});
