#!/usr/bin/env node
// bench/generate.mjs --events N [--sessions K] [--seed S] [--mb SIZE] > out.ndjson
// Writes a synthetic, chained canonical stream (payloads 200 B–20 KB of code, prose and CJK).
// --mb stops once SIZE megabytes were written (so 1 GB streams need no event count guess).
import { parseArgs } from 'node:util';
import { once } from 'node:events';
import { syntheticChained } from '../dist/adapters/claude/synthetic.js';
import { canonicalize } from '../dist/lib/core/jcs.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '100000' },
    sessions: { type: 'string', default: '1' },
    seed: { type: 'string', default: '1' },
    mb: { type: 'string' },
  },
});
const limitBytes = values.mb ? Number(values.mb) * 1024 * 1024 : Infinity;
const events = values.mb ? Number.MAX_SAFE_INTEGER : Number(values.events);
let written = 0;
let buffer = '';
for (const event of syntheticChained({ events, sessions: Number(values.sessions), seed: Number(values.seed) })) {
  const line = canonicalize(event) + '\n';
  buffer += line;
  written += Buffer.byteLength(line);
  if (buffer.length > 1 << 20) {
    if (!process.stdout.write(buffer)) await once(process.stdout, 'drain');
    buffer = '';
  }
  if (written >= limitBytes) break;
}
process.stdout.write(buffer);
