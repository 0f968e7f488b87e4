// The shared adapter contract suite (test/contract/testAdapter.ts) on the Qoder CLI fixtures.
import { qoder } from '../../adapters/qoder/index.js';
import { testAdapter } from '../contract/testAdapter.js';
import { ALL, HOME } from './support.js';

testAdapter(qoder, {
  fixtures: ALL,
  home: HOME,
  // The recorded cwds (/home/ivan/…) do not exist here: write into the temporary home.
  roundTrip: { options: (home) => ({ home, cwd: home }) },
});
