// The shared adapter contract suite (test/contract/testAdapter.ts) on the Cline CLI fixtures: a
// messages file is one JSON document, so records are messages (injected and grown as such).
import { join } from 'node:path';
import { cline } from '../../adapters/cline/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { ALL, HOME, copySession, growSession, injectMessage } from './support.js';

const marker = `sp-contract-marker-${process.pid}`;

testAdapter(cline, {
  fixtures: ALL,
  home: HOME,
  copy: copySession,
  injectUnknown: (fixture, dir) => ({ ...injectMessage(fixture, dir, { role: 'sp-contract-future-record', marker, nested: { kept: [1, 2, 3] } }), marker }),
  injectBroken: (fixture, dir) => ({ ...injectMessage(fixture, dir, '{"role":"user","content":"cut off'), marker: 'cut off' }),
  incremental: { grow: growSession },
  roundTrip: { options: (home) => ({ home, cwd: join(home, 'project') }) },
});
