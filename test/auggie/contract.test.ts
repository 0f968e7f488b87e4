// The shared adapter contract suite (test/contract/testAdapter.ts) on the Auggie fixtures: a session
// file is one JSON document, so records are exchanges (injected and grown as such).
import { join } from 'node:path';
import { auggie } from '../../adapters/auggie/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { ALL, HOME, copySession, growSession, injectEntry } from './support.js';

const marker = `sp-contract-marker-${process.pid}`;

testAdapter(auggie, {
  fixtures: ALL,
  home: HOME,
  copy: copySession,
  injectUnknown: (fixture, dir) => ({ ...injectEntry(fixture, dir, { sp_contract_future_record: marker, nested: { kept: [1, 2, 3] } }), marker }),
  injectBroken: (fixture, dir) => ({ ...injectEntry(fixture, dir, '{"exchange":{"request_message":"cut off'), marker: 'cut off' }),
  incremental: { grow: growSession },
  roundTrip: { options: (home) => ({ home, cwd: join(home, 'project') }) },
});
