// The shared adapter contract suite (test/contract/testAdapter.ts) on the Continue CLI fixtures: a
// session file is one JSON document, so records are history items (injected and grown as such).
import { join } from 'node:path';
import { continueCli } from '../../adapters/continue/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { ALL, HOME, copySession, growSession, injectItem } from './support.js';

const marker = `sp-contract-marker-${process.pid}`;

testAdapter(continueCli, {
  fixtures: ALL,
  home: HOME,
  copy: copySession,
  injectUnknown: (fixture, dir) => ({ ...injectItem(fixture, dir, { message: { role: 'sp-contract-future-record', marker, nested: { kept: [1, 2, 3] } } }), marker }),
  injectBroken: (fixture, dir) => ({ ...injectItem(fixture, dir, '{"message":{"role":"user","content":"cut off'), marker: 'cut off' }),
  incremental: { grow: growSession },
  roundTrip: { options: (home) => ({ home, cwd: join(home, 'project') }) },
});
