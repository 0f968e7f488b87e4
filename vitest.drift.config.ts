// The drift watch's checks (test/drift/*.drift.ts), run one agent at a time by scripts/drift.mjs;
// never part of `npm test` (they need the newest clients installed in a scratch prefix).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/drift/**/*.drift.ts'],
    testTimeout: 15 * 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
